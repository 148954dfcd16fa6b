// The batch-affine accumulation kernel of the GPU MSM (msm_accumulate.hpp; its launch is declared
// in msm_kernels.cuh): affine_lanes() lanes per thread, their state in the MSM's scratch as
// arrays of the lane index (explicit, counted memory rather than a per-thread local array the
// driver would size for every resident thread of the device). Included only by the
// msm_affine_*.cu units (one per group), which instantiate it with SNARKD_CUDA_MSM_AFFINE_DEFINE.
#pragma once
#include "snarkd/cuda/msm_kernels.cuh"

namespace snarkd::cuda::msm_detail {

// The lanes' kernels (msm_accumulate.hpp), one thread of `threads` each, in blocks of 128 with G1's
// register bounds by ptxas (sm_90): forward 116 registers without the continuing addition, so 4
// blocks an SM (16 warps for its three dependent loads); backward 4 (≤ 128, no spill; 140
// unbounded); the rest 3 (≤ 168). G2's Fp2 arithmetic takes what it needs.
template <class F>
inline constexpr int kAffineMinBlocks = kIsPrimeField<F> ? 3 : 1;
template <class F>
inline constexpr int kAffineStepBlocks = kIsPrimeField<F> ? 4 : 1;

template <class F>
__global__ void __launch_bounds__(kChunkThreads, kAffineMinBlocks<F>)
    affine_init_kernel(const ChunkArgs<F> a, const AffineState<F> s, uint32_t threads, uint32_t lanes) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < threads) affine_init_lanes<F>(a, s, t, threads, lanes);
}

template <class F, bool Continue>
__global__ void __launch_bounds__(kChunkThreads, Continue ? kAffineMinBlocks<F> : kAffineStepBlocks<F>)
    affine_forward_kernel(const ChunkArgs<F> a, const AffineState<F> s, uint32_t threads, uint32_t lanes, size_t step) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < threads) affine_forward_lanes<F, Continue>(a, s, t, threads, lanes, step);
}

// One thread per group of K lane threads (affine_invert_group).
template <class F, uint32_t K>
__global__ void __launch_bounds__(kChunkThreads)
    affine_invert_kernel(const ChunkArgs<F> a, const AffineState<F> s, uint32_t threads, uint32_t lanes, size_t step) {
  const uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
  if (size_t(g) * K < threads) affine_invert_group<F, K>(a, s, g, threads, lanes, step);
}

template <class F>
void launch_affine_invert(const ChunkArgs<F>& a, const AffineState<F>& s, uint32_t threads, uint32_t lanes,
                          size_t step, uint32_t k, cudaStream_t stream) {
  const uint32_t grid = blocks_for((size_t{threads} + k - 1) / k, kChunkThreads);
  with_invert_group(k, [&](auto group) {
    affine_invert_kernel<F, decltype(group)::value><<<grid, kChunkThreads, 0, stream>>>(a, s, threads, lanes, step);
  });
}

template <class F>
__global__ void __launch_bounds__(kChunkThreads, kAffineStepBlocks<F>)
    affine_backward_kernel(const ChunkArgs<F> a, const AffineState<F> s, uint32_t threads, uint32_t lanes, size_t step) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < threads) affine_backward_lanes<F>(a, s, t, threads, lanes, step);
}

template <class F, bool Continue>
__global__ void __launch_bounds__(kChunkThreads, kAffineMinBlocks<F>)
    affine_finish_kernel(const ChunkArgs<F> a, const AffineState<F> s, uint32_t threads, uint32_t lanes) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < threads) affine_finish_lanes<F, Continue>(a, s, t, threads, lanes);
}

// At most `threads` threads (the scratch's plan; affine_waves() whole waves of them) of
// affine_lanes() lanes; a step kernel whose thread has no entry left returns at once, so the
// launcher may run the most steps `entries` can need.
template <class F, bool Continue>
void launch_affine(ChunkArgs<F>& a, uint32_t planned, size_t entries, void* lanes, cudaStream_t stream) {
  const uint32_t m = affine_lanes(), k = affine_invert_group_size<F>(), waves = affine_waves();
  const uint32_t threads =
      lane_threads(reinterpret_cast<const void*>(affine_forward_kernel<F, Continue>), waves, planned);
  a.chunks = threads * m;
  const AffineState<F> s = affine_state<F>(lanes, size_t{threads} * m, threads);
  const uint32_t grid = blocks_for(threads, kChunkThreads);
  affine_init_kernel<F><<<grid, kChunkThreads, 0, stream>>>(a, s, threads, m);
  SNARKD_CUDA_CHECK_LAUNCH();
  for (size_t step = 0, steps = chunk_length(entries, a.chunks); step < steps; ++step) {
    affine_forward_kernel<F, Continue><<<grid, kChunkThreads, 0, stream>>>(a, s, threads, m, step);
    launch_affine_invert<F>(a, s, threads, m, step, k, stream);
    affine_backward_kernel<F><<<grid, kChunkThreads, 0, stream>>>(a, s, threads, m, step);
  }
  SNARKD_CUDA_CHECK_LAUNCH();
  affine_finish_kernel<F, Continue><<<grid, kChunkThreads, 0, stream>>>(a, s, threads, m);
  SNARKD_CUDA_CHECK_LAUNCH();
}

template <class F>
void launch_chunk_affine(ChunkArgs<F>& a, uint32_t threads, size_t entries, void* lanes, cudaStream_t stream) {
  if (may_continue(a.pass)) launch_affine<F, true>(a, threads, entries, lanes, stream);
  else launch_affine<F, false>(a, threads, entries, lanes, stream);
}

}  // namespace snarkd::cuda::msm_detail

// In namespace snarkd::cuda.
#define SNARKD_CUDA_MSM_AFFINE_DEFINE(F) \
  template void msm_detail::launch_chunk_affine<F>(msm_detail::ChunkArgs<F>&, uint32_t, size_t, void*, cudaStream_t);
