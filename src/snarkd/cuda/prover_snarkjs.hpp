// The GPU twin of groth16::compute_sums for snarkjs-flavour keys (.zkey) of either curve, E =
// groth16::Bn254 (circom's keys) or groth16::Bls12_381: the five query sums of a proof, before the
// blinding (groth16::assemble adds it on the host).
//
// snarkjs keys need none of the Filecoin machinery of prover.hpp (densities, the bit-split MSMs
// for 0/1 witnesses, streamed keys): every query is full (A, B over all variables, L over the aux
// ones, H over the n domain points) and circom witnesses are mostly random field elements. So a
// proof is, on one stream (prove_on_stream):
//   1. SpMV a = A·w, b = B·w over the zkey's rows (its input rows x_s·0 = 0 included), zeros to n,
//      c = a∘b (prover_kernels.cuh, shared with prover.cu), and the check that w_0 = 1;
//   2. H scalars in a: inverse NTT and coset NTT (shift ω₂ₙ, snarkjs's odd points of the 2n
//      domain) of a, b, c, then a·b − c (Z = −2 is folded into the key);
//   3. five Pippenger MSMs (cuda/msm.hpp): A, B (G1), B (G2) over w and L over the aux values,
//      whose witness values 1 are summed apart (a bit-heavy witness's ones would fill one bucket
//      per window) and whose buckets accumulate in chunks (detail::witness_msm_options); H over
//      a;
//   4. one copy of the five XYZZ results to the caller's pinned memory.
// At 2^20 constraints that is 6 NTTs and 4 G1 + 1 G2 MSMs of 2^20 points (docs/PERFORMANCE.md has
// the H200 figures).
//
// Memory: SnarkjsDeviceKey holds the key's points, the A/B CSR matrices, the coefficient
// dictionary and the NTT tables in one region (region_bytes(key)): placed in the caller's memory
// (an engine device's pool, carved by its ledger; nothing allocated) or allocated by the key
// itself (tools, the CLI, tests: as DeviceProvingKey(int, key) does). workspace_bytes() per
// proof in flight is the caller's; workspace_layout_for(key) gives it from the key's shape
// before any key is placed (the engine plans its working sets at load).
#pragma once
#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <memory>
#include <span>

#include "snarkd/cuda/curve.hpp"
#include "snarkd/cuda/field.hpp"
#include "snarkd/cuda/fp2.hpp"
#include "snarkd/cuda/msm.hpp"
#include "snarkd/cuda/ntt.hpp"
#include "snarkd/cuda/prover.hpp"  // PhaseEvents, kProverPhases
#include "snarkd/cuda/runtime.hpp"
#include "snarkd/cuda/spmv.hpp"
#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/groth16/prover.hpp"

namespace snarkd::cuda {

// The device types of a groth16 curve: scalars, and the base fields of G1 and G2.
template <class E>
struct DeviceCurve {
  using Fr = Field<typename E::Fr>;
  using G1 = DeviceFieldOf<typename E::G1>;
  using G2 = DeviceFieldOf<typename E::G2>;
};

// The results of one proof as they leave the device (one copy).
template <class E>
struct SnarkjsDeviceSums {
  Xyzz<typename DeviceCurve<E>::G1> a, b1, l, h;
  Xyzz<typename DeviceCurve<E>::G2> b2;
  uint64_t witness_one_ok;  // 1 when w_0 (the ONE) was 1 on the device
};

// Byte offsets into one proof's workspace (256-aligned): the witness, a, b, c (n each), NTT
// scratch, MSM scratch (the largest of the five MSMs), the witness without its ones (the MSMs'
// scalars) and the ones sums' block partials, the sums.
struct SnarkjsWorkspaceLayout {
  uint64_t witness = 0, a = 0, b = 0, c = 0, ntt_scratch = 0, ntt_scratch_bytes = 0;
  uint64_t msm_scratch = 0, msm_scratch_bytes = 0, rest = 0, partials = 0, sums = 0, total = 0;
};

template <class E>
class SnarkjsDeviceKey {
 public:
  using Fr = typename DeviceCurve<E>::Fr;
  using G1 = typename DeviceCurve<E>::G1;
  using G2 = typename DeviceCurve<E>::G2;

  // The region the key takes on a device (host arithmetic on the key's shape): dictionary, A/B
  // CSR matrices, the five queries' points and the NTT tables, each part 256-aligned.
  // InvalidArgument as the constructors (the key is checked first).
  static uint64_t region_bytes(const groth16::BoundKeyT<E>& key);
  // One proof's workspace for the key, from its shape alone (the same layout the constructors
  // give layout()). The MSM scratch asks CUB for its sort's temporary bytes on the current
  // device: set-up time, not a worker's path.
  static SnarkjsWorkspaceLayout workspace_layout_for(const groth16::BoundKeyT<E>& key);

  // Places the key and its circuit (bound, so their shapes agree) at d_region (region_bytes(key)
  // bytes, 256-aligned, on `device`), copied on `stream`, and waits for that stream only.
  // Allocates nothing: the region is the caller's (an engine device's ledger) and must outlive
  // the key. InvalidArgument unless the key is snarkjs-flavour and its domain within the NTT's
  // 2^28, or for a null or misaligned region; cuda::Error on CUDA failures.
  SnarkjsDeviceKey(int device, const groth16::BoundKeyT<E>& key, void* d_region, cudaStream_t stream);
  // Tests and tools: the same in a region of its own, allocated here (set-up time), placed on a
  // stream of its own.
  SnarkjsDeviceKey(int device, const groth16::BoundKeyT<E>& key);
  SnarkjsDeviceKey(const SnarkjsDeviceKey&) = delete;
  SnarkjsDeviceKey& operator=(const SnarkjsDeviceKey&) = delete;

  int device() const { return device_; }
  uint32_t log_domain() const { return log_domain_; }
  uint64_t domain_size() const { return uint64_t{1} << log_domain_; }
  uint64_t num_vars() const { return num_vars_; }
  uint64_t num_inputs() const { return num_inputs_; }
  uint64_t num_rows() const { return view_.a_matrix.rows; }  // the zkey's rows (input rows included)
  uint64_t resident_bytes() const { return region_bytes_; }  // the key's region
  uint64_t workspace_bytes() const { return layout_.total; }
  const SnarkjsWorkspaceLayout& layout() const { return layout_; }

  struct View {
    CsrView a_matrix, b_matrix;
    const Fr* dict = nullptr;
    const Affine<G1>*a = nullptr, *b_g1 = nullptr, *l = nullptr, *h = nullptr;
    const Affine<G2>* b_g2 = nullptr;
  };
  const View& view() const { return view_; }
  const NttTablesT<Fr>& ntt_tables() const { return *tables_; }

 private:
  // Both public constructors start here (the key checked), then place().
  struct ShapeOnly {};
  SnarkjsDeviceKey(int device, const groth16::BoundKeyT<E>& key, ShapeOnly);
  // Copies the key into `region`, builds the views and the tables, waits for `stream`.
  void place(const groth16::BoundKeyT<E>& key, uint8_t* region, cudaStream_t stream);

  int device_;
  uint32_t log_domain_;
  uint64_t num_vars_, num_inputs_, region_bytes_ = 0;
  DeviceBuffer<uint8_t> own_;  // the allocating constructor's region; empty when placed
  std::unique_ptr<NttTablesT<Fr>> tables_;  // placed in the region (after own_: goes first)
  View view_;
  SnarkjsWorkspaceLayout layout_;
};

// Enqueues the copy of the witness (num_vars values, ONE first; pinned host memory for a truly
// asynchronous copy, valid until the stream reaches it) into the workspace.
template <class E>
void enqueue_witness_upload(const SnarkjsDeviceKey<E>& key, const typename E::Fr* h_witness, void* d_workspace,
                            cudaStream_t stream);

// Steps 1–4 on `stream` (after the witness upload, in stream order). Only enqueues: no allocation,
// no synchronisation; *h_out (pinned) holds the sums once the stream has passed the final copy.
// The workspace (key.workspace_bytes(), 256-aligned) and h_out stay untouched until then. Phase k
// of `phases` (kProverPhaseNames) is recorded as in prove_on_stream (prover.hpp).
template <class E>
void prove_on_stream(const SnarkjsDeviceKey<E>& key, void* d_workspace, SnarkjsDeviceSums<E>* h_out,
                     cudaStream_t stream, const PhaseEvents* phases = nullptr);

// The sums in groth16's form (XYZZ → Jacobian); InvalidArgument when the ONE was not 1.
template <class E>
groth16::QuerySumsT<E> to_query_sums(const SnarkjsDeviceSums<E>& sums);

// A key on one device with one workspace, pinned staging and a stream of its own, for proofs one
// after another (the CLI, benchmarks, tests). Not thread-safe: one proof at a time.
template <class E>
class SnarkjsGpuProver {
 public:
  SnarkjsGpuProver(int device, std::shared_ptr<const groth16::BoundKeyT<E>> key);
  ~SnarkjsGpuProver();
  SnarkjsGpuProver(const SnarkjsGpuProver&) = delete;
  SnarkjsGpuProver& operator=(const SnarkjsGpuProver&) = delete;

  // The sums of one proof: checks the witness as the CPU prover does (length, ONE), uploads it,
  // runs, waits. `phase_s`, when given, receives the seconds of each device phase.
  groth16::QuerySumsT<E> compute_sums(std::span<const typename E::Fr> witness,
                                      std::array<double, kProverPhases>* phase_s = nullptr);
  const SnarkjsDeviceKey<E>& device_key() const { return dkey_; }
  const groth16::BoundKeyT<E>& key() const { return *key_; }

 private:
  std::shared_ptr<const groth16::BoundKeyT<E>> key_;
  SnarkjsDeviceKey<E> dkey_;
  Stream stream_;
  DeviceBuffer<uint8_t> workspace_;
  PinnedBuffer<typename E::Fr> h_witness_;
  PinnedBuffer<SnarkjsDeviceSums<E>> h_out_;
  PhaseEvents events_;
};

namespace detail {
// Blocks of the ones sums (prover_snarkjs.cu): one XYZZ partial each.
inline constexpr uint32_t kOnesPartials = 128;
// The witness MSMs' accumulation: never one thread per bucket. Circuits with bit decompositions
// (Num2Bits, SHA-256) have witnesses of mostly 0 and 1, whose equal digits pile into one bucket
// per window; the bucket-thread kernel (G2's default for random scalars) would add such a run in
// one thread, as prover.cu's notes measured for BLS12-381 (25.8 s instead of 172 ms at 2^21).
// The chunked kinds cut every run into equal lanes; SNARKD_MSM_ACCUMULATE=xyzz|affine still
// chooses between them.
template <class F>
MsmOptions witness_msm_options() {
  MsmOptions o = group_default_options<F>();
  if (o.accumulation == MsmAccumulation::kBucketThreads) o.accumulation = MsmAccumulation::kChunkedXyzz;
  return o;
}
}  // namespace detail

#define SNARKD_CUDA_PROVER_SNARKJS_DECLARE(E)                                                                     \
  extern template class SnarkjsDeviceKey<E>;                                                                      \
  extern template class SnarkjsGpuProver<E>;                                                                      \
  extern template void enqueue_witness_upload<E>(const SnarkjsDeviceKey<E>&, const typename E::Fr*, void*,        \
                                                 cudaStream_t);                                                   \
  extern template void prove_on_stream<E>(const SnarkjsDeviceKey<E>&, void*, SnarkjsDeviceSums<E>*, cudaStream_t, \
                                          const PhaseEvents*);                                                    \
  extern template groth16::QuerySumsT<E> to_query_sums<E>(const SnarkjsDeviceSums<E>&);
SNARKD_CUDA_PROVER_SNARKJS_DECLARE(groth16::Bls12_381)
SNARKD_CUDA_PROVER_SNARKJS_DECLARE(groth16::Bn254)
#undef SNARKD_CUDA_PROVER_SNARKJS_DECLARE

}  // namespace snarkd::cuda
