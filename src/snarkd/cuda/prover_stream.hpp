// The GPU prover for keys that do not fit the device: the same sums as prove_on_stream
// (prover.hpp), in two steps with bounded memory, reading the key's matrices and query points in
// chunks that either sit resident in the key's region or arrive in the engine's streaming slots
// (engine/key_parts.hpp cuts them; engine/residency.hpp decides which are resident).
//
// Step 0 (stream_qap_h, then stream_h_msm), workspace [w | v2 | scratch | small | v1]:
//   pass 1 over rows chunks of A, B: a → v1, b → v2;
//   rows past the constraints (bellperson input rows a = w_j, zeros);
//   a, b: inverse and coset forward split NTTs, v1 = a·b;
//   pass 2 over rows chunks of C (bellperson) or A, B (snarkjs: c = a∘b): c → v2; c transformed;
//   v1 = (v1 − c)/Z (bellperson, then its coset inverse) or v1 − c (snarkjs): the H scalars.
//   Bellperson's satisfiability check is H's coefficient n − 1: the transforms give Q + R/Z(s)
//   for a·b − c = Q·Z + R, and R's top coefficient is Σ_i (a_i b_i − c_i)·ω^i / n, so a single
//   failing row always makes it non-zero (several cancel only when built to: the proof then fails
//   verification instead). When it is not zero a third pass over the rows (A, B, then C; a bad
//   witness only) finds the first failing row for the error. C then crosses PCIe once per proof,
//   not twice (PoRep: 3.3 of its 8.9 GB of matrices, ≈ 60 ms of a streamed partition's qap pass,
//   during which the GPU has nothing else to do).
//   The caller then keeps only [hs | v1] (Reservation::keep_tail(keep_bytes)) — the witness, b/c
//   and the NTT scratch go back to the ledger — and sums the H MSM over h's chunks into hs: one
//   Pippenger whose buckets persist across the chunks (detail::pippenger_chunk), reduced once
//   (SNARKD_STREAM_H_MSM=chunks: a whole Pippenger per chunk, the partial sums added at the end).
// Step 1 (stream_witness_msms), workspace [w | tail | accumulators | partials | scratch]: A, B
//   (G1, G2) and L over their chunks, bit-split per chunk: a kernel counts the chunk's "other"
//   scalars (the host reads the count: one wait per chunk, on this stream; B G2 reuses B G1's
//   counts as bounds, detail::ChunkCounts and TailLength), the tail buffer is
//   flushed through a Pippenger if it would overflow, then one kernel adds the bases of the ones
//   into per-thread accumulators and gathers the others' bases and scalars into the tail; at the
//   end the tail's Pippenger and a tree over the accumulators.
// The H transforms are h_phase's (6 for bellperson: c's coefficients, never its coset values)
// and fold their 1/n (and bellperson's 1/Z) into scaled copies of the coset tables as h_phase
// does (ProverPaths::fused_h; SNARKD_H_PHASE=unfused: the plain transforms and a scaling pass);
// the memory plan holds two n-vectors, so â·b̂ stays a kernel (pass 2 writes c where b̂ was), and
// the last transform subtracts c's coefficients as it stores.
// The split NTT (stream_ops::dif_pair) needs n/2^d scratch instead of n: d = 2 for bellperson
// keys (the H scalars come back in natural order), d = 0 for snarkjs keys (their H scalars are
// coset evaluations in natural order, which the MSM pairs with the H query).
//
// Memory at a PoRep partition (N = 1.3·10^8 variables, n = 2^27, slots of 600 MiB: ≈ 6.3·10^6
// G1 points): step 0 = 4.2 (w) + 2 × 4.3 (v1, v2) + 1.1 (scratch) GB ≈ 13.8 GB, kept for the H
// MSM ≈ 6.4 GB; step 1 ≈ 6.9 GB; the one step (step 1 in step 0's range) 13.8 GB (12.88 GiB)
// — against ≈ 20 GB fully resident.
// Everything is stream-ordered on the caller's stream; the functions wait for that stream only
// (an event of the caller's, blocking-sync) where the host needs a count, and at their end.
// Cancellation: each function checks its `stop` before every chunk and at its phase boundaries;
// once a stop is requested it waits for the stream (what is enqueued finishes: the workspace and
// the slots it read are free when it returns) and throws snarkd::Cancelled.
#pragma once
#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stop_token>
#include <vector>

#include "snarkd/cuda/prover.hpp"
#include "snarkd/cuda/prover_stream_ops.hpp"
#include "snarkd/cuda/runtime.hpp"

namespace snarkd::cuda {

// The parts a step reads, in engine::KeyPart's order.
enum class StreamPart : uint8_t { kRows1, kRows2, kA, kB1, kB2, kL, kH };

// One chunk as a kernel reads it: rows [first, first + count) of the part's matrices (row_ptr
// absolute, count + 1 of them; col/coeff from row_ptr[0]; or, where len[i] is set, the short form
// of r1cs/short_rows.hpp: group_start from group first / kRowGroup, a byte per row, first a
// multiple of kRowGroup, col/coeff from group_start[0]) or points [first, first + count) of a
// query with their density index entries (null: full query).
struct ChunkView {
  uint64_t first = 0, count = 0;
  const void* points = nullptr;
  const uint32_t* index = nullptr;
  const uint64_t* row_ptr[3] = {};
  const uint32_t* col[3] = {};
  const uint32_t* coeff[3] = {};
  const uint64_t* group_start[3] = {};
  const uint8_t* len[3] = {};
};

// The engine's side: calls visit(view) for every chunk of `part`, resident or streamed, in any
// order, after making `stream` wait for the chunk to be in place; it may reuse the chunk's
// memory once `stream` has passed the work visit() enqueued (the engine records an event on the
// stream after visit returns).
using ChunkFeed = std::function<void(StreamPart part, const std::function<void(const ChunkView&)>& visit)>;

// Host values of the split NTT's twiddle tables (stream_ops::SplitTwiddles): ω then ω⁻¹, each
// lo (2^lo_bits entries) then hi, for exponents below n/2; the block constants are by value.
struct SplitTwiddleHost {
  std::vector<ff::Fr> values;
  uint32_t log_n = 0, depth = 0, lo_bits = 0;
  size_t hi_offset = 0, inv_offset = 0;  // in values: ω's hi table, then ω⁻¹'s tables
  stream_ops::SplitTwiddles constants;   // log_n, depth, 1/2 and the block shifts
  // The view with the tables at `base` (host: values.data(); device: where they were copied).
  stream_ops::SplitTwiddles view(const Fr* base) const;
};
// For n = 2^log_n, `depth` ≤ min(3, log_n), ω from `generator`, coset shift s.
SplitTwiddleHost split_twiddles(uint32_t log_n, uint32_t depth, uint64_t generator, const ff::Fr& coset_shift);
uint64_t split_twiddles_bytes(uint32_t log_n);

// Split depth for a key: 2 for bellperson domains of 2^2 and more (n/4 scratch), else 0 (plain
// transforms with n scratch: snarkjs keys, tiny domains).
uint32_t split_depth(groth16::KeyFlavour flavour, uint32_t log_n);

// The largest chunk of each part the engine will hand over, and how many chunks each query part
// has (partial sums per chunk).
struct StreamLimits {
  std::array<uint64_t, 5> chunk_points{};  // a, b_g1, b_g2, l, h
  std::array<uint64_t, 5> chunks{};
};

// Offsets into the step reservations (bytes, 256-aligned).
struct StreamLayout {
  uint32_t depth = 0;                 // split NTT depth
  uint64_t max_pass_entries = 0;      // sort entries per Pippenger pass (bounds its scratch)
  // Step 0: [w | v2 | NTT scratch | H tables | small (failing row, ONE check) | … | v1], q_bytes
  // in all (H tables: the two scaled coset tables of the fused H, h_tables_bytes);
  // kept for the H MSM: the last keep_bytes = [hs | v1], hs = [partials | gathered scalars |
  // Pippenger scratch] (offsets below relative to the kept range).
  uint64_t w = 0, v2 = 0, ntt_scratch = 0, h_tables = 0, h_tables_bytes = 0, small = 0, v1 = 0, q_bytes = 0;
  uint64_t keep_bytes = 0, keep_v1 = 0;
  uint64_t hs_partials = 0, hs_gather = 0, hs_scratch = 0, hs_scratch_bytes = 0;
  uint32_t h_partials = 0;            // H chunks + 1 (the total)
  uint64_t h_chunk = 0;               // the largest H chunk: the H MSM's buckets are planned for it
  uint32_t h_window = 0;              // the carried H MSM's window bits
  // Step 1: [w | tail (bases, then scalars: per part) | accumulators | partials | counters |
  // Pippenger scratch], m_bytes in all.
  uint64_t tail = 0, tail_bytes = 0, accum = 0, partials = 0, counters = 0, m_scratch = 0, m_scratch_bytes = 0;
  uint64_t m_bytes = 0;  // one_step: ≤ v1 − keep_v1 (step 1 also runs in step 0's range)
  uint32_t accum_threads = 0, max_partials = 0;
  // The witness at w: its num_vars plain values, or (compact) the arrays of r1cs::CompactWitness
  // as `cw` lays them out from w, with room for compact_capacity values that are neither 0 nor 1.
  bool compact = false;
  r1cs::CompactLayout cw;
  uint64_t compact_capacity = 0;
  // A part's tail: the most points its region holds (≥ its largest chunk), where its scalars go.
  uint64_t tail_capacity(uint64_t point_bytes) const;
  uint64_t tail_scalars(uint64_t point_bytes) const;
  // The witness of the workspace at `base` as the kernels read it.
  stream_ops::WitnessView witness(const void* base) const;
  // Step 0's range grown to q ≥ q_bytes (a reservation planned for another layout): v1 moves up,
  // so the kept [hs | v1] stays the range's last keep_bytes.
  void grow_to(uint64_t q);
};
// From the key's shape alone (before it is placed). Asks CUB for sort sizes: needs a CUDA device
// at run time. one_step: step 1's workspace [0, m_bytes) must end before the kept [hs | v1] (the
// witness MSMs run in step 0's range on its witness), which can move v1 up and grow q_bytes.
// h_window: the window bits of the H MSM whose buckets are carried across its chunks (4..24; 0:
// SNARKD_STREAM_H_WINDOW, else the default for one chunk); wider windows carry more buckets.
// compact_capacity: the witness read in place in its compact form with room for that many values
// that are neither 0 nor 1 (nullopt: the plain witness). depth: 0 for unsplit H transforms (n
// points of NTT scratch instead of n/4; nullopt: split_depth). Throws InvalidArgument for another.
StreamLayout stream_layout(const groth16::ProvingKey& pk, const r1cs::Circuit& circuit, const StreamLimits& limits,
                           bool one_step, uint32_t h_window = 0,
                           std::optional<uint64_t> compact_capacity = std::nullopt,
                           std::optional<uint32_t> depth = std::nullopt);

// Timing of the steps' phases ("qap", "h", "msm_h"; "msm_a", "msm_b1", "msm_b2", "msm_l").
class PhaseTimer {
 public:
  PhaseTimer();  // creates its timing events (set-up)
  void start(cudaStream_t stream);
  void phase(const char* name, cudaStream_t stream);  // the end of `name`
  // Seconds per phase; call once the stream has passed the last phase().
  std::vector<std::pair<const char*, double>> seconds() const;

 private:
  std::vector<Event> events_;
  std::vector<const char*> names_;
};

// Step 0, first half: pass 1, H, pass 2 into the workspace (l.q_bytes, 256-aligned, witness at
// l.w already uploaded and ordered before `stream`'s work). Returns once the stream is done
// (so the caller may keep_tail), having written sums->first_failing_row / witness_one_ok;
// throws groth16::UnsatisfiedWitness (InvalidArgument for a bad ONE) as to_query_sums does.
void stream_qap_h(const DeviceProvingKey& key, const StreamLayout& l, void* d_ws, const ChunkFeed& feed,
                  cudaStream_t stream, cudaEvent_t sync, DeviceSums* sums, PhaseTimer* timer = nullptr,
                  const std::stop_token& stop = {});
// Step 0, second half, over the kept range [hs | v1] (l.keep_bytes at d_kept): the H MSM into
// sums->h. Returns once the stream is done.
void stream_h_msm(const DeviceProvingKey& key, const StreamLayout& l, void* d_kept, const ChunkFeed& feed,
                  cudaStream_t stream, cudaEvent_t sync, DeviceSums* sums, PhaseTimer* timer = nullptr,
                  const std::stop_token& stop = {});
// Step 1: the A, B (G1, G2) and L sums into sums->a, b1, b2, l (workspace l.m_bytes, witness at
// l.w). h_count: one pinned uint64 (each chunk's count of others comes through it). Returns once
// the stream is done.
void stream_witness_msms(const DeviceProvingKey& key, const StreamLayout& l, void* d_ws, const ChunkFeed& feed,
                         cudaStream_t stream, cudaEvent_t sync, DeviceSums* sums, uint64_t* h_count,
                         PhaseTimer* timer = nullptr, const std::stop_token& stop = {});

namespace detail {
// The B query's classification shared by its two streamed MSMs (ProverPaths::shared_b): the B G1
// part records each chunk's count of "other" scalars (read on the host anyway), and the B G2
// part, whose chunks index the same scalars but are cut at other points (G2 points are twice
// the size), bounds each of its chunks by the recorded chunks overlapping it instead of a count
// kernel and a wait for the stream per chunk. A bound is enough: it only decides when the tail
// is flushed (early is safe: every part's tail holds its largest chunk), and a flush reads the
// tail's exact length from the device (one wait per flush instead of one per chunk).
class ChunkCounts {
 public:
  void record(uint64_t first, uint64_t count, uint64_t others);
  // Σ others of the recorded chunks overlapping [first, first + count), or nullopt unless they
  // cover that range (a chunk seen by one part only: the caller counts it).
  std::optional<uint64_t> bound(uint64_t first, uint64_t count) const;
  void clear() { by_first_.clear(); }

 private:
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> by_first_;  // first → (count, others)
};

// A tail's length as the host knows it: exact, or an upper bound once a chunk was added by its
// ChunkCounts bound. A flush reads the exact length from the device first; the chunk added after
// a flush keeps the bound's inexactness (the Pippenger must never run over a bound).
class TailLength {
 public:
  uint64_t value() const { return used_; }
  bool exact() const { return exact_; }
  bool fits(uint64_t others, uint64_t capacity) const { return used_ + others <= capacity; }
  void add(uint64_t others, bool exact) { used_ += others, exact_ = exact_ && (exact || others == 0); }
  void set(uint64_t exact_length) { used_ = exact_length, exact_ = true; }

 private:
  uint64_t used_ = 0;
  bool exact_ = true;
};

// Kernel launchers (prover_stream.cu), each enqueued on `stream`; the drivers above sequence them.
using stream_ops::WitnessView;
// The first failing row's placeholder when H's top coefficient shows that some row fails
// (stream_qap_h then finds which).
inline constexpr uint64_t kUnsatisfiedRowUnknown = UINT64_MAX - 1;
void launch_qap_pass1(const ChunkView& v, const Fr* dict, WitnessView w, Fr* a, Fr* b, cudaStream_t stream);
// *flag = kUnsatisfiedRowUnknown when *x ≠ 0.
void launch_flag_nonzero(const Fr* x, unsigned long long* flag, cudaStream_t stream);
// *first = min(*first, the first i < m with x_i ≠ y_i).
void launch_first_mismatch(const Fr* x, const Fr* y, uint64_t m, unsigned long long* first, cudaStream_t stream);
void launch_qap_pass2(const ChunkView& v, const Fr* dict, WitnessView w, Fr* c, bool bellperson, cudaStream_t stream);
// Rows m ≤ i < n of a and b (bellperson input rows a = w_(i−m), else 0; b = 0), and whether w_0 = 1.
void launch_qap_tail(Fr* a, Fr* b, WitnessView w, uint64_t m, uint64_t n, uint64_t num_inputs, bool bellperson,
                     uint64_t* witness_one_ok, cudaStream_t stream);
void launch_fill_zero(Fr* v, uint64_t count, cudaStream_t stream);
void launch_split_layer(Fr* v, uint32_t level, bool dit, bool inverse, stream_ops::BlockScale scale,
                        const stream_ops::SplitTwiddles& t, cudaStream_t stream);
void launch_mul(Fr* a, const Fr* b, uint64_t n, cudaStream_t stream);                        // a = a·b
void launch_sub_scale(Fr* a, const Fr* b, uint64_t n, Fr factor, bool scale, cudaStream_t stream);  // a = (a − b)·f
// out[k] = v[split_position(first + k)], k < count (the H scalars of a chunk, natural order).
void launch_gather_split(const Fr* v, uint64_t first, uint64_t count, uint32_t log_n, uint32_t depth, Fr* out,
                         cudaStream_t stream);
// Adds the chunk's "other" scalars to *counter.
void launch_count_others(const ChunkView& v, WitnessView w, uint64_t offset, unsigned long long* counter,
                         cudaStream_t stream);
// accum[t] += the bases whose scalar is 1 (thread t of `threads` takes every threads-th point);
// the others' bases and scalars are appended at tail[*tail_count++].
template <class F>
void launch_ones_gather(const ChunkView& v, WitnessView w, uint64_t offset, Xyzz<F>* accum, uint32_t threads,
                        Affine<F>* tail_bases, Fr* tail_scalars, unsigned long long* tail_count, cudaStream_t stream);
template <class F>
void launch_set_infinity(Xyzz<F>* p, uint64_t count, cudaStream_t stream);
// *out = Σ in[0, count); in[] is clobbered (past 512 points the block sums are written into it).
template <class F>
void launch_sum_points(Xyzz<F>* in, uint64_t count, Xyzz<F>* out, cudaStream_t stream);
}  // namespace detail

}  // namespace snarkd::cuda
