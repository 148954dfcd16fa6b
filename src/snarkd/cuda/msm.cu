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
// Segments per window in the bucket reduction: each thread sums ~2^(c−1)/kSegments buckets
// with two additions apiece (128 at c = 16), then the block adds the segments by a tree.
constexpr uint32_t kSegments = 256;

struct Plan {
  uint32_t c = 0, windows = 0, per_pass = 0, buckets = 0;  // buckets per window: 2^(c−1) + 1
  size_t entries = 0;                                      // per_pass · n
  size_t sort_temp = 0;
  size_t keys_in = 0, vals_in = 0, keys_out = 0, vals_out = 0, temp = 0, bucket = 0, sums = 0, total = 0;
};

size_t align_up(size_t x) { return (x + 255) & ~size_t{255}; }

template <class F>
Plan make_plan(size_t n, uint32_t c) {
  if (c == 0) c = msm_default_window(n);
  if (c < 4 || c > 16) throw InvalidArgument("msm: window_bits " + std::to_string(c) + " not in [4, 16]");
  if (n >= (size_t{1} << 31)) throw InvalidArgument("msm: more than 2^31 points");
  Plan p;
  p.c = c;
  p.windows = (256 + c - 1) / c;  // W·c ≥ 256: the top window never borrows (scalars < 2^255)
  p.per_pass = n == 0 ? p.windows : std::max<uint32_t>(1, std::min<size_t>(p.windows, kMaxEntriesPerPass / n));
  p.buckets = (1u << (c - 1)) + 1;
  p.entries = size_t{p.per_pass} * n;
  const int key_bits = int(c) + std::bit_width(p.per_pass);
  if (n > 0)
    SNARKD_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, p.sort_temp, (uint32_t*)nullptr, (uint32_t*)nullptr,
                                                      (uint32_t*)nullptr, (uint32_t*)nullptr, p.entries, 0, key_bits));
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
  p.bucket = take(size_t{p.windows} * p.buckets * sizeof(Xyzz<F>));
  p.sums = take(size_t{p.windows} * sizeof(Xyzz<F>));
  p.total = off;
  return p;
}

// c bits of the canonical scalar s (8 words) starting at bit b (b < 256, c ≤ 16).
__device__ __forceinline__ uint32_t window_bits_at(const uint32_t* s, uint32_t b, uint32_t c) {
  const uint32_t word = b / 32, off = b % 32;
  uint32_t v = s[word] >> off;
  if (off + c > 32 && word + 1 < 8) v |= s[word + 1] << (32 - off);
  return v & ((1u << c) - 1);
}

// Signed digits of scalar i for windows [w_begin, w_begin + w_count) → (key, value) entries.
__global__ void digits_kernel(const Fr* scalars, size_t n, uint32_t c, uint32_t w_begin, uint32_t w_count,
                              uint32_t* keys, uint32_t* vals) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Fr raw_one = Fr::zero();
  raw_one.w[0] = 1;
  const Fr s = scalars[i] * raw_one;  // Montgomery → canonical: x·R · 1 · R⁻¹
  const uint32_t half = 1u << (c - 1);
  uint32_t carry = 0;
  for (uint32_t w = 0; w < w_begin + w_count; ++w) {
    const uint32_t raw = window_bits_at(s.w, w * c, c) + carry;
    const bool neg = raw > half;
    carry = neg ? 1 : 0;
    if (w < w_begin) continue;
    const uint32_t mag = neg ? (1u << c) - raw : raw;
    const size_t at = size_t(w - w_begin) * n + i;
    keys[at] = ((w - w_begin) << c) | mag;
    vals[at] = uint32_t(i) | (neg ? 0x80000000u : 0u);
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

// One thread per bucket j ∈ [0, 2^(c−1)] of each window of the pass: B_j = Σ ±P over its run.
template <class F>
__global__ void accumulate_kernel(const uint32_t* keys, const uint32_t* vals, size_t entries, const Affine<F>* bases,
                                  uint32_t c, uint32_t buckets, uint32_t w_begin, uint32_t w_count, Xyzz<F>* out) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= size_t(w_count) * buckets) return;
  const uint32_t wl = uint32_t(t / buckets), j = uint32_t(t % buckets);
  Xyzz<F> acc = Xyzz<F>::infinity();
  if (j != 0) {
    const uint32_t key = (wl << c) | j;
    const size_t end = lower_bound(keys, entries, key + 1);
    for (size_t k = lower_bound(keys, entries, key); k < end; ++k) {
      const uint32_t v = vals[k];
      const Affine<F> p = bases[v & 0x7fffffffu];
      acc = acc.add_mixed((v >> 31) ? -p : p);
    }
  }
  out[size_t(w_begin + wl) * buckets + j] = acc;
}

// k·P for a small k (< 2^17) by double-and-add.
template <class F>
__device__ Xyzz<F> mul_small(const Xyzz<F>& p, uint32_t k) {
  Xyzz<F> r = Xyzz<F>::infinity();
  for (int b = 31 - __clz(k | 1); b >= 0; --b) {
    r = r.dbl();
    if ((k >> b) & 1) r += p;
  }
  return k == 0 ? Xyzz<F>::infinity() : r;
}

// Block w = window w, thread t = segment t: Σ_{j ∈ [lo, hi)} j·B_j = Σ (j − lo + 1)·B_j (running
// sums) + (lo − 1)·Σ B_j; then the block adds its segments by a tree in shared memory (8 levels
// instead of 255 serial additions: a single thread's addition chain is what costs at small n).
// Shared memory: kSegments/2 points, 48 KiB for G2.
template <class F>
__global__ void reduce_window_kernel(const Xyzz<F>* buckets, uint32_t nb, Xyzz<F>* window_sums) {
  __shared__ Xyzz<F> sh[kSegments / 2];
  const uint32_t w = blockIdx.x, t = threadIdx.x;
  const uint32_t len = (nb - 1 + kSegments - 1) / kSegments;
  const uint32_t lo = 1 + t * len, hi = min(nb, lo + len);
  Xyzz<F> running = Xyzz<F>::infinity(), acc = Xyzz<F>::infinity();
  for (uint32_t j = hi; j-- > lo;) {
    running += buckets[size_t(w) * nb + j];
    acc += running;
  }
  if (lo < hi) acc += mul_small(running, lo - 1);
  if (t >= kSegments / 2) sh[t - kSegments / 2] = acc;
  __syncthreads();
  if (t < kSegments / 2) sh[t] = acc + sh[t];
  __syncthreads();
  for (uint32_t stride = kSegments / 4; stride > 0; stride /= 2) {
    if (t < stride) sh[t] = sh[t] + sh[t + stride];
    __syncthreads();
  }
  if (t == 0) window_sums[w] = sh[0];
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

// c ≈ log₂n − 4 balances accumulation (W·n additions) against reduction (W·2^c), but only
// widths whose top window keeps several bits are used: the top window covers bit 255 and the
// borrow, 255 − (W−1)·c bits, and with few bits its handful of buckets take all n points, which
// one thread per bucket then adds serially (c = 14, 15 gave 188 ms and 1.16 s at 2^17, 2^18 on
// the H200, against 20 ms at 2^19 with c = 16). Top bits: c = 8 → 7, 10 → 5, 13 → 8, 16 → 15.
uint32_t msm_default_window(size_t n) {
  const int c = std::clamp(int(std::bit_width(n)) - 4, 4, 16);
  if (c <= 7) return uint32_t(c);
  if (c <= 9) return 8;
  if (c <= 12) return 10;
  return c <= 15 ? 13 : 16;
}

template <class F>
size_t msm_scratch_bytes(size_t n, uint32_t window_bits) {
  return make_plan<F>(n, window_bits).total;
}

template <class F>
void msm(const Affine<F>* d_bases, const Fr* d_scalars, size_t n, Xyzz<F>* d_result, void* d_scratch,
         size_t scratch_bytes, cudaStream_t stream, uint32_t window_bits) {
  const Plan p = make_plan<F>(n, window_bits);
  if (n == 0) {
    set_infinity_kernel<F><<<1, 1, 0, stream>>>(d_result);
    SNARKD_CUDA_CHECK(cudaGetLastError());
    return;
  }
  if (scratch_bytes < p.total || d_scratch == nullptr)
    throw InvalidArgument("msm: scratch of " + std::to_string(scratch_bytes) + " bytes, needs " + std::to_string(p.total));
  auto* base = static_cast<uint8_t*>(d_scratch);
  auto* keys_in = reinterpret_cast<uint32_t*>(base + p.keys_in);
  auto* vals_in = reinterpret_cast<uint32_t*>(base + p.vals_in);
  auto* keys_out = reinterpret_cast<uint32_t*>(base + p.keys_out);
  auto* vals_out = reinterpret_cast<uint32_t*>(base + p.vals_out);
  auto* buckets = reinterpret_cast<Xyzz<F>*>(base + p.bucket);
  auto* sums = reinterpret_cast<Xyzz<F>*>(base + p.sums);
  for (uint32_t w0 = 0; w0 < p.windows; w0 += p.per_pass) {
    const uint32_t wc = std::min(p.per_pass, p.windows - w0);
    const size_t entries = size_t(wc) * n;
    digits_kernel<<<blocks_for(n), kThreads, 0, stream>>>(d_scalars, n, p.c, w0, wc, keys_in, vals_in);
    SNARKD_CUDA_CHECK(cudaGetLastError());
    size_t temp = p.sort_temp;
    SNARKD_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(base + p.temp, temp, keys_in, keys_out, vals_in, vals_out,
                                                      entries, 0, int(p.c) + std::bit_width(p.per_pass), stream));
    const size_t threads = size_t(wc) * p.buckets;
    accumulate_kernel<F><<<blocks_for(threads), kThreads, 0, stream>>>(keys_out, vals_out, entries, d_bases, p.c,
                                                                       p.buckets, w0, wc, buckets);
    SNARKD_CUDA_CHECK(cudaGetLastError());
  }
  reduce_window_kernel<F><<<p.windows, kSegments, 0, stream>>>(buckets, p.buckets, sums);
  SNARKD_CUDA_CHECK(cudaGetLastError());
  horner_kernel<F><<<1, 1, 0, stream>>>(sums, p.windows, p.c, d_result);
  SNARKD_CUDA_CHECK(cudaGetLastError());
}

#define SNARKD_CUDA_MSM_DEFINE(F)                                                                              \
  template size_t msm_scratch_bytes<F>(size_t, uint32_t);                                                          \
  template void msm<F>(const Affine<F>*, const Fr*, size_t, Xyzz<F>*, void*, size_t, cudaStream_t, uint32_t);
SNARKD_CUDA_MSM_DEFINE(Fp)
SNARKD_CUDA_MSM_DEFINE(Fp2)

}  // namespace snarkd::cuda
