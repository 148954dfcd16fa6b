// The split MSM's internals (msm_split.hpp): buffer layouts shared by the classification
// (msm_split.cu) and the per-curve phases 2–3 (templates here, instantiated once per curve in
// msm_split_g1.cu and msm_split_g2.cu so that each curve's device code compiles on its own).
#pragma once
#include <algorithm>
#include <bit>
#include <string>
#include <type_traits>

#include "snarkd/cuda/msm.hpp"
#include "snarkd/cuda/msm_split.hpp"
#include "snarkd/cuda/runtime.hpp"
#include "snarkd/cuda/scratch_bound.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda::split_detail {

constexpr uint32_t kThreads = 256;
// Grid of the ones reduction: ≥ kOnesPerThread points per thread so the per-block tree (8 XYZZ
// additions ≈ 12 mixed ones) stays small against the strided run, at most kOnesMaxBlocks blocks
// (2^18 threads: every SM of an H200 busy at the occupancy these register-heavy kernels get).
constexpr size_t kOnesPerThread = 16;
constexpr uint32_t kOnesMaxBlocks = 1024;
// Grid cap of the grid-stride gathers whose length is only known on the device.
constexpr uint32_t kGatherMaxBlocks = 4096;

enum Kind : uint8_t { kZero = 0, kOne = 1, kOther = 2 };
// Indices into the device counts (the SplitCounts layout).
enum CountIndex : size_t { kZeros = 0, kOnes = 1, kOthers = 2 };
static_assert(sizeof(SplitCounts) == 3 * sizeof(uint64_t) && std::is_standard_layout_v<SplitCounts>);

inline size_t align_up(size_t x) { return (x + 255) & ~size_t{255}; }
inline uint32_t blocks_for(size_t n) { return uint32_t(std::max<size_t>(1, (n + kThreads - 1) / kThreads)); }
inline uint32_t ones_blocks(size_t n) {
  return uint32_t(std::clamp<size_t>((n + kThreads * kOnesPerThread - 1) / (kThreads * kOnesPerThread), 1,
                                     kOnesMaxBlocks));
}

// Selects index i when kinds[i] == kind (the partition's input is the index sequence 0..n−1).
struct KindIs {
  const uint8_t* kinds;
  uint8_t kind;
  __host__ __device__ bool operator()(uint32_t i) const { return kinds[i] == kind; }
};

// One stable three-way partition of the indices: ones ascending at the front of idx[0, n), others
// written through a reverse iterator so they fill idx from the back (idx[n − 1] is the first
// other), zeros discarded; counts[0] = #ones, counts[1] = #others. Both phases of the CUB call
// (size query with temp == nullptr, run) go through here so the template types agree.
cudaError_t partition(void* temp, size_t& temp_bytes, const uint8_t* kinds, uint32_t* idx, uint64_t* counts,
                      size_t n, cudaStream_t stream);

// Byte offsets of one classification in the split buffer.
struct SplitLayout {
  size_t counts = 0, kinds = 0, idx = 0, scalars = 0, temp = 0, temp_bytes = 0, total = 0;
};

// Byte offsets for n scalars (CUB's partition temp included); InvalidArgument for n ≥ 2^31.
SplitLayout split_layout(size_t n);

// Device pointers into a checked split buffer.
struct SplitPtrs {
  uint64_t* counts;
  uint8_t* kinds;
  uint32_t* idx;
  Fr* scalars;
  void* temp;
};

inline SplitPtrs split_ptrs(const DeviceSplit& split, const SplitLayout& l, const char* who) {
  if (split.bytes < l.total || (split.data == nullptr && split.n > 0))
    throw InvalidArgument(std::string(who) + ": split buffer of " + std::to_string(split.bytes) + " bytes at " +
                          (split.data ? "non-null" : "null") + " address, needs " + std::to_string(l.total) +
                          " for " + std::to_string(split.n) + " scalars");
  auto* b = static_cast<uint8_t*>(split.data);
  return {reinterpret_cast<uint64_t*>(b + l.counts), b + l.kinds, reinterpret_cast<uint32_t*>(b + l.idx),
          reinterpret_cast<Fr*>(b + l.scalars), b + l.temp};
}

// Byte offsets in the caller's scratch for a tail of m points: the ones reduction's block sums,
// the tail MSM's result, the gathered tail bases, the tail MSM's own scratch.
template <class F>
struct TailLayout {
  size_t partials = 0, tail_result = 0, bases = 0, msm = 0, msm_bytes = 0, total = 0;
};

template <class F>
TailLayout<F> tail_layout(size_t m, size_t msm_bytes) {
  TailLayout<F> l;
  l.partials = 0;
  l.tail_result = align_up(kOnesMaxBlocks * sizeof(Xyzz<F>));
  l.bases = l.tail_result + align_up(sizeof(Xyzz<F>));
  l.msm = l.bases + align_up(m * sizeof(Affine<F>));
  l.msm_bytes = msm_bytes;
  l.total = l.msm + msm_bytes;
  return l;
}

// out[j] = the base of the (first + j)-th other, j < m (one chunk of the tail).
template <class F>
__global__ void gather_bases_kernel(const Affine<F>* bases, const uint32_t* idx, size_t n, size_t first, size_t m,
                                    Affine<F>* out) {
  const size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < m) out[j] = bases[idx[n - 1 - first - j]];
}

// Σ of the block's kThreads values of `acc`, returned to thread 0: the upper half parks its points
// in shared memory (kThreads/2 slots: 48 KiB for G2), the lower half adds them, then a tree of
// 7 levels (instead of 255 serial additions).
template <class F>
__device__ Xyzz<F> block_sum(const Xyzz<F>& acc, Xyzz<F>* sh) {
  const uint32_t t = threadIdx.x;
  if (t >= kThreads / 2) sh[t - kThreads / 2] = acc;
  __syncthreads();
  if (t < kThreads / 2) sh[t] = acc + sh[t];
  __syncthreads();
  for (uint32_t stride = kThreads / 4; stride > 0; stride /= 2) {
    if (t < stride) sh[t] = sh[t] + sh[t + stride];
    __syncthreads();
  }
  return sh[0];
}

// Block sums of Σ bases[ones[j]]: thread t adds j = t, t + T, … (T = all threads), so neighbouring
// threads read neighbouring indices (ascending, hence nearby bases) and every thread gets the same
// count ±1. The count is read on the device.
template <class F>
__global__ void ones_partial_kernel(const Affine<F>* bases, const uint32_t* ones, const uint64_t* counts,
                                   Xyzz<F>* partials) {
  __shared__ Xyzz<F> sh[kThreads / 2];
  const size_t count = counts[kOnes];
  Xyzz<F> acc = Xyzz<F>::infinity();
  for (size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x; j < count; j += size_t(gridDim.x) * blockDim.x)
    acc = acc.add_mixed(bases[ones[j]]);
  const Xyzz<F> sum = block_sum(acc, sh);
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

// One block: Σ of the `blocks` block sums (≤ kOnesMaxBlocks, ≤ 4 per thread) → *out.
template <class F>
__global__ void ones_final_kernel(const Xyzz<F>* partials, uint32_t blocks, Xyzz<F>* out) {
  __shared__ Xyzz<F> sh[kThreads / 2];
  Xyzz<F> acc = Xyzz<F>::infinity();
  for (uint32_t b = threadIdx.x; b < blocks; b += blockDim.x) acc += partials[b];
  const Xyzz<F> sum = block_sum(acc, sh);
  if (threadIdx.x == 0) *out = sum;
}

template <class F>
__global__ void add_kernel(const Xyzz<F>* a, const Xyzz<F>* b, Xyzz<F>* out) {
  *out = *a + *b;
}

}  // namespace snarkd::cuda::split_detail

namespace snarkd::cuda {

// The tail MSM's scratch is not monotonic in its length (scratch_bound.hpp): the bound is its
// maximum over every shorter tail. The tails take the group's default accumulation by name
// (group_default_options), never the plain MSM's choice by size (msm_host.cpp
// plain_accumulation): their scratch belongs to the prover's working set.
template <class F>
size_t msm_split_scratch_bytes(size_t max_others) {
  const size_t worst = detail::scratch_bound(
      max_others, kMaxEntriesPerPass, [](size_t m) { return msm_scratch_bytes<F>(m, group_default_options<F>()); });
  return split_detail::tail_layout<F>(max_others, worst).total;
}

template <class F>
void msm_split_ones(const Affine<F>* d_bases, const DeviceSplit& split, Xyzz<F>* d_ones, void* d_scratch,
                    size_t scratch_bytes, cudaStream_t stream) {
  using namespace split_detail;  // inside the function: a header's using-directive would reach its includers
  const SplitPtrs p = split_ptrs(split, split_layout(split.n), "msm_split_ones");
  const TailLayout<F> t = tail_layout<F>(0, 0);
  if (d_scratch == nullptr || scratch_bytes < t.bases)
    throw InvalidArgument("msm_split_ones: scratch of " + std::to_string(scratch_bytes) + " bytes, needs " +
                          std::to_string(t.bases));
  auto* partials = reinterpret_cast<Xyzz<F>*>(static_cast<uint8_t*>(d_scratch) + t.partials);
  const uint32_t blocks = ones_blocks(split.n);
  ones_partial_kernel<F><<<blocks, kThreads, 0, stream>>>(d_bases, p.idx, p.counts, partials);
  SNARKD_CUDA_CHECK_LAUNCH();
  ones_final_kernel<F><<<1, kThreads, 0, stream>>>(partials, blocks, d_ones);
  SNARKD_CUDA_CHECK_LAUNCH();
}

// The longest tail chunk (≤ m points) whose gathered bases and MSM scratch fit in scratch_bytes:
// m itself when the whole tail fits, else by bisection (msm_split_scratch_bytes is
// non-decreasing); 0 when not even one point fits. Host arithmetic only (CUB size queries).
template <class F>
size_t tail_chunk_fitting(size_t m, size_t scratch_bytes) {
  if (msm_split_scratch_bytes<F>(m) <= scratch_bytes) return m;
  size_t fits = 0, too_long = m;
  while (too_long - fits > 1) {
    const size_t mid = fits + (too_long - fits) / 2;
    (msm_split_scratch_bytes<F>(mid) <= scratch_bytes ? fits : too_long) = mid;
  }
  return fits;
}

template <class F>
void msm_split_finish(const Affine<F>* d_bases, const DeviceSplit& split, const SplitCounts& counts,
                      const Xyzz<F>* d_ones, Xyzz<F>* d_result, void* d_scratch, size_t scratch_bytes,
                      cudaStream_t stream) {
  using namespace split_detail;
  const SplitPtrs p = split_ptrs(split, split_layout(split.n), "msm_split_finish");
  const size_t m = counts.others;
  if (counts.zeros > split.n || counts.ones > split.n || m > split.n || counts.zeros + counts.ones + m != split.n)
    throw InvalidArgument("msm_split_finish: counts " + std::to_string(counts.zeros) + " + " +
                          std::to_string(counts.ones) + " + " + std::to_string(m) + " for a split of " +
                          std::to_string(split.n) + " scalars (another split's counts, or read too early?)");
  const size_t chunk = d_scratch ? tail_chunk_fitting<F>(m, scratch_bytes) : 0;
  if (d_scratch == nullptr || (m > 0 && chunk == 0) || scratch_bytes < msm_split_scratch_bytes<F>(0))
    throw InvalidArgument("msm_split_finish: scratch of " + std::to_string(scratch_bytes) + " bytes at " +
                          (d_scratch ? "non-null" : "null") + " address, needs " +
                          std::to_string(msm_split_scratch_bytes<F>(std::min<size_t>(m, 1))) +
                          " at least (and " + std::to_string(msm_split_scratch_bytes<F>(m)) + " for a tail of " +
                          std::to_string(m) + " points in one piece)");
  // A tail longer than the scratch holds runs in chunks, each one cuda::msm whose result is added
  // in (the engine sizes the scratch for PoRep's ~5 % tail, not for the worst case of n points:
  // 25 GiB of gathered G2 bases at 2^27). Every shorter chunk fits too (the bound is a maximum
  // over all shorter lengths), so the tail MSM gets all the scratch after the gathered bases.
  const TailLayout<F> t = tail_layout<F>(chunk, 0);
  auto* base = static_cast<uint8_t*>(d_scratch);
  auto* tail_bases = reinterpret_cast<Affine<F>*>(base + t.bases);
  auto* tail_result = reinterpret_cast<Xyzz<F>*>(base + t.tail_result);
  size_t first = 0;
  do {
    const size_t len = std::min(chunk, m - first);
    if (len > 0) {
      gather_bases_kernel<F><<<blocks_for(len), kThreads, 0, stream>>>(d_bases, p.idx, split.n, first, len, tail_bases);
      SNARKD_CUDA_CHECK_LAUNCH();
    }
    msm<F>(tail_bases, p.scalars + first, len, tail_result, base + t.msm, scratch_bytes - t.msm, stream,
           group_default_options<F>());
    add_kernel<F><<<1, 1, 0, stream>>>(first == 0 ? d_ones : d_result, tail_result, d_result);
    SNARKD_CUDA_CHECK_LAUNCH();
    first += len;
  } while (first < m);
}

template <class F>
void msm_split_run(const Affine<F>* d_bases, const DeviceSplit& split, const SplitCounts& counts, Xyzz<F>* d_result,
                   void* d_scratch, size_t scratch_bytes, cudaStream_t stream) {
  msm_split_ones<F>(d_bases, split, d_result, d_scratch, scratch_bytes, stream);
  msm_split_finish<F>(d_bases, split, counts, d_result, d_result, d_scratch, scratch_bytes, stream);
}

#define SNARKD_CUDA_MSM_SPLIT_DEFINE(F)                                                                          \
  template size_t msm_split_scratch_bytes<F>(size_t);                                                           \
  template void msm_split_ones<F>(const Affine<F>*, const DeviceSplit&, Xyzz<F>*, void*, size_t, cudaStream_t); \
  template void msm_split_finish<F>(const Affine<F>*, const DeviceSplit&, const SplitCounts&, const Xyzz<F>*,   \
                                    Xyzz<F>*, void*, size_t, cudaStream_t);                                   \
  template void msm_split_run<F>(const Affine<F>*, const DeviceSplit&, const SplitCounts&, Xyzz<F>*, void*,     \
                                 size_t, cudaStream_t);

}  // namespace snarkd::cuda
