// The GPU twin of groth16::compute_sums (groth16/prover.hpp): the five witness MSMs of a proof,
// before the blinding, for both key flavours (groth16/keys.hpp, groth16/qap.hpp).
//
// Split between what is fixed per circuit and what each partition (one proof) needs:
//   DeviceProvingKey   the key's query points, the circuit's CSR matrices and dictionary, the
//                      A/B density index lists and the NTT tables, uploaded once at set-up into
//                      a region the caller carved from its pool (KeyLayout; or, for tests and
//                      tools, one buffer of its own) and read-only afterwards, so every worker
//                      of the device shares one copy. A key that does not fit is resident in
//                      part (KeyResidency: the rest streams, prover_stream.hpp).
//   workspace          workspace_bytes() of device memory per partition, the caller's (the
//                      engine carves it from its pool); the functions below work on the caller's
//                      stream: no allocation, no device-wide synchronisation (prove_on_stream
//                      waits for that one stream four times, see step 3).
//
// Per proof, on one stream (prove_on_stream):
//   1. SpMV a = A·w, b = B·w (and c = C·w, bellperson) over the constraint rows; one pass over
//      the n domain rows appends bellperson's input rows (a = w_j, b = c = 0), zero-pads, forms
//      c = a∘b (snarkjs), for bellperson records the first row with a·b ≠ c (atomicMin), and
//      checks that w_0 = 1.
//   2. H scalars, in place in a: iNTT and coset NTT of a, b (shift 7 or ω₂ₙ); bellperson:
//      a = (coset iNTT(â·b̂) − iNTT(c))·1/(sⁿ − 1), first n − 1 values; snarkjs: a = â·b̂ − ĉ
//      (enqueue_h_scalars: the fused h_phase(), or the unfused sequence, ProverPaths).
//   3. MSMs, one after another: A (G1) and B (G1, G2) over the density-gathered witness (the
//      witness itself for snarkjs's full queries), L over the aux values — each through the
//      bit-split MSM (cuda/msm_split.hpp), which classifies the scalars and waits for the stream
//      to learn the tail's length; the two B sums share one classification — and H over the
//      scalars (plain Pippenger).
//   4. One copy of the results (DeviceSums) to the caller's pinned host memory.
// The satisfiability result travels with the sums: to_query_sums throws UnsatisfiedWitness
// naming the row, as the CPU prover does (snarkjs keys carry no C matrix: nothing to check).
//
// Workspace layout (offsets 256-aligned; `n` = domain size, `w` = num_vars):
//   witness  w·32 B                               uploaded by enqueue_witness_upload
//   a        n·32 B                               a → H scalars
//   phase    max(b + c + H scratch,               during step 2 (h_scalars_scratch_bytes)
//                gather (max(|A|,|B|)·32 B) + MSM scratch for the largest of the five MSMs, the
//                split MSMs' tails sized for 2^23 points — longer tails run in chunks)
//   sums     sizeof(DeviceSums)                   results + first failing row
// At a PoRep partition (w ≈ 1.3·10^8, n = 2^27): 3.9 + 4 + max(12, ≈ 9) GiB ≈ 20 GiB. At small
// n the MSM scratch dominates the phase.
#pragma once
#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stop_token>

#include "snarkd/cuda/curve.hpp"
#include "snarkd/cuda/field.hpp"
#include "snarkd/cuda/ntt.hpp"
#include "snarkd/cuda/prover_stream_ops.hpp"
#include "snarkd/cuda/runtime.hpp"
#include "snarkd/cuda/spmv.hpp"
#include "snarkd/groth16/keys.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::cuda {

// The results of one proof as they leave the device (one copy): the five sums in XYZZ, the
// first QAP row where a·b ≠ c (UINT64_MAX = none; always none for snarkjs keys), and whether
// the witness's ONE was 1 on the device (1 = yes; checked there too because a caller may copy
// the witness in without enqueue_witness_upload).
struct DeviceSums {
  G1Xyzz a, b1, l, h;
  G2Xyzz b2;
  uint64_t first_failing_row;
  uint64_t witness_one_ok;
};

// Byte offsets into one partition's workspace (see the layout above).
struct ProverWorkspaceLayout {
  uint64_t witness = 0, a = 0, b = 0, c = 0, ntt_scratch = 0, ntt_scratch_bytes = 0;  // phase: H
  uint64_t gather = 0, msm_scratch = 0, msm_scratch_bytes = 0;  // phase: MSMs (over b, c, ...)
  uint64_t sums = 0;
  uint64_t total = 0;
};

// What of a key lives on the device: the QAP's matrices (A, B, and C for bellperson) or not,
// and a prefix of each query (a, b_g1, b_g2, l, h: points, with their density index entries).
// Full residency is what prove_on_stream needs; anything less serves the streamed prover.
struct KeyResidency {
  bool matrices = true;
  std::array<uint64_t, 5> points{UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX};
};

// Byte offsets of a key's region (256-aligned; engine/residency.hpp's resident_layout_bytes
// counts the same): the fixed part [dictionary | NTT tables | the split NTT's block tables and
// twiddles (prover_stream.hpp)], then each
// resident matrix [row_ptr | col | coeff], then each query's prefix [points | index].
struct KeyLayout {
  uint64_t dict = 0, tables = 0, block_tables = 0, twiddles = 0, fixed = 0;  // fixed = end of the fixed part
  uint64_t matrix[3][3] = {};                             // [A, B, C][row_ptr, col, coeff]
  uint64_t points[5] = {}, index[5] = {};
  std::array<uint64_t, 5> resident{};                      // points resident per query
  bool matrices = false;
  uint64_t total = 0;
};

class DeviceProvingKey {
 public:
  // The region a key takes with this residency (host arithmetic on the key's shape).
  static KeyLayout layout_for(const groth16::BoundKey& key, const KeyResidency& res);
  // Places the key's resident parts (points, matrices, dictionary, tables) at
  // d_region (layout_for(...).total bytes, 256-aligned, on `device`), copied on `stream` (from
  // pinned host memory they are asynchronous DMA), and waits for that stream. Allocates nothing.
  // The key's shape and the circuit's structure were checked by groth16::BoundKey::bind; throws
  // InvalidArgument when the domain exceeds the NTT tables; cuda::Error on CUDA failures.
  DeviceProvingKey(int device, const groth16::BoundKey& key, const KeyResidency& res, void* d_region,
                   cudaStream_t stream);
  // Tests and tools: fully resident in a buffer of its own (allocated here, set-up time).
  DeviceProvingKey(int device, const groth16::BoundKey& key);
  ~DeviceProvingKey();
  DeviceProvingKey(const DeviceProvingKey&) = delete;
  DeviceProvingKey& operator=(const DeviceProvingKey&) = delete;

  int device() const { return device_; }
  groth16::KeyFlavour flavour() const { return flavour_; }
  uint32_t log_domain() const { return log_domain_; }
  uint64_t domain_size() const { return uint64_t{1} << log_domain_; }
  uint64_t num_constraints() const { return num_constraints_; }
  uint64_t num_inputs() const { return num_inputs_; }
  uint64_t num_vars() const { return num_vars_; }
  uint64_t resident_bytes() const { return key_layout_.total; }  // the key's region
  // Fully resident keys: one partition's prove_on_stream workspace, multiple of 256.
  uint64_t workspace_bytes() const { return layout_.total; }
  const ProverWorkspaceLayout& layout() const { return layout_; }
  const KeyLayout& key_layout() const { return key_layout_; }
  bool fully_resident() const;
  // The same workspace computed from the key's shape alone (CUB sizes: needs a device).
  static uint64_t full_workspace_bytes(const groth16::BoundKey& key);

  // Device data, read by prove_on_stream (prover.cu).
  struct View {
    CsrView a_matrix, b_matrix, c_matrix;  // c_matrix.rows = 0 for snarkjs (c = a∘b)
    const Fr* dict = nullptr;
    const G1Affine *a = nullptr, *b_g1 = nullptr, *l = nullptr, *h = nullptr;
    const G2Affine* b_g2 = nullptr;
    uint64_t a_len = 0, b_len = 0, l_len = 0, h_len = 0;
    const uint32_t* a_index = nullptr;  // variables of the A query (null: every variable)
    const uint32_t* b_index = nullptr;  // likewise for B
    Fr h_factor;                        // 1/(sⁿ − 1) (bellperson), 1 (snarkjs)
    // Partly resident keys: each query's resident prefix (a, b_g1, b_g2, l, h), its index
    // entries (null: full query), and the split NTT's twiddles.
    std::array<uint64_t, 5> resident{};
    std::array<const void*, 5> points{};
    std::array<const uint32_t*, 5> index{};
    stream_ops::SplitTwiddles twiddles;
  };
  const View& view() const { return view_; }
  const NttTables& ntt_tables() const { return *tables_; }
  // The split NTT's blocks (prover_stream.hpp): 2^(L − d) points, coset shift s^(2^d); null
  // when the split depth d is 0.
  const NttTables* block_tables() const { return block_tables_.get(); }

 private:
  struct ShapeOnly {};
  // The key's shape, checked (check_key); both public constructors start here, then place it.
  DeviceProvingKey(int device, const groth16::BoundKey& key, ShapeOnly);

  int device_;
  groth16::KeyFlavour flavour_;
  uint32_t log_domain_;
  uint64_t num_constraints_, num_inputs_, num_vars_;
  void place(const groth16::ProvingKey& pk, const r1cs::Circuit& circuit, uint8_t* base, cudaStream_t stream);

  DeviceBuffer<uint8_t> own_;  // the allocating constructor's region
  std::unique_ptr<NttTables> tables_, block_tables_;
  View view_;
  ProverWorkspaceLayout layout_;
  KeyLayout key_layout_;
};

namespace detail {
// Scratch for the largest of the five MSMs (prover.cu: the one place that names the MSMs).
uint64_t prover_msm_scratch_bytes(uint64_t a_len, uint64_t b_len, uint64_t l_len, uint64_t h_len);
// Throws InvalidArgument naming `who` unless p is non-null and 256-aligned.
void check_prover_workspace(const void* p, const char* who);
// to_query_sums' checks alone: InvalidArgument when the ONE was not 1, UnsatisfiedWitness for a
// failing row.
void check_device_sums(const DeviceProvingKey& key, const DeviceSums& sums);
// The steps prove_on_stream is made of, for the a/b/c form (prover_abc.hpp) on the same stream:
// H scalars into a (a, b, c: 2^k values each; b, c and ntt_scratch are clobbered), the witness
// MSMs (bit-split; they wait for `stream` once, see prover.cu) and the H MSM. Scratch: at least
// prover_msm_scratch_bytes for the lengths involved.
void enqueue_h_scalars(const NttTables& t, uint32_t k, bool bellperson, const Fr& h_factor, Fr* a, Fr* b, Fr* c,
                       void* ntt_scratch, cudaStream_t stream);
void witness_msm_g1(const G1Affine* bases, const Fr* scalars, uint64_t n, G1Xyzz* out, void* scratch,
                    uint64_t scratch_bytes, cudaStream_t stream);
void witness_msm_g2(const G2Affine* bases, const Fr* scalars, uint64_t n, G2Xyzz* out, void* scratch,
                    uint64_t scratch_bytes, cudaStream_t stream);
void h_msm_g1(const G1Affine* bases, const Fr* scalars, uint64_t n, G1Xyzz* out, void* scratch, uint64_t scratch_bytes,
              cudaStream_t stream);
}  // namespace detail

// Which of two equivalent device paths the GPU provers take (same proofs; the A/B switch of the
// benchmarks, issue 20): the defaults are the fast ones.
struct ProverPaths {
  bool fused_h = true;   // H by h_phase() (h_phase.hpp); false: the same transforms, pointwise kernels apart
  bool shared_b = true;  // one classification of the B scalars for the B G1 and B G2 MSMs
  // The streamed H MSM: (the default) buckets carried across the H query's chunks and reduced
  // once, or a whole Pippenger per chunk (prover_stream.hpp). A PoRep partition's 19 chunks at
  // 16 GiB spent 0.26 s in per-chunk reductions and Horner steps; carried, the partition costs
  // 2.355 against 2.404 s (and 2.906 against 3.030 s in an earlier lease; docs/PERFORMANCE.md).
  bool h_buckets_across_chunks = true;
  // The resident provers' H MSM: (the default) the group's default kind (group_default_options),
  // or the kind the plain msm() takes for its size (G1's batch-affine lanes from 2^24 points:
  // ≈ 2.3 GB more of a 2^27 partition's working set), where the workspace holds its scratch.
  bool h_msm_plain = false;
  bool operator==(const ProverPaths&) const = default;
};
// The paths in force: SNARKD_H_PHASE = fused | unfused, SNARKD_B_CLASSIFY = once | twice,
// SNARKD_STREAM_H_MSM = buckets | chunks and SNARKD_H_MSM = group | plain (read once per process;
// InvalidArgument naming the variable for another value), unless a ScopedProverPaths overrides them.
ProverPaths prover_paths();
namespace detail {
// Tests: every prover in the process takes `p` while this lives (not nested across threads).
class ScopedProverPaths {
 public:
  explicit ScopedProverPaths(const ProverPaths& p);
  ~ScopedProverPaths();
  ScopedProverPaths(const ScopedProverPaths&) = delete;
  ScopedProverPaths& operator=(const ScopedProverPaths&) = delete;

 private:
  uint32_t previous_;
};
}  // namespace detail

// H from a, b, c on the device, for any caller holding the QAP's evaluations (the prover's step 2;
// a job that brings its own a, b, c): a, b, c are the key's domain size n each (natural order, on
// the domain); the H MSM's scalars end in a (n − 1 used for bellperson keys), b and c are
// overwritten. Scratch: h_scalars_scratch_bytes(key.log_domain()) bytes of device memory on the
// key's device. Enqueued on `stream` only (no allocation, no synchronisation); the key's device
// must be current. InvalidArgument when the scratch is missing or too small.
uint64_t h_scalars_scratch_bytes(uint32_t log_n);
void enqueue_h_scalars(const DeviceProvingKey& key, Fr* d_a, Fr* d_b, Fr* d_c, void* d_scratch,
                       uint64_t scratch_bytes, cudaStream_t stream, const ProverPaths& paths = prover_paths());

// Enqueues the copy of the witness (num_vars values, ONE first; pinned host memory for a truly
// asynchronous copy, valid until the stream reaches the copy) into the workspace. Throws
// InvalidArgument when witness[0] is not 1 (read on the host now: it must already be filled) or
// the workspace is not 256-aligned.
void enqueue_witness_upload(const DeviceProvingKey& key, const ff::Fr* h_witness, void* d_workspace,
                            cudaStream_t stream);

// Optional timing of prove_on_stream's phases: at[0] is recorded on the stream before step 1 and
// at[k + 1] after phase k (events created with timing enabled, owned by the caller; a recorded
// event costs the stream nothing measurable). Read them with phase_seconds once the stream has
// passed at[kProverPhases].
inline constexpr size_t kProverPhases = 7;
inline constexpr const char* kProverPhaseNames[kProverPhases] = {"qap", "h", "msm_a", "msm_b1", "msm_b2", "msm_l", "msm_h"};
struct PhaseEvents {
  cudaEvent_t at[kProverPhases + 1] = {};
};
// Seconds of each phase between the recorded events (cudaEventElapsedTime; no synchronisation).
std::array<double, kProverPhases> phase_seconds(const PhaseEvents& ev);

// Runs steps 1–4 on `stream` (ordered after the witness upload by the caller: same stream, or an
// event). It blocks the calling thread while it waits for `stream` after each of the four split
// classifications (the tails' lengths), and returns with the H MSM and the final copy still
// enqueued: *h_out (pinned host memory) holds the results once the stream has passed them. The
// workspace (key.workspace_bytes(), 256-aligned) and h_out must stay untouched until then.
// `stop` is checked after each phase is enqueued; once a stop is requested it waits for
// `stream` (what is already enqueued finishes: the workspace is free when it returns) and
// throws snarkd::Cancelled.
void prove_on_stream(const DeviceProvingKey& key, void* d_workspace, DeviceSums* h_out, cudaStream_t stream,
                     const PhaseEvents* phases = nullptr, const std::stop_token& stop = {});

// The sums in groth16's form (XYZZ → Jacobian). Throws InvalidArgument when the witness's ONE
// was not 1, groth16::UnsatisfiedWitness (the row, and the CPU prover's message) when a row
// failed.
groth16::QuerySums to_query_sums(const DeviceProvingKey& key, const DeviceSums& sums);

// Synchronous wrapper (tests, tools): checks the witness like the CPU prover, allocates a
// workspace and pinned staging, runs upload + prove on a private stream, waits, converts.
groth16::QuerySums compute_sums_sync(const DeviceProvingKey& key, std::span<const ff::Fr> witness);

}  // namespace snarkd::cuda
