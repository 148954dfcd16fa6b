// The per-thread algorithms of the GPU MSM's bucket accumulation (msm_kernels.cuh launches them),
// written as __host__ __device__ templates so that the same code runs on the CPU in
// tests/cuda/msm_accumulate_host_test.cpp against the CPU MSM. Host code compiled by g++ can
// include this header (no CUDA syntax outside SNARKD_HD).
//
// Entries: after the digits kernel and the sort, a pass holds E (key, value) pairs sorted by key,
// key = (v − v0)·2^c + |d| for a non-zero digit d of virtual window v, value = virtual point index
// | sign << 31; a zero digit gets the sentinel key 2^key_bits − 1, which no digit can have, so the
// `valid` useful entries come first and the zeros are never touched (small scalars — the split
// MSM's tails — have mostly zero digits).
//
// Chunked accumulation (instead of one thread per bucket, whose warps wait for the fullest of 32
// Poisson-sized buckets and whose few top-window buckets serialise n/2^tb additions): the valid
// entries are cut into C equal chunks of L = ⌈valid/C⌉, one per lane; a lane walks its chunk and
// sums each run of equal keys. Per chunk k, the partial sum of the run holding its first entry
// goes to head[k], that of the run holding its last entry (when it is another run) to tail[k], and
// every run strictly inside the chunk — a whole bucket — straight to the bucket. The fix-up (one
// thread per chunk, for the runs that begin in it) then assembles each bucket that crosses a chunk
// boundary from tail/head partials: its entries [lo, hi) span chunks cs = lo/L .. ce = (hi−1)/L;
// the part in cs is head[cs] when lo starts that chunk, else tail[cs]; the parts in cs+1..ce are
// their heads. Work per lane is equal whatever the key
// distribution, so wide windows (c up to 24) and skewed scalars cost no divergence.
// Buckets that already hold sums (a pass continuing a virtual window, or a later chunk of one MSM
// over chunks) take them in without an addition of their own: every run but a chunk's first starts
// from its bucket's sum, so an inside run is stored as it is and a tail partial includes that sum;
// only a run that begins at its chunk's start (a head) has the fix-up add it.
//
// Two lane kinds: XYZZ (one lane per thread, mixed additions 8M + 2S) and batch-affine (M lanes per
// thread advancing in lock step; one inversion per step shared by the M additions through
// Montgomery's trick, and one binary-GCD inversion (field_inverse.hpp) shared by K threads the
// same way: 5M + 1S per addition plus 1/M of the thread's inverse, the lanes' state in the
// scratch), with every special case exact: a run's first point, infinity bases, doubling (equal
// points) and cancellation (P + (−P)).
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "snarkd/cuda/curve.hpp"
#include "snarkd/cuda/field.hpp"
#include "snarkd/cuda/field_inverse.hpp"
#include "snarkd/cuda/fp2.hpp"

namespace snarkd::cuda::msm_detail {

// Order of the windows in the passes: by virtual window v = w mod W', then copy k = w / W', so a
// pass (a run of this order) touches a contiguous range of virtual windows. The first
// r = W − (t−1)·W' virtual windows have t copies, the others t − 1.
struct Order {
  uint32_t vw = 1, t = 1, r = 1;
  SNARKD_HD uint32_t position(uint32_t w) const {
    const uint32_t v = w % vw, k = w / vw;
    return v < r ? v * t + k : r * t + (v - r) * (t - 1) + k;
  }
  SNARKD_HD uint32_t virtual_window(uint32_t q) const { return q < r * t ? q / t : r + (q - r * t) / (t - 1); }
};

// What one pass covers: order positions [q0, q0 + qc), virtual windows from v0 on.
struct Pass {
  uint32_t q0 = 0, qc = 0, v0 = 0, vc = 0;
  bool continues_v0 = false;   // v0's buckets already hold sums from the previous pass
  bool continues_all = false;  // every bucket holds sums from earlier calls (one MSM over chunks)
};

// Whether the pass adds to virtual window v0 + vl's buckets instead of setting them.
SNARKD_HD bool continues(const Pass& pass, uint32_t vl) {
  return pass.continues_all || (pass.continues_v0 && vl == 0);
}

// The pass that starts at order position q0 and takes at most per_pass positions, ending where a
// virtual window starts when it would otherwise end inside one it did not start in: the next pass
// takes that window whole, so a window's buckets continue from an earlier pass only where its
// copies outnumber per_pass. A continuing bucket costs the batch-affine lanes a full addition per
// run inside their forward kernel (emit_affine): over a precomputed table (2^26 points, t = 11,
// H200) they took 696.1 ms against XYZZ's 405.0 with every pass but the first continuing, and
// 344.7 against XYZZ's 392.9 in passes of whole windows (msm_precomp_impl.cuh, layout_of).
// Without copies every position is a window of its own, so the cut never moves.
inline Pass make_pass(const Order& order, uint32_t windows, uint32_t q0, uint32_t per_pass) {
  Pass pass;
  pass.q0 = q0;
  pass.qc = per_pass < windows - q0 ? per_pass : windows - q0;
  if (q0 + pass.qc < windows) {
    const uint32_t cut = order.position(order.virtual_window(q0 + pass.qc));  // copy 0 of that window
    if (cut > q0) pass.qc = cut - q0;
  }
  pass.v0 = order.virtual_window(q0);
  pass.vc = order.virtual_window(q0 + pass.qc - 1) - pass.v0 + 1;
  pass.continues_v0 = order.position(pass.v0) < q0;  // v0's copy 0 came in an earlier pass
  return pass;
}

// c bits of the canonical scalar s (8 words) starting at bit b (b < 256, c ≤ 24 < 32).
SNARKD_HD uint32_t window_bits_at(const uint32_t* s, uint32_t b, uint32_t c) {
  const uint32_t word = b / 32, off = b % 32;
  uint32_t v = s[word] >> off;
  if (off + c > 32 && word + 1 < 8) v |= s[word + 1] << (32 - off);
  return v & ((1u << c) - 1);
}

// Signed digits of scalar i (Montgomery form; S = cuda::Fr or cuda::bn254::Fr, both 8 words) for
// the windows of the pass → entries at position (q − q0)·n + i: key = (v − v0)·2^c + |d| (the
// sentinel for d = 0), value = (k·n + i) | sign << 31.
template <class S>
SNARKD_HD void digits_of(const S& scalar, size_t i, size_t n, uint32_t c, uint32_t windows, const Order& order,
                         const Pass& pass, uint32_t sentinel, uint32_t* keys, uint32_t* vals) {
  static_assert(S::kWords == 8, "window_bits_at reads 8-word scalars");
  S raw_one = S::zero();
  raw_one.w[0] = 1;
  const S s = scalar * raw_one;  // Montgomery → canonical: x·R · 1 · R⁻¹
  const uint32_t half = 1u << (c - 1);
  uint32_t carry = 0;
  for (uint32_t w = 0; w < windows; ++w) {
    const uint32_t raw = window_bits_at(s.w, w * c, c) + carry;
    const bool neg = raw > half;
    carry = neg ? 1 : 0;
    const uint32_t q = order.position(w);
    if (q < pass.q0 || q >= pass.q0 + pass.qc) continue;
    const uint32_t mag = neg ? (1u << c) - raw : raw;
    const size_t at = size_t(q - pass.q0) * n + i;
    keys[at] = mag == 0 ? sentinel : ((w % order.vw - pass.v0) << c) | mag;
    vals[at] = uint32_t((w / order.vw) * n + i) | (neg ? 0x80000000u : 0u);
  }
}

// First index in keys[0, n) whose key is ≥ key.
SNARKD_HD size_t lower_bound(const uint32_t* keys, size_t n, uint32_t key) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Everything a lane, the fix-up and the host twin need about one pass's accumulation.
template <class F>
struct ChunkArgs {
  const uint32_t* keys;
  const uint32_t* vals;
  const Affine<F>* points;
  const uint32_t* valid;  // device word: number of non-sentinel entries (set after the sort)
  uint32_t c, buckets, chunks;  // buckets per virtual window: 2^(c−1) + 1
  Pass pass;
  Xyzz<F>* bucket_out;  // the pass's buckets: virtual window v0's first, then v0 + 1 .. v0 + vc − 1
  Xyzz<F>* head;        // [chunks]
  Xyzz<F>* tail;        // [chunks]
  // Each bucket's run of entries [run_lo[t], run_hi[t]), t = vl·buckets + j (mark_run_bounds).
  const uint32_t* run_lo = nullptr;
  const uint32_t* run_hi = nullptr;
  Xyzz<F>* group = nullptr;  // [head_groups(chunks)]: heads summed by group (group_heads)
};

// The pass's bucket that `key` names, t = vl·buckets + j for key = vl·2^c + j: the index of the
// run bounds and of the bucket itself in bucket_out.
SNARKD_HD size_t bucket_index(uint32_t key, uint32_t c, uint32_t buckets) {
  return size_t(key >> c) * buckets + (key & ((1u << c) - 1));
}

// Where entry i's run of equal keys starts and ends, for the bucket that key names: the fix-up and
// the bucket threads read a bucket's run from these instead of two binary searches over the
// sorted keys (48 dependent loads per bucket at 2^24 entries: 1.13 ms of fix-up per pass of two
// c = 20 windows on the H200, 0.15 s of a streamed PoRep partition's H MSM). Buckets without
// entries keep lo = hi = 0 (the driver zeroes both arrays first).
SNARKD_HD void mark_run_bounds(const uint32_t* keys, size_t valid, size_t i, uint32_t c, uint32_t buckets,
                               uint32_t* lo, uint32_t* hi) {
  const uint32_t key = keys[i];
  const size_t t = bucket_index(key, c, buckets);
  if (i == 0 || keys[i - 1] != key) lo[t] = uint32_t(i);
  if (i + 1 == valid || keys[i + 1] != key) hi[t] = uint32_t(i + 1);
}

// Chunk length for `valid` entries over `chunks` lanes (≥ 1).
SNARKD_HD size_t chunk_length(size_t valid, uint32_t chunks) {
  const size_t l = (valid + chunks - 1) / chunks;
  return l == 0 ? 1 : l;
}

template <class F>
SNARKD_HD Affine<F> signed_point(const ChunkArgs<F>& a, uint32_t v) {
  const Affine<F> p = a.points[v & 0x7fffffffu];
  return (v >> 31) ? -p : p;
}

template <class F>
SNARKD_HD Xyzz<F>* bucket_of(const ChunkArgs<F>& a, uint32_t key) {
  return a.bucket_out + bucket_index(key, a.c, a.buckets);
}

// Where a lane's finished run goes: the chunk's first run → head, its last (another run) → tail,
// one strictly inside → the bucket itself. `sum` includes the bucket's earlier sum where the bucket
// continues, except for a head (run_start).
enum RunPlace : uint8_t { kHead, kInside, kTail };
template <class F>
SNARKD_HD void emit(const ChunkArgs<F>& a, uint32_t chunk, uint32_t key, const Xyzz<F>& sum, RunPlace place) {
  if (place == kHead) a.head[chunk] = sum;
  else if (place == kTail) a.tail[chunk] = sum;
  else *bucket_of(a, key) = sum;
}

// Where a run that is not its chunk's first starts: its bucket's sum when the bucket continues
// (one 4-coordinate load where a lane's run ends, instead of an addition per bucket in the fix-up:
// adding there by the one lane whose run ended while the other 31 wait measured 2.4× slower on
// the H200, and a copy of the buckets added back by the fix-up cost ≈ 0.2 s of a streamed PoRep
// partition's H MSM).
template <class F>
SNARKD_HD Xyzz<F> run_start(const ChunkArgs<F>& a, uint32_t key) {
  return continues(a.pass, key >> a.c) ? *bucket_of(a, key) : Xyzz<F>::infinity();
}

// Asks for the point behind value v in L1 (both 128-byte lines of a G2 point), so that the next
// step's load hits: a prefetch holds no registers, where loading the next point early would hold
// 24 (G1) or 48 (G2) more across a mixed addition (G2 then spills).
template <class F>
SNARKD_HD void prefetch_point(const ChunkArgs<F>& a, uint32_t v) {
#if defined(__CUDA_ARCH__)
  const char* p = reinterpret_cast<const char*>(a.points + (v & 0x7fffffffu));
  asm volatile("prefetch.global.L1 [%0];" ::"l"(p));
  if constexpr (sizeof(Affine<F>) > 128) asm volatile("prefetch.global.L1 [%0];" ::"l"(p + 128));
#endif
}

// The end of chunk k's entries: min((k + 1)·len, valid).
SNARKD_HD uint32_t chunk_end(size_t k, size_t valid, size_t len) {
  const size_t e = (k + 1) * len;
  return uint32_t(e < valid ? e : valid);
}

// XYZZ lane: chunk `chunk` summed with mixed additions; the next entry's point is prefetched
// before the current addition so the gather overlaps the arithmetic.
template <class F>
SNARKD_HD void chunk_xyzz(const ChunkArgs<F>& a, uint32_t chunk) {
  const size_t valid = *a.valid, len = chunk_length(valid, a.chunks);
  const size_t s = size_t(chunk) * len;
  if (s >= valid) return;
  const size_t e = chunk_end(chunk, valid, len);
  uint32_t cur = a.keys[s];
  bool first = true;
  Xyzz<F> acc = Xyzz<F>::infinity();
  for (size_t i = s; i < e; ++i) {
    const uint32_t key = a.keys[i], v = a.vals[i];
    if (i + 1 < e) prefetch_point(a, a.vals[i + 1]);
    if (key != cur) {
      emit(a, chunk, cur, acc, first ? kHead : kInside);
      first = false, cur = key, acc = run_start(a, key);
    }
    acc = acc.add_mixed(signed_point(a, v));
  }
  emit(a, chunk, cur, acc, first ? kHead : kTail);
}

// ---- batch-affine lanes ----
//
// A thread advances M lanes (chunks) in lock step, one entry each per step, and shares one
// inversion among them by Montgomery's trick: forward, each lane's factor d (P.x − acc.x, or 2·acc.y
// to double) is multiplied into a running product whose value before it (pre) is stored; one
// inversion; backward, 1/d = inv·pre and inv ← inv·d. Per addition: one product forward, two
// backward and three in the affine formula (λ, λ², λ·(x₁ − x₃)) = 6, plus 1/M of the thread's
// inverse, 3 + 170/K products' time with K threads sharing a binary GCD (affine_invert_group; the
// GCD runs at 0.143 G/s against 24.9 G/s products on the H200), against XYZZ's 8M + 2S. M is
// large (64 by default), so the lanes' state cannot stay in registers: it lives in the scratch as
// arrays indexed by the lane's chunk (lane_chunk: a warp's lanes l are adjacent, so loads
// coalesce), and a step's point is gathered again backward (G1) or kept there (kKeepPoint). The
// batch of 16 lanes with an array of lane structs that this replaces paid 11 products of inversion
// per addition and ran 4× slower than XYZZ.

// 1/x for the Montgomery trick's product: the binary GCD (field_inverse.hpp).
template <class F>
SNARKD_HD F invert(const F& x) {
  return inverse_gcd(x);
}

// What a lane does with its step's point: kAdd and kDouble need the shared inversion (of
// P.x − acc.x, resp. 2·acc.y); setting, skipping an infinity and cancelling (P = −acc) need none.
enum AffineAction : uint32_t { kNone = 0, kAdd = 1, kDouble = 2 };

// A lane's small state: the next entry's index, the value of this step's entry (the backward
// step's point), the key of the current run and flags. The chunk's end is recomputed
// (chunk_end) rather than stored, so the value fits the 16 bytes.
struct AffineMeta {
  uint32_t pos, v, cur, flags;
};
constexpr uint32_t kFirstRun = 1, kAccInfinity = 2, kActionShift = 8;

// The entry at a lane's pos, loaded one step ahead (key, value).
struct AffineEntry {
  uint32_t key, val;
};

// Whether the lanes keep an addition's signed point in their state (px, py), stored forward where
// the point is gathered anyway, for the backward step. G2 keeps it: its 192-byte point comes off
// the backward kernel's dependent loads (H100, `snarkd_gpu_bench --only=kinds`, 2^24: 423.2 →
// 387.9 ms with the next entry ahead too). G1 gathers it again: kept, its 96 more bytes a lane each
// way cost more than the second gather (2^26: 471.9 → 501.0 ms; gathered again 466.8).
template <class F>
inline constexpr bool kKeepPoint = !kIsPrimeField<F>;

// The lanes' arrays in the scratch, per lane: accumulator x, y, the Montgomery prefix, the small
// state, the next entry and, where kKeepPoint, the step's signed point; per thread the product of
// its lanes' factors, then its inverse. The next entry and the value in the state take one
// dependent load off each kernel's chain: forward meta → point instead of meta → entry → point,
// backward meta → point (or its kept copy) instead of meta → value → point.
template <class F>
struct AffineState {
  F *x, *y, *pre, *prod;
  AffineMeta* meta;
  AffineEntry* next;
  F *px, *py;  // kKeepPoint only
};

template <class F>
SNARKD_HD constexpr size_t affine_lane_bytes() {
  return (kKeepPoint<F> ? 5 : 3) * sizeof(F) + sizeof(AffineMeta) + sizeof(AffineEntry);
}

template <class F>
SNARKD_HD constexpr size_t affine_state_bytes(size_t lanes, size_t threads) {
  return lanes * affine_lane_bytes<F>() + threads * sizeof(F);
}

template <class F>
SNARKD_HD AffineState<F> affine_state(void* base, size_t lanes, size_t threads) {
  F* f = static_cast<F*>(base);
  F* kept = kKeepPoint<F> ? f + 3 * lanes + threads : nullptr;
  AffineMeta* meta = reinterpret_cast<AffineMeta*>(f + (kKeepPoint<F> ? 5 : 3) * lanes + threads);
  AffineEntry* next = reinterpret_cast<AffineEntry*>(meta + lanes);
  return {f, f + lanes, f + 2 * lanes, f + 3 * lanes, meta, next, kept, kept ? kept + lanes : nullptr};
}

template <class F>
SNARKD_HD Affine<F> lane_acc(const AffineState<F>& s, size_t k, uint32_t flags) {
  return (flags & kAccInfinity) ? Affine<F>::infinity() : Affine<F>{s.x[k], s.y[k]};
}

// A lane's runs start from infinity: the bucket's earlier sum, where it continues, is added as a
// run other than the chunk's first is emitted. Passes where no bucket continues (every plain MSM)
// run the kernels with Continue = false, without that addition: it is a call (msm_kernels.cuh)
// whose registers pushed the forward kernel's G1 code into spills.
template <class F, bool Continue>
SNARKD_HD void emit_affine(const ChunkArgs<F>& a, uint32_t chunk, uint32_t key, const Affine<F>& acc, RunPlace place) {
  Xyzz<F> sum = Xyzz<F>::from_affine(acc);
  if constexpr (Continue)
    if (place != kHead && continues(a.pass, key >> a.c)) sum = *bucket_of(a, key) + sum;
  emit(a, chunk, key, sum, place);
}

// Whether any bucket of the pass may continue (the lanes' kernels' Continue).
SNARKD_HD bool may_continue(const Pass& pass) { return pass.continues_all || pass.continues_v0; }

template <class F>
SNARKD_HD void affine_init(const ChunkArgs<F>& a, const AffineState<F>& s, size_t k, size_t valid, size_t len) {
  const size_t b = k * len;
  AffineMeta m;
  m.pos = uint32_t(b < valid ? b : valid);
  m.v = 0;
  const bool any = m.pos < chunk_end(k, valid, len);
  m.cur = any ? a.keys[m.pos] : 0;
  m.flags = kFirstRun | kAccInfinity;
  s.meta[k] = m;
  s.next[k] = any ? AffineEntry{m.cur, a.vals[m.pos]} : AffineEntry{0, 0};
}

// Lane k's forward step (its chunk ending at `end`): takes its next entry (emitting the run that
// entry ends), settles what needs no inversion and returns whether the lane has a factor d to
// invert. The entry after it is loaded here, for the next step, beside the point's gather.
template <class F, bool Continue>
SNARKD_HD bool affine_forward(const ChunkArgs<F>& a, const AffineState<F>& s, size_t k, uint32_t end, F& d) {
  AffineMeta m = s.meta[k];
  const AffineEntry e = s.next[k];
  const F ax = s.x[k];  // loaded beside the state rather than after the point: one round trip fewer
  uint32_t action = kNone;
  if (m.pos < end) {
    ++m.pos;
    const AffineEntry after = m.pos < end ? AffineEntry{a.keys[m.pos], a.vals[m.pos]} : AffineEntry{0, 0};
    // The point's y is read forward only where it decides something (an infinity base, a run's
    // first point, equal x) or where the lane keeps the point.
    const Affine<F>& p = a.points[e.val & 0x7fffffffu];
    const bool neg = e.val >> 31;
    const F px = p.x;
    m.v = e.val;
    if (e.key != m.cur) {
      emit_affine<F, Continue>(a, uint32_t(k), m.cur, lane_acc(s, k, m.flags), (m.flags & kFirstRun) ? kHead : kInside);
      m.cur = e.key;
      m.flags = kAccInfinity;
    }
    if (px.is_zero() && p.y.is_zero()) {
      // an infinity base adds nothing
    } else if (m.flags & kAccInfinity) {
      s.x[k] = px;
      s.y[k] = neg ? -p.y : p.y;
      m.flags &= ~kAccInfinity;
    } else if (px != ax) {
      d = px - ax;
      if constexpr (kKeepPoint<F>) s.px[k] = px, s.py[k] = neg ? -p.y : p.y;
      action = kAdd;
    } else {
      const F ay = s.y[k], py = neg ? -p.y : p.y;
      d = ay.dbl();
      if (py != ay || d.is_zero()) m.flags |= kAccInfinity;  // P = −acc (or 2-torsion): infinity
      else action = kDouble;
    }
    s.next[k] = after;
  }
  m.flags = (m.flags & ((1u << kActionShift) - 1)) | action << kActionShift;
  s.meta[k] = m;
  return action != kNone;
}

// The signed point of lane k's step, for the backward step: its kept copy, or gathered again.
template <class F>
SNARKD_HD Affine<F> step_point(const ChunkArgs<F>& a, const AffineState<F>& s, size_t k, uint32_t v) {
  if constexpr (kKeepPoint<F>) return {s.px[k], s.py[k]};
  else return signed_point(a, v);
}

// Lane k's backward step, given inv = 1/(the product of this and the earlier lanes' factors):
// acc ← acc + P (or 2·acc), and inv ← inv·d for the lane before.
template <class F>
SNARKD_HD void affine_backward(const ChunkArgs<F>& a, const AffineState<F>& s, size_t k, F& inv) {
  const AffineMeta m = s.meta[k];
  const uint32_t action = m.flags >> kActionShift;
  if (action == kNone) return;
  const F ax = s.x[k], ay = s.y[k];
  const F dinv = inv * s.pre[k];
  F lambda, x3;
  if (action == kAdd) {
    const Affine<F> p = step_point(a, s, k, m.v);
    inv = inv * (p.x - ax);
    lambda = (p.y - ay) * dinv;
    x3 = lambda.sqr() - ax - p.x;
  } else {
    inv = inv * ay.dbl();
    const F xx = ax.sqr();
    lambda = (xx.dbl() + xx) * dinv;
    x3 = lambda.sqr() - ax.dbl();
  }
  s.x[k] = x3;
  s.y[k] = lambda * (ax - x3) - ay;
}

// The lanes run as kernels over the threads (msm_affine.cuh): init once, then per step forward,
// invert, backward — chunk_length(entries, chunks) steps, the most `valid` ≤ entries can need —
// then the lanes' last runs. Thread `thread` of `threads` owns lanes l < M,
// lane l being chunk lane_chunk(l, thread) of a.chunks = threads·M. Split so that each kernel has
// its own register bound: in one kernel the inversion's set G1's at 236 registers (8 warps an
// SM). A step kernel fusing each lane's backward half with its next forward half (one load of its
// state instead of two) measured slower on the H200: G2 2^24 605 against 369 ms, G1 2^26 534–603
// against 532 (its registers: 166 for G1, spills at 128; G2 beyond 255).

// Lane l of thread t: chunk k, which is also the index of the lane's state. Threads go in groups
// of 32 (a warp; the last group may be smaller), each group's lanes l one block of width-many
// chunks: a warp's loads of lane l are coalesced and its M lanes' state is one contiguous range
// (M·32·48 bytes for G1's x) rather than M ranges `threads` lanes apart, each on its own page.
SNARKD_HD size_t lane_chunk(uint32_t l, uint32_t t, uint32_t threads, uint32_t lanes) {
  const uint32_t g0 = t & ~31u, width = threads - g0 < 32 ? threads - g0 : 32;
  return size_t(g0) * lanes + size_t(l) * width + (t - g0);
}

// A range of lane threads, [first, end): the step kernels of one of the two halves that
// msm_affine.cuh runs on two streams. A thread's lanes and its state depend on `threads` alone,
// not on the range, so ranges may run their steps in any order against each other; a range starts
// at a multiple of the inversion's group size K, so no group straddles two.
struct LaneRange {
  uint32_t first, end;
};

// Where the lane threads split into two halves: ⌈threads/2⌉ rounded up to a multiple of `align`
// (a block, itself a multiple of every K), or 0 (no split) when that leaves the second half empty.
SNARKD_HD uint32_t lane_split(uint32_t threads, uint32_t align) {
  const uint32_t half = (threads / 2 + threads % 2 + align - 1) / align * align;
  return half < threads ? half : 0;
}

// Whether the thread has work at `step` (its lanes are empty past the chunk length; lane 0 holds
// its lowest chunk).
template <class F>
SNARKD_HD bool affine_active(const ChunkArgs<F>& a, uint32_t thread, uint32_t threads, uint32_t lanes, size_t step,
                             size_t& len) {
  const size_t valid = *a.valid;
  len = chunk_length(valid, a.chunks);
  return step < len && lane_chunk(0, thread, threads, lanes) * len < valid;
}

template <class F>
SNARKD_HD void affine_init_lanes(const ChunkArgs<F>& a, const AffineState<F>& s, uint32_t thread, uint32_t threads,
                                 uint32_t lanes) {
  size_t len = 0;
  if (!affine_active(a, thread, threads, lanes, 0, len)) return;
  SNARKD_NO_UNROLL
  for (uint32_t l = 0; l < lanes; ++l) affine_init(a, s, lane_chunk(l, thread, threads, lanes), *a.valid, len);
}

// Forward over the thread's lanes; the product of their factors (one if none) to prod[thread].
template <class F, bool Continue>
SNARKD_HD void affine_forward_lanes(const ChunkArgs<F>& a, const AffineState<F>& s, uint32_t thread,
                                    uint32_t threads, uint32_t lanes, size_t step) {
  size_t len = 0;
  if (!affine_active(a, thread, threads, lanes, step, len)) return;
  const size_t valid = *a.valid;
  F prod = F::one();
  bool any = false;
  SNARKD_NO_UNROLL
  for (uint32_t l = 0; l < lanes; ++l) {
    const size_t k = lane_chunk(l, thread, threads, lanes);
    F d;
    if (affine_forward<F, Continue>(a, s, k, chunk_end(k, valid, len), d)) {
      s.pre[k] = prod;
      prod = any ? prod * d : d;
      any = true;
    }
  }
  s.prod[thread] = prod;
}

// Threads [g·K, g·K + K) of those with work at `step` share one inversion, by Montgomery's trick
// once more: their products are multiplied (K − 1 products), inverted once and handed back (2K
// products). The inversion kernel then runs threads/K threads of ≈ 170 products' time each
// instead of `threads`: per thread's inverse ≈ 3 + 170/K products (K = 1: the thread's own).
template <class F, uint32_t K>
SNARKD_HD void affine_invert_group(const ChunkArgs<F>& a, const AffineState<F>& s, uint32_t g, uint32_t threads,
                                   uint32_t lanes, size_t step) {
  F v[K] = {};
  bool on[K] = {};
  F r = F::one();
  bool any = false;
  SNARKD_UNROLL
  for (uint32_t j = 0; j < K; ++j) {
    const uint32_t t = g * K + j;
    size_t len = 0;
    on[j] = t < threads && affine_active(a, t, threads, lanes, step, len);
    if (!on[j]) continue;
    v[j] = s.prod[t];
    s.prod[t] = r;  // the product of the group's earlier factors
    r = any ? r * v[j] : v[j];
    any = true;
  }
  if (!any) return;
  F inv = invert(r);
  SNARKD_UNROLL
  for (uint32_t j = K; j-- > 0;) {
    if (!on[j]) continue;
    const uint32_t t = g * K + j;
    const F before = s.prod[t];
    s.prod[t] = inv * before;
    inv = inv * v[j];
  }
}

// Invert-group sizes the kernels are built for.
SNARKD_HD constexpr bool invert_group_supported(uint32_t k) { return k == 1 || k == 2 || k == 4 || k == 8; }

// f(std::integral_constant<uint32_t, K>{}) for the group size k (host code: the launcher and the
// host twin; k is invert_group_supported, anything else takes 8).
template <class Fn>
inline void with_invert_group(uint32_t k, Fn&& f) {
  switch (k) {
    case 1: f(std::integral_constant<uint32_t, 1>{}); break;
    case 2: f(std::integral_constant<uint32_t, 2>{}); break;
    case 4: f(std::integral_constant<uint32_t, 4>{}); break;
    default: f(std::integral_constant<uint32_t, 8>{}); break;
  }
}

template <class F>
SNARKD_HD void affine_backward_lanes(const ChunkArgs<F>& a, const AffineState<F>& s, uint32_t thread,
                                     uint32_t threads, uint32_t lanes, size_t step) {
  size_t len = 0;
  if (!affine_active(a, thread, threads, lanes, step, len)) return;
  F inv = s.prod[thread];
  SNARKD_NO_UNROLL
  for (uint32_t l = lanes; l-- > 0;) affine_backward(a, s, lane_chunk(l, thread, threads, lanes), inv);
}

// Each lane's last run to head or tail.
template <class F, bool Continue>
SNARKD_HD void affine_finish_lanes(const ChunkArgs<F>& a, const AffineState<F>& s, uint32_t thread,
                                   uint32_t threads, uint32_t lanes) {
  size_t len = 0;
  if (!affine_active(a, thread, threads, lanes, 0, len)) return;
  SNARKD_NO_UNROLL
  for (uint32_t l = 0; l < lanes; ++l) {
    const size_t k = lane_chunk(l, thread, threads, lanes);
    const AffineMeta m = s.meta[k];
    if (k * len < *a.valid)
      emit_affine<F, Continue>(a, uint32_t(k), m.cur, lane_acc(s, k, m.flags), (m.flags & kFirstRun) ? kHead : kTail);
  }
}

// Heads summed in groups of kHeadGroup chunks before the fix-up, so that a run spanning m chunks
// costs its thread ≤ 2·kHeadGroup + m/kHeadGroup additions instead of m: the top window's few
// bits make runs of n/2^14 entries (2^26: 4096), and with the batch-affine lanes' 2^22 chunks
// one thread in 128 added 128 heads in a row (0.2 s of a 2^26 G1 MSM on the H200).
constexpr uint32_t kHeadGroup = 16;

SNARKD_HD size_t head_groups(size_t chunks) { return (chunks + kHeadGroup - 1) / kHeadGroup; }

// Group g: Σ head[j] over its chunks when all of them start inside one run (their first entries
// share a key: the first and the last chunk's suffice, the keys being sorted), which makes every
// head a piece of that run; finish_run reads a group only then.
template <class F>
SNARKD_HD void group_heads(const ChunkArgs<F>& a, uint32_t g) {
  const size_t valid = *a.valid, len = chunk_length(valid, a.chunks);
  const size_t j0 = size_t(g) * kHeadGroup, j1 = j0 + kHeadGroup - 1;
  if (j1 >= a.chunks || j1 * len >= valid || a.keys[j0 * len] != a.keys[j1 * len]) return;
  Xyzz<F> sum = a.head[j0];
  for (size_t j = j0 + 1; j <= j1; ++j) sum += a.head[j];
  a.group[g] = sum;
}

// The fix-up, after every lane: chunk k's thread finishes the runs that begin in chunk k and were
// left as partials — the run at the chunk's start when it begins there (head[k], which lacks the
// bucket's earlier sum) and the chunk's last run when it is another (tail[k]) — adding the heads
// of the chunks each reaches into. Runs strictly inside a chunk were stored by their lane; a run
// from an earlier chunk belongs to that chunk's thread. About one addition per chunk, where one
// thread per bucket (2^20 at c = 20 and two windows) had a boundary bucket in every warp to add
// while the other lanes waited: 1.06 ms per pass on the H200, 0.14 s of a streamed PoRep partition.
template <class F>
SNARKD_HD void finish_run(const ChunkArgs<F>& a, uint32_t key, Xyzz<F> sum, size_t k, size_t len, bool head) {
  const size_t ce = (a.run_hi[bucket_index(key, a.c, a.buckets)] - 1) / len;
  for (size_t j = k + 1; j <= ce;) {
    if (j % kHeadGroup == 0 && j + kHeadGroup - 1 <= ce) {  // a whole group inside the run
      sum += a.group[j / kHeadGroup];
      j += kHeadGroup;
    } else {
      sum += a.head[j++];
    }
  }
  Xyzz<F>* out = bucket_of(a, key);
  *out = head && continues(a.pass, key >> a.c) ? *out + sum : sum;
}

template <class F>
SNARKD_HD void fixup_chunk(const ChunkArgs<F>& a, uint32_t k) {
  const size_t valid = *a.valid, len = chunk_length(valid, a.chunks);
  const size_t s = size_t(k) * len;
  if (s >= valid) return;
  const size_t e = chunk_end(k, valid, len);
  const uint32_t first = a.keys[s], last = a.keys[e - 1];
  if (a.run_lo[bucket_index(first, a.c, a.buckets)] == s) finish_run(a, first, a.head[k], k, len, true);
  if (last != first) finish_run(a, last, a.tail[k], k, len, false);
}

// Bucket t of the pass (t = vl·buckets + j) without entries: infinity, unless it continues.
template <class F>
SNARKD_HD void clear_if_empty(const ChunkArgs<F>& a, uint32_t t) {
  if (a.run_lo[t] == a.run_hi[t] && !continues(a.pass, t / a.buckets))
    a.bucket_out[t] = Xyzz<F>::infinity();
}

}  // namespace snarkd::cuda::msm_detail
