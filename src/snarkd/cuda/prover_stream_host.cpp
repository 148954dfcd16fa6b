// Host side of the streamed GPU prover (prover_stream.hpp): the split NTT's twiddles, the step
// layouts, phase timing, and the steps' drivers (which kernels, in which order, where the host
// waits). Host field code lives here (g++), the kernels in prover_stream.cu.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "snarkd/cuda/h_phase.hpp"
#include "snarkd/cuda/msm.hpp"
#include "snarkd/cuda/prover_stream.hpp"
#include "snarkd/cuda/scratch_bound.hpp"
#include "snarkd/groth16/qap.hpp"
#include "snarkd/util/cancel.hpp"
#include "snarkd/util/env.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {

namespace {

uint64_t align256(uint64_t b) { return (b + 255) / 256 * 256; }

// Exponents below n/2 (the layers' twiddles): lo_bits of them in the low table.
uint32_t twiddle_bits(uint32_t log_n) { return log_n ? log_n - 1 : 0; }
uint32_t lo_bits_of(uint32_t log_n) { return (twiddle_bits(log_n) + 1) / 2; }

void append_powers(std::vector<ff::Fr>& out, const ff::Fr& x, uint64_t count) {
  ff::Fr p = ff::Fr::one();
  for (uint64_t k = 0; k < count; ++k, p *= x) out.push_back(p);
}

}  // namespace

uint32_t split_depth(groth16::KeyFlavour flavour, uint32_t log_n) {
  return flavour == groth16::KeyFlavour::kBellperson && log_n >= 2 ? 2 : 0;
}

uint64_t split_twiddles_bytes(uint32_t log_n) {
  const uint32_t lo = lo_bits_of(log_n), hi = twiddle_bits(log_n) - lo;
  return 2 * ((uint64_t{1} << lo) + (uint64_t{1} << hi)) * sizeof(Fr);
}

SplitTwiddleHost split_twiddles(uint32_t log_n, uint32_t depth, uint64_t generator, const ff::Fr& coset_shift) {
  if (depth > 3 || depth > log_n) throw InvalidArgument("split_twiddles: depth " + std::to_string(depth));
  SplitTwiddleHost t;
  t.log_n = log_n;
  t.depth = depth;
  t.lo_bits = lo_bits_of(log_n);
  const uint32_t hi = twiddle_bits(log_n) - t.lo_bits;
  const ff::Fr omega = ff::Fr::root_of_unity(log_n, generator), omega_inv = omega.inverse();
  append_powers(t.values, omega, uint64_t{1} << t.lo_bits);
  t.hi_offset = t.values.size();
  append_powers(t.values, omega.pow(uint64_t{1} << t.lo_bits), uint64_t{1} << hi);
  t.inv_offset = t.values.size();
  append_powers(t.values, omega_inv, uint64_t{1} << t.lo_bits);
  append_powers(t.values, omega_inv.pow(uint64_t{1} << t.lo_bits), uint64_t{1} << hi);
  t.constants.log_n = log_n;
  t.constants.depth = depth;
  t.constants.half = Fr::from_host(ff::Fr::from_u64(2).inverse());
  for (uint32_t b = 0; b < (1u << depth); ++b) {
    const ff::Fr sb = coset_shift.pow(stream_ops::reverse_bits(b, depth));
    t.constants.block_shift[b] = Fr::from_host(sb);
    t.constants.block_shift_inv[b] = Fr::from_host(sb.inverse());
  }
  return t;
}

stream_ops::SplitTwiddles SplitTwiddleHost::view(const Fr* base) const {
  stream_ops::SplitTwiddles v = constants;
  const size_t lo = size_t{1} << lo_bits;
  v.omega = {base, base + hi_offset, lo_bits};
  v.omega_inv = {base + inv_offset, base + inv_offset + lo, lo_bits};
  return v;
}

}  // namespace snarkd::cuda

namespace snarkd::cuda {

namespace {

// Sort entries per Pippenger pass in the streamed MSMs: 2^24 keeps a pass's sort buffers and
// CUB's temporary near 0.4 GiB (2^26: 1.5 GiB; msm() allows 2^28) at the cost of re-reading a
// chunk's scalars once per pass (7 passes of 2 windows for a chunk of 2^22..2^23 points instead of
// 2). The 1.1 GiB it saves in both the H MSM's kept range and the witness MSMs' step is what lets
// the two run side by side on a 16 GiB card at PoRep size (13.6 GiB of working gap beside the
// streaming slots).
// SNARKD_STREAM_PASS_MI=1..256 overrides it in units of 2^20 entries (A/B runs; 24: passes of 3
// windows of a 2^23-point chunk).
uint64_t stream_pass_entries() {
  static const uint64_t e = env_u64("SNARKD_STREAM_PASS_MI", 16, 1, 256) << 20;
  return e;
}

// Chunked XYZZ lanes per pass of the streamed MSMs, in waves of resident threads
// (WindowLayout::lane_waves): 2, where the MSM's default is 4. Each lane costs the fix-up about
// one addition; the H MSM's shape alone (2^27 points in chunks of 2^23, passes of 2 windows,
// `snarkd_gpu_bench --only=stream`, H200) took 1011.9 / 1021.1 / 1046.6 / 1055.7 ms at 1 / 2 /
// 4 / 8 waves; 2 keeps a wave to balance SMs shared with the witness MSMs' kernels.
// SNARKD_STREAM_LANE_WAVES=1..16 overrides it (A/B runs).
uint32_t stream_lane_waves() {
  static const uint32_t w = uint32_t(env_u64("SNARKD_STREAM_LANE_WAVES", 2, 1, 16));
  return w;
}

// The window is the one for the accumulation kind the group's default runs (c = 0): G2's bucket
// threads take c = 16 from 2^15 points. G1's chunked-XYZZ window, which the G2 tails took before,
// is 17–19 from 2^21 points, where a bucket thread of the top window (its 4–10 bits) sums
// ≈ n/2^(bits−1) points alone: a B G2 tail of 2.76·10^6 points in one flush took 704 ms of
// accumulation at c = 19, where three flushes at c = 16 had taken 107 (H100 ncu, 2026-12-07).
template <class F>
detail::WindowLayout window_layout(uint64_t n, uint64_t max_pass_entries, uint32_t c = 0) {
  if (c == 0) c = msm_window<F>(n);
  const uint32_t windows = (256 + c - 1) / c;
  detail::WindowLayout l{c, windows, windows, 1, size_t(max_pass_entries)};
  l.lane_waves = stream_lane_waves();
  return l;
}

// The window of the H MSM whose buckets are carried across its chunks: the default for one chunk
// (c = 20 at a PoRep partition's chunks of ≈ 6.3·10^6 points: 13 windows of 2^19 buckets,
// 1.3 GB carried). SNARKD_STREAM_H_WINDOW=16..23 overrides it (A/B runs). c = 22 (12 windows of
// 2^21 buckets, 4.8 GB carried, as the resident 2^27 MSM) took 50 ms off the H MSM alone and 43
// ms in a 24 GiB partition, whose matrices its 3.4 GiB pushed out of residency: 1.857 against
// 1.825 s a partition (H100, docs/PERFORMANCE.md).
uint32_t stream_h_window(uint64_t chunk) {
  static const uint32_t c = uint32_t(env_u64("SNARKD_STREAM_H_WINDOW", 0, 16, 23));
  return c ? c : msm_default_window(chunk);
}

template <class F>
uint64_t pippenger_bytes(uint64_t n, uint64_t max_pass_entries, uint32_t c = 0) {
  return n == 0 ? 0 : detail::pippenger_scratch_bytes<F>(n, window_layout<F>(n, max_pass_entries, c));
}

// Scratch for any Pippenger of 1 .. max_n points (scratch_bound.hpp). The H MSM over chunks
// plans every chunk as max_n points: pippenger_bytes(max_n), within the bound.
template <class F>
uint64_t pippenger_bound(uint64_t max_n, uint64_t e) {
  return detail::scratch_bound(max_n, e, [e](size_t n) { return pippenger_bytes<F>(n, e); });
}

constexpr uint64_t kPointBytes[5] = {sizeof(G1Affine), sizeof(G1Affine), sizeof(G2Affine), sizeof(G1Affine),
                                     sizeof(G1Affine)};

}  // namespace

uint64_t StreamLayout::tail_capacity(uint64_t point_bytes) const { return (tail_bytes - 512) / (point_bytes + 32); }
uint64_t StreamLayout::tail_scalars(uint64_t point_bytes) const {
  return tail + align256(tail_capacity(point_bytes) * point_bytes);
}

void StreamLayout::grow_to(uint64_t q) {
  if (q < q_bytes)
    throw std::logic_error("StreamLayout::grow_to: " + std::to_string(q) + " bytes < " + std::to_string(q_bytes));
  v1 += q - q_bytes;
  q_bytes = q;
}

stream_ops::WitnessView StreamLayout::witness(const void* base) const {
  const auto* at = static_cast<const uint8_t*>(base) + w;
  return compact ? stream_ops::WitnessView::compact(at, cw) : stream_ops::WitnessView(reinterpret_cast<const Fr*>(at));
}

StreamLayout stream_layout(const groth16::ProvingKey& pk, const r1cs::Circuit& circuit, const StreamLimits& limits,
                           bool one_step, uint32_t h_window, std::optional<uint64_t> compact_capacity,
                           std::optional<uint32_t> depth) {
  StreamLayout l;
  const uint32_t L = pk.log_domain;
  l.depth = split_depth(pk.flavour, L);
  if (depth && *depth != 0 && *depth != l.depth)  // the key holds the tables of these two
    throw InvalidArgument("stream_layout: split depth " + std::to_string(*depth) + " (0 or " +
                          std::to_string(l.depth) + ")");
  if (depth) l.depth = *depth;
  l.max_pass_entries = stream_pass_entries();
  if (compact_capacity) {
    l.compact = true;
    l.compact_capacity = *compact_capacity;
    l.cw = r1cs::compact_layout(circuit.num_vars(), *compact_capacity);
  }
  const uint64_t n = pk.domain_size(), vb = align256(n * sizeof(Fr));
  const uint64_t wb = l.compact ? l.cw.total : align256(circuit.num_vars() * sizeof(Fr));
  // Step 0.
  l.w = 0;
  l.v2 = wb;
  l.ntt_scratch = l.v2 + vb;
  l.h_tables = l.ntt_scratch + align256(ntt_scratch_bytes(L - l.depth));
  // The tables whose coset powers the transforms use: the blocks' (split) or the key's.
  l.h_tables_bytes = 2 * align256(detail::coset_low_entries(l.depth ? L - l.depth : L) * sizeof(Fr));
  l.small = l.h_tables + l.h_tables_bytes;
  const uint64_t head = l.small + 256;
  const uint64_t ch = limits.chunk_points[4];
  l.h_partials = uint32_t(limits.chunks[4] + 1);
  l.h_chunk = ch;
  l.hs_partials = 0;
  l.hs_gather = align256(l.h_partials * sizeof(G1Xyzz));
  l.hs_scratch = l.hs_gather + (l.depth ? align256(ch * sizeof(Fr)) : 0);
  // Either H path's scratch: a Pippenger per chunk (any size up to ch) or buckets carried.
  l.h_window = h_window ? h_window : stream_h_window(ch);
  l.hs_scratch_bytes = align256(std::max<uint64_t>(pippenger_bound<Fp>(ch, l.max_pass_entries),
                                                   pippenger_bytes<Fp>(ch, l.max_pass_entries, l.h_window)));
  const uint64_t hs = l.hs_scratch + l.hs_scratch_bytes;
  l.v1 = std::max(head, hs);
  l.q_bytes = l.v1 + vb;
  l.keep_bytes = hs + vb;
  l.keep_v1 = hs;
  // Step 1: each witness part's tail holds at least its largest chunk.
  uint64_t tail = 0, most = 0, scratch = 0, chunks = 0;
  for (int p = 0; p < 4; ++p) {
    tail = std::max(tail, limits.chunk_points[p] * (kPointBytes[p] + sizeof(Fr)));
    most = std::max(most, limits.chunk_points[p]);
    chunks = std::max(chunks, limits.chunks[p]);
  }
  l.tail = wb;
  l.tail_bytes = align256(tail + 512);
  for (int p = 0; p < 4; ++p) {
    const uint64_t cap = l.tail_capacity(kPointBytes[p]);
    scratch = std::max(scratch, p == 2 ? pippenger_bound<Fp2>(cap, l.max_pass_entries)
                                       : pippenger_bound<Fp>(cap, l.max_pass_entries));
  }
  // Ones accumulators: ~16 points per thread and chunk, 2^8 .. 2^16 threads.
  l.accum_threads = uint32_t(std::clamp<uint64_t>((most / 16 + 255) / 256 * 256, 256, 65536));
  l.max_partials = uint32_t(chunks + 3);  // the ones' sum, a flush per chunk at most, the last tail, the total
  l.accum = l.tail + l.tail_bytes;
  l.partials = l.accum + align256(uint64_t(l.accum_threads) * sizeof(G2Xyzz));
  l.counters = l.partials + align256(uint64_t(l.max_partials) * sizeof(G2Xyzz));
  l.m_scratch = l.counters + 256;
  l.m_scratch_bytes = align256(scratch);
  l.m_bytes = l.m_scratch + l.m_scratch_bytes;
  // One-step streaming (engine/residency.hpp StepSizes::one): step 1's workspace [0, m_bytes)
  // must end before the kept [hs | v1], so the witness MSMs can run in step 0's range on the
  // witness step 0 uploaded. Where that moves v1 up, the one step needs more memory than the
  // two steps' larger one; the engine's planner then picks two steps when one does not fit.
  if (one_step && l.v1 - l.keep_v1 < l.m_bytes) {
    l.v1 = l.m_bytes + l.keep_v1;
    l.q_bytes = l.v1 + vb;
  }
  return l;
}

void detail::ChunkCounts::record(uint64_t first, uint64_t count, uint64_t others) {
  if (count) by_first_[first] = {count, others};
}

std::optional<uint64_t> detail::ChunkCounts::bound(uint64_t first, uint64_t count) const {
  if (count == 0) return 0;
  const uint64_t end = first + count;
  auto it = by_first_.upper_bound(first);  // the first recorded chunk starting after `first`
  if (it == by_first_.begin()) return std::nullopt;
  --it;  // the one starting at or before `first`
  uint64_t covered = first, sum = 0;
  for (; it != by_first_.end() && it->first < end; ++it) {
    const uint64_t c_first = it->first, c_end = c_first + it->second.first;
    if (c_first > covered || c_end <= covered) return std::nullopt;  // a gap (or a stale chunk)
    sum += it->second.second;
    covered = c_end;
    if (covered >= end) return sum;
  }
  return std::nullopt;
}

PhaseTimer::PhaseTimer() {
  for (int k = 0; k < 8; ++k) events_.emplace_back(true);
}

void PhaseTimer::start(cudaStream_t stream) {
  names_.clear();
  events_[0].record(stream);
}

void PhaseTimer::phase(const char* name, cudaStream_t stream) {
  if (names_.size() + 1 >= events_.size()) throw std::logic_error("PhaseTimer: more than 7 phases");
  names_.push_back(name);
  events_[names_.size()].record(stream);
}

std::vector<std::pair<const char*, double>> PhaseTimer::seconds() const {
  std::vector<std::pair<const char*, double>> out;
  for (size_t k = 0; k < names_.size(); ++k) out.emplace_back(names_[k], events_[k + 1].elapsed_ms_since(events_[k]) / 1e3);
  return out;
}

namespace {

void wait(cudaStream_t stream, cudaEvent_t sync) {
  SNARKD_CUDA_CHECK(cudaEventRecord(sync, stream));
  SNARKD_CUDA_CHECK(cudaEventSynchronize(sync));
}

// A requested stop: the work already enqueued on `stream` ends first (nothing on the device
// touches the workspace or a slot afterwards), then Cancelled.
void stop_point(const std::stop_token& stop, cudaStream_t stream, cudaEvent_t sync, const char* where) {
  if (!stop.stop_requested()) return;
  wait(stream, sync);
  throw Cancelled(std::string(where) + ": cancelled");
}

// The fused H's scaled coset tables (ProverPaths::fused_h), in the layout's H tables: fwd =
// κ·s^j with κ = 1/m for the transforms to the coset (the inverse before it skips its 1/m), inv =
// κ·s^(−j) with κ = f/m for the one back (f = 1/Z), and c's inverse scaled by f/m instead of 1/m,
// so the subtraction fused into the transform back scales nothing. m: the transforms' size (the
// blocks', or n at depth 0). Null tables: unfused — also for one-point transforms (m = 1), which
// ntt() skips as the identity, so a κ would be lost.
struct HTables {
  const Fr* fwd = nullptr;
  const Fr* inv = nullptr;
  Fr coeff_scale{};  // f/m (bellperson)
};

HTables enqueue_h_tables(const DeviceProvingKey& key, const StreamLayout& l, uint8_t* base, cudaStream_t stream) {
  const uint32_t L = key.log_domain(), d = l.depth;
  if (L == d) return {};
  const NttTables& t = d ? *key.block_tables() : key.ntt_tables();
  const Fr m_inv = Fr::from_host(t.size_inverse(L - d));
  auto* fwd = reinterpret_cast<Fr*>(base + l.h_tables);
  auto* inv = fwd + l.h_tables_bytes / 2 / sizeof(Fr);
  detail::enqueue_scaled_coset_low(t, false, m_inv, fwd, stream);
  if (key.flavour() != groth16::KeyFlavour::kBellperson) return {fwd, nullptr};  // no transform back
  detail::enqueue_scaled_coset_low(t, true, key.view().h_factor * m_inv, inv, stream);
  return {fwd, inv, key.view().h_factor * m_inv};
}

// Natural-order evaluations on the domain → the coefficients in split order: the DIF layers
// (ω⁻¹, ½; none at depth 0), then each block's inverse NTT with fusion f.
void split_inverse(const DeviceProvingKey& key, const StreamLayout& l, Fr* v, void* scratch,
                   const detail::NttFusion& f, cudaStream_t stream) {
  const uint32_t L = key.log_domain(), d = l.depth;
  const uint64_t m = uint64_t{1} << (L - d);
  for (uint32_t level = 0; level < d; ++level)
    detail::launch_split_layer(v, level, false, true, stream_ops::BlockScale::kNone, key.view().twiddles, stream);
  for (uint64_t b = 0; b < (uint64_t{1} << d); ++b)
    detail::ntt_fused(v + b * m, L - d, Direction::kInverse, false, key.ntt_tables(), scratch, stream, 1, f);
}

// Natural-order evaluations on the domain → natural-order evaluations on the coset (inverse
// NTT, coset NTT): split (prover_stream_ops.hpp) or, at depth 0, the plain pair. Fused: the
// inverse leaves out 1/m, which rides on the coset powers (ht.fwd).
void to_coset(const DeviceProvingKey& key, const StreamLayout& l, Fr* v, void* scratch, const HTables& ht,
              cudaStream_t stream) {
  const uint32_t L = key.log_domain(), d = l.depth;
  detail::NttFusion inv{}, fwd{};
  inv.skip_scale = ht.fwd != nullptr;
  fwd.coset_low = ht.fwd;
  split_inverse(key, l, v, scratch, inv, stream);
  const uint64_t m = uint64_t{1} << (L - d);
  const NttTables& t = d ? *key.block_tables() : key.ntt_tables();
  for (uint64_t b = 0; b < (uint64_t{1} << d); ++b)
    detail::ntt_fused(v + b * m, L - d, Direction::kForward, true, t, scratch, stream, 1, fwd);
  for (uint32_t level = d; level-- > 0;)
    detail::launch_split_layer(v, level, true, false,
                               level == d - 1 ? stream_ops::BlockScale::kInputs : stream_ops::BlockScale::kNone,
                               key.view().twiddles, stream);
}

// c's coefficients (split order when d > 0); fused, times f.
void to_coeffs(const DeviceProvingKey& key, const StreamLayout& l, Fr* v, void* scratch, const HTables& ht,
               cudaStream_t stream) {
  detail::NttFusion f{};
  f.scale_override = ht.inv != nullptr;
  f.scale = ht.coeff_scale;
  split_inverse(key, l, v, scratch, f, stream);
}

// Natural-order coset evaluations v → the coefficients (split order when d > 0). Fused: times f,
// and the last pass stores v − c (c: to_coeffs' result at the same positions).
void from_coset(const DeviceProvingKey& key, const StreamLayout& l, Fr* v, const Fr* c, void* scratch,
                const HTables& ht, cudaStream_t stream) {
  const uint32_t L = key.log_domain(), d = l.depth;
  const uint64_t m = uint64_t{1} << (L - d);
  for (uint32_t level = 0; level < d; ++level)
    detail::launch_split_layer(v, level, false, true,
                               level == d - 1 ? stream_ops::BlockScale::kOutputs : stream_ops::BlockScale::kNone,
                               key.view().twiddles, stream);
  const NttTables& t = d ? *key.block_tables() : key.ntt_tables();
  for (uint64_t b = 0; b < (uint64_t{1} << d); ++b) {
    detail::NttFusion f{};
    if (ht.inv) {
      f.coset_low = ht.inv, f.skip_scale = true;
      f.pointwise = detail::Pointwise::kSub, f.pointwise_b = c + b * m;
    }
    detail::ntt_fused(v + b * m, L - d, Direction::kInverse, true, t, scratch, stream, 1, f);
  }
}

}  // namespace

void stream_qap_h(const DeviceProvingKey& key, const StreamLayout& l, void* d_ws, const ChunkFeed& feed,
                  cudaStream_t stream, cudaEvent_t sync, DeviceSums* sums, PhaseTimer* timer,
                  const std::stop_token& stop) {
  detail::check_prover_workspace(d_ws, "stream_qap_h");
  DeviceGuard guard(key.device());
  auto* base = static_cast<uint8_t*>(d_ws);
  const stream_ops::WitnessView w = l.witness(base);
  Fr* v1 = reinterpret_cast<Fr*>(base + l.v1);
  Fr* v2 = reinterpret_cast<Fr*>(base + l.v2);
  void* scratch = base + l.ntt_scratch;
  auto* fail = reinterpret_cast<unsigned long long*>(base + l.small);
  auto* one_ok = reinterpret_cast<uint64_t*>(base + l.small + 8);
  const bool bellperson = key.flavour() == groth16::KeyFlavour::kBellperson;
  const uint64_t n = key.domain_size(), m = key.num_constraints();
  const Fr* dict = key.view().dict;
  if (timer) timer->start(stream);
  SNARKD_CUDA_CHECK(cudaMemsetAsync(fail, 0xff, sizeof(uint64_t), stream));  // UINT64_MAX: none
  auto pass1 = [&] {
    feed(StreamPart::kRows1, [&](const ChunkView& c) {
      stop_point(stop, stream, sync, "stream_qap_h");
      detail::launch_qap_pass1(c, dict, w, v1, v2, stream);
    });
  };
  auto pass2 = [&] {
    feed(StreamPart::kRows2, [&](const ChunkView& c) {
      stop_point(stop, stream, sync, "stream_qap_h");
      detail::launch_qap_pass2(c, dict, w, v2, bellperson, stream);
    });
  };
  pass1();
  detail::launch_qap_tail(v1, v2, w, m, n, key.num_inputs(), bellperson, one_ok, stream);
  SNARKD_CUDA_CHECK(cudaEventRecord(sync, stream));  // pass 1 read (pass 2 waits for it below)
  if (timer) timer->phase("qap", stream);
  stop_point(stop, stream, sync, "stream_qap_h");
  const HTables ht = prover_paths().fused_h ? enqueue_h_tables(key, l, base, stream) : HTables{};
  to_coset(key, l, v1, scratch, ht, stream);
  to_coset(key, l, v2, scratch, ht, stream);
  detail::launch_mul(v1, v2, n, stream);  // â·b̂
  stop_point(stop, stream, sync, "stream_qap_h");
  // Pass 2's rows are subscribed once pass 1 has read its own: subscribed as soon as pass 1's
  // chunks are all leased, their copies start as pass 1's slots free and take PCIe from pass 1's
  // last copies, which the QAP waits for (PoRep at 16 GiB: all ten rows chunks' copies inside
  // the qap phase, 0.103 s). The transforms enqueued above keep the device busy meanwhile.
  SNARKD_CUDA_CHECK(cudaEventSynchronize(sync));
  pass2();
  detail::launch_fill_zero(v2 + m, n - m, stream);
  if (bellperson) {  // h = f·(coset_intt(â·b̂) − intt(c)) (h_phase.hpp): c never on the coset
    to_coeffs(key, l, v2, scratch, ht, stream);
    from_coset(key, l, v1, v2, scratch, ht, stream);
    if (ht.inv == nullptr) detail::launch_sub_scale(v1, v2, n, key.view().h_factor, true, stream);
    // The satisfiability check: H's coefficient n − 1 (prover_stream.hpp).
    detail::launch_flag_nonzero(v1 + stream_ops::split_position(n - 1, key.log_domain(), l.depth), fail, stream);
  } else {  // snarkjs: â·b̂ − ĉ on the coset
    to_coset(key, l, v2, scratch, ht, stream);
    detail::launch_sub_scale(v1, v2, n, Fr::zero(), false, stream);
  }
  if (timer) timer->phase("h", stream);
  stop_point(stop, stream, sync, "stream_qap_h");
  auto read_flags = [&] {
    SNARKD_CUDA_CHECK(cudaMemcpyAsync(&sums->first_failing_row, fail, 2 * sizeof(uint64_t), cudaMemcpyDeviceToHost, stream));
    wait(stream, sync);
  };
  static_assert(offsetof(DeviceSums, witness_one_ok) == offsetof(DeviceSums, first_failing_row) + sizeof(uint64_t));
  read_flags();
  if (sums->witness_one_ok == 1 && sums->first_failing_row == detail::kUnsatisfiedRowUnknown) {
    // Which row: a·b against c over the constraint rows (v1's H is lost; the proof fails anyway).
    pass1();
    detail::launch_mul(v1, v2, m, stream);
    pass2();
    SNARKD_CUDA_CHECK(cudaMemsetAsync(fail, 0xff, sizeof(uint64_t), stream));
    detail::launch_first_mismatch(v1, v2, m, fail, stream);
    read_flags();
    if (sums->first_failing_row == UINT64_MAX)
      throw std::logic_error("stream_qap_h: H's top coefficient is not zero, yet every row holds");
  }
  detail::check_device_sums(key, *sums);
}

void stream_h_msm(const DeviceProvingKey& key, const StreamLayout& l, void* d_kept, const ChunkFeed& feed,
                  cudaStream_t stream, cudaEvent_t sync, DeviceSums* sums, PhaseTimer* timer,
                  const std::stop_token& stop) {
  detail::check_prover_workspace(d_kept, "stream_h_msm");
  DeviceGuard guard(key.device());
  auto* base = static_cast<uint8_t*>(d_kept);
  const Fr* v1 = reinterpret_cast<const Fr*>(base + l.keep_v1);
  auto* partials = reinterpret_cast<G1Xyzz*>(base + l.hs_partials);
  Fr* gathered = reinterpret_cast<Fr*>(base + l.hs_gather);
  const bool per_chunk = !prover_paths().h_buckets_across_chunks;
  const detail::WindowLayout hl = window_layout<Fp>(l.h_chunk, l.max_pass_entries, l.h_window);
  G1Xyzz* total = &partials[l.h_partials - 1];
  uint32_t np = 0;
  stop_point(stop, stream, sync, "stream_h_msm");
  feed(StreamPart::kH, [&](const ChunkView& c) {
    stop_point(stop, stream, sync, "stream_h_msm");
    if (np + 1 >= l.h_partials) throw std::logic_error("stream_h_msm: more H chunks than the layout has room for");
    if (c.count == 0) return;
    const Fr* scalars = v1 + c.first;
    if (l.depth) {  // the H scalars are in split order: this chunk's, in natural order
      detail::launch_gather_split(v1, c.first, c.count, key.log_domain(), l.depth, gathered, stream);
      scalars = gathered;
    }
    const auto* points = static_cast<const G1Affine*>(c.points);
    if (per_chunk)
      detail::pippenger<Fp>(points, scalars, c.count, window_layout<Fp>(c.count, l.max_pass_entries), &partials[np],
                            base + l.hs_scratch, l.hs_scratch_bytes, stream, "stream_h_msm");
    else
      detail::pippenger_chunk<Fp>(points, scalars, c.count, l.h_chunk, hl, np == 0, base + l.hs_scratch,
                                  l.hs_scratch_bytes, stream, "stream_h_msm");
    ++np;
  });
  if (per_chunk || np == 0) detail::launch_sum_points<Fp>(partials, per_chunk ? np : 0, total, stream);
  else detail::pippenger_reduce<Fp>(l.h_chunk, hl, total, base + l.hs_scratch, l.hs_scratch_bytes, stream, "stream_h_msm");
  SNARKD_CUDA_CHECK(cudaMemcpyAsync(&sums->h, total, sizeof(G1Xyzz), cudaMemcpyDeviceToHost, stream));
  if (timer) timer->phase("msm_h", stream);
  wait(stream, sync);
}

namespace {

// One witness MSM over its chunks (the bit split per chunk, see prover_stream.hpp). `record`
// receives each chunk's exact count of others; with `known` set, a chunk it covers is bounded
// from it (detail::ChunkCounts) instead of counted.
template <class F>
void witness_part(const DeviceProvingKey& key, const StreamLayout& l, uint8_t* base, StreamPart part,
                  const ChunkFeed& feed, cudaStream_t stream, cudaEvent_t sync, Xyzz<F>* out, uint64_t* h_count,
                  const std::stop_token& stop, detail::ChunkCounts* record = nullptr,
                  const detail::ChunkCounts* known = nullptr) {
  const stream_ops::WitnessView w = l.witness(base);
  const uint64_t offset = part == StreamPart::kL ? key.num_inputs() : 0;
  auto* accum = reinterpret_cast<Xyzz<F>*>(base + l.accum);
  auto* partials = reinterpret_cast<Xyzz<F>*>(base + l.partials);
  auto* tail_count = reinterpret_cast<unsigned long long*>(base + l.counters);
  auto* chunk_count = tail_count + 1;
  const uint64_t cap = l.tail_capacity(sizeof(Affine<F>));
  auto* tail_bases = reinterpret_cast<Affine<F>*>(base + l.tail);
  auto* tail_scalars = reinterpret_cast<Fr*>(base + l.tail_scalars(sizeof(Affine<F>)));
  detail::launch_set_infinity<F>(accum, l.accum_threads, stream);
  SNARKD_CUDA_CHECK(cudaMemsetAsync(tail_count, 0, 2 * sizeof(uint64_t), stream));
  uint32_t np = 0;
  detail::TailLength tail;
  auto exact_length = [&] {  // from the device
    if (tail.exact()) return;
    SNARKD_CUDA_CHECK(cudaMemcpyAsync(h_count, tail_count, sizeof(uint64_t), cudaMemcpyDeviceToHost, stream));
    wait(stream, sync);
    tail.set(*h_count);
  };
  auto flush = [&] {
    exact_length();
    if (tail.value() == 0) return;
    if (np + 2 >= l.max_partials) throw std::logic_error("stream_witness_msms: more flushes than the layout has room for");
    detail::pippenger<F>(tail_bases, tail_scalars, tail.value(), window_layout<F>(tail.value(), l.max_pass_entries),
                         &partials[np++], base + l.m_scratch, l.m_scratch_bytes, stream, "stream_witness_msms");
    SNARKD_CUDA_CHECK(cudaMemsetAsync(tail_count, 0, sizeof(uint64_t), stream));
    tail.set(0);
  };
  feed(part, [&](const ChunkView& c) {
    stop_point(stop, stream, sync, "stream_witness_msms");
    uint64_t others = 0;
    bool exact = true;
    if (const std::optional<uint64_t> b = known ? known->bound(c.first, c.count) : std::nullopt) {
      others = std::min(*b, c.count);
      exact = false;
    } else {
      SNARKD_CUDA_CHECK(cudaMemsetAsync(chunk_count, 0, sizeof(uint64_t), stream));
      detail::launch_count_others(c, w, offset, chunk_count, stream);
      SNARKD_CUDA_CHECK(cudaMemcpyAsync(h_count, chunk_count, sizeof(uint64_t), cudaMemcpyDeviceToHost, stream));
      wait(stream, sync);
      others = *h_count;
      if (record) record->record(c.first, c.count, others);
    }
    // A bounded tail that seems full is measured first: B G2's bounds (B G1's chunks, each
    // overlapping two G2 chunks) count its others about twice, and a flush costs a Pippenger
    // (a 24 GiB PoRep partition's B G2 tail ran three flushes where its 2.76·10^6 others fit one).
    if (!tail.fits(others, cap)) exact_length();
    if (!tail.fits(others, cap)) flush();
    detail::launch_ones_gather<F>(c, w, offset, accum, l.accum_threads, tail_bases, tail_scalars, tail_count, stream);
    tail.add(others, exact);
  });
  flush();
  detail::launch_sum_points<F>(accum, l.accum_threads, &partials[np++], stream);
  Xyzz<F>* total = &partials[l.max_partials - 1];
  detail::launch_sum_points<F>(partials, np, total, stream);
  SNARKD_CUDA_CHECK(cudaMemcpyAsync(out, total, sizeof(Xyzz<F>), cudaMemcpyDeviceToHost, stream));
}

}  // namespace

void stream_witness_msms(const DeviceProvingKey& key, const StreamLayout& l, void* d_ws, const ChunkFeed& feed,
                         cudaStream_t stream, cudaEvent_t sync, DeviceSums* sums, uint64_t* h_count, PhaseTimer* timer,
                         const std::stop_token& stop) {
  detail::check_prover_workspace(d_ws, "stream_witness_msms");
  DeviceGuard guard(key.device());
  auto* base = static_cast<uint8_t*>(d_ws);
  if (timer) timer->start(stream);
  witness_part<Fp>(key, l, base, StreamPart::kA, feed, stream, sync, &sums->a, h_count, stop);
  if (timer) timer->phase("msm_a", stream);
  // One classification of the B scalars for both B MSMs (SNARKD_B_CLASSIFY=twice: each counts).
  const bool shared_b = prover_paths().shared_b;
  detail::ChunkCounts b_counts;
  witness_part<Fp>(key, l, base, StreamPart::kB1, feed, stream, sync, &sums->b1, h_count, stop,
                   shared_b ? &b_counts : nullptr);
  if (timer) timer->phase("msm_b1", stream);
  witness_part<Fp2>(key, l, base, StreamPart::kB2, feed, stream, sync, &sums->b2, h_count, stop, nullptr,
                    shared_b ? &b_counts : nullptr);
  if (timer) timer->phase("msm_b2", stream);
  witness_part<Fp>(key, l, base, StreamPart::kL, feed, stream, sync, &sums->l, h_count, stop);
  if (timer) timer->phase("msm_l", stream);
  wait(stream, sync);
}

}  // namespace snarkd::cuda
