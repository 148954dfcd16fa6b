// NTT organised for the cache (a Bailey / four-step decomposition without transposes), with
// radix-4 butterflies.
//
// The transform of n = 2^L points is the radix-2 network: level S (butterfly half-width 2^S)
// pairs i and i + 2^S with twiddle ω_{2^(S+1)}^(i mod 2^S). Decimation in frequency (DIF) runs
// the levels from S = L−1 down to 0 on natural-order input and leaves the output bit-reversed;
// decimation in time (DIT) runs them upwards, from bit-reversed input to natural output. The
// kernels run two levels per sweep (radix 4: each element loaded and stored once per two
// levels), with one radix-2 level when a pass has an odd count.
//
// Levels are grouped into passes over index bit ranges [lo, hi) of at most pass_log bits. In a
// pass, the elements that differ only in bits [lo, hi) form independent groups of 2^(hi−lo)
// ("columns": element c + 2^lo·r of each block of 2^hi, for column c < 2^lo), and the pass's
// levels act inside each group, so one pass reads and writes the data once (pass_log is a
// Domain parameter, default 12: 128 KiB per group, resident in the 1.25 MiB L2). The pass with
// lo = 0 works on contiguous blocks; the others gather kColumnWidth columns into a buffer,
// transform them there and scatter them back (columns are strided by a power of two, which
// would thrash the cache sets if transformed in place). The twiddles of column c at its level
// s are ω_{2^(lo+s+1)}^(c + 2^lo·j): up to 2^20 points they are copied from the domain's table
// of ω^k (Twiddles::full); above, each is derived as w_s · ω_{2^(s+1)}^j with
// w_s = ω_{2^(lo+s+1)}^c, one multiplication from the small per-domain table, so no table
// grows with n.
//
// Cost at 2^20 (two passes of 10 levels, callgrind, one thread): 5·2^18 radix-4 groups per
// pass of 4 multiplications, 8 additions/subtractions (≈740 instructions each), minus the
// multiplications at twiddle 1, plus one permutation: ≈2.03·10^9 instructions.
//
// This file holds the portable kernels and the entry points; where the Domain chose the AVX-512
// IFMA kernels (and the size allows them) the passes run in ntt_avx512.cpp instead, on the
// same schedule with eight columns or blocks per lane vector.
#include "snarkd/poly/ntt.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "snarkd/ff/fr_avx512.hpp"
#include "snarkd/poly/ntt_detail.hpp"
#include "snarkd/poly/permute.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::poly {

// Sizes up to 2^32 elements of 32 bytes must be representable.
static_assert(sizeof(size_t) >= 8, "poly needs a 64-bit size_t");

namespace detail {

size_t task_parts() { return 4 * ThreadPool::global().size(); }

std::vector<Pass> plan(uint32_t log_n, uint32_t count) {
  std::vector<Pass> passes;
  if (log_n == 0) return passes;
  uint32_t lo = 0;
  for (uint32_t k = 0; k < count; ++k) {
    const uint32_t bits = log_n / count + (k < log_n % count ? 1 : 0);
    passes.push_back({lo, lo + bits});
    lo += bits;
  }
  return passes;
}

}  // namespace detail

namespace {

using detail::Pass;
using detail::task_parts;

// Columns gathered per pass item: 8 × 32 bytes = 4 cache lines read per row.
constexpr size_t kColumnWidth = 8;

// w^k for k < count, in parallel (one multiplication each after a pow per chunk).
template <class F>
std::vector<F> powers(const F& w, size_t count) {
  std::vector<F> out(count);
  auto body = [&](size_t begin, size_t end) {
    F f = w.pow(uint64_t{begin});
    for (size_t i = begin; i < end; ++i) {
      out[i] = f;
      f = f * w;
    }
  };
  parallel_for(count, body, task_parts());
  return out;
}

// `avx512`: the AVX-512 kernels will run the column passes (they build their own twiddles in
// lanes), so no `full` table; instead the radix-2^52 copy of the leaf table.
template <class F>
TwiddlesT<F> make_twiddles(const F& root, uint32_t log_n, uint32_t pass_log, bool avx512) {
  TwiddlesT<F> t;
  t.roots.resize(log_n + 1);
  t.roots[log_n] = root;
  for (uint32_t m = log_n; m > 0; --m) t.roots[m - 1] = t.roots[m] * t.roots[m];
  t.leaf_log = std::min(log_n, pass_log);
  t.leaf.resize((size_t{1} << t.leaf_log) - 1);
  for (uint32_t s = 0; s < t.leaf_log; ++s) {
    F* level = t.leaf.data() + (size_t{1} << s) - 1;
    level[0] = F::one();
    for (size_t j = 1; j < (size_t{1} << s); ++j) level[j] = level[j - 1] * t.roots[s + 1];
  }
  if constexpr (kHasIfmaKernels<F>) {
    if (avx512) {
      t.leaf52 = detail::avx512_leaf(t, std::min(t.leaf_log, detail::kAvx512MaxPassLog));
      return t;
    }
  }
  if (log_n > t.leaf_log && log_n - 1 <= DomainT<F>::kMaxFullTableLog)
    t.full = powers(root, size_t{1} << (log_n - 1));
  return t;
}

// Butterflies go two levels at a time (radix 4): the four elements j, j+q, j+2q, j+3q of a
// block of 4q go through both levels in registers, halving the loads and stores of the radix-2
// network (same operations, same twiddles). w0, w1 are the upper level's twiddles (half-width
// 2q) for pairs (0, 2q) and (q, 3q); w2 the lower level's (half-width q).
// DIF: level 2q, then level q. 4 multiplications, 4 additions, 4 subtractions.
template <class F>
[[gnu::always_inline]] inline void dif4(F* x, size_t q, const F& w0, const F& w1,
                                        const F& w2) {
  const F a0 = x[0], a1 = x[q], a2 = x[2 * q], a3 = x[3 * q];
  const F b0 = a0 + a2, b1 = a1 + a3, b2 = (a0 - a2) * w0, b3 = (a1 - a3) * w1;
  x[0] = b0 + b1;
  x[q] = (b0 - b1) * w2;
  x[2 * q] = b2 + b3;
  x[3 * q] = (b2 - b3) * w2;
}
// DIT: level q (twiddle w2), then level 2q (w0 for pair (0, 2q), w1 for pair (q, 3q)).
template <class F>
[[gnu::always_inline]] inline void dit4(F* x, size_t q, const F& w0, const F& w1,
                                        const F& w2) {
  const F a0 = x[0], a2 = x[2 * q], c1 = x[q] * w2, c3 = x[3 * q] * w2;
  const F b0 = a0 + c1, b1 = a0 - c1, d2 = (a2 + c3) * w0, d3 = (a2 - c3) * w1;
  x[0] = b0 + d2;
  x[2 * q] = b0 - d2;
  x[q] = b1 + d3;
  x[3 * q] = b1 - d3;
}
// j = 0 of a radix-4 group when the level twiddles there are 1 (w0 = w2 = 1; w1 = ω_4 is not):
// one multiplication instead of four.
template <bool kDif, class F>
[[gnu::always_inline]] inline void first4(F* x, size_t q, const F& w1) {
  const F a0 = x[0], a1 = x[q], a2 = x[2 * q], a3 = x[3 * q];
  if constexpr (kDif) {
    const F b0 = a0 + a2, b1 = a1 + a3, b2 = a0 - a2, b3 = (a1 - a3) * w1;
    x[0] = b0 + b1;
    x[q] = b0 - b1;
    x[2 * q] = b2 + b3;
    x[3 * q] = b2 - b3;
  } else {
    const F b0 = a0 + a1, b1 = a0 - a1, b2 = a2 + a3, b3 = (a2 - a3) * w1;
    x[0] = b0 + b2;
    x[2 * q] = b0 - b2;
    x[q] = b1 + b3;
    x[3 * q] = b1 - b3;
  }
}

// One radix-2 level of half-width h over x[0, len) (used once when the level count is odd).
template <class F>
void radix2_level(F* x, size_t len, size_t h, const F* t, bool unit_first, bool dif) {
  for (F* blk = x; blk != x + len; blk += 2 * h) {
    for (size_t j = 0; j < h; ++j) {
      const F u = blk[j], v = blk[j + h];
      if (j == 0 && unit_first) {
        blk[0] = u + v;
        blk[h] = u - v;
      } else if (dif) {
        blk[j] = u + v;
        blk[j + h] = (u - v) * t[j];
      } else {
        const F vt = v * t[j];
        blk[j] = u + vt;
        blk[j + h] = u - vt;
      }
    }
  }
}

// Levels s and s − 1 (half-widths 2q and q) over x[0, len) in one sweep.
template <bool kDif, class F>
void radix4_levels(F* x, size_t len, size_t q, const F* tw, bool unit_first) {
  const F* t_hi = tw + 2 * q - 1;  // level with half-width 2q
  const F* t_lo = tw + q - 1;      // level with half-width q
  for (F* blk = x; blk != x + len; blk += 4 * q) {
    size_t j = 0;
    if (unit_first) {
      first4<kDif>(blk, q, t_hi[q]);
      j = 1;
    }
    for (; j < q; ++j) {
      if constexpr (kDif)
        dif4(blk + j, q, t_hi[j], t_hi[j + q], t_lo[j]);
      else
        dit4(blk + j, q, t_hi[j], t_hi[j + q], t_lo[j]);
    }
  }
}

// DIF on x[0, 2^log_len) with per-level twiddles tw (level s at tw + 2^s − 1), levels from the
// top down; an odd top level goes alone. unit_first says that each level's twiddle 0 is 1
// (true for the standard table), saving those multiplications.
template <class F>
void dif_kernel(F* x, uint32_t log_len, const F* tw, bool unit_first) {
  const size_t len = size_t{1} << log_len;
  uint32_t s = log_len;
  if (s % 2 == 1) {
    --s;
    radix2_level(x, len, size_t{1} << s, tw + (size_t{1} << s) - 1, unit_first, true);
  }
  for (; s >= 2; s -= 2) radix4_levels<true>(x, len, size_t{1} << (s - 2), tw, unit_first);
}

// DIT counterpart: the same butterflies transposed, levels upwards (an odd bottom level alone).
template <class F>
void dit_kernel(F* x, uint32_t log_len, const F* tw, bool unit_first) {
  const size_t len = size_t{1} << log_len;
  uint32_t s = 0;
  if (log_len % 2 == 1) {
    radix2_level(x, len, 1, tw, unit_first, false);
    s = 1;
  }
  for (; s + 2 <= log_len; s += 2) radix4_levels<false>(x, len, size_t{1} << s, tw, unit_first);
}

enum class Direction { kDif, kDit };

template <class F>
void run_kernel(Direction dir, F* x, uint32_t log_len, const F* tw, bool unit_first) {
  if (dir == Direction::kDif)
    dif_kernel(x, log_len, tw, unit_first);
  else
    dit_kernel(x, log_len, tw, unit_first);
}

// TwiddlesT<F> of column c of a pass over bits [lo, lo + a), given w = ω_{2^(lo+a)}^c: level s
// gets w_s·leaf_s[j] with w_(a−1) = w and w_(s−1) = w_s² (2^a − 1 + a muls for 2^a elements).
template <class F>
void column_twiddles(const TwiddlesT<F>& tw, uint32_t a, F w, F* out) {
  for (uint32_t s = a; s-- > 0;) {
    const size_t h = size_t{1} << s;
    const F* leaf = tw.leaf.data() + h - 1;
    F* level = out + h - 1;
    level[0] = w;
    for (size_t j = 1; j < h; ++j) level[j] = w * leaf[j];
    w = w * w;
  }
}

// The same twiddles copied from tw.full: level s of column c uses
// ω_{2^(lo+s+1)}^(c + 2^lo·j) = full[(c + 2^lo·j) · 2^(log_n − lo − s − 1)].
template <class F>
void column_twiddles_from_table(const TwiddlesT<F>& tw, uint32_t log_n, Pass p, size_t c, F* out) {
  for (uint32_t s = 0; s < p.hi - p.lo; ++s) {
    const size_t h = size_t{1} << s;
    const uint32_t shift = log_n - p.lo - s - 1;
    F* level = out + h - 1;
    for (size_t j = 0; j < h; ++j) level[j] = tw.full[(c + (j << p.lo)) << shift];
  }
}

// A pass with lo > 0: items are (block of 2^hi, group of kColumnWidth adjacent columns).
template <class F>
void column_pass(const TwiddlesT<F>& tw, std::span<F> x, uint32_t log_n, Pass p, Direction dir) {
  const uint32_t a = p.hi - p.lo;
  const size_t rows = size_t{1} << a, stride = size_t{1} << p.lo;
  const size_t width = std::min(kColumnWidth, stride);
  const size_t groups = stride / width;
  const F& step = tw.roots[p.hi];  // column c's top twiddle base is step^c
  auto body = [&](size_t begin, size_t end) {
    std::vector<F> buf(width * rows), col_tw(rows);
    for (size_t item = begin; item < end; ++item) {
      const size_t c0 = (item % groups) * width;
      F* base = x.data() + ((item / groups) << p.hi) + c0;
      for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < width; ++c) buf[c * rows + r] = base[r * stride + c];
      const bool table = !tw.full.empty();
      F w = table ? F::one() : step.pow(uint64_t{c0});  // derived twiddles only
      for (size_t c = 0; c < width; ++c) {
        if (table) {
          column_twiddles_from_table(tw, log_n, p, c0 + c, col_tw.data());
        } else {
          column_twiddles(tw, a, w, col_tw.data());
          w = w * step;
        }
        run_kernel(dir, buf.data() + c * rows, a, col_tw.data(), false);
      }
      for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < width; ++c) base[r * stride + c] = buf[c * rows + r];
    }
  };
  parallel_for((x.size() >> p.hi) * groups, body, task_parts());
}

// The pass with lo = 0: contiguous blocks, standard twiddles, optional fused scaling.
template <class F>
void block_pass(const TwiddlesT<F>& tw, std::span<F> x, uint32_t a, Direction dir, const F* scale) {
  const size_t len = size_t{1} << a;
  auto body = [&](size_t begin, size_t end) {
    for (size_t b = begin; b < end; ++b) {
      F* blk = x.data() + b * len;
      run_kernel(dir, blk, a, tw.leaf.data(), true);
      if (scale)
        for (size_t i = 0; i < len; ++i) blk[i] = blk[i] * *scale;
    }
  };
  parallel_for(x.size() >> a, body, task_parts());
}

// The Domain decided at construction: it built leaf52 exactly when its transforms run on the
// AVX-512 kernels (IFMA chosen and avx512_applies).
template <class F>
bool uses_avx512(const DomainT<F>& d) { return !d.forward_twiddles().leaf52.empty(); }

// The whole network with the domain's kernels; scale (may be null) multiplies every output.
// The portable schedule takes as few passes as leaf_log allows.
template <class F>
void transform(const DomainT<F>& d, const TwiddlesT<F>& tw, std::span<F> x, Direction dir,
               const Scalar<F>* scale) {
  const uint32_t log_n = d.log_size();
  if constexpr (kHasIfmaKernels<F>) {
    if (uses_avx512(d))
      return detail::avx512_transform(tw, x, log_n, dir == Direction::kDif, scale, nullptr);
  }
  const uint32_t count = log_n == 0 ? 0 : (log_n + tw.leaf_log - 1) / tw.leaf_log;
  std::vector<Pass> passes = detail::plan(log_n, count);
  if (dir == Direction::kDif) std::reverse(passes.begin(), passes.end());
  for (const Pass& p : passes) {
    if (p.lo == 0)
      block_pass(tw, x, p.hi, dir, scale);
    else
      column_pass(tw, x, log_n, p, dir);
  }
}

template <class F>
void check_size(const DomainT<F>& d, size_t size, const char* what) {
  if (size != d.size())
    throw InvalidArgument(std::string(what) + ": data has " + std::to_string(size) +
                          " elements but the domain has " + std::to_string(d.size()));
}

template <class F>
void check_shift(const F& shift, const char* what) {
  if (shift.is_zero()) throw InvalidArgument(std::string(what) + ": coset shift is zero");
}

}  // namespace

namespace {

// kAuto → the AVX-512 kernels where the CPU has IFMA, unless SNARKD_NTT_KERNELS=portable (for
// A/B runs of whole programs); SNARKD_NTT_KERNELS=avx512 insists on them. A field without those
// kernels runs the portable ones under kAuto whatever the variable says (a whole-program A/B
// run may prove on either curve), and rejects an explicit kAvx512Ifma.
template <class F>
NttKernels resolve_kernels(NttKernels asked) {
  if constexpr (!kHasIfmaKernels<F>) {
    if (asked == NttKernels::kAvx512Ifma)
      throw InvalidArgument("Domain: no AVX-512 IFMA kernels for this field");
    return NttKernels::kPortable;
  }
  if (asked == NttKernels::kAuto) {
    const char* env = std::getenv("SNARKD_NTT_KERNELS");
    const std::string v = env ? env : "";
    if (v.empty() || v == "auto")
      return ff::avx512::ifma_supported() ? NttKernels::kAvx512Ifma : NttKernels::kPortable;
    if (v == "portable") return NttKernels::kPortable;
    if (v != "avx512")
      throw InvalidArgument("SNARKD_NTT_KERNELS=" + v + ": expected auto, portable or avx512");
    asked = NttKernels::kAvx512Ifma;
  }
  if (asked == NttKernels::kAvx512Ifma && !ff::avx512::ifma_supported())
    throw InvalidArgument("Domain: AVX-512 IFMA kernels requested but this CPU lacks AVX-512 IFMA");
  return asked;
}

}  // namespace

template <class F>
DomainT<F>::DomainT(uint32_t log_n, uint64_t generator, uint32_t pass_log, NttKernels kernels)
    : log_n_(log_n), generator_(generator), kernels_(resolve_kernels<F>(kernels)) {
  if (log_n > kMaxLogSize)
    throw InvalidArgument("Domain: log_n = " + std::to_string(log_n) + " exceeds " +
                          std::to_string(kMaxLogSize) + ", the 2-adicity of the field");
  if (pass_log < 1 || pass_log > kMaxPassLog)
    throw InvalidArgument("Domain: pass_log = " + std::to_string(pass_log) + " is not in [1, " +
                          std::to_string(kMaxPassLog) + "]");
  const F omega = F::root_of_unity(log_n, generator);
  // Exact order 2^log_n: ω^(2^(log_n−1)) = −1 (or ω = 1 for log_n = 0).
  F half = omega;
  for (uint32_t i = 1; i < log_n; ++i) half = half * half;
  if (log_n == 0 ? !omega.is_one() : half != -F::one())
    throw InvalidArgument("Domain: generator " + std::to_string(generator) +
                          " gives no root of unity of order 2^" + std::to_string(log_n) +
                          " (it must be a quadratic non-residue mod r, e.g. 5 or 7)");
  const bool avx512 = kernels_ == NttKernels::kAvx512Ifma &&
                      detail::avx512_applies(log_n, std::min(log_n, pass_log));
  forward_ = make_twiddles(omega, log_n, pass_log, avx512);
  inverse_ = make_twiddles(omega.inverse(), log_n, pass_log, avx512);
  size_inv_ = F::from_u64(uint64_t{1} << log_n).inverse();
}

template <class F>
void ntt_nr(const DomainT<F>& d, Data<F> data) {
  check_size(d, data.size(), "ntt_nr");
  transform(d, d.forward_twiddles(), data, Direction::kDif, nullptr);
}

template <class F>
void ntt_rn(const DomainT<F>& d, Data<F> data) {
  check_size(d, data.size(), "ntt_rn");
  transform(d, d.forward_twiddles(), data, Direction::kDit, nullptr);
}

template <class F>
void intt_nr(const DomainT<F>& d, Data<F> data) {
  check_size(d, data.size(), "intt_nr");
  transform(d, d.inverse_twiddles(), data, Direction::kDif, &d.size_inv());
}

template <class F>
void intt_rn(const DomainT<F>& d, Data<F> data) {
  check_size(d, data.size(), "intt_rn");
  transform(d, d.inverse_twiddles(), data, Direction::kDit, &d.size_inv());
}

template <class F>
void ntt(const DomainT<F>& d, Data<F> data) {
  check_size(d, data.size(), "ntt");
  transform(d, d.forward_twiddles(), data, Direction::kDif, nullptr);
  detail::permute(data, d.log_size(), {});
}

template <class F>
void intt(const DomainT<F>& d, Data<F> data) {
  check_size(d, data.size(), "intt");
  transform(d, d.inverse_twiddles(), data, Direction::kDif, &d.size_inv());
  detail::permute(data, d.log_size(), {});
}

// Evaluations at shift·ω^j are the NTT of c_i·shift^i. Portable kernels: the scaling rides on
// the permutation that DIT needs anyway (factor indexed by where the value comes from). AVX-512:
// it rides on the DIF's first (top) pass, in lanes, and the permutation moves values only.
template <class F>
void coset_ntt(const DomainT<F>& d, Data<F> data, const Scalar<F>& shift) {
  check_size(d, data.size(), "coset_ntt");
  check_shift(shift, "coset_ntt");
  if constexpr (kHasIfmaKernels<F>) {
    if (uses_avx512(d)) {
      const detail::Geometric powers{F::one(), shift};
      detail::avx512_transform(d.forward_twiddles(), data, d.log_size(), true, nullptr, &powers);
      detail::permute(data, d.log_size(), {});
      return;
    }
  }
  detail::permute(data, d.log_size(), {detail::ScalingKind::kBySource, F::one(), shift});
  transform(d, d.forward_twiddles(), data, Direction::kDit, nullptr);
}

// Inverse of coset_ntt: c_i = n⁻¹·shift^(−i)·(Σ_j a_j ω^(−ij)). Portable kernels: n⁻¹·shift^(−i)
// is applied by the permutation after the DIF (factor indexed by where the value goes).
// AVX-512: permutation first, then DIT, whose last (top) pass applies the factors as it stores.
template <class F>
void coset_intt(const DomainT<F>& d, Data<F> data, const Scalar<F>& shift) {
  check_size(d, data.size(), "coset_intt");
  check_shift(shift, "coset_intt");
  if constexpr (kHasIfmaKernels<F>) {
    if (uses_avx512(d)) {
      const detail::Geometric powers{d.size_inv(), shift.inverse()};
      detail::permute(data, d.log_size(), {});
      detail::avx512_transform(d.inverse_twiddles(), data, d.log_size(), false, nullptr,
                               &powers);
      return;
    }
  }
  transform(d, d.inverse_twiddles(), data, Direction::kDif, nullptr);
  detail::permute(data, d.log_size(),
                  {detail::ScalingKind::kByDestination, d.size_inv(), shift.inverse()});
}

namespace {

template <class F>
void bit_reverse_impl(std::span<F> data) {
  const size_t n = data.size();
  if (n == 0 || (n & (n - 1)) != 0)
    throw InvalidArgument("bit_reverse: size " + std::to_string(n) + " is not a power of two");
  detail::permute(data, static_cast<uint32_t>(__builtin_ctzll(n)), {});
}

template <class F>
void scale_by_powers_impl(std::span<F> data, const F& c, const F& g) {
  auto body = [&](size_t begin, size_t end) {
    F f = c * g.pow(uint64_t{begin});
    for (size_t i = begin; i < end; ++i) {
      data[i] = data[i] * f;
      f = f * g;
    }
  };
  parallel_for(data.size(), body, task_parts());
}

}  // namespace

void bit_reverse(std::span<Fr> data) { bit_reverse_impl(data); }
void bit_reverse(std::span<ff::bn254::Fr> data) { bit_reverse_impl(data); }

void scale_by_powers(std::span<Fr> data, const Fr& c, const Fr& g) {
  scale_by_powers_impl(data, c, g);
}
void scale_by_powers(std::span<ff::bn254::Fr> data, const ff::bn254::Fr& c,
                     const ff::bn254::Fr& g) {
  scale_by_powers_impl(data, c, g);
}

#define SNARKD_POLY_INSTANTIATE(F)                                           \
  template class DomainT<F>;                                                 \
  template void ntt<F>(const DomainT<F>&, Data<F>);                          \
  template void intt<F>(const DomainT<F>&, Data<F>);                         \
  template void coset_ntt<F>(const DomainT<F>&, Data<F>, const Scalar<F>&);  \
  template void coset_intt<F>(const DomainT<F>&, Data<F>, const Scalar<F>&); \
  template void ntt_nr<F>(const DomainT<F>&, Data<F>);                       \
  template void ntt_rn<F>(const DomainT<F>&, Data<F>);                       \
  template void intt_nr<F>(const DomainT<F>&, Data<F>);                      \
  template void intt_rn<F>(const DomainT<F>&, Data<F>);
SNARKD_POLY_INSTANTIATE(ff::Fr)
SNARKD_POLY_INSTANTIATE(ff::bn254::Fr)
#undef SNARKD_POLY_INSTANTIATE

}  // namespace snarkd::poly
