// The batch-affine accumulation kernel of the GPU MSM (msm_accumulate.hpp; its launch is declared
// in msm_kernels.cuh): kAffineLanes lanes per thread, their state in the MSM's scratch (lane l of
// thread t at lanes[l·threads + t]: explicit, counted memory rather than a per-thread local array
// the driver would size for every resident thread of the device). Included only by the
// msm_affine_*.cu units (one per group), which instantiate it with SNARKD_CUDA_MSM_AFFINE_DEFINE.
#pragma once
#include "snarkd/cuda/msm_kernels.cuh"

namespace snarkd::cuda::msm_detail {

template <class F>
__global__ void __launch_bounds__(kChunkThreads)
    chunk_affine_kernel(const ChunkArgs<F> a, uint32_t threads, AffineLane<F>* lanes) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < threads) chunk_affine<F, kAffineLanes>(a, t, lanes + t, threads);
}

template <class F>
void launch_chunk_affine(ChunkArgs<F>& a, uint32_t max_threads, void* lanes, cudaStream_t stream) {
  const uint32_t wave = resident_threads(reinterpret_cast<const void*>(chunk_affine_kernel<F>), kChunkThreads);
  const uint32_t threads = whole_waves(wave, kAffineWaves, max_threads);
  a.chunks = threads * kAffineLanes;
  chunk_affine_kernel<F><<<blocks_for(threads, kChunkThreads), kChunkThreads, 0, stream>>>(
      a, threads, static_cast<AffineLane<F>*>(lanes));
  SNARKD_CUDA_CHECK_LAUNCH();
}

}  // namespace snarkd::cuda::msm_detail

// In namespace snarkd::cuda.
#define SNARKD_CUDA_MSM_AFFINE_DEFINE(F) \
  template void msm_detail::launch_chunk_affine<F>(msm_detail::ChunkArgs<F>&, uint32_t, void*, cudaStream_t);
