// The element-wise kernels of the one-stream GPU provers, over either curve's device scalar field
// F (cuda::Fr, cuda::bn254::Fr): prover.cu (both key flavours, BLS12-381) and prover_snarkjs.cu
// (snarkjs keys of both curves) launch the same code. Included by .cu files only.
#pragma once
#include <algorithm>
#include <cstdint>

#include "snarkd/cuda/ntt.hpp"
#include "snarkd/cuda/runtime.hpp"

namespace snarkd::cuda::detail::prover_kernels {

inline constexpr uint32_t kThreads = 256;

// Grid-stride kernels: at most 2^16 blocks, enough to fill an H200 many times over; at least
// one (a launch of zero blocks is an error, and the loops handle n = 0).
inline uint32_t blocks_for(uint64_t n) {
  return uint32_t(std::clamp<uint64_t>((n + kThreads - 1) / kThreads, 1, 65536));
}

__device__ __forceinline__ uint64_t first_index() { return uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ __forceinline__ uint64_t grid_stride() { return uint64_t(gridDim.x) * blockDim.x; }

// Rows i < n of the QAP after the SpMV filled a, b (and c, bellperson) for the m constraint
// rows; the CPU twin is groth16::evaluate_qap + first_failing_row:
//   i ≥ m        bellperson's input rows w_j·0 = 0 (j = i − m < num_inputs), then zeros; these
//                rows hold by construction (b = c = 0), so they are not checked;
//   i < m        snarkjs: c = a∘b (the zkey has no C); bellperson: a·b ≠ c → atomicMin(row)
//                (first_failing_row is only touched for bellperson keys; null is fine otherwise).
// Thread 0 also writes whether w_0 (the ONE variable) is 1, every run (n ≥ 1: thread 0 exists).
template <class F>
__global__ void qap_rows_kernel(F* a, F* b, F* c, const F* w, uint64_t m, uint64_t n, uint64_t num_inputs,
                                bool bellperson, unsigned long long* first_failing_row, uint64_t* witness_one_ok) {
  if (first_index() == 0) *witness_one_ok = w[0] == F::one() ? 1 : 0;
  for (uint64_t i = first_index(); i < n; i += grid_stride()) {
    if (i >= m) {
      const uint64_t j = i - m;
      a[i] = bellperson && j < num_inputs ? w[j] : F::zero();
      b[i] = F::zero();
      c[i] = F::zero();
    } else if (!bellperson) {
      c[i] = a[i] * b[i];
    } else if (a[i] * b[i] != c[i]) {
      atomicMin(first_failing_row, static_cast<unsigned long long>(i));
    }
  }
}

// a = a·b − c (the snarkjs H scalars on the coset; Z = −2 is folded into its key).
template <class F>
__global__ void mul_sub_kernel(F* a, const F* b, const F* c, uint64_t n) {
  for (uint64_t i = first_index(); i < n; i += grid_stride()) a[i] = a[i] * b[i] - c[i];
}

// a = a·b.
template <class F>
__global__ void mul_kernel(F* a, const F* b, uint64_t n) {
  for (uint64_t i = first_index(); i < n; i += grid_stride()) a[i] = a[i] * b[i];
}

// a = (a − b)·factor, or a − b without scale.
template <class F>
__global__ void sub_scale_kernel(F* a, const F* b, uint64_t n, F factor, bool scale) {
  for (uint64_t i = first_index(); i < n; i += grid_stride()) {
    const F d = a[i] - b[i];
    a[i] = scale ? d * factor : d;
  }
}

// out[k] = w[index[k]]: a density-compacted query's scalars (groth16::gather_by_density).
template <class F>
__global__ void gather_kernel(const F* w, const uint32_t* index, uint64_t count, F* out) {
  for (uint64_t k = first_index(); k < count; k += grid_stride()) out[k] = w[index[k]];
}

// The H scalars into a by the plain sequence (groth16::h_scalars): a and b to the coset (inverse
// NTT, coset NTT with the tables' shift); snarkjs: c too, and a = a·b − c; bellperson: a = a·b,
// its coset inverse, c's inverse, and a = (a − c)·h_factor — the coefficients of h, c never on the
// coset (h_phase.hpp says why that is the same vector). b, c and ntt_scratch
// (ntt_scratch_bytes(k)) are clobbered.
template <class F>
void enqueue_h_unfused(const NttTablesT<F>& t, uint32_t k, bool bellperson, const F& h_factor, F* a, F* b, F* c,
                       void* ntt_scratch, cudaStream_t stream) {
  const uint64_t n = uint64_t{1} << k;
  auto to_coset = [&](F* v) {
    ntt(v, k, Direction::kInverse, false, t, ntt_scratch, stream);
    ntt(v, k, Direction::kForward, true, t, ntt_scratch, stream);
  };
  to_coset(a);
  to_coset(b);
  if (!bellperson) {
    to_coset(c);
    mul_sub_kernel<F><<<blocks_for(n), kThreads, 0, stream>>>(a, b, c, n);
    SNARKD_CUDA_CHECK_LAUNCH();
    return;
  }
  mul_kernel<F><<<blocks_for(n), kThreads, 0, stream>>>(a, b, n);
  SNARKD_CUDA_CHECK_LAUNCH();
  ntt(a, k, Direction::kInverse, true, t, ntt_scratch, stream);
  ntt(c, k, Direction::kInverse, false, t, ntt_scratch, stream);
  sub_scale_kernel<F><<<blocks_for(n), kThreads, 0, stream>>>(a, c, n, h_factor, true);
  SNARKD_CUDA_CHECK_LAUNCH();
}

}  // namespace snarkd::cuda::detail::prover_kernels
