// The G2 XYZZ accumulation kernels (Fp2, msm_kernels.cuh / msm_accumulate.hpp): chunked XYZZ
// lanes, and the one-thread-per-bucket kernel kept as `legacy`.
#include "snarkd/cuda/msm_kernels.cuh"

namespace snarkd::cuda::msm_detail {

template <class F>
void launch_bucket_threads(const ChunkArgs<F>& a, cudaStream_t stream) {
  accumulate_kernel<F><<<blocks_for(size_t(a.pass.vc) * a.buckets), kThreads, 0, stream>>>(a);
  SNARKD_CUDA_CHECK_LAUNCH();
}

template <class F>
void launch_chunk_xyzz(ChunkArgs<F>& a, uint32_t max_lanes, cudaStream_t stream) {
  const uint32_t wave = resident_threads(reinterpret_cast<const void*>(chunk_xyzz_kernel<F>), kChunkThreads);
  a.chunks = whole_waves(wave, kXyzzWaves, max_lanes);
  chunk_xyzz_kernel<F><<<blocks_for(a.chunks, kChunkThreads), kChunkThreads, 0, stream>>>(a);
  SNARKD_CUDA_CHECK_LAUNCH();
}

template void launch_bucket_threads<Fp2>(const ChunkArgs<Fp2>&, cudaStream_t);
template void launch_chunk_xyzz<Fp2>(ChunkArgs<Fp2>&, uint32_t, cudaStream_t);

}  // namespace snarkd::cuda::msm_detail
