// The XYZZ accumulation launches of the GPU MSM (declared in msm_kernels.cuh): chunked XYZZ lanes,
// and the one-thread-per-bucket kernel kept as `legacy`. Included only by the msm_xyzz_*.cu units
// (one per group: msm_xyzz_g1.cu, msm_xyzz_g2.cu for BLS12-381, msm_xyzz_bn254_g1.cu,
// msm_xyzz_bn254_g2.cu), which instantiate it with SNARKD_CUDA_MSM_XYZZ_DEFINE: the kernels then
// compile in their own compiler processes, apart from the driver's unit.
#pragma once
#include "snarkd/cuda/msm_kernels.cuh"

namespace snarkd::cuda::msm_detail {

template <class F>
void launch_bucket_threads(const ChunkArgs<F>& a, cudaStream_t stream) {
  accumulate_kernel<F><<<blocks_for(size_t(a.pass.vc) * a.buckets), kThreads, 0, stream>>>(a);
  SNARKD_CUDA_CHECK_LAUNCH();
}

template <class F>
void launch_chunk_xyzz(ChunkArgs<F>& a, uint32_t max_lanes, uint32_t waves, cudaStream_t stream) {
  a.chunks = lane_threads(reinterpret_cast<const void*>(chunk_xyzz_kernel<F>), waves, max_lanes);
  chunk_xyzz_kernel<F><<<blocks_for(a.chunks, kChunkThreads), kChunkThreads, 0, stream>>>(a);
  SNARKD_CUDA_CHECK_LAUNCH();
}

}  // namespace snarkd::cuda::msm_detail

// In namespace snarkd::cuda.
#define SNARKD_CUDA_MSM_XYZZ_DEFINE(F)                                                               \
  template void msm_detail::launch_bucket_threads<F>(const msm_detail::ChunkArgs<F>&, cudaStream_t); \
  template void msm_detail::launch_chunk_xyzz<F>(msm_detail::ChunkArgs<F>&, uint32_t, uint32_t, cudaStream_t);
