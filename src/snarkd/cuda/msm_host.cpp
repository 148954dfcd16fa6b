// Host-side choices of the GPU MSM (msm.hpp): the accumulation kind, the window width, the layout
// checks. Plain C++ (no device code), shared by every group's translation units.
#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "snarkd/cuda/msm.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {

const char* msm_accumulation_name(MsmAccumulation a) {
  switch (a) {
    case MsmAccumulation::kBucketThreads: return "legacy";
    case MsmAccumulation::kChunkedXyzz: return "xyzz";
    case MsmAccumulation::kChunkedAffine: return "affine";
    default: return "default";
  }
}

namespace {

// SNARKD_MSM_ACCUMULATE, read once; kDefault when unset or empty.
MsmAccumulation accumulation_from_env() {
  static const MsmAccumulation a = [] {
    const char* v = std::getenv("SNARKD_MSM_ACCUMULATE");
    if (v == nullptr || *v == '\0' || std::strcmp(v, "default") == 0) return MsmAccumulation::kDefault;
    for (MsmAccumulation m :
         {MsmAccumulation::kBucketThreads, MsmAccumulation::kChunkedXyzz, MsmAccumulation::kChunkedAffine})
      if (std::strcmp(v, msm_accumulation_name(m)) == 0) return m;
    return MsmAccumulation(0xff);  // reported by msm_resolve_accumulation
  }();
  return a;
}

// Cost per digit entry and per bucket in BLS12-381 Fp-product equivalents: a mixed XYZZ addition
// is 8M + 2S (G2: Fp2 products at ≈ 2.5 Fp products with lazy reduction, squares at 2); a
// batch-affine one ≈ 5M + 1S plus a share of the inversion (an estimate; not refitted to the
// 2026-12-04 lanes, whose G2 cost at c = 16 and 20 was measured); digits + sort + gather ≈ 1.5
// products of time per entry (H200: ≈ 40 ms of 595 at 2^26, c = 16); a bucket costs two full
// XYZZ additions in the running sums (12M + 2S each). The point arithmetic scales with the
// base field's words squared (a Montgomery product is ~n² multiply-adds): BN254's 8-word
// products count (8/12)² of the 12-word unit, while the per-entry digits, sort and gather do not
// shrink with them (an estimate: BN254's widths are not fitted to measurements yet).
struct Costs {
  double entry, bucket;
};
template <class F>
constexpr double product_scale() {
  size_t words = 0;
  if constexpr (kIsPrimeField<F>) words = F::kWords;
  else words = F::Base::kWords;
  return double(words * words) / double(Fp::kWords * Fp::kWords);  // 1 for BLS12-381
}
template <class F>
Costs costs(MsmAccumulation a) {
  constexpr bool g1 = kIsPrimeField<F>;
  constexpr double s = product_scale<F>();
  const double add = (a == MsmAccumulation::kChunkedAffine ? (g1 ? 8.5 : 17.5) : (g1 ? 10.0 : 24.0)) * s;
  return {add + (g1 ? 1.5 : 2.0), (g1 ? 28.0 : 68.0) * s};
}

// The legacy kernel's widths (one thread per bucket): see msm_window's comment and the H200
// window table in docs/PERFORMANCE.md (c = 14, 15 put n/8 or n/2 points into single buckets).
uint32_t legacy_window(size_t n) {
  if (n >= (size_t{1} << 15)) return 16;
  if (n >= (size_t{1} << 14)) return 13;
  const int c = std::clamp(int(std::bit_width(n)) - 4, 4, 16);
  if (c <= 7) return uint32_t(c);
  return c <= 9 ? 8 : 10;
}

// c = 22 from 2^26 points: 12 windows instead of 13 (H200, `--only=window`, 2026-12-05: 2^26
// 462.1 against 476.2 ms at c = 20, 2^27 906.2 against 943.3); the plain MSM holds one pass's
// buckets (2 or 4 windows of 2^21: 0.8 or 1.6 GB G1), so the wider window costs no memory there.
constexpr uint32_t kMaxChunkedWindow = 22;

}  // namespace

template <class F>
MsmAccumulation msm_resolve_accumulation(MsmAccumulation a) {
  if (a == MsmAccumulation::kDefault) a = accumulation_from_env();
  // Measured on the H200 (snarkd_gpu_bench --only=kinds, 2026-12-04, ms, median of 3): G1 2^26
  // legacy 593, xyzz 476, affine 532; G2 2^20 legacy 59, xyzz 52, affine 92, 2^22 153, 164, 139.
  // G1 takes xyzz; G2 keeps the bucket threads (XYZZ wins at 2^20 by 12 % but loses from 2^22,
  // its lanes spilling at 255 registers) and plain G2 MSMs from 2^22 points take the batch-affine
  // lanes (plain_accumulation).
  // BLS12-381 measurements; BN254's groups follow them by analogy (not measured yet).
  if (a == MsmAccumulation::kDefault)
    return kIsPrimeField<F> ? MsmAccumulation::kChunkedXyzz : MsmAccumulation::kBucketThreads;
  if (a != MsmAccumulation::kBucketThreads && a != MsmAccumulation::kChunkedXyzz &&
      a != MsmAccumulation::kChunkedAffine)
    throw InvalidArgument(std::string("SNARKD_MSM_ACCUMULATE: '") + std::getenv("SNARKD_MSM_ACCUMULATE") +
                          "' is not one of legacy, xyzz, affine, default");
  return a;
}

template <class F>
uint32_t msm_window(size_t n, MsmAccumulation a) {
  a = msm_resolve_accumulation<F>(a);
  if (a == MsmAccumulation::kBucketThreads) return legacy_window(n);
  const double np = double(std::bit_ceil(std::max<size_t>(n, 1)));
  const Costs k = costs<F>(a);
  uint32_t best = 4;
  double best_cost = 0;
  for (uint32_t c = 4; c <= kMaxChunkedWindow; ++c) {
    const double w = double((256 + c - 1) / c);
    const double cost = w * np * k.entry + w * double(1u << (c - 1)) * k.bucket;
    if (c == 4 || cost < best_cost) best = c, best_cost = cost;
  }
  return best;
}

uint32_t msm_default_window(size_t n) { return msm_window<Fp>(n); }

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
  if (l.lane_waves > 16) throw InvalidArgument(w + ": lane_waves " + std::to_string(l.lane_waves) + " above 16");
  // A pass's entries, ≤ max(n, max_pass_entries), are the sort's 32-bit item count (msm_kernels.cuh).
  if (l.max_pass_entries == 0 || l.max_pass_entries > (size_t{1} << 31))
    throw InvalidArgument(w + ": max_pass_entries " + std::to_string(l.max_pass_entries) + " not in [1, 2^31]");
  // Keys must leave room for the zero-digit sentinel (msm_accumulate.hpp): c + ⌈log₂ W'⌉ ≤ 31.
  if (l.c + std::bit_width(l.virtual_windows - 1) > 31) throw InvalidArgument(w + ": sort keys wider than 31 bits");
}

// The plain MSM's accumulation: the group's default, except that BLS12-381 MSMs take the
// batch-affine lanes from 2^22 points (G2) and 2^24 (G1). H200, `snarkd_gpu_bench --only=kinds`,
// ms: G2 2^24 369.6 against the bucket threads' 507.3 and XYZZ's 489.9, 2^22 138.2 against 152.5,
// but 2^20 91.6 against 59.1 (2026-12-04); G1 (2026-12-05, one wave of lane threads) 2^24 117.0
// against XYZZ's 126.2, 2^26 433.9 against 464.3, 2^27 846.8 against 909.4 — level on the H100
// (2^26 466.8 against 466.5), and at 2^22 behind (H100: 70.5 against 41.4). The precomputed
// tables take the same kind for their n bases (msm_precomp_impl.cuh, layout_of). Not for the
// split MSM's tails nor the provers' H MSMs (group_default_options), which ask for the group's
// default by name: the provers' scratch is part of a partition's working set (the lanes' state
// and partials add ≈ 2.3 GB for G1, 5.3 for G2). The environment (SNARKD_MSM_ACCUMULATE) and an
// explicit kind take precedence.
template <class F>
MsmAccumulation plain_accumulation(size_t n, MsmAccumulation a) {
  if (a != MsmAccumulation::kDefault || accumulation_from_env() != MsmAccumulation::kDefault) return a;
  if ((std::is_same_v<F, Fp2> && n >= (size_t{1} << 22)) || (std::is_same_v<F, Fp> && n >= (size_t{1} << 24)))
    return MsmAccumulation::kChunkedAffine;
  return a;
}

template <class F>
WindowLayout plain_layout(size_t n, const MsmOptions& options) {
  MsmOptions o = options;
  o.accumulation = plain_accumulation<F>(n, o.accumulation);
  const uint32_t c = o.window_bits == 0 ? msm_window<F>(n, o.accumulation) : o.window_bits;
  if (c < 4 || c > 24) throw InvalidArgument("msm: window_bits " + std::to_string(c) + " not in [4, 24]");
  const uint32_t windows = (256 + c - 1) / c;  // W·c ≥ 256: the top window never borrows (scalars < 2^255)
  WindowLayout l{c, windows, windows, 1};
  l.accumulation = o.accumulation;
  l.lane_waves = o.lane_waves;
  return l;
}

}  // namespace detail

#define SNARKD_CUDA_MSM_HOST_DEFINE(F)                                                  \
  template detail::WindowLayout detail::plain_layout<F>(size_t, const MsmOptions&); \
  template MsmAccumulation msm_resolve_accumulation<F>(MsmAccumulation);            \
  template uint32_t msm_window<F>(size_t, MsmAccumulation);
SNARKD_CUDA_MSM_HOST_DEFINE(Fp)
SNARKD_CUDA_MSM_HOST_DEFINE(Fp2)
SNARKD_CUDA_MSM_HOST_DEFINE(bn254::Fp)
SNARKD_CUDA_MSM_HOST_DEFINE(bn254::Fp2)
#undef SNARKD_CUDA_MSM_HOST_DEFINE

}  // namespace snarkd::cuda
