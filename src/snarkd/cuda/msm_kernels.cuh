// The GPU MSM's kernels and driver (msm.hpp), one template for every group: G1 (Fp, bn254::Fp)
// and G2 (Fp2, bn254::Fp2). Internal: only the per-group translation units include it (msm_g1.cu,
// msm_g2.cu, msm_bn254_g1.cu, msm_bn254_g2.cu instantiate the driver; msm_xyzz_*.cu the XYZZ and
// legacy kernels through msm_xyzz.cuh; msm_affine_*.cu the batch-affine kernel through
// msm_affine.cuh), so a parallel build compiles each group's heavy device code in its own
// compiler process and an edit to one accumulation rebuilds one file per group.
//
// Per pass (windows in passes of ≤ max_pass_entries entries, msm.hpp):
//   digits → CUB radix sort → count_valid (entries before the zero-digit sentinel) →
//   accumulation: kBucketThreads (one thread per bucket, the earlier kernel) or chunked
//   (msm_accumulate.hpp: XYZZ lanes or batch-affine lanes, then the per-bucket fix-up);
// then per virtual window the running-sum reduction (several blocks per window, a tree per block
// and per window) and one Horner kernel. A whole MSM without copies (pippenger) reduces each
// pass's windows right after the pass, so its buckets need room for one pass's windows only
// (Plan::pass_buckets): at c = 22 and 2^27 points, 2 windows of 2^21 G1 buckets (0.8 GB) instead
// of all 12 (4.8 GB). Chunked MSMs (pippenger_chunk) carry every window's buckets across calls.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cub/device/device_radix_sort.cuh>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "snarkd/cuda/msm.hpp"
#include "snarkd/cuda/msm_accumulate.hpp"
#include "snarkd/cuda/msm_reduce.hpp"
#include "snarkd/cuda/point_levels.hpp"
#include "snarkd/cuda/runtime.hpp"
#include "snarkd/cuda/side_stream.hpp"
#include "snarkd/util/env.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda::msm_detail {

constexpr uint32_t kThreads = 256;
// Segments per reduction block: each thread sums a run of buckets with two additions apiece, then
// the block adds its segments by a tree in shared memory.
constexpr uint32_t kSegments = 256;
// A segment of fewer buckets would spend more on its (lo − 1)·Σ correction (~1.5·log₂ nb
// additions) than on its buckets (2 per bucket), so blocks per window stop growing there.
constexpr uint32_t kMinSegmentBuckets = 32;
// Reduction blocks in all, at most: two per SM of the H200 (132 SMs); a window with 2^15 buckets
// in one block of 256 threads used 16 of 132 SMs. Blocks per window are rounded down, so the grid
// stays within that bound (13 windows: 260 blocks, not 273). That measured neutral: G2 2^24's
// reduction took 62.8 ms in either grid (H100, ncu), a sixth of the MSM (two full additions a
// bucket: 40 Fp products each for G2, 35 % of the product rate).
constexpr uint32_t kReduceBlocks = 264;
// Chunked lanes: at least kMinChunk entries per lane (shorter chunks would make more head/tail
// partials than they save). Every XYZZ lane has the same work, so a grid of 1.3 waves would run
// its last 0.3 wave alone: the XYZZ lane count is a whole number of waves — kXyzzWaves (or the
// layout's lane_waves) times the threads the device holds at once (occupancy query at launch;
// several waves so that SMs shared with other streams' kernels still balance; every lane costs
// the fix-up about one addition) — capped by kMaxXyzzLanes. The batch-affine lanes run as
// kernels per step over at most kMaxAffineThreads threads of affine_lanes() lanes. The caps size
// the scratch: head/tail partials 2·lanes·sizeof(Xyzz) (G1 XYZZ: 100 MB; affine, 2^22 lanes:
// 1.6 GB G1, 3.2 GB G2) and the batch-affine lane state (affine_state_bytes; 2^22 lanes: 0.70 GB
// G1, 2.1 GB G2 with its kept points).
constexpr uint32_t kMinChunk = 32;
constexpr uint32_t kXyzzWaves = 4;
constexpr uint32_t kMaxXyzzLanes = 1u << 18;
constexpr uint32_t kMaxAffineThreads = 1u << 16;
constexpr uint32_t kChunkThreads = 128;

// Batch-affine lanes per thread (msm_accumulate.hpp): one inversion (≈ 170 products' time on the
// H200) shared by M additions of 6 products each, so M = 64 puts its share at ≈ 2.7 products.
// SNARKD_MSM_AFFINE_LANES = 1..1024 (read once; A/B runs).
inline uint32_t affine_lanes() {
  static const uint32_t m = uint32_t(env_u64("SNARKD_MSM_AFFINE_LANES", 64, 1, 1024));
  return m;
}

// Waves of resident threads the batch-affine lanes take (their forward kernel's occupancy), within
// the plan's threads. Every lane costs the fix-up about one addition and the finish one emitted
// partial, so one wave of threads with longer chunks beats two of shorter ones: G2's lanes hold two
// blocks of 128 an SM (33,792 threads on 132 SMs), and the plan's 2^16 threads made 2^22 lanes of
// 52 entries at 2^24 points, a fix-up of 34.6 ms (H100, ncu). SNARKD_MSM_AFFINE_WAVES = 1..16, or 0
// for every planned thread (read once; A/B runs).
inline uint32_t affine_waves() {
  static const uint32_t w = uint32_t(env_u64("SNARKD_MSM_AFFINE_WAVES", 1, 0, 16));
  return w;
}

// Whether the batch-affine lanes' steps run in two halves on two streams (msm_affine.cuh,
// launch_affine_halves). H100, `snarkd_gpu_bench --only=kinds --reps=5`, one stream against two,
// alternating: G1 2^26 464.9 / 463.2 → 446.2–447.0 ms, 2^24 124.2 / 124.3 → 120.4–120.7; G2 2^24
// 342.4 / 341.1 → 366.1–367.1, so G2 keeps one stream. More parts lose: G1 2^26 / 2^27 in 2, 3,
// 4 parts on as many streams 448.4 / 875.1, 452.4 / 880.6, 451.7 / 878.5 ms (H100, one call).
// SNARKD_MSM_AFFINE_HALVES = 0 | 1 sets both groups (read once; A/B runs).
template <class F>
bool affine_halves() {
  static const bool h = env_u64("SNARKD_MSM_AFFINE_HALVES", kIsPrimeField<F> ? 1 : 0, 0, 1) == 1;
  return h;
}

// Lane threads per binary GCD (affine_invert_group). A step's inversion kernel ran one GCD in each
// of its 2^16 threads (≈ 4 warps a scheduler on 132 SMs, ≈ 170 products' time each); grouped by
// K, one thread in K runs it, plus 3K products. H100, `snarkd_gpu_bench --only=kinds`, batch-affine
// G1 2^26 / 2^27 at c = 22: K = 1 520.6 / 1016.1 ms, K = 4 471.2 / 919.4 (XYZZ 466.2 / 913.2 in the
// same process); K = 8 lost to 4 by 2 % in an earlier build. With one wave of lane threads (twice
// the steps), H200, the same bench, K = 1 / 2 / 4: G1 2^26 482.8 / 442.6 / 433.7 ms, 2^27 944.3 /
// 865.4 / 847.3, G2 2^24 368.8 / 366.7 / 373.1: G1 takes 4, G2 2 (a group's 3K products are Fp2
// products there, three Fp products each, beside the same one Fp GCD). SNARKD_MSM_INVERT_GROUP =
// 1 | 2 | 4 | 8 sets both (read once; A/B runs).
template <class F>
uint32_t affine_invert_group_size() {
  static const uint32_t k = [] {
    const uint32_t v = uint32_t(env_u64("SNARKD_MSM_INVERT_GROUP", kIsPrimeField<F> ? 4 : 2, 1, 8));
    if (!invert_group_supported(v))
      throw InvalidArgument("SNARKD_MSM_INVERT_GROUP: " + std::to_string(v) + " is not 1, 2, 4 or 8");
    return v;
  }();
  return k;
}

using detail::WindowLayout;

inline Order order_of(const WindowLayout& l) {
  return {l.virtual_windows, l.copies, l.windows - (l.copies - 1) * l.virtual_windows};
}

struct Plan {
  WindowLayout l;
  MsmAccumulation mode = MsmAccumulation::kBucketThreads;
  Order order;
  uint32_t per_pass = 0, buckets = 0, blocks_per_window = 1;  // buckets per window: 2^(c−1) + 1
  bool pass_buckets = false;  // buckets for one pass's windows, reduced after each pass
  uint32_t lane_threads = 0, chunks = 0;                       // chunked modes: upper bounds (scratch)
  int key_bits = 0;
  uint32_t sentinel = 0;
  size_t entries = 0;  // per_pass · n
  size_t sort_temp = 0;
  size_t keys_in = 0, vals_in = 0, keys_out = 0, vals_out = 0, temp = 0;
  size_t bucket = 0, partial = 0, sums = 0, valid = 0, head = 0, tail = 0, group = 0, lanes = 0, bounds = 0;
  size_t total = 0;
  size_t bounds_bytes = 0;  // run_lo then run_hi: a pass's buckets each
};

inline size_t align_up(size_t x) { return (x + 255) & ~size_t{255}; }

// Offsets of consecutive 256-byte-aligned regions of one scratch buffer; `end` is its size.
struct Carver {
  size_t end = 0;
  size_t take(size_t bytes) {
    const size_t at = end;
    end += align_up(bytes);
    return at;
  }
};
inline uint32_t blocks_for(size_t n, uint32_t threads = kThreads) { return uint32_t((n + threads - 1) / threads); }

inline uint32_t blocks_per_window(uint32_t buckets, uint32_t vw) {
  const uint32_t most = std::max<uint32_t>(1, (buckets - 1) / (kSegments * kMinSegmentBuckets));
  return std::clamp<uint32_t>(kReduceBlocks / vw, 1, most);
}

// Upper bounds of the lane geometry of a chunked pass of `entries` entries (the scratch's size;
// the XYZZ launch takes whole waves within them, the batch-affine one all lane_threads).
inline void plan_lanes(Plan& p) {
  const size_t e = std::max<size_t>(p.entries, 1);
  if (p.mode == MsmAccumulation::kChunkedXyzz) {
    p.lane_threads = uint32_t(std::clamp<size_t>((e + kMinChunk - 1) / kMinChunk, 1, kMaxXyzzLanes));
    p.chunks = p.lane_threads;
  } else if (p.mode == MsmAccumulation::kChunkedAffine) {
    const size_t per_thread = size_t{kMinChunk} * affine_lanes();
    p.lane_threads = uint32_t(std::clamp<size_t>((e + per_thread - 1) / per_thread, 1, kMaxAffineThreads));
    p.chunks = p.lane_threads * affine_lanes();
  }
}

// The sort's item count, 32 bits: CUB then takes 32-bit offsets (23 items a thread on sm_90
// against 17 with 64-bit ones; 2^27 pairs of 21-bit keys: 2.77 against 3.17 ms on the H200,
// `snarkd_gpu_bench --only=sort`). Entries ≤ max(n, max_pass_entries) < 2^31 (check_layout).
inline uint32_t sort_count(size_t entries) { return uint32_t(entries); }

// pass_buckets asks for one pass's buckets (whole MSMs; granted without copies, where every pass
// starts a window: no bucket continues from an earlier pass). The scratch is never larger than
// the plan without it, so pippenger_scratch_bytes' bound serves both.
template <class F>
Plan make_plan(size_t n, const WindowLayout& l, const char* who, bool pass_buckets = false) {
  detail::check_layout(l, n, who);
  Plan p;
  p.l = l;
  p.mode = msm_resolve_accumulation<F>(l.accumulation);
  p.order = order_of(l);
  p.per_pass = n == 0 ? l.windows : std::max<uint32_t>(1, std::min<size_t>(l.windows, l.max_pass_entries / n));
  p.buckets = (1u << (l.c - 1)) + 1;
  p.pass_buckets = pass_buckets && l.copies == 1;
  // Windows the buckets hold: the pass's (pass_buckets) or all.
  const uint32_t bucket_windows = p.pass_buckets ? std::min(p.per_pass, l.virtual_windows) : l.virtual_windows;
  p.blocks_per_window = blocks_per_window(p.buckets, bucket_windows);
  const size_t partials = std::max(size_t{bucket_windows} * p.blocks_per_window,
                                   size_t{l.virtual_windows} * blocks_per_window(p.buckets, l.virtual_windows));
  p.entries = size_t{p.per_pass} * n;
  // A pass of per_pass positions spans at most min(per_pass, W') virtual windows.
  p.key_bits = int(l.c) + std::bit_width(std::min(p.per_pass, l.virtual_windows) - 1);
  p.sentinel = uint32_t((uint64_t{1} << p.key_bits) - 1);  // above every digit's key (msm_accumulate.hpp)
  plan_lanes(p);
  if (n > 0) {
    cub::DoubleBuffer<uint32_t> keys, vals;
    SNARKD_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, p.sort_temp, keys, vals, sort_count(p.entries), 0,
                                                      p.key_bits));
  }
  Carver at;
  p.keys_in = at.take(p.entries * 4);
  p.vals_in = at.take(p.entries * 4);
  p.keys_out = at.take(p.entries * 4);
  p.vals_out = at.take(p.entries * 4);
  p.temp = at.take(p.sort_temp);
  p.bucket = at.take(size_t{bucket_windows} * p.buckets * sizeof(Xyzz<F>));
  p.partial = at.take(partials * sizeof(Xyzz<F>));
  p.sums = at.take(size_t{l.virtual_windows} * sizeof(Xyzz<F>));
  p.valid = at.take(sizeof(uint32_t));
  p.head = at.take(size_t{p.chunks} * sizeof(Xyzz<F>));
  p.tail = at.take(size_t{p.chunks} * sizeof(Xyzz<F>));
  p.group = at.take(head_groups(p.chunks) * sizeof(Xyzz<F>));
  p.lanes = at.take(p.mode == MsmAccumulation::kChunkedAffine ? affine_state_bytes<F>(p.chunks, p.lane_threads) : 0);
  // Sized for every virtual window, not the pass's: like the buckets, it then never shrinks as n
  // grows within a window width (msm_split_scratch_bytes' bound relies on that), at 1/24 of them.
  p.bounds_bytes = 2 * size_t{l.virtual_windows} * p.buckets * sizeof(uint32_t);
  p.bounds = at.take(p.bounds_bytes);
  p.total = at.end;
  return p;
}

// (Templates on F only so that each curve's translation unit has its own copy.)
template <class F>
__global__ void digits_kernel(const ScalarOf<F>* scalars, size_t n, uint32_t c, uint32_t windows, Order order,
                              Pass pass, uint32_t sentinel, uint32_t* keys, uint32_t* vals) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) digits_of(scalars[i], i, n, c, windows, order, pass, sentinel, keys, vals);
}

// *valid = the index of the first sentinel key in the sorted keys (one thread; a binary search).
template <class F>
__global__ void count_valid_kernel(const uint32_t* keys, size_t entries, uint32_t sentinel, uint32_t* valid) {
  *valid = uint32_t(lower_bound(keys, entries, sentinel));
}

// Entry i < *valid marks its bucket's run (mark_run_bounds).
template <class F>
__global__ void run_bounds_kernel(const uint32_t* keys, size_t entries, const uint32_t* valid, uint32_t c,
                                  uint32_t buckets, uint32_t* lo, uint32_t* hi) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t v = *valid;
  if (i < entries && i < v) mark_run_bounds(keys, v, i, c, buckets, lo, hi);
}

// One thread per bucket j ∈ [0, 2^(c−1)] of each virtual window of the pass: B_j (+)= Σ ±P over
// its run; v0's buckets continue the previous pass's sums when the pass starts inside v0.
template <class F>
__global__ void accumulate_kernel(const ChunkArgs<F> a) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= size_t(a.pass.vc) * a.buckets) return;
  const uint32_t vl = uint32_t(t / a.buckets), j = uint32_t(t % a.buckets);
  Xyzz<F>* bucket = a.bucket_out + size_t(vl) * a.buckets + j;
  Xyzz<F> acc = continues(a.pass, vl) ? *bucket : Xyzz<F>::infinity();
  for (size_t k = a.run_lo[t], end = a.run_hi[t]; k < end; ++k) acc = acc.add_mixed(signed_point(a, a.vals[k]));
  *bucket = acc;
}

// G1 XYZZ lanes need 174 registers unbounded (ptxas, sm_90): 2 blocks of 128 per SM; ≤ 170 lets
// 3 share an SM (12 warps instead of 8 to hide the carry chains' latency). G2 lanes use all 255.
// BN254 takes the same bounds by group (its 8-word lanes need fewer registers; not tuned).
template <class F>
inline constexpr int kXyzzMinBlocks = kIsPrimeField<F> ? 3 : 1;

template <class F>
__global__ void __launch_bounds__(kChunkThreads, kXyzzMinBlocks<F>) chunk_xyzz_kernel(const ChunkArgs<F> a) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < a.chunks) chunk_xyzz(a, t);
}

// Threads of `kernel` in blocks of `block` that the current device runs at once (SMs × resident
// blocks per SM), cached per kernel and device: a host query, no synchronisation.
inline uint32_t resident_threads(const void* kernel, uint32_t block) {
  struct Entry {
    const void* kernel;
    int device;
    uint32_t threads;
  };
  static std::mutex m;
  static std::vector<Entry> cache;
  int device = 0;
  SNARKD_CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(m);
  for (const Entry& e : cache)
    if (e.kernel == kernel && e.device == device) return e.threads;
  int sms = 0, blocks = 0;
  SNARKD_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  SNARKD_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, int(block), 0));
  const uint32_t threads = uint32_t(std::max(1, sms * blocks)) * block;
  cache.push_back({kernel, device, threads});
  return threads;
}

// waves·per_wave threads, or the most whole waves within bound (bound itself below one wave).
inline uint32_t whole_waves(uint32_t per_wave, uint32_t waves, uint32_t bound) {
  const uint64_t want = uint64_t(per_wave) * waves;
  if (want <= bound) return uint32_t(want);
  if (bound < per_wave) return bound;
  return bound / per_wave * per_wave;
}

// Lane threads for `kernel` in blocks of kChunkThreads: `waves` whole waves of its resident threads
// within bound, or bound itself for waves = 0.
inline uint32_t lane_threads(const void* kernel, uint32_t waves, uint32_t bound) {
  return waves == 0 ? bound : whole_waves(resident_threads(kernel, kChunkThreads), waves, bound);
}

// The fix-up in blocks of kChunkThreads, MinBlocks of them asked for per SM: 256-thread blocks
// without bounds left SMs one block (latency-bound: 0.37 ms a pass, ≈ 1 addition a lane). G1 at
// 3 blocks (≤ 170 registers, 12 warps an SM) spills 192 bytes of its full addition to the stack;
// at 2 it spills nothing with 8 warps. SNARKD_MSM_FIXUP_BLOCKS = 2 | 3 (G1; read once; A/B runs).
template <class F, int MinBlocks>
__global__ void __launch_bounds__(kChunkThreads, MinBlocks) fixup_kernel(const ChunkArgs<F> a) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < a.chunks) fixup_chunk(a, k);
}

inline int fixup_min_blocks() {
  static const int blocks = [] {
    const char* v = std::getenv("SNARKD_MSM_FIXUP_BLOCKS");
    if (v == nullptr || *v == '\0' || std::string_view(v) == "3") return 3;
    if (std::string_view(v) == "2") return 2;
    throw InvalidArgument(std::string("SNARKD_MSM_FIXUP_BLOCKS: '") + v + "' is not 2 or 3");
  }();
  return blocks;
}

// Group g of heads (group_heads), before the fix-up reads it.
template <class F>
__global__ void __launch_bounds__(kChunkThreads, 2) group_heads_kernel(const ChunkArgs<F> a) {
  const uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g < head_groups(a.chunks)) group_heads(a, g);
}

template <class F>
void launch_fixup(const ChunkArgs<F>& a, cudaStream_t stream) {
  group_heads_kernel<F><<<blocks_for(head_groups(a.chunks), kChunkThreads), kChunkThreads, 0, stream>>>(a);
  SNARKD_CUDA_CHECK_LAUNCH();
  const uint32_t grid = blocks_for(a.chunks, kChunkThreads);
  if constexpr (!kIsPrimeField<F>) fixup_kernel<F, 1><<<grid, kChunkThreads, 0, stream>>>(a);
  else if (fixup_min_blocks() == 2) fixup_kernel<F, 2><<<grid, kChunkThreads, 0, stream>>>(a);
  else fixup_kernel<F, 3><<<grid, kChunkThreads, 0, stream>>>(a);
  SNARKD_CUDA_CHECK_LAUNCH();
}

template <class F>
__global__ void clear_empty_kernel(const ChunkArgs<F> a) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < a.pass.vc * a.buckets) clear_if_empty(a, t);
}

// The XYZZ kernels (msm_xyzz.cuh, instantiated by msm_xyzz_*.cu): the one-thread-per-bucket kernel
// over the pass's buckets, and `waves` whole waves of XYZZ lanes, at most `max_lanes` (sets
// a.chunks to the lanes used).
template <class F>
void launch_bucket_threads(const ChunkArgs<F>& a, cudaStream_t stream);
template <class F>
void launch_chunk_xyzz(ChunkArgs<F>& a, uint32_t max_lanes, uint32_t waves, cudaStream_t stream);

// The batch-affine lanes (msm_affine.cuh, instantiated by msm_affine_*.cu) over a pass of `entries`
// entries: `threads` threads of affine_lanes() lanes, their state in `lanes` (affine_state_bytes);
// sets a.chunks to the lanes used, which the fix-up then reads.
template <class F>
void launch_chunk_affine(ChunkArgs<F>& a, uint32_t threads, size_t entries, void* lanes, cudaStream_t stream);

// k·P by double-and-add (k < 2^23: the bucket index at a segment start).
template <class F>
__device__ Xyzz<F> mul_small(const Xyzz<F>& p, uint32_t k) {
  Xyzz<F> r = Xyzz<F>::infinity();
  for (int b = 31 - __clz(k | 1); b >= 0; --b) {
    r = r.dbl();
    if ((k >> b) & 1) r += p;
  }
  return k == 0 ? Xyzz<F>::infinity() : r;
}

// Adds the block's kSegments values `acc` by a tree in shared memory (8 levels instead of 255
// serial additions: a single thread's addition chain is what costs at small n); thread 0 gets
// the sum. Shared memory: kSegments/2 points, 48 KiB for G2.
template <class F>
__device__ Xyzz<F> block_sum(Xyzz<F> acc) {
  __shared__ Xyzz<F> sh[kSegments / 2];
  const uint32_t t = threadIdx.x;
  if (t >= kSegments / 2) sh[t - kSegments / 2] = acc;
  __syncthreads();
  if (t < kSegments / 2) sh[t] = acc + sh[t];
  __syncthreads();
  for (uint32_t stride = kSegments / 4; stride > 0; stride /= 2) {
    if (t < stride) sh[t] = sh[t] + sh[t + stride];
    __syncthreads();
  }
  return sh[0];
}

// Block (b, w), thread t = segment s = b·kSegments + t of window w: Σ_{j ∈ [lo, hi)} j·B_j =
// Σ (j − lo + 1)·B_j (running sums) + (lo − 1)·Σ B_j; the block's sum goes to partials[w·bpw + b].
template <class F>
__global__ void reduce_window_kernel(const Xyzz<F>* buckets, uint32_t nb, Xyzz<F>* partials) {
  const uint32_t bpw = gridDim.x, w = blockIdx.y;
  const uint32_t seg = blockIdx.x * kSegments + threadIdx.x;
  const uint32_t len = (nb - 1 + bpw * kSegments - 1) / (bpw * kSegments);
  const uint32_t lo = min(nb, 1 + seg * len), hi = min(nb, lo + len);
  Xyzz<F> running = Xyzz<F>::infinity(), acc = Xyzz<F>::infinity();
  for (uint32_t j = hi; j-- > lo;) {
    running += buckets[size_t(w) * nb + j];
    acc += running;
  }
  if (lo < hi) acc += mul_small(running, lo - 1);
  const Xyzz<F> sum = block_sum(acc);
  if (threadIdx.x == 0) partials[size_t(w) * bpw + blockIdx.x] = sum;
}

// Block w: S_w = Σ of the window's bpw partial sums.
template <class F>
__global__ void combine_kernel(const Xyzz<F>* partials, uint32_t bpw, Xyzz<F>* window_sums) {
  Xyzz<F> acc = Xyzz<F>::infinity();
  for (uint32_t b = threadIdx.x; b < bpw; b += kSegments) acc += partials[size_t(blockIdx.x) * bpw + b];
  const Xyzz<F> sum = block_sum(acc);
  if (threadIdx.x == 0) window_sums[blockIdx.x] = sum;
}

// ---- The tree reduction (msm_reduce.hpp) ----

// Thread th converts items [th·batch, …) of the bucket array.
template <class F>
__global__ void __launch_bounds__(kChunkThreads) tree_affine_kernel(const Xyzz<F>* buckets, TreeShape t, size_t items,
                                                                    uint32_t batch, Affine<F>* out) {
  const size_t begin = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) * batch;
  if (begin < items) tree_to_affine(buckets, t, begin, begin + batch < items ? begin + batch : items, out);
}

// Thread th adds pairs [th·batch, …) of level L; its prefix products in pre[th·batch, …).
template <class F>
__global__ void __launch_bounds__(kChunkThreads) tree_pairs_kernel(const Affine<F>* src, Affine<F>* dst,
                                                                   TreeLevel L, uint32_t batch, F* pre) {
  const size_t begin = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) * batch;
  if (begin < L.pairs) tree_pairs(src, dst, L, begin, begin + batch < L.pairs ? begin + batch : L.pairs, pre + begin);
}

template <class F>
__global__ void tree_gather_kernel(const Affine<F>* rows, const Affine<F>* cols, TreeShape t, TreeDepth d, size_t n,
                                   Xyzz<F>* small) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) tree_gather(rows, cols, t, d, i, small);
}

// ---- Chains of point operations on one warp (point_levels.hpp) ----

// The most base-field products of a level: add_levels' first (6 products; Fp2: 18).
constexpr uint32_t kWarpProducts = 18;

template <class F>
struct BaseFieldOf {
  using type = F;
};
template <class H>
struct BaseFieldOf<Fp2T<H>> {
  using type = typename Fp2T<H>::Base;
};

// A level's products on the lanes of one warp, whose lanes all hold the same operands and get
// every product: lane k computes base product k (an Fp2 product's c0·c0', c1·c1' and
// (c0 + c1)(c0' + c1'), Karatsuba) into the warp's shared `sh` (kWarpProducts entries).
template <class F>
struct WarpMul {
  using B = typename BaseFieldOf<F>::type;
  static constexpr uint32_t kPer = kIsPrimeField<F> ? 1 : 3;
  B* sh;

  template <size_t N>
  SNARKD_HD void operator()(F (&r)[N], const F (&a)[N], const F (&b)[N]) const {
#if defined(__CUDA_ARCH__)
    static_assert(N * kPer <= kWarpProducts);
    const uint32_t lane = threadIdx.x % 32;
    __syncwarp();  // every lane has read the previous level's products
    if (lane < N * kPer) {
      const uint32_t i = lane / kPer;
      F x = a[0], y = b[0];
#pragma unroll
      for (uint32_t j = 1; j < N; ++j)
        if (i == j) x = a[j], y = b[j];
      if constexpr (kPer == 1) {
        sh[lane] = x * y;
      } else {
        const uint32_t k = lane % 3;
        const B u = k == 0 ? x.c0 : k == 1 ? x.c1 : x.c0 + x.c1, v = k == 0 ? y.c0 : k == 1 ? y.c1 : y.c0 + y.c1;
        sh[lane] = u * v;
      }
    }
    __syncwarp();
#pragma unroll
    for (uint32_t j = 0; j < N; ++j) {
      if constexpr (kPer == 1) {
        r[j] = sh[j];
      } else {
        const B t0 = sh[3 * j], t1 = sh[3 * j + 1];
        r[j] = {t0 - t1, sh[3 * j + 2] - t0 - t1};
      }
    }
#else
    SerialMul{}(r, a, b);
#endif
  }
};

// Block g, one warp: result[g] = Σ_w 2^(c·w)·sums[g·windows + w] by Horner, c doublings a window
// at 3 product latencies each. The MSM's last step (one group of its windows) and the trees'
// S = S_C + 2^s·S_R (a group of two windows a window).
template <class F>
__global__ void __launch_bounds__(32) horner_kernel(const Xyzz<F>* sums, uint32_t windows, uint32_t c,
                                                    Xyzz<F>* result) {
  __shared__ typename WarpMul<F>::B sh[kWarpProducts];
  const Xyzz<F> r = horner_levels(sums + size_t(blockIdx.x) * windows, windows, c, WarpMul<F>{sh});
  if (threadIdx.x == 0) result[blockIdx.x] = r;
}

template <class F>
__global__ void set_infinity_kernel(Xyzz<F>* result) {
  *result = Xyzz<F>::infinity();
}

// Device pointers into the scratch of a plan.
template <class F>
struct Buffers {
  uint32_t *keys_in, *vals_in, *keys_out, *vals_out, *valid, *run_lo, *run_hi;
  void *temp, *lanes;
  Xyzz<F> *buckets, *partials, *sums, *head, *tail, *group;
};

template <class F>
Buffers<F> carve(const Plan& p, void* scratch) {
  auto* b = static_cast<uint8_t*>(scratch);
  return {reinterpret_cast<uint32_t*>(b + p.keys_in),  reinterpret_cast<uint32_t*>(b + p.vals_in),
          reinterpret_cast<uint32_t*>(b + p.keys_out), reinterpret_cast<uint32_t*>(b + p.vals_out),
          reinterpret_cast<uint32_t*>(b + p.valid),
          reinterpret_cast<uint32_t*>(b + p.bounds),
          reinterpret_cast<uint32_t*>(b + p.bounds + p.bounds_bytes / 2),
          b + p.temp,
          b + p.lanes,
          reinterpret_cast<Xyzz<F>*>(b + p.bucket),    reinterpret_cast<Xyzz<F>*>(b + p.partial),
          reinterpret_cast<Xyzz<F>*>(b + p.sums),      reinterpret_cast<Xyzz<F>*>(b + p.head),
          reinterpret_cast<Xyzz<F>*>(b + p.tail),      reinterpret_cast<Xyzz<F>*>(b + p.group)};
}

// A pass's sorted entries (prepare_pass), for its accumulation (accumulate_pass).
struct Sorted {
  const uint32_t *keys, *vals;
  size_t entries;
};

// A pass's digits, their sort, the valid count and the buckets' run bounds; nothing here touches
// the buckets.
template <class F>
Sorted prepare_pass(const Plan& p, const Buffers<F>& b, const ScalarOf<F>* scalars, size_t n, const Pass& pass,
                    cudaStream_t stream) {
  const size_t entries = size_t(pass.qc) * n;
  digits_kernel<F><<<blocks_for(n), kThreads, 0, stream>>>(scalars, n, p.l.c, p.l.windows, p.order, pass, p.sentinel,
                                                        b.keys_in, b.vals_in);
  SNARKD_CUDA_CHECK_LAUNCH();
  // In place over the two key and value arrays: the sorted entries end in either (CUB sets
  // Current() on the host), and the temp holds only CUB's counters, not a third copy of both
  // (2 GiB at 2^28 entries).
  size_t temp = p.sort_temp;
  cub::DoubleBuffer<uint32_t> sk(b.keys_in, b.keys_out), sv(b.vals_in, b.vals_out);
  SNARKD_CUDA_CHECK(
      cub::DeviceRadixSort::SortPairs(b.temp, temp, sk, sv, sort_count(entries), 0, p.key_bits, stream));
  const uint32_t *keys = sk.Current(), *vals = sv.Current();
  count_valid_kernel<F><<<1, 1, 0, stream>>>(keys, entries, p.sentinel, b.valid);
  SNARKD_CUDA_CHECK_LAUNCH();
  const size_t bucket_threads = size_t(pass.vc) * p.buckets;
  SNARKD_CUDA_CHECK(cudaMemsetAsync(b.run_lo, 0, bucket_threads * sizeof(uint32_t), stream));
  SNARKD_CUDA_CHECK(cudaMemsetAsync(b.run_hi, 0, bucket_threads * sizeof(uint32_t), stream));
  run_bounds_kernel<F><<<blocks_for(entries), kThreads, 0, stream>>>(keys, entries, b.valid, p.l.c, p.buckets,
                                                                     b.run_lo, b.run_hi);
  SNARKD_CUDA_CHECK_LAUNCH();
  return {keys, vals, entries};
}

// The pass's accumulation into its buckets: the lanes (or bucket threads), the fix-up, the empty
// buckets.
template <class F>
void accumulate_pass(const Plan& p, const Buffers<F>& b, const Affine<F>* points, const Sorted& e, const Pass& pass,
                     cudaStream_t stream) {
  const size_t bucket_threads = size_t(pass.vc) * p.buckets;
  Xyzz<F>* buckets = p.pass_buckets ? b.buckets : b.buckets + size_t(pass.v0) * p.buckets;
  ChunkArgs<F> a{e.keys,     e.vals,     points, b.valid,  p.l.c,    p.buckets, p.chunks,
                 pass,       buckets,    b.head, b.tail, b.run_lo, b.run_hi, b.group};
  if (p.mode == MsmAccumulation::kBucketThreads) {
    launch_bucket_threads<F>(a, stream);
    return;
  }
  if (p.mode == MsmAccumulation::kChunkedXyzz)
    launch_chunk_xyzz<F>(a, p.chunks, p.l.lane_waves ? p.l.lane_waves : kXyzzWaves, stream);
  else launch_chunk_affine<F>(a, p.lane_threads, e.entries, b.lanes, stream);
  launch_fixup<F>(a, stream);
  clear_empty_kernel<F><<<blocks_for(bucket_threads), kThreads, 0, stream>>>(a);
  SNARKD_CUDA_CHECK_LAUNCH();
}

// The scratch of a plan, checked.
template <class F>
Buffers<F> checked_carve(const Plan& p, void* d_scratch, size_t scratch_bytes, const char* who) {
  if (scratch_bytes < p.total || d_scratch == nullptr)
    throw InvalidArgument(std::string(who) + ": scratch of " + std::to_string(scratch_bytes) + " bytes, needs " +
                          std::to_string(p.total));
  return carve<F>(p, d_scratch);
}

template <class F>
void pippenger_chunk(const Affine<F>* d_points, const ScalarOf<F>* d_scalars, size_t n, size_t max_n,
                     const WindowLayout& l, bool first, void* d_scratch, size_t scratch_bytes, cudaStream_t stream,
                     const char* who) {
  if (n > max_n)
    throw InvalidArgument(std::string(who) + ": a chunk of " + std::to_string(n) + " points, planned for at most " +
                          std::to_string(max_n));
  const Plan p = make_plan<F>(max_n, l, who);  // max_n fixes the carve: the buckets stay in place
  if (n == 0) return;
  const Buffers<F> b = checked_carve<F>(p, d_scratch, scratch_bytes, who);
  for (uint32_t q0 = 0; q0 < l.windows;) {
    Pass pass = make_pass(p.order, l.windows, q0, p.per_pass);
    pass.continues_all = !first;
    accumulate_pass<F>(p, b, d_points, prepare_pass<F>(p, b, d_scalars, n, pass, stream), pass, stream);
    q0 += pass.qc;
  }
}

// Where the tree reduction of vc windows lives: in the sort's four key and value arrays, which no
// kernel reads once the pass's accumulation is done (the next pass's digits rewrite them).
struct TreeCarve {
  size_t rows = 0, cols = 0, pre = 0, small = 0, parts = 0, total = 0;
};

// The trees' batch cap and stopping size (kTreeBatch, kTreeMinPairs) from
// SNARKD_MSM_TREE_BATCH = 1..256 and SNARKD_MSM_TREE_MIN_PAIRS = 1..2^24 (read once; A/B runs).
inline uint32_t tree_batch_cap() {
  static const uint32_t b = uint32_t(env_u64("SNARKD_MSM_TREE_BATCH", kTreeBatch, 1, 256));
  return b;
}
inline size_t tree_min_pairs() {
  static const size_t m = size_t(env_u64("SNARKD_MSM_TREE_MIN_PAIRS", kTreeMinPairs, 1, uint64_t{1} << 24));
  return m;
}

template <class F>
TreeCarve tree_carve(const TreeShape& t, uint32_t vc) {
  TreeCarve k;
  Carver at;
  const size_t items = size_t(vc) * t.size();
  k.rows = at.take(items * sizeof(Affine<F>));
  k.cols = at.take(size_t(vc) * (t.rows / 2) * t.cols * sizeof(Affine<F>));
  k.pre = at.take((items / 2 + tree_batch_cap()) * sizeof(F));
  k.small = at.take(2 * size_t(vc) * tree_small_width(t) * sizeof(Xyzz<F>));
  k.parts = at.take(2 * size_t(vc) * sizeof(Xyzz<F>));
  k.total = at.end;
  return k;
}

// SNARKD_MSM_REDUCE = auto (default) | tree | running: auto takes the trees for G2 from
// kTreeMinBits-bit windows (2^19 buckets), where the running sums' two XYZZ points and an addition
// fill 255 registers; G1's running sums stay. H100, `snarkd_gpu_bench --only=kinds`, trees against
// running sums in one process each: G2 2^24 (batch-affine lanes, c = 20) 347.1 against 373.7 ms;
// G1 at 2^26 / 2^27 469.8 / 919.1 against 463.6 / 903.7 (its running sums' XYZZ additions fit
// the registers); G2's bucket threads at c = 16 (2^15 buckets) 517.4 against 510.5 with trees of
// 32 pairs a thread throughout. Either way only where tree_carve fits the sort's arrays (read once;
// A/B runs).
constexpr uint32_t kTreeMinBits = 20;
enum class ReduceKind { kAuto, kTree, kRunning };
inline ReduceKind reduce_kind() {
  static const ReduceKind k = [] {
    const char* v = std::getenv("SNARKD_MSM_REDUCE");
    if (v == nullptr || *v == '\0' || std::string_view(v) == "auto") return ReduceKind::kAuto;
    if (std::string_view(v) == "tree") return ReduceKind::kTree;
    if (std::string_view(v) == "running") return ReduceKind::kRunning;
    throw InvalidArgument(std::string("SNARKD_MSM_REDUCE: '") + v + "' is not auto, tree or running");
  }();
  return k;
}

template <class F>
bool use_trees(const Plan& p, uint32_t vc) {
  const ReduceKind k = reduce_kind();
  if (k == ReduceKind::kRunning || p.l.c < 3) return false;
  if (k == ReduceKind::kAuto && (kIsPrimeField<F> || p.l.c < kTreeMinBits)) return false;
  return tree_carve<F>(tree_shape(p.l.c), vc).total <= p.temp - p.keys_in;
}

template <class F>
void reduce_trees(const Plan& p, const Buffers<F>& b, uint32_t v0, uint32_t vc, cudaStream_t stream) {
  const TreeShape t = tree_shape(p.l.c);
  const TreeCarve k = tree_carve<F>(t, vc);
  auto* base = reinterpret_cast<uint8_t*>(b.keys_in);
  auto* rows = reinterpret_cast<Affine<F>*>(base + k.rows);
  auto* cols = reinterpret_cast<Affine<F>*>(base + k.cols);
  auto* pre = reinterpret_cast<F*>(base + k.pre);
  auto* small = reinterpret_cast<Xyzz<F>*>(base + k.small);
  auto* parts = reinterpret_cast<Xyzz<F>*>(base + k.parts);
  auto grid = [](size_t work, uint32_t batch) { return blocks_for((work + batch - 1) / batch, kChunkThreads); };
  const size_t items = size_t(vc) * t.size();
  const uint32_t cap = tree_batch_cap();
  tree_affine_kernel<F><<<grid(items, cap), kChunkThreads, 0, stream>>>(b.buckets, t, items, cap, rows);
  SNARKD_CUDA_CHECK_LAUNCH();
  const TreeDepth d = tree_depth(t, vc, tree_min_pairs());
  auto level = [&](const Affine<F>* src, Affine<F>* dst, const TreeLevel& L) {
    const uint32_t batch = tree_batch(L.pairs, cap);
    tree_pairs_kernel<F><<<grid(L.pairs, batch), kChunkThreads, 0, stream>>>(src, dst, L, batch, pre);
    SNARKD_CUDA_CHECK_LAUNCH();
  };
  for (uint32_t lv = 0; lv < d.columns; ++lv) level(lv == 0 ? rows : cols, cols, column_level(t, vc, lv));
  for (uint32_t lv = 0; lv < d.rows; ++lv) level(rows, rows, row_level(t, vc, lv));  // after: in place
  const uint32_t w = tree_small_width(t);
  const size_t n = 2 * size_t(vc) * w;
  tree_gather_kernel<F><<<blocks_for(n), kThreads, 0, stream>>>(rows, cols, t, d, n, small);
  SNARKD_CUDA_CHECK_LAUNCH();
  reduce_window_kernel<F><<<dim3(1, 2 * vc), kSegments, 0, stream>>>(small, w, parts);
  SNARKD_CUDA_CHECK_LAUNCH();
  horner_kernel<F><<<vc, 32, 0, stream>>>(parts, 2, t.s, b.sums + v0);
  SNARKD_CUDA_CHECK_LAUNCH();
}

// Window sums S_v for the vc windows from v0, whose buckets start at b.buckets (one pass's
// buckets) or at v0's place among all windows': by trees (reduce_trees) or running sums.
template <class F>
void reduce_windows(const Plan& p, const Buffers<F>& b, uint32_t v0, uint32_t vc, cudaStream_t stream) {
  if (use_trees<F>(p, vc)) {
    reduce_trees<F>(p, b, v0, vc, stream);
    return;
  }
  reduce_window_kernel<F><<<dim3(p.blocks_per_window, vc), kSegments, 0, stream>>>(b.buckets, p.buckets, b.partials);
  SNARKD_CUDA_CHECK_LAUNCH();
  combine_kernel<F><<<vc, kSegments, 0, stream>>>(b.partials, p.blocks_per_window, b.sums + v0);
  SNARKD_CUDA_CHECK_LAUNCH();
}

template <class F>
void horner(const Plan& p, const Buffers<F>& b, Xyzz<F>* d_result, cudaStream_t stream) {
  horner_kernel<F><<<1, 32, 0, stream>>>(b.sums, p.l.virtual_windows, p.l.c, d_result);
  SNARKD_CUDA_CHECK_LAUNCH();
}

template <class F>
void pippenger_reduce(size_t max_n, const WindowLayout& l, Xyzz<F>* d_result, void* d_scratch, size_t scratch_bytes,
                      cudaStream_t stream, const char* who) {
  const Plan p = make_plan<F>(max_n, l, who);
  const Buffers<F> b = checked_carve<F>(p, d_scratch, scratch_bytes, who);
  reduce_windows<F>(p, b, 0, l.virtual_windows, stream);
  horner<F>(p, b, d_result, stream);
}

// Whether a pass's running-sum reduction runs on a side stream beside the next pass's digits,
// sort and run bounds, which touch no bucket (pippenger; the next pass's accumulation waits for
// it). Not with the trees, which live in the sort's arrays. H100, `snarkd_gpu_bench --only=kinds`,
// with it and without: G1 2^27 batch-affine 871.5 / 871.8 against 878.8 ms, XYZZ 901.4 / 901.5
// against 911.9; 2^26 447.1 / 449.0 against 451.0. SNARKD_MSM_REDUCE_OVERLAP = 0 | 1 (read once;
// A/B runs).
inline bool reduce_overlap() {
  static const bool o = env_u64("SNARKD_MSM_REDUCE_OVERLAP", 1, 0, 1) == 1;
  return o;
}

// Whether a whole MSM whose pass's reduction is narrow keeps every window's buckets, where its
// scratch holds them, and reduces them in one call after the last pass (whole_msm_plan). Read
// once; SNARKD_MSM_REDUCE_ONCE = 0 | 1 (A/B runs).
inline bool reduce_once() {
  static const bool o = env_u64("SNARKD_MSM_REDUCE_ONCE", 1, 0, 1) == 1;
  return o;
}

// A whole MSM's plan: one pass's buckets, each pass reduced after it (make_plan's pass_buckets),
// unless that reduction is narrow — fewer blocks than one reduction grid (kReduceBlocks): a G2
// window of 2^15 buckets takes 4 blocks, whose threads each run ≈ 95 dependent full additions,
// so a call costs ≈ 7–9 ms on an H100 whether it reduces 2 windows or 16 — and the caller's
// scratch holds every window's buckets (the streamed prover's tails: pippenger_scratch_bytes'
// bound). Then all windows are reduced in one wider call after the last pass: the streamed B G2
// tail's five calls of 8–52 blocks (39 ms of a 24 GiB partition's kernels, ncu) become one of 64.
template <class F>
Plan whole_msm_plan(size_t n, const WindowLayout& l, size_t scratch_bytes, const char* who) {
  Plan p = make_plan<F>(n, l, who, true);
  if (!p.pass_buckets || p.per_pass >= l.windows || !reduce_once()) return p;
  if (size_t{p.blocks_per_window} * std::min(p.per_pass, l.virtual_windows) >= kReduceBlocks) return p;
  Plan all = make_plan<F>(n, l, who, false);
  return all.total <= scratch_bytes ? all : p;
}

// A whole MSM: each pass's windows reduced after the pass where the plan holds one pass's
// buckets (whole_msm_plan), beside the next pass's sort where reduce_overlap(), else all windows
// after the last pass.
template <class F>
void pippenger(const Affine<F>* d_points, const ScalarOf<F>* d_scalars, size_t n, const WindowLayout& l,
               Xyzz<F>* d_result, void* d_scratch, size_t scratch_bytes, cudaStream_t stream, const char* who) {
  const Plan p = whole_msm_plan<F>(n, l, scratch_bytes, who);
  if (n == 0) {
    set_infinity_kernel<F><<<1, 1, 0, stream>>>(d_result);
    SNARKD_CUDA_CHECK_LAUNCH();
    return;
  }
  const Buffers<F> b = checked_carve<F>(p, d_scratch, scratch_bytes, who);
  SideStream* side = nullptr;  // where a pass's reduction runs beside the next pass's sort
  for (uint32_t q0 = 0; q0 < l.windows;) {
    const Pass pass = make_pass(p.order, l.windows, q0, p.per_pass);
    const Sorted e = prepare_pass<F>(p, b, d_scalars, n, pass, stream);
    if (side) side->join.wait_in(stream);  // the previous pass's reduction has read the buckets
    accumulate_pass<F>(p, b, d_points, e, pass, stream);
    q0 += pass.qc;
    if (!p.pass_buckets) continue;
    if (q0 < l.windows && reduce_overlap() && !use_trees<F>(p, pass.vc)) {
      side = &side_stream(stream, 1);
      side->fork.record(stream);
      side->fork.wait_in(side->side);
      reduce_windows<F>(p, b, pass.v0, pass.vc, side->side);
      side->join.record(side->side);
    } else {
      reduce_windows<F>(p, b, pass.v0, pass.vc, stream);
    }
  }
  if (!p.pass_buckets) reduce_windows<F>(p, b, 0, l.virtual_windows, stream);
  horner<F>(p, b, d_result, stream);
}

}  // namespace snarkd::cuda::msm_detail

namespace snarkd::cuda {

template <class F>
size_t detail::pippenger_scratch_bytes(size_t n, const WindowLayout& l) {
  return msm_detail::make_plan<F>(n, l, "msm").total;
}

template <class F>
void detail::pippenger(const Affine<F>* d_points, const ScalarOf<F>* d_scalars, size_t n, const WindowLayout& l,
                       Xyzz<F>* d_result, void* d_scratch, size_t scratch_bytes, cudaStream_t stream, const char* who) {
  msm_detail::pippenger<F>(d_points, d_scalars, n, l, d_result, d_scratch, scratch_bytes, stream, who);
}

template <class F>
void detail::pippenger_chunk(const Affine<F>* d_points, const ScalarOf<F>* d_scalars, size_t n, size_t max_n,
                             const WindowLayout& l, bool first, void* d_scratch, size_t scratch_bytes,
                             cudaStream_t stream, const char* who) {
  msm_detail::pippenger_chunk<F>(d_points, d_scalars, n, max_n, l, first, d_scratch, scratch_bytes, stream, who);
}

template <class F>
void detail::pippenger_reduce(size_t max_n, const WindowLayout& l, Xyzz<F>* d_result, void* d_scratch,
                              size_t scratch_bytes, cudaStream_t stream, const char* who) {
  msm_detail::pippenger_reduce<F>(max_n, l, d_result, d_scratch, scratch_bytes, stream, who);
}

// One pass's buckets (msm_detail::pippenger): at most pippenger_scratch_bytes.
template <class F>
size_t msm_scratch_bytes(size_t n, const MsmOptions& o) {
  return msm_detail::make_plan<F>(n, detail::plain_layout<F>(n, o), "msm", true).total;
}
template <class F>
size_t msm_scratch_bytes(size_t n, uint32_t window_bits) {
  return msm_scratch_bytes<F>(n, MsmOptions{window_bits});
}

template <class F>
void msm(const Affine<F>* d_bases, const ScalarOf<F>* d_scalars, size_t n, Xyzz<F>* d_result, void* d_scratch,
         size_t scratch_bytes, cudaStream_t stream, const MsmOptions& o) {
  detail::pippenger<F>(d_bases, d_scalars, n, detail::plain_layout<F>(n, o), d_result, d_scratch, scratch_bytes,
                       stream, "msm");
}
template <class F>
void msm(const Affine<F>* d_bases, const ScalarOf<F>* d_scalars, size_t n, Xyzz<F>* d_result, void* d_scratch,
         size_t scratch_bytes, cudaStream_t stream, uint32_t window_bits) {
  msm<F>(d_bases, d_scalars, n, d_result, d_scratch, scratch_bytes, stream, MsmOptions{window_bits});
}

#define SNARKD_CUDA_MSM_DEFINE(F)                                                                                      \
  template size_t msm_scratch_bytes<F>(size_t, uint32_t);                                                              \
  template size_t msm_scratch_bytes<F>(size_t, const MsmOptions&);                                                     \
  template size_t detail::pippenger_scratch_bytes<F>(size_t, const detail::WindowLayout&);                             \
  template void detail::pippenger<F>(const Affine<F>*, const ScalarOf<F>*, size_t, const detail::WindowLayout&,        \
                                     Xyzz<F>*, void*, size_t, cudaStream_t, const char*);                              \
  template void detail::pippenger_chunk<F>(const Affine<F>*, const ScalarOf<F>*, size_t, size_t,                       \
                                           const detail::WindowLayout&, bool, void*, size_t, cudaStream_t,             \
                                           const char*);                                                               \
  template void detail::pippenger_reduce<F>(size_t, const detail::WindowLayout&, Xyzz<F>*, void*, size_t,              \
                                            cudaStream_t, const char*);                                                \
  template void msm<F>(const Affine<F>*, const ScalarOf<F>*, size_t, Xyzz<F>*, void*, size_t, cudaStream_t, uint32_t); \
  template void msm<F>(const Affine<F>*, const ScalarOf<F>*, size_t, Xyzz<F>*, void*, size_t, cudaStream_t,            \
                       const MsmOptions&);

}  // namespace snarkd::cuda
