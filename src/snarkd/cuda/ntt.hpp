// NTT over a scalar field on the GPU: forward, inverse (1/n fused), coset forward and coset
// inverse (shift powers fused), natural order in and out, 2^0..2^28 points, batched. F is the
// device field: cuda::Fr (BLS12-381, ntt.cu) or cuda::bn254::Fr (BN254, ntt_bn254.cu); both are
// 8 words, which the kernels' loads and shared-memory planes assume. NttTables, NttTablesView and
// detail::NttFusion name BLS12-381's instances, bn254::NttTables BN254's.
//
// Conventions are those of the CPU twin snarkd::poly (poly/ntt.hpp, DomainT<F::Host>):
//   forward:        a_j = Σ_i c_i ω^(ij)
//   inverse:        c_i = n⁻¹ Σ_j a_j ω^(−ij)
//   coset forward:  a_j = Σ_i c_i (s·ω^j)^i     (s = the tables' coset shift)
//   coset inverse:  its inverse.
// ω = F::Host::root_of_unity(log_n, generator); generator 5 (snarkjs, both curves) or 7
// (bellperson, BLS12-381). BN254's r − 1 = 2^28·odd, so 2^28 is also its largest domain.
//
// Algorithm (ntt.cu): a four-step (Stockham) decomposition n = A·B or A·C·D into 1, 2 or 3 passes
// over device memory, each a batch of DFTs of ≤ 2^10 points done in shared memory by radix-4
// rounds (≤ 10 radix-2 stages per kernel); the inter-pass twiddles come from precomputed tables,
// so natural order needs no bit-reversal pass. 2^27 = 3 passes of 2^9: 41 ms on an H200
// (docs/PERFORMANCE.md).
//
// Stream-ordered contract: ntt() only enqueues kernels on the given stream. It never allocates,
// frees or synchronises; scratch is the caller's (ntt_scratch_bytes), and NttTables — built once
// at set-up, the one place that allocates — must outlive the enqueued work. Kernels run on the
// current device, which must be the tables' device (use DeviceGuard).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "snarkd/cuda/field.hpp"
#include "snarkd/cuda/runtime.hpp"

namespace snarkd::cuda {

enum class Direction : uint8_t { kForward, kInverse };

// Device pointers of NttTablesT, passed to kernels by value.
template <class F>
struct NttTablesViewT {
  const F* small = nullptr;    // ω_1024^j, j < 1024 (in-kernel twiddles)
  const F* mid = nullptr;      // ω_(2^M)^j, j < 2^M, M = min(L, 20) (inter-pass twiddles)
  const F* fine = nullptr;     // ω_(2^L)^j, j < 2^(L−M) (second factor when L > 20)
  const F* coset[2] = {};      // s^j, j < 2^min(L,14); then s^(2^14·j), j < 2^max(L−14,0)
  const F* coset_inv[2] = {};  // the same for s⁻¹
  uint32_t log_l = 0;          // L = max_log_n
  uint32_t log_m = 0;          // M
};

template <class F>
class NttTablesT {
 public:
  using Host = typename F::Host;
  static constexpr uint32_t kMaxLogN = Host::kTwoAdicity < 28 ? uint32_t(Host::kTwoAdicity) : 28;

  // Tables for every size up to 2^max_log_n (≤ 28) with ω from `generator` (5 or 7: a quadratic
  // non-residue) and cosets s·⟨ω⟩ for `coset_shift` (non-zero; bellperson uses the multiplicative
  // generator 7). Allocates ~32·(2^min(max_log_n,20) + 2^16) bytes on the current device,
  // uploads, and waits for the upload. Throws InvalidArgument on bad arguments, cuda::Error on
  // CUDA failures.
  NttTablesT(uint32_t max_log_n, uint64_t generator, const Host& coset_shift);
  // The same tables placed in caller memory (a device's pool): device_bytes_for(max_log_n)
  // bytes at d_memory (256-aligned, current device), uploaded on `stream` and waited for (that
  // stream only). Nothing is allocated; the memory must outlive the tables' use.
  NttTablesT(uint32_t max_log_n, uint64_t generator, const Host& coset_shift, void* d_memory, cudaStream_t stream);
  static size_t device_bytes_for(uint32_t max_log_n);

  uint32_t max_log_n() const { return view_.log_l; }
  uint64_t generator() const { return generator_; }
  const Host& coset_shift() const { return coset_shift_; }
  int device() const { return device_; }
  size_t device_bytes() const { return bytes_; }
  const NttTablesViewT<F>& view() const { return view_; }
  // n⁻¹ for n = 2^log_n.
  const Host& size_inverse(uint32_t log_n) const { return size_inv_.at(log_n); }

 private:
  void finish(const F* base, const size_t* offsets, uint32_t max_log_n);  // views, 1/n, kernels

  uint64_t generator_;
  Host coset_shift_;
  int device_ = 0;
  DeviceBuffer<F> buffer_;  // empty when placed in caller memory
  size_t bytes_ = 0;
  NttTablesViewT<F> view_;
  std::vector<Host> size_inv_;
};

using NttTablesView = NttTablesViewT<Fr>;
using NttTables = NttTablesT<Fr>;
namespace bn254 {
using NttTables = NttTablesT<bn254::Fr>;
}  // namespace bn254

// Device scratch that ntt() needs for `batch` transforms of 2^log_n points (0 for ≤ 2^10); the
// same for both fields (32-byte elements).
size_t ntt_scratch_bytes(uint32_t log_n, uint32_t batch = 1);
static_assert(sizeof(Fr) == sizeof(bn254::Fr));

// Transforms `batch` vectors of 2^log_n elements stored back to back at d_data, in place.
// d_scratch: ntt_scratch_bytes(log_n, batch) bytes of device memory (may be null when that is 0).
// Throws InvalidArgument if log_n > tables.max_log_n(), batch == 0 or scratch is missing.
template <class F>
void ntt(F* d_data, uint32_t log_n, Direction dir, bool coset, const NttTablesT<F>& tables, void* d_scratch,
         cudaStream_t stream, uint32_t batch = 1);

namespace detail {
// What the last pass does with the transform's output v at index y instead of storing it.
enum class Pointwise : uint8_t {
  kNone,    // data[y] ← v
  kMulSub,  // a[y] ← a[y]·b[y] − v   (data is left as before the pass)
  kMul,     // a[y] ← a[y]·v          (data is left as before the pass)
  kSub,     // data[y] ← v − b[y]
};

// Work folded into a transform's passes by the fused H phase (h_phase.hpp); the defaults change
// nothing.
template <class F>
struct NttFusionT {
  // Replaces the tables' low coset-power table (s^j, or s^(−j) for the inverse; 2^min(L,14)
  // entries) with a copy scaled by a constant κ: the coset powers become κ·s^(±x) at no cost.
  const F* coset_low = nullptr;
  bool skip_scale = false;  // the inverse leaves out 1/n (folded into κ)
  // The inverse multiplies by `scale` instead of 1/n (ignored with skip_scale).
  bool scale_override = false;
  F scale{};
  Pointwise pointwise = Pointwise::kNone;
  F* pointwise_a = nullptr;  // kMulSub, kMul
  const F* pointwise_b = nullptr;  // kMulSub, kSub
};
using NttFusion = NttFusionT<Fr>;
template <class F>
void ntt_fused(F* d_data, uint32_t log_n, Direction dir, bool coset, const NttTablesT<F>& tables, void* d_scratch,
               cudaStream_t stream, uint32_t batch, const NttFusionT<F>& fusion);
// Raises the shared-memory limit of F's pass kernels (NttTablesT's constructors call it).
template <class F>
void ntt_configure_kernels();
}  // namespace detail

// Synchronous convenience over host memory (tests, tools): allocates device buffers, copies in,
// transforms on a private stream of the tables' device, copies back. data.size() must be a
// multiple of 2^log_n (the batch).
template <class F>
void ntt_sync(std::span<typename F::Host> data, uint32_t log_n, Direction dir, bool coset, const NttTablesT<F>& tables);

// Tables: ntt_tables.cpp; kernels and the rest: ntt.cu (Fr), ntt_bn254.cu (bn254::Fr).
#define SNARKD_CUDA_NTT_DECLARE(F)                                                                                    \
  extern template class NttTablesT<F>;                                                                                \
  extern template void ntt<F>(F*, uint32_t, Direction, bool, const NttTablesT<F>&, void*, cudaStream_t, uint32_t);    \
  extern template void detail::ntt_fused<F>(F*, uint32_t, Direction, bool, const NttTablesT<F>&, void*, cudaStream_t, \
                                            uint32_t, const detail::NttFusionT<F>&);                                  \
  extern template void detail::ntt_configure_kernels<F>();                                                            \
  extern template void ntt_sync<F>(std::span<typename F::Host>, uint32_t, Direction, bool, const NttTablesT<F>&);
SNARKD_CUDA_NTT_DECLARE(Fr)
SNARKD_CUDA_NTT_DECLARE(bn254::Fr)
#undef SNARKD_CUDA_NTT_DECLARE

}  // namespace snarkd::cuda
