// GPU MSM timings for snarkd_gpu_bench (--only=msm): G1 2^min..2^max, G2 2^min..2^min(max, 24),
// random 255-bit scalars, bases already on the device, each size twice: cuda::msm (plain) and
// cuda::msm_precomp over a table built once within a byte budget (its t, c, bytes and build time
// printed). With --curve=bn254 the BN254 groups, plain only (msm_precomp has no BN254 instance).
// Bases: 2^16 random points (host) tiled to n on the device — repeats change nothing for random
// scalars, and 2^27 host points would take minutes to make. A self-check against the CPU MSM at
// 2^14 guards the timings; at every size the precomputed result must equal the plain one (and,
// for G1, the CPU MSM over the tile with the scalars folded per tile index).
// --precomp-only runs the plain MSM once for that check instead of timing it.
//
// Floors printed per run: Fp multiplications / the measured rate of the curve's Fp, and bytes /
// the measured copy rate. Model: each of the W·n digit entries costs one mixed addition (8M + 2S
// = 10 Fp products for G1, ×3 for G2's Karatsuba Fp2) and moves 8 B (digits) + 16 B per 8-bit
// radix pass of the sort + 8 B (accumulate) + the gathered base; each of the W'·2^(c−1) buckets
// costs two full additions (12M + 2S = 14 each) and is written and read once (XYZZ).
#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "bench_points.hpp"
#include "msm_bench.hpp"
#include "snarkd/cuda/msm.hpp"
#include "snarkd/cuda/msm_precomp.hpp"
#include "snarkd/cuda/runtime.hpp"

namespace snarkd::cuda {

double median_ms(const Stream& s, uint32_t reps, const std::function<void()>& fn);  // gpu_bench.cu
void fill_random_fr(Fr* d, size_t n, uint64_t seed, cudaStream_t s);                 // gpu_bench.cu
void fill_random_fr(bn254::Fr* d, size_t n, uint64_t seed, cudaStream_t s);          // gpu_bench.cu

namespace {

template <class P>
__global__ void tile_kernel(P* out, size_t n, const P* src, size_t m) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    out[i] = src[i % m];
}

// The GPU MSM over the first 2^14 tile points equals the CPU MSM.
template <class C>
bool self_check(const std::vector<ec::Affine<C>>& tile) {
  const std::vector<ec::Affine<C>> pts(tile.begin(), tile.begin() + std::min<size_t>(tile.size(), 1u << 14));
  const auto sc = bench::random_scalars<typename C::Scalar>(pts.size(), 3);
  return msm_sync<C>(pts, sc).to_affine() == bench::cpu_msm<C>(pts, sc);
}

// The two floors of one MSM with W windows over W' virtual windows of c bits (model above).
template <class F>
void print_floors(size_t n, uint32_t W, uint32_t Wv, uint32_t c, const MsmBenchOptions& o) {
  constexpr double kFpPerFieldMul = kIsPrimeField<F> ? 1.0 : 3.0;
  const double entries = double(W) * double(n), buckets = double(Wv) * double(1u << (c - 1));
  const double mults = kFpPerFieldMul * (10.0 * entries + 28.0 * buckets);
  const int radix_passes = int((c + std::bit_width(Wv - 1) + 7) / 8);
  const double bytes = entries * (16.0 + 16.0 * radix_passes + double(sizeof(Affine<F>))) +
                       buckets * 2.0 * double(sizeof(Xyzz<F>));
  std::printf("      floors: mul %8.3f ms (%.3g Fp products at %.1f G/s), mem %7.3f ms (%.3g B at %.2f TB/s)\n",
              mults / o.fp_mul_per_s * 1e3, mults, o.fp_mul_per_s / 1e9, bytes / o.bytes_per_s * 1e3, bytes,
              o.bytes_per_s / 1e12);
}

template <class F>
Xyzz<F> download_point(const DeviceBuffer<Xyzz<F>>& d, const Stream& s) {
  Xyzz<F> h;
  d.download(&h, 1, s);
  s.synchronize();
  return h;
}

// The shape for n points: the budget's choice, or the budget's copies with --precomp-c.
template <class F>
MsmPrecompShape shape_for(size_t n, const MsmBenchOptions& o) {
  if (o.precomp_c == 0) return msm_precomp_choose<F>(n, o.precomp_budget);
  size_t t = std::max<size_t>(1, o.precomp_budget / msm_precomp_table_bytes<F>(n, 1));
  while (t > 1 && n >= (size_t{1} << 31) / t) --t;
  return msm_precomp_shape(uint32_t(std::min<size_t>(t, 64)), o.precomp_c);
}

// Builds the table once (timed), runs msm_precomp reps times; returns the result point.
template <class F>
Xyzz<F> bench_precomp(const char* name, uint32_t K, const DeviceBuffer<Affine<F>>& bases, const DeviceBuffer<Fr>& sc,
                      const MsmBenchOptions& o, const Stream& s) {
  const size_t n = bases.size();
  const MsmPrecompShape shape = shape_for<F>(n, o);
  DeviceBuffer<Affine<F>> table(msm_precomp_table_bytes<F>(n, shape.copies) / sizeof(Affine<F>));
  double build_ms = 0;
  {
    DeviceBuffer<uint8_t> build_scratch(msm_precomp_build_scratch_bytes<F>(n));
    Event a(true), b(true);
    a.record(s);
    msm_precomp_build<F>(bases.data(), n, shape, table.data(), build_scratch.data(), build_scratch.size(), s);
    b.record(s);
    b.synchronize();
    build_ms = b.elapsed_ms_since(a);
  }
  DeviceBuffer<uint8_t> scratch(msm_precomp_scratch_bytes<F>(n, shape));
  DeviceBuffer<Xyzz<F>> result(1);
  const MsmPrecompTable<F> view{table.data(), n, shape};
  const double ms = median_ms(s, o.reps, [&] {
    msm_precomp<F>(view, sc.data(), result.data(), scratch.data(), scratch.size(), s);
  });
  std::printf("%-3s msm 2^%-2u  precomp t=%-2u c=%-2u W=%-2u W'=%-2u %10.3f ms   table %.2f GiB (built once in %.1f ms)"
              "  scratch %.2f GiB\n",
              name, K, shape.copies, shape.window_bits, shape.windows, shape.virtual_windows, ms,
              table.bytes() / double(1 << 30), build_ms, scratch.size() / double(1 << 30));
  print_floors<F>(n, shape.windows, shape.virtual_windows, shape.window_bits, o);
  return download_point(result, s);
}

// Whether two device results are the same group element (host comparison in bench_points.cpp).
template <class F>
bool same(const Xyzz<F>& a, const Xyzz<F>& b) {
  using C = typename HostCurve<F>::type;
  return bench::same_point(std::bit_cast<ec::Xyzz<C>>(a), std::bit_cast<ec::Xyzz<C>>(b));
}

// The plain MSM on resident bases and scalars, timed (or run once with --precomp-only) with its
// window, accumulation kind and floors printed; returns the result.
template <class F>
Xyzz<F> bench_plain(const char* name, uint32_t K, const DeviceBuffer<Affine<F>>& d_bases,
                    const DeviceBuffer<ScalarOf<F>>& d_scalars, const MsmBenchOptions& o, const Stream& s) {
  const size_t n = d_bases.size();
  const uint32_t c = msm_window<F>(n), W = (256 + c - 1) / c;
  DeviceBuffer<Xyzz<F>> d_result(1);
  DeviceBuffer<uint8_t> scratch(msm_scratch_bytes<F>(n));
  auto run = [&] { msm<F>(d_bases.data(), d_scalars.data(), n, d_result.data(), scratch.data(), scratch.size(), s); };
  if (o.precomp_only) {
    run();
  } else {
    const double ms = median_ms(s, o.reps, run);
    std::printf("%-3s msm 2^%-2u  plain   c=%-2u W=%-2u %31.3f ms   scratch %.2f GiB  (%s)\n", name, K, c, W, ms,
                scratch.size() / double(1 << 30),
                msm_accumulation_name(msm_resolve_accumulation<F>(MsmAccumulation::kDefault)));
    print_floors<F>(n, W, W, c, o);
  }
  return download_point(d_result, s);
}

// Whether `got` is the CPU MSM over the host tile with the device scalars folded per tile index
// (G1 only: G2 on the host would take minutes at the larger sizes).
template <class F>
bool equals_cpu_over_tile(const std::vector<ec::Affine<typename HostCurve<F>::type>>& host_tile,
                          const DeviceBuffer<ScalarOf<F>>& d_scalars, const Xyzz<F>& got, const Stream& s) {
  using C = typename HostCurve<F>::type;
  if constexpr (!kIsPrimeField<F>) return true;
  std::vector<typename C::Scalar> host_scalars(d_scalars.size());
  d_scalars.download(reinterpret_cast<ScalarOf<F>*>(host_scalars.data()), host_scalars.size(), s);
  s.synchronize();
  return bench::equals_tiled_msm<C>(host_tile, host_scalars, std::bit_cast<ec::Xyzz<C>>(got));
}

// One size: plain, then (BLS12-381) precomputed; the results must agree with each other and (G1)
// with the CPU, or the benchmark stops.
template <class F>
void bench_size(const char* name, uint32_t K, const std::vector<ec::Affine<typename HostCurve<F>::type>>& host_tile,
                const DeviceBuffer<Affine<F>>& tile, const MsmBenchOptions& o, const Stream& s) {
  const size_t n = size_t{1} << K;
  DeviceBuffer<Affine<F>> d_bases(n);
  DeviceBuffer<ScalarOf<F>> d_scalars(n);
  tile_kernel<<<4096, 256, 0, s>>>(d_bases.data(), n, tile.data(), tile.size());
  SNARKD_CUDA_CHECK(cudaGetLastError());
  fill_random_fr(d_scalars.data(), n, K, s);
  const Xyzz<F> plain = bench_plain<F>(name, K, d_bases, d_scalars, o, s);
  Xyzz<F> checked = plain;
  bool ok = true;
  if constexpr (std::is_same_v<F, Fp> || std::is_same_v<F, Fp2>) {  // msm_precomp: BLS12-381 only
    checked = bench_precomp<F>(name, K, d_bases, d_scalars, o, s);
    ok = same<F>(plain, checked);
  }
  ok = ok && equals_cpu_over_tile<F>(host_tile, d_scalars, checked, s);
  std::fflush(stdout);
  if (!ok) {
    std::printf("SELF-CHECK FAILED: %s at 2^%u: precomputed and plain MSM (or the CPU MSM) differ\n", name, K);
    std::exit(3);
  }
}

template <class F>
void bench_group(const char* name, const std::vector<ec::Affine<typename HostCurve<F>::type>>& tile, uint32_t max_log,
                 const MsmBenchOptions& o, const Stream& s) {
  DeviceBuffer<Affine<F>> d_tile(tile.size());
  d_tile.upload(reinterpret_cast<const Affine<F>*>(tile.data()), tile.size(), s);
  for (uint32_t K = o.min_log; K <= max_log; ++K) bench_size<F>(name, K, tile, d_tile, o, s);
}

// Both groups of a curve: self-checks at 2^14, then G1 2^min..2^max and G2 2^min..2^min(max, 24).
template <class F1, class F2>
void bench_curve(const char* curve, const MsmBenchOptions& o, const Stream& s) {
  using C1 = typename HostCurve<F1>::type;
  using C2 = typename HostCurve<F2>::type;
  const auto g1 = bench::random_points<C1>(size_t{1} << 16, 1);
  const auto g2 = bench::random_points<C2>(size_t{1} << 14, 2);
  if (!self_check<C1>(g1) || !self_check<C2>(g2)) {
    std::printf("SELF-CHECK FAILED: %s GPU MSM differs from the CPU MSM at 2^14\n", curve);
    std::exit(3);
  }
  std::printf("self-check: %s GPU MSM (G1, G2) equals the CPU MSM at 2^14\n\n%s MSM, median of %u runs", curve, curve,
              o.reps);
  if constexpr (std::is_same_v<F1, Fp>)
    std::printf("; precomputation budget %.1f GiB", o.precomp_budget / double(1 << 30));
  std::printf("\n");
  bench_group<F1>("G1", g1, o.max_log, o, s);
  bench_group<F2>("G2", g2, std::min(o.max_log, 24u), o, s);
}

// The widths a window sweep tries around the default c (msm_window's cost model caps chunked
// kinds at 20; msm() accepts up to 24, so the sweep also shows whether that cap costs time).
std::vector<uint32_t> widths_around(uint32_t c) {
  std::vector<uint32_t> w;
  for (uint32_t k = std::max(c, 7u) - 3; k <= std::min(c + 3, 24u); ++k) w.push_back(k);
  return w;
}

// One size of the sweep: each kind at each width around its default, every result compared with
// the first (the benchmark stops on a mismatch). Combinations whose scratch exceeds 48 GiB are
// skipped, named.
template <class F>
void windows_size(const char* name, size_t n, std::span<const MsmAccumulation> kinds, const DeviceBuffer<Affine<F>>& tile,
                  uint32_t reps, const Stream& s) {
  constexpr size_t kScratchCap = size_t{48} << 30;
  DeviceBuffer<Affine<F>> bases(n);
  DeviceBuffer<ScalarOf<F>> scalars(n);
  tile_kernel<<<4096, 256, 0, s>>>(bases.data(), n, tile.data(), tile.size());
  SNARKD_CUDA_CHECK(cudaGetLastError());
  fill_random_fr(scalars.data(), n, 7000 + n, s);
  DeviceBuffer<Xyzz<F>> result(1);
  std::optional<Xyzz<F>> first;
  for (MsmAccumulation a : kinds) {
    const uint32_t c0 = msm_window<F>(n, a);
    std::printf("%-3s %9zu %-6s", name, n, msm_accumulation_name(a));
    double best_ms = 0;
    uint32_t best_c = 0;
    for (uint32_t c : widths_around(c0)) {
      const MsmOptions opt{c, a};
      const size_t bytes = msm_scratch_bytes<F>(n, opt);
      if (bytes > kScratchCap) {
        std::printf("  c=%u: skipped (%.1f GiB scratch)", c, bytes / double(1 << 30));
        continue;
      }
      DeviceBuffer<uint8_t> scratch(bytes);
      const double ms = median_ms(s, reps, [&] {
        msm<F>(bases.data(), scalars.data(), n, result.data(), scratch.data(), scratch.size(), s, opt);
      });
      const Xyzz<F> r = download_point(result, s);
      if (!first) first = r;
      if (!same<F>(*first, r)) {
        std::printf("\nSELF-CHECK FAILED: %s MSM of %zu points, %s at c = %u differs\n", name, n,
                    msm_accumulation_name(a), c);
        std::exit(3);
      }
      if (best_c == 0 || ms < best_ms) best_ms = ms, best_c = c;
      std::printf("  c=%u: %.3f%s", c, ms, c == c0 ? "*" : "");
      std::fflush(stdout);
    }
    std::printf("  | fastest c=%u\n", best_c);
  }
}

}  // namespace

// The plain MSM at the widths around each kind's default window (msm_window, marked *): the data
// for msm_host.cpp's cost model. G1 (chunked XYZZ, batch-affine) at 52,000 points (a split tail
// at 2^20) and 2^min..2^max; G2 (batch-affine, XYZZ) at 2^min..2^min(max, 24). The bucket threads
// are left out: their serial top-window runs take seconds at the wider widths.
// Random scalars, tiled bases as in --only=msm; every result of a size must be the same point.
void bench_windows(const MsmBenchOptions& o, const Stream& s) {
  const auto g1 = bench::random_points<ec::G1Config>(size_t{1} << 16, 1);
  const auto g2 = bench::random_points<ec::G2Config>(size_t{1} << 12, 2);
  DeviceBuffer<G1Affine> t1(g1.size());
  t1.upload(reinterpret_cast<const G1Affine*>(g1.data()), g1.size(), s);
  DeviceBuffer<Affine<Fp2>> t2(g2.size());
  t2.upload(reinterpret_cast<const Affine<Fp2>*>(g2.data()), g2.size(), s);
  std::printf("plain MSM by window c, median of %u runs (ms); * = msm_window's choice\n", o.reps);
  constexpr MsmAccumulation k1[] = {MsmAccumulation::kChunkedXyzz, MsmAccumulation::kChunkedAffine};
  constexpr MsmAccumulation k2[] = {MsmAccumulation::kChunkedAffine, MsmAccumulation::kChunkedXyzz};
  std::vector<size_t> sizes = {52'000};
  for (uint32_t K = o.min_log; K <= o.max_log; ++K) sizes.push_back(size_t{1} << K);
  for (size_t n : sizes) windows_size<Fp>("G1", n, k1, t1, o.reps, s);
  for (uint32_t K = o.min_log; K <= std::min(o.max_log, 24u); ++K) windows_size<Fp2>("G2", size_t{1} << K, k2, t2, o.reps, s);
}

void bench_msm(const MsmBenchOptions& o, const Stream& s) { bench_curve<Fp, Fp2>("BLS12-381", o, s); }
void bench_msm_bn254(const MsmBenchOptions& o, const Stream& s) { bench_curve<bn254::Fp, bn254::Fp2>("BN254", o, s); }

}  // namespace snarkd::cuda
