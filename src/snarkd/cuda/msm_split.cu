// The split MSM's classification (phase 1, msm_split.hpp): one kernel, one CUB partition, one
// gather, shared by both curves; phases 2–3 are per curve (msm_split_impl.cuh).
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/reverse_iterator.h>

#include <cub/device/device_partition.cuh>

#include "snarkd/cuda/msm_split_impl.cuh"

namespace snarkd::cuda {
namespace split_detail {

cudaError_t partition(void* temp, size_t& temp_bytes, const uint8_t* kinds, uint32_t* idx, uint64_t* counts,
                      size_t n, cudaStream_t stream) {
  return cub::DevicePartition::If(temp, temp_bytes, thrust::counting_iterator<uint32_t>(0), idx,
                                  thrust::make_reverse_iterator(idx + n), thrust::make_discard_iterator(), counts,
                                  int(n), KindIs{kinds, kOne}, KindIs{kinds, kOther}, stream);
}

SplitLayout split_layout(size_t n) {
  if (n >= (size_t{1} << 31)) throw InvalidArgument("msm_split: " + std::to_string(n) + " scalars, at most 2^31 − 1");
  SplitLayout l;
  if (n > 0) SNARKD_CUDA_CHECK(partition(nullptr, l.temp_bytes, nullptr, nullptr, nullptr, n, nullptr));
  size_t off = 0;
  auto take = [&off](size_t bytes) {
    const size_t at = off;
    off += align_up(bytes);
    return at;
  };
  l.counts = take(sizeof(SplitCounts));
  l.kinds = take(n);
  l.idx = take(n * sizeof(uint32_t));
  l.scalars = take(n * sizeof(Fr));
  l.temp = take(l.temp_bytes);
  l.total = off;
  return l;
}

__global__ void classify_kernel(const Fr* scalars, size_t n, uint8_t* kinds) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Fr s = scalars[i];
  kinds[i] = s.is_zero() ? kZero : s == Fr::one() ? kOne : kOther;
}

// out[j] = scalars[j-th other index] for j < #others (read on the device: the others sit
// reversed at the back of idx, so j = 0 is the smallest index); thread 0 also completes the
// counts with #zeros = n − #ones − #others.
__global__ void gather_scalars_kernel(const Fr* scalars, const uint32_t* idx, size_t n, uint64_t* counts, Fr* out) {
  const size_t m = counts[kOthers];
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t == 0) counts[kZeros] = n - counts[kOnes] - m;
  for (size_t j = t; j < m; j += size_t(gridDim.x) * blockDim.x) out[j] = scalars[idx[n - 1 - j]];
}

}  // namespace split_detail

using namespace split_detail;  // this unit's own internals (a source file, not a header)

size_t split_buffer_bytes(size_t n) { return split_layout(n).total; }

void msm_split_classify(const Fr* d_scalars, const DeviceSplit& split, SplitCounts* h_counts, cudaStream_t stream) {
  const size_t n = split.n;
  const SplitLayout l = split_layout(n);
  const SplitPtrs p = split_ptrs(split, l, "msm_split_classify");
  if (h_counts == nullptr) throw InvalidArgument("msm_split_classify: null host counts");
  if (n == 0) {
    SNARKD_CUDA_CHECK(cudaMemsetAsync(p.counts, 0, sizeof(SplitCounts), stream));
  } else {
    classify_kernel<<<blocks_for(n), kThreads, 0, stream>>>(d_scalars, n, p.kinds);
    SNARKD_CUDA_CHECK_LAUNCH();
    size_t temp_bytes = l.temp_bytes;
    SNARKD_CUDA_CHECK(partition(p.temp, temp_bytes, p.kinds, p.idx, p.counts + kOnes, n, stream));
    gather_scalars_kernel<<<std::min(blocks_for(n), kGatherMaxBlocks), kThreads, 0, stream>>>(d_scalars, p.idx, n,
                                                                                              p.counts, p.scalars);
    SNARKD_CUDA_CHECK_LAUNCH();
  }
  SNARKD_CUDA_CHECK(cudaMemcpyAsync(h_counts, p.counts, sizeof(SplitCounts), cudaMemcpyDeviceToHost, stream));
}

}  // namespace snarkd::cuda
