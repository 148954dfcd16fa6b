#include "snarkd/cuda/msm.hpp"

#include <algorithm>
#include <bit>
#include <cub/device/device_radix_sort.cuh>
#include <string>

#include "snarkd/cuda/runtime.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {
namespace {

constexpr uint32_t kThreads = 256;
// Segments per reduction block: each thread sums a run of buckets with two additions apiece, then
// the block adds its segments by a tree in shared memory.
constexpr uint32_t kSegments = 256;
// A segment of fewer buckets would spend more on its (lo − 1)·Σ correction (~1.5·log₂ nb
// additions) than on its buckets (2 per bucket), so blocks per window stop growing there.
constexpr uint32_t kMinSegmentBuckets = 32;
// Reduction blocks wanted in all: two per SM of the H200 (132 SMs); a window with 2^15 buckets
// in one block of 256 threads used 16 of 132 SMs.
constexpr uint32_t kReduceBlocks = 264;

using detail::WindowLayout;

// Order of the windows in the passes: by virtual window v = w mod W', then copy k = w / W', so
// a pass (a run of this order) touches a contiguous range of virtual windows. The first
// r = W − (t−1)·W' virtual windows have t copies, the others t − 1.
struct Order {
  uint32_t vw = 1, t = 1, r = 1;
  __host__ __device__ uint32_t position(uint32_t w) const {
    const uint32_t v = w % vw, k = w / vw;
    return v < r ? v * t + k : r * t + (v - r) * (t - 1) + k;
  }
  __host__ __device__ uint32_t virtual_window(uint32_t q) const {
    return q < r * t ? q / t : r + (q - r * t) / (t - 1);
  }
};

Order order_of(const WindowLayout& l) {
  return {l.virtual_windows, l.copies, l.windows - (l.copies - 1) * l.virtual_windows};
}

struct Plan {
  WindowLayout l;
  Order order;
  uint32_t per_pass = 0, buckets = 0, blocks_per_window = 1;  // buckets per window: 2^(c−1) + 1
  int key_bits = 0;
  size_t entries = 0;  // per_pass · n
  size_t sort_temp = 0;
  size_t keys_in = 0, vals_in = 0, keys_out = 0, vals_out = 0, temp = 0;
  size_t bucket = 0, partial = 0, sums = 0, total = 0;
};

size_t align_up(size_t x) { return (x + 255) & ~size_t{255}; }

uint32_t blocks_per_window(uint32_t buckets, uint32_t vw) {
  const uint32_t most = std::max<uint32_t>(1, (buckets - 1) / (kSegments * kMinSegmentBuckets));
  return std::clamp<uint32_t>((kReduceBlocks + vw - 1) / vw, 1, most);
}

template <class F>
Plan make_plan(size_t n, const WindowLayout& l, const char* who) {
  detail::check_layout(l, n, who);
  Plan p;
  p.l = l;
  p.order = order_of(l);
  p.per_pass = n == 0 ? l.windows : std::max<uint32_t>(1, std::min<size_t>(l.windows, l.max_pass_entries / n));
  p.buckets = (1u << (l.c - 1)) + 1;
  p.blocks_per_window = blocks_per_window(p.buckets, l.virtual_windows);
  p.entries = size_t{p.per_pass} * n;
  // A pass of per_pass positions spans at most min(per_pass, W') virtual windows.
  p.key_bits = int(l.c) + std::bit_width(std::min(p.per_pass, l.virtual_windows) - 1);
  if (n > 0)
    SNARKD_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, p.sort_temp, (uint32_t*)nullptr, (uint32_t*)nullptr,
                                                      (uint32_t*)nullptr, (uint32_t*)nullptr, p.entries, 0, p.key_bits));
  size_t off = 0;
  auto take = [&off](size_t bytes) {
    const size_t at = off;
    off += align_up(bytes);
    return at;
  };
  p.keys_in = take(p.entries * 4);
  p.vals_in = take(p.entries * 4);
  p.keys_out = take(p.entries * 4);
  p.vals_out = take(p.entries * 4);
  p.temp = take(p.sort_temp);
  p.bucket = take(size_t{l.virtual_windows} * p.buckets * sizeof(Xyzz<F>));
  p.partial = take(size_t{l.virtual_windows} * p.blocks_per_window * sizeof(Xyzz<F>));
  p.sums = take(size_t{l.virtual_windows} * sizeof(Xyzz<F>));
  p.total = off;
  return p;
}

// c bits of the canonical scalar s (8 words) starting at bit b (b < 256, c ≤ 24 < 32).
__device__ __forceinline__ uint32_t window_bits_at(const uint32_t* s, uint32_t b, uint32_t c) {
  const uint32_t word = b / 32, off = b % 32;
  uint32_t v = s[word] >> off;
  if (off + c > 32 && word + 1 < 8) v |= s[word + 1] << (32 - off);
  return v & ((1u << c) - 1);
}

// What one pass covers: order positions [q0, q0 + qc), virtual windows from v0 on.
struct Pass {
  uint32_t q0 = 0, qc = 0, v0 = 0, vc = 0;
  bool continues_v0 = false;  // v0's buckets already hold sums from the previous pass
};

// Signed digits of scalar i for the windows of the pass → (key, value) entries at position
// (q − q0)·n + i: key = (v − v0)·2^c + |d|, value = (k·n + i) | sign << 31.
__global__ void digits_kernel(const Fr* scalars, size_t n, uint32_t c, uint32_t windows, Order order, Pass pass,
                              uint32_t* keys, uint32_t* vals) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Fr raw_one = Fr::zero();
  raw_one.w[0] = 1;
  const Fr s = scalars[i] * raw_one;  // Montgomery → canonical: x·R · 1 · R⁻¹
  const uint32_t half = 1u << (c - 1);
  uint32_t carry = 0;
  for (uint32_t w = 0; w < windows; ++w) {
    const uint32_t raw = window_bits_at(s.w, w * c, c) + carry;
    const bool neg = raw > half;
    carry = neg ? 1 : 0;
    const uint32_t q = order.position(w);
    if (q < pass.q0 || q >= pass.q0 + pass.qc) continue;
    const uint32_t mag = neg ? (1u << c) - raw : raw;
    const size_t at = size_t(q - pass.q0) * n + i;
    keys[at] = ((w % order.vw - pass.v0) << c) | mag;
    vals[at] = uint32_t((w / order.vw) * n + i) | (neg ? 0x80000000u : 0u);
  }
}

__device__ __forceinline__ size_t lower_bound(const uint32_t* keys, size_t n, uint32_t key) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// One thread per bucket j ∈ [0, 2^(c−1)] of each virtual window of the pass: B_j (+)= Σ ±P over
// its run; v0's buckets continue the previous pass's sums when the pass starts inside v0.
template <class F>
__global__ void accumulate_kernel(const uint32_t* keys, const uint32_t* vals, size_t entries, const Affine<F>* points,
                                  uint32_t c, uint32_t buckets, Pass pass, Xyzz<F>* out) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= size_t(pass.vc) * buckets) return;
  const uint32_t vl = uint32_t(t / buckets), j = uint32_t(t % buckets);
  Xyzz<F>* bucket = out + size_t(pass.v0 + vl) * buckets + j;
  Xyzz<F> acc = (vl == 0 && pass.continues_v0) ? *bucket : Xyzz<F>::infinity();
  if (j != 0) {
    const uint32_t key = (vl << c) | j;
    const size_t end = lower_bound(keys, entries, key + 1);
    for (size_t k = lower_bound(keys, entries, key); k < end; ++k) {
      const uint32_t v = vals[k];
      const Affine<F> p = points[v & 0x7fffffffu];
      acc = acc.add_mixed((v >> 31) ? -p : p);
    }
  }
  *bucket = acc;
}

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

// Σ_w 2^(c·w)·S_w by Horner: c doublings per window, one thread.
template <class F>
__global__ void horner_kernel(const Xyzz<F>* sums, uint32_t windows, uint32_t c, Xyzz<F>* result) {
  Xyzz<F> r = sums[windows - 1];
  for (uint32_t w = windows - 1; w-- > 0;) {
    for (uint32_t k = 0; k < c; ++k) r = r.dbl();
    r += sums[w];
  }
  *result = r;
}

template <class F>
__global__ void set_infinity_kernel(Xyzz<F>* result) {
  *result = Xyzz<F>::infinity();
}

uint32_t blocks_for(size_t n) { return uint32_t((n + kThreads - 1) / kThreads); }

}  // namespace

// Only widths whose top window keeps several bits are used: the top window covers bit 255 and
// the borrow, 255 − (W−1)·c bits, and with few bits its handful of buckets take all n points,
// which one thread per bucket then adds serially (c = 14, 15 gave 188 ms and 1.16 s at 2^17, 2^18
// on the H200). Top bits: c = 8 → 7, 10 → 5, 13 → 8, 16 → 15. Among those, measured on the H200
// (snarkd_gpu_bench --only=window, 2026-11-30, ms for c = 8 / 10 / 13 / 16): 2^14: 5.6 / 9.2 /
// 5.5 / 7.2; 52,000 (the split tail at 2^20): 10.1 / 21.7 / 8.3 / 6.6; 2^16: 11.8 / 26.2 / 9.3 /
// 6.7; 2^18: 36.1 / 95.9 / 23.7 / 8.9 — since the reduction spreads over several blocks per
// window, c = 16 wins from 2^15 on. Below 2^14 (not measured with that reduction) c ≈ log₂n − 4.
uint32_t msm_default_window(size_t n) {
  if (n >= (size_t{1} << 15)) return 16;
  if (n >= (size_t{1} << 14)) return 13;
  const int c = std::clamp(int(std::bit_width(n)) - 4, 4, 16);
  if (c <= 7) return uint32_t(c);
  return c <= 9 ? 8 : 10;
}

namespace detail {

void check_layout(const WindowLayout& l, size_t n, const char* who) {
  const std::string w = who;
  if (l.c < 4 || l.c > 24) throw InvalidArgument(w + ": window_bits " + std::to_string(l.c) + " not in [4, 24]");
  if (size_t{l.windows} * l.c < 256 || size_t{l.windows - 1} * l.c >= 256)
    throw InvalidArgument(w + ": " + std::to_string(l.windows) + " windows of " + std::to_string(l.c) +
                          " bits do not cover 256 bits exactly once");
  if (l.virtual_windows == 0 || l.virtual_windows > l.windows || l.copies == 0 ||
      l.copies != (l.windows + l.virtual_windows - 1) / l.virtual_windows)
    throw InvalidArgument(w + ": copies " + std::to_string(l.copies) + " ≠ ⌈" + std::to_string(l.windows) + "/" +
                          std::to_string(l.virtual_windows) + "⌉");
  if (n >= ((size_t{1} << 31) / l.copies))
    throw InvalidArgument(w + ": " + std::to_string(l.copies) + " copies of " + std::to_string(n) +
                          " points exceed 2^31 virtual points");
  if (l.c + std::bit_width(l.virtual_windows - 1) > 32) throw InvalidArgument(w + ": sort keys wider than 32 bits");
}

template <class F>
size_t pippenger_scratch_bytes(size_t n, const WindowLayout& l) {
  return make_plan<F>(n, l, "msm").total;
}

template <class F>
void pippenger(const Affine<F>* d_points, const Fr* d_scalars, size_t n, const WindowLayout& l, Xyzz<F>* d_result,
               void* d_scratch, size_t scratch_bytes, cudaStream_t stream, const char* who) {
  const Plan p = make_plan<F>(n, l, who);
  if (n == 0) {
    set_infinity_kernel<F><<<1, 1, 0, stream>>>(d_result);
    SNARKD_CUDA_CHECK(cudaGetLastError());
    return;
  }
  if (scratch_bytes < p.total || d_scratch == nullptr)
    throw InvalidArgument(std::string(who) + ": scratch of " + std::to_string(scratch_bytes) + " bytes, needs " +
                          std::to_string(p.total));
  auto* base = static_cast<uint8_t*>(d_scratch);
  auto* keys_in = reinterpret_cast<uint32_t*>(base + p.keys_in);
  auto* vals_in = reinterpret_cast<uint32_t*>(base + p.vals_in);
  auto* keys_out = reinterpret_cast<uint32_t*>(base + p.keys_out);
  auto* vals_out = reinterpret_cast<uint32_t*>(base + p.vals_out);
  auto* buckets = reinterpret_cast<Xyzz<F>*>(base + p.bucket);
  auto* partials = reinterpret_cast<Xyzz<F>*>(base + p.partial);
  auto* sums = reinterpret_cast<Xyzz<F>*>(base + p.sums);
  for (uint32_t q0 = 0; q0 < l.windows; q0 += p.per_pass) {
    Pass pass;
    pass.q0 = q0;
    pass.qc = std::min(p.per_pass, l.windows - q0);
    pass.v0 = p.order.virtual_window(q0);
    pass.vc = p.order.virtual_window(q0 + pass.qc - 1) - pass.v0 + 1;
    pass.continues_v0 = p.order.position(pass.v0) < q0;  // v0's copy 0 came in an earlier pass
    const size_t entries = size_t(pass.qc) * n;
    digits_kernel<<<blocks_for(n), kThreads, 0, stream>>>(d_scalars, n, l.c, l.windows, p.order, pass, keys_in,
                                                          vals_in);
    SNARKD_CUDA_CHECK(cudaGetLastError());
    size_t temp = p.sort_temp;
    SNARKD_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(base + p.temp, temp, keys_in, keys_out, vals_in, vals_out,
                                                      entries, 0, p.key_bits, stream));
    const size_t threads = size_t(pass.vc) * p.buckets;
    accumulate_kernel<F><<<blocks_for(threads), kThreads, 0, stream>>>(keys_out, vals_out, entries, d_points, l.c,
                                                                       p.buckets, pass, buckets);
    SNARKD_CUDA_CHECK(cudaGetLastError());
  }
  reduce_window_kernel<F><<<dim3(p.blocks_per_window, l.virtual_windows), kSegments, 0, stream>>>(buckets, p.buckets,
                                                                                                  partials);
  SNARKD_CUDA_CHECK(cudaGetLastError());
  combine_kernel<F><<<l.virtual_windows, kSegments, 0, stream>>>(partials, p.blocks_per_window, sums);
  SNARKD_CUDA_CHECK(cudaGetLastError());
  horner_kernel<F><<<1, 1, 0, stream>>>(sums, l.virtual_windows, l.c, d_result);
  SNARKD_CUDA_CHECK(cudaGetLastError());
}

}  // namespace detail

namespace {

// The plain layout: W = ⌈256/c⌉ windows, no copies. msm() keeps c ≤ 16 (its measured range).
WindowLayout plain_layout(size_t n, uint32_t c) {
  if (c == 0) c = msm_default_window(n);
  if (c < 4 || c > 16) throw InvalidArgument("msm: window_bits " + std::to_string(c) + " not in [4, 16]");
  const uint32_t windows = (256 + c - 1) / c;  // W·c ≥ 256: the top window never borrows (scalars < 2^255)
  return {c, windows, windows, 1};
}

}  // namespace

template <class F>
size_t msm_scratch_bytes(size_t n, uint32_t window_bits) {
  return detail::pippenger_scratch_bytes<F>(n, plain_layout(n, window_bits));
}

template <class F>
void msm(const Affine<F>* d_bases, const Fr* d_scalars, size_t n, Xyzz<F>* d_result, void* d_scratch,
         size_t scratch_bytes, cudaStream_t stream, uint32_t window_bits) {
  detail::pippenger<F>(d_bases, d_scalars, n, plain_layout(n, window_bits), d_result, d_scratch, scratch_bytes, stream,
                       "msm");
}

#define SNARKD_CUDA_MSM_DEFINE(F)                                                                              \
  template size_t msm_scratch_bytes<F>(size_t, uint32_t);                                                          \
  template size_t detail::pippenger_scratch_bytes<F>(size_t, const detail::WindowLayout&);                        \
  template void detail::pippenger<F>(const Affine<F>*, const Fr*, size_t, const detail::WindowLayout&, Xyzz<F>*,   \
                                     void*, size_t, cudaStream_t, const char*);                                   \
  template void msm<F>(const Affine<F>*, const Fr*, size_t, Xyzz<F>*, void*, size_t, cudaStream_t, uint32_t);
SNARKD_CUDA_MSM_DEFINE(Fp)
SNARKD_CUDA_MSM_DEFINE(Fp2)

}  // namespace snarkd::cuda
