// The batch-affine accumulation kernel of the GPU MSM (msm_accumulate.hpp; its launch is declared
// in msm_kernels.cuh): affine_lanes() lanes per thread, their state in the MSM's scratch as
// arrays of the lane index (explicit, counted memory rather than a per-thread local array the
// driver would size for every resident thread of the device). Included only by the
// msm_affine_*.cu units (one per group), which instantiate it with SNARKD_CUDA_MSM_AFFINE_DEFINE.
#pragma once
#include "snarkd/cuda/msm_kernels.cuh"

namespace snarkd::cuda::msm_detail {

// The lanes' kernels (msm_accumulate.hpp), one thread of `threads` each, in blocks of 128 with G1's
// register bounds by ptxas (sm_90): forward 112 registers without the continuing addition, so 4
// blocks an SM (16 warps for its three dependent loads); backward 4 (≤ 128, no spill; 140
// unbounded); the rest 3 (≤ 168). G2's Fp2 arithmetic takes what it needs. More warps for the
// forward kernel spill and lose: at 5, 6, 8 blocks (96, 80, 64 registers; 24, 104, 184 bytes of
// stack) G1 2^26 / 2^27 took 454.3 / 884.1, 460.5 / 893.7, 478.3 / 920.8 ms against 448.4 / 875.3
// (H100, `snarkd_gpu_bench --only=kinds`, one call).
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

// The step kernels run the lane threads of one range, [r.first, r.end) of `threads`.
__device__ inline uint32_t range_thread(const LaneRange& r) { return r.first + blockIdx.x * blockDim.x + threadIdx.x; }

template <class F, bool Continue>
__global__ void __launch_bounds__(kChunkThreads, Continue ? kAffineMinBlocks<F> : kAffineStepBlocks<F>)
    affine_forward_kernel(const ChunkArgs<F> a, const AffineState<F> s, uint32_t threads, uint32_t lanes, size_t step,
                          const LaneRange r) {
  const uint32_t t = range_thread(r);
  if (t < r.end) affine_forward_lanes<F, Continue>(a, s, t, threads, lanes, step);
}

// One thread per group of K lane threads (affine_invert_group); r.first is a multiple of K.
template <class F, uint32_t K>
__global__ void __launch_bounds__(kChunkThreads)
    affine_invert_kernel(const ChunkArgs<F> a, const AffineState<F> s, uint32_t threads, uint32_t lanes, size_t step,
                         const LaneRange r) {
  const uint32_t g = r.first / K + blockIdx.x * blockDim.x + threadIdx.x;
  if (size_t(g) * K < r.end) affine_invert_group<F, K>(a, s, g, threads, lanes, step);
}

template <class F>
__global__ void __launch_bounds__(kChunkThreads, kAffineStepBlocks<F>)
    affine_backward_kernel(const ChunkArgs<F> a, const AffineState<F> s, uint32_t threads, uint32_t lanes, size_t step,
                           const LaneRange r) {
  const uint32_t t = range_thread(r);
  if (t < r.end) affine_backward_lanes<F>(a, s, t, threads, lanes, step);
}

template <class F, bool Continue>
__global__ void __launch_bounds__(kChunkThreads, kAffineMinBlocks<F>)
    affine_finish_kernel(const ChunkArgs<F> a, const AffineState<F> s, uint32_t threads, uint32_t lanes) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < threads) affine_finish_lanes<F, Continue>(a, s, t, threads, lanes);
}

// One step of one range's lane threads: forward, the inversion, backward, on `stream`; `after`
// (when given) is recorded once the forward kernel is queued.
template <class F, bool Continue>
void launch_affine_step(const ChunkArgs<F>& a, const AffineState<F>& s, uint32_t threads, uint32_t lanes, size_t step,
                        const LaneRange r, uint32_t k, cudaStream_t stream, Event* after) {
  const uint32_t n = r.end - r.first, grid = blocks_for(n, kChunkThreads);
  affine_forward_kernel<F, Continue><<<grid, kChunkThreads, 0, stream>>>(a, s, threads, lanes, step, r);
  if (after) after->record(stream);
  with_invert_group(k, [&](auto group) {
    constexpr uint32_t K = decltype(group)::value;
    const uint32_t igrid = blocks_for((size_t{n} + K - 1) / K, kChunkThreads);
    affine_invert_kernel<F, K><<<igrid, kChunkThreads, 0, stream>>>(a, s, threads, lanes, step, r);
  });
  affine_backward_kernel<F><<<grid, kChunkThreads, 0, stream>>>(a, s, threads, lanes, step, r);
}

// The steps over two halves of the lane threads, on the caller's stream and a side stream
// (affine_halves). The halves' lanes are disjoint, so only the order inside a half matters. The
// second half starts after the first's first forward kernel, so that one half's memory-bound
// forward kernel and its inversion (6 % occupancy, a GCD's latency) run beside the other half's
// compute-bound backward kernel rather than alone (forward, inversion and backward of a G1 2^26
// step: 0.69, 0.12 and 1.05 ms at 69 % of memory, 46 % and 71 % of compute throughput, H100).
// Forward kernels taking turns each step (events between the halves) measured the same.
template <class F, bool Continue>
void launch_affine_halves(const ChunkArgs<F>& a, const AffineState<F>& s, uint32_t threads, uint32_t lanes,
                          size_t steps, uint32_t split, uint32_t k, cudaStream_t stream) {
  SideStream& side = side_stream(stream, 0);
  const LaneRange first{0, split}, second{split, threads};
  for (size_t step = 0; step < steps; ++step) {
    launch_affine_step<F, Continue>(a, s, threads, lanes, step, first, k, stream, step == 0 ? &side.fork : nullptr);
    if (step == 0) side.fork.wait_in(side.side);
    launch_affine_step<F, Continue>(a, s, threads, lanes, step, second, k, side.side, nullptr);
  }
  side.join.record(side.side);
  side.join.wait_in(stream);
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
  const size_t steps = chunk_length(entries, a.chunks);
  const uint32_t split = affine_halves<F>() ? lane_split(threads, kChunkThreads) : 0;
  if (split == 0) {
    for (size_t step = 0; step < steps; ++step)
      launch_affine_step<F, Continue>(a, s, threads, m, step, {0, threads}, k, stream, nullptr);
  } else {
    launch_affine_halves<F, Continue>(a, s, threads, m, steps, split, k, stream);
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
