// The precomputed-bases MSM's templates (msm_precomp.hpp), instantiated once per curve in
// msm_precomp_g1.cu and msm_precomp_g2.cu so that each curve's device code compiles on its own.
#pragma once
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include "snarkd/cuda/msm_precomp.hpp"
#include "snarkd/cuda/runtime.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda::precomp_detail {


constexpr uint32_t kThreads = 128;
// The builder doubles and normalises copies in chunks of this many points (XYZZ scratch:
// 768 MiB for G1, 1.5 GiB for G2).
constexpr size_t kBuildChunk = size_t{1} << 22;
// Points per Fermat inversion in the normalisation (Montgomery's trick): the ~570 products of one
// inversion spread over 32 points cost ~18 each, beside the 3 per point of the trick.
constexpr size_t kPointsPerInversion = 32;
constexpr uint32_t kMinWindow = 4, kMaxWindow = 24;

// Cost model of one MSM on the H200, fitted to snarkd_gpu_bench --only=msm (2026-11-30, within
// 8% at 2^20..2^27 for c = 16, 20, 24): 0.54 ns per digit entry (digits, sort, mixed addition),
// stretched by warp divergence — a warp's 32 buckets hold Poisson(λ) entries and the warp runs as
// long as its fullest, ≈ λ + 2.07·√λ — so c = 24 with λ ≈ 22 entries per bucket measured 153 ms
// at 2^24 against 133 predicted without it; 1.1 ns per bucket of the reduction; ~10 µs per
// serial mixed addition of the longest bucket (16384 in one bucket took 188 ms at 2^17, c = 14).
constexpr double kNsPerEntry = 0.54, kNsPerBucket = 1.1, kNsPerSerialAdd = 10000.0;
constexpr double kWarpMaxSigmas = 2.07;  // expected maximum of 32 normal draws, in σ

inline uint32_t blocks_for(size_t threads) { return uint32_t((threads + kThreads - 1) / kThreads); }

// The table MSM's layout for n bases: the kind the plain MSM takes for n points (G1's batch-affine
// lanes from 2^24, G2's from 2^22), in passes of up to one virtual window's t·n entries rather than
// 2^28, so that no window's buckets continue from an earlier pass (make_pass) — the lanes pay a
// full addition a run where they do. The sort's four arrays then take 16 bytes a table entry of
// the largest window: 11.8 GB at 2^26 points and t = 11.
template <class F>
detail::WindowLayout layout_of(const MsmPrecompShape& s, size_t n) {
  detail::WindowLayout l{s.window_bits, s.windows, s.virtual_windows, s.copies};
  l.max_pass_entries = std::max(kMaxEntriesPerPass, size_t{s.copies} * n);
  l.accumulation = detail::plain_layout<F>(n, MsmOptions{s.window_bits}).accumulation;
  return l;
}

// Predicted ns of msm_precomp for n points: entries + buckets, plus for the one-thread-per-bucket
// kernel the warp-divergence stretch and the longest bucket run — the top window's: its digits
// are below 2^tb (tb = 255 − (W−1)·c bits left for it), so its n points share ~2^tb buckets, each
// added serially by one thread. The chunked kernels (equal work per lane) have neither term.
inline double model_ns(size_t n, const MsmPrecompShape& s, MsmAccumulation a) {
  const uint32_t c = s.window_bits;
  const double entries = double(s.windows) * double(n);
  const double buckets = double(s.virtual_windows) * double(1u << (c - 1));
  if (a != MsmAccumulation::kBucketThreads) return kNsPerEntry * entries + kNsPerBucket * buckets;
  const double per_bucket = std::max(entries / buckets, 1.0);
  const double stretch = 1.0 + kWarpMaxSigmas / std::sqrt(per_bucket);
  const int top_bits = std::max(0, 255 - int((s.windows - 1) * c));
  const double top_run = double(n) / double(uint64_t{1} << top_bits);
  return kNsPerEntry * entries * stretch + kNsPerBucket * buckets + kNsPerSerialAdd * top_run;
}

// p ← 2^s·p for the chunk's points, in XYZZ.
template <class F>
__global__ void __launch_bounds__(kThreads) double_kernel(const Affine<F>* __restrict__ src, size_t m, uint32_t s,
                                                          Xyzz<F>* __restrict__ out) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m) return;
  out[i] = Xyzz<F>::from_affine(src[i]).dbl_n(s);
}

__device__ __forceinline__ Fp invert(const Fp& a) { return a.inverse(); }
// 1/(a + b·u) = (a − b·u)/(a² + b²) since u² = −1: one Fp inversion.
__device__ __forceinline__ Fp2 invert(const Fp2& a) {
  const Fp norm_inv = (a.c0.sqr() + a.c1.sqr()).inverse();
  return {a.c0 * norm_inv, -(a.c1 * norm_inv)};
}

// Thread t makes the points j = t + k·stride affine with one inversion of the product of their
// D_j = ZZ_j·ZZZ_j (infinities skipped): going up, out[j].y keeps the product of the earlier
// D's; going down, 1/D_j = (1/product so far)·out[j].y, and x = X·ZZZ/D, y = Y·ZZ/D.
template <class F>
__global__ void __launch_bounds__(kThreads) normalize_kernel(const Xyzz<F>* __restrict__ pts, size_t m, size_t stride,
                                                             Affine<F>* __restrict__ out) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= stride || t >= m) return;
  F prefix = F::one();
  size_t last = t;
  for (size_t j = t; j < m; j += stride) {
    last = j;
    const Xyzz<F> p = pts[j];
    if (p.is_infinity()) continue;
    out[j].y = prefix;
    prefix = prefix * (p.ZZ * p.ZZZ);
  }
  F inv = invert(prefix);  // 1/Π D_j over the thread's finite points
  for (size_t j = last + stride; j >= t + stride; j -= stride) {
    const size_t at = j - stride;
    const Xyzz<F> p = pts[at];
    if (p.is_infinity()) {
      out[at] = Affine<F>::infinity();
      continue;
    }
    const F d = p.ZZ * p.ZZZ, d_inv = inv * out[at].y;
    inv = inv * d;
    out[at] = {p.X * (p.ZZZ * d_inv), p.Y * (p.ZZ * d_inv)};
  }
}

}  // namespace snarkd::cuda::precomp_detail

namespace snarkd::cuda {

template <class F>
size_t msm_precomp_table_bytes(size_t n, uint32_t copies) {
  if (copies != 0 && n > std::numeric_limits<size_t>::max() / copies / sizeof(Affine<F>))
    throw InvalidArgument("msm_precomp: table of " + std::to_string(copies) + " × " + std::to_string(n) +
                          " points overflows");
  return size_t{copies} * n * sizeof(Affine<F>);
}

template <class F>
MsmPrecompShape msm_precomp_choose(size_t n, size_t budget_bytes) {
  using namespace precomp_detail;  // inside the function: a header's using-directive would reach its includers
  if (n >= (size_t{1} << 31)) throw InvalidArgument("msm_precomp: more than 2^31 points");
  const size_t one_copy = msm_precomp_table_bytes<F>(n, 1);
  if (n > 0 && budget_bytes < one_copy)
    throw InvalidArgument("msm_precomp: budget of " + std::to_string(budget_bytes) + " bytes holds no copy of " +
                          std::to_string(n) + " bases (" + std::to_string(one_copy) + " bytes)");
  const size_t by_budget = n == 0 ? 64 : budget_bytes / one_copy;
  MsmPrecompShape best = msm_precomp_shape(1, 16);
  double best_ns = std::numeric_limits<double>::infinity();
  for (uint32_t c = kMinWindow; c <= kMaxWindow; ++c) {
    uint32_t t = uint32_t(std::min<size_t>(by_budget, 64));
    while (t > 1 && n >= (size_t{1} << 31) / t) --t;  // copies·n < 2^31 (31-bit point indices)
    const MsmPrecompShape s = msm_precomp_shape(t, c);
    const double ns = model_ns(n, s, msm_resolve_accumulation<F>(layout_of<F>(s, n).accumulation));
    if (ns < best_ns) best = s, best_ns = ns;
  }
  return best;
}

template <class F>
size_t msm_precomp_build_scratch_bytes(size_t n) {
  return std::min(n, precomp_detail::kBuildChunk) * sizeof(Xyzz<F>);
}

template <class F>
void msm_precomp_build(const Affine<F>* d_bases, size_t n, const MsmPrecompShape& shape, Affine<F>* d_table,
                       void* d_scratch, size_t scratch_bytes, cudaStream_t stream) {
  using namespace precomp_detail;
  detail::check_layout(layout_of<F>(shape, n), n, "msm_precomp_build");
  if (n == 0) return;
  if (d_scratch == nullptr || scratch_bytes < msm_precomp_build_scratch_bytes<F>(n))
    throw InvalidArgument("msm_precomp_build: scratch of " + std::to_string(scratch_bytes) + " bytes, needs " +
                          std::to_string(msm_precomp_build_scratch_bytes<F>(n)));
  SNARKD_CUDA_CHECK(cudaMemcpyAsync(d_table, d_bases, n * sizeof(Affine<F>), cudaMemcpyDeviceToDevice, stream));
  auto* xyzz = static_cast<Xyzz<F>*>(d_scratch);
  const uint32_t shift = shape.virtual_windows * shape.window_bits;  // s = W'·c bits between copies
  for (uint32_t k = 1; k < shape.copies; ++k) {
    for (size_t j0 = 0; j0 < n; j0 += kBuildChunk) {
      const size_t m = std::min(kBuildChunk, n - j0);
      const size_t stride = (m + kPointsPerInversion - 1) / kPointsPerInversion;
      double_kernel<F><<<blocks_for(m), kThreads, 0, stream>>>(d_table + (k - 1) * n + j0, m, shift, xyzz);
      SNARKD_CUDA_CHECK_LAUNCH();
      normalize_kernel<F><<<blocks_for(stride), kThreads, 0, stream>>>(xyzz, m, stride, d_table + k * n + j0);
      SNARKD_CUDA_CHECK_LAUNCH();
    }
  }
}

template <class F>
size_t msm_precomp_scratch_bytes(size_t n, const MsmPrecompShape& shape) {
  return detail::pippenger_scratch_bytes<F>(n, precomp_detail::layout_of<F>(shape, n));
}

template <class F>
void msm_precomp(const MsmPrecompTable<F>& table, const Fr* d_scalars, Xyzz<F>* d_result, void* d_scratch,
                 size_t scratch_bytes, cudaStream_t stream) {
  if (table.points == nullptr && table.n > 0) throw InvalidArgument("msm_precomp: table has no points");
  detail::pippenger<F>(table.points, d_scalars, table.n, precomp_detail::layout_of<F>(table.shape, table.n), d_result,
                       d_scratch, scratch_bytes, stream, "msm_precomp");
}

template <class F>
MsmPrecompBytes msm_precomp_bytes(size_t n, const MsmPrecompShape& shape) {
  return {msm_precomp_table_bytes<F>(n, shape.copies), msm_precomp_scratch_bytes<F>(n, shape),
          msm_precomp_build_scratch_bytes<F>(n)};
}

#define SNARKD_CUDA_MSM_PRECOMP_DEFINE(F)                                                                         \
  template size_t msm_precomp_table_bytes<F>(size_t, uint32_t);                                                  \
  template MsmPrecompBytes msm_precomp_bytes<F>(size_t, const MsmPrecompShape&);                                 \
  template MsmPrecompShape msm_precomp_choose<F>(size_t, size_t);                                                \
  template size_t msm_precomp_build_scratch_bytes<F>(size_t);                                                    \
  template void msm_precomp_build<F>(const Affine<F>*, size_t, const MsmPrecompShape&, Affine<F>*, void*, size_t, \
                                     cudaStream_t);                                                              \
  template size_t msm_precomp_scratch_bytes<F>(size_t, const MsmPrecompShape&);                                  \
  template void msm_precomp<F>(const MsmPrecompTable<F>&, const Fr*, Xyzz<F>*, void*, size_t, cudaStream_t);

}  // namespace snarkd::cuda
