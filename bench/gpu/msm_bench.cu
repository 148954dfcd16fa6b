// GPU MSM timings for snarkd_gpu_bench (--only=msm): G1 2^min..2^max, G2 2^min..2^min(max, 24),
// random 255-bit scalars, bases already on the device, each size twice: cuda::msm (plain) and
// cuda::msm_precomp over a table built once within a byte budget (its t, c, bytes and build time
// printed). Bases: 2^16 random points (host) tiled to n on the device — repeats change nothing
// for random scalars, and 2^27 host points would take minutes to make. A self-check against the
// CPU MSM at 2^14 guards the timings; at every size the precomputed result must equal the plain
// one (and, for G1, the CPU MSM over the tile with the scalars folded per tile index).
// --precomp-only runs the plain MSM once for that check instead of timing it.
//
// Floors printed per run: Fp multiplications / the measured Fp rate, and bytes / the measured
// copy rate. Model: each of the W·n digit entries costs one mixed addition (8M + 2S = 10 Fp
// products for G1, ×3 for G2's Karatsuba Fp2) and moves 8 B (digits) + 16 B per 8-bit radix pass
// of the sort + 8 B (accumulate) + the gathered base; each of the W'·2^(c−1) buckets costs two
// full additions (12M + 2S = 14 each) and is written and read once (XYZZ).
#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <type_traits>

#include "bench_points.hpp"
#include "msm_bench.hpp"
#include "snarkd/cuda/msm.hpp"
#include "snarkd/cuda/msm_precomp.hpp"
#include "snarkd/cuda/runtime.hpp"

namespace snarkd::cuda {

double median_ms(const Stream& s, uint32_t reps, const std::function<void()>& fn);  // gpu_bench.cu
void fill_random_fr(Fr* d, size_t n, uint64_t seed, cudaStream_t s);                 // gpu_bench.cu

namespace {

template <class P>
__global__ void tile_kernel(P* out, size_t n, const P* src, size_t m) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    out[i] = src[i % m];
}

template <class F, class HostPoint>
bool self_check(const std::vector<HostPoint>& pts, const HostPoint& want, const std::vector<ff::Fr>& sc) {
  using C = typename HostCurve<F>::type;
  const auto got = msm_sync<C>(std::span<const HostPoint>(pts), std::span<const ff::Fr>(sc)).to_affine();
  return got == want;
}

// The two floors of one MSM with W windows over W' virtual windows of c bits (model above).
template <class F>
void print_floors(size_t n, uint32_t W, uint32_t Wv, uint32_t c, const MsmBenchOptions& o) {
  constexpr double kFpPerFieldMul = std::is_same_v<F, Fp> ? 1.0 : 3.0;
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

template <class F, class HostPoint>
void bench_size(const char* name, uint32_t K, const std::vector<HostPoint>& host_tile,
                const DeviceBuffer<Affine<F>>& tile, const MsmBenchOptions& o, const Stream& s) {
  const size_t n = size_t{1} << K;
  DeviceBuffer<Affine<F>> d_bases(n);
  DeviceBuffer<Fr> d_scalars(n);
  DeviceBuffer<Xyzz<F>> d_result(1);
  tile_kernel<<<4096, 256, 0, s>>>(d_bases.data(), n, tile.data(), tile.size());
  SNARKD_CUDA_CHECK(cudaGetLastError());
  fill_random_fr(d_scalars.data(), n, K, s);
  const uint32_t c = msm_default_window(n);
  {
    DeviceBuffer<uint8_t> scratch(msm_scratch_bytes<F>(n));
    auto run = [&] { msm<F>(d_bases.data(), d_scalars.data(), n, d_result.data(), scratch.data(), scratch.size(), s); };
    if (o.precomp_only) run();
    const double ms = o.precomp_only ? 0.0 : median_ms(s, o.reps, run);
    if (!o.precomp_only) {
      std::printf("%-3s msm 2^%-2u  plain   c=%-2u W=%-2u %31.3f ms   scratch %.2f GiB\n", name, K, c,
                  (256 + c - 1) / c, ms, scratch.size() / double(1 << 30));
      print_floors<F>(n, (256 + c - 1) / c, (256 + c - 1) / c, c, o);
    }
  }
  const Xyzz<F> plain = download_point(d_result, s);
  const Xyzz<F> pre = bench_precomp<F>(name, K, d_bases, d_scalars, o, s);
  bool ok = same<F>(plain, pre);
  if constexpr (std::is_same_v<F, Fp>) {
    std::vector<ff::Fr> host_scalars(n);
    d_scalars.download(reinterpret_cast<Fr*>(host_scalars.data()), n, s);
    s.synchronize();
    ok = ok && bench::equals_tiled_msm(host_tile, host_scalars, std::bit_cast<ec::G1Xyzz>(pre));
  }
  std::fflush(stdout);
  if (!ok) {
    std::printf("SELF-CHECK FAILED: %s at 2^%u: precomputed and plain MSM (or the CPU MSM) differ\n", name, K);
    std::exit(3);
  }
}

template <class F, class HostPoint>
void bench_group(const char* name, const std::vector<HostPoint>& tile, uint32_t max_log, const MsmBenchOptions& o,
                 const Stream& s) {
  DeviceBuffer<Affine<F>> d_tile(tile.size());
  d_tile.upload(reinterpret_cast<const Affine<F>*>(tile.data()), tile.size(), s);
  for (uint32_t K = o.min_log; K <= max_log; ++K) bench_size<F>(name, K, tile, d_tile, o, s);
}

}  // namespace

// Plain G1 MSM time for the widths msm_default_window chooses from (c = 8, 10, 13, 16: the top
// window keeps ≥ 5 bits; the others put n/8 or more points into single buckets) at 52,000 points
// (the split tail at 2^20) and at 2^K for K in [min_log, max_log]: the data for its thresholds.
void bench_windows(const MsmBenchOptions& o, const Stream& s) {
  const auto g1 = bench::random_g1(size_t{1} << 16, 1);
  DeviceBuffer<G1Affine> tile(g1.size());
  tile.upload(reinterpret_cast<const G1Affine*>(g1.data()), g1.size(), s);
  std::vector<size_t> sizes = {52'000};
  for (uint32_t K = o.min_log; K <= o.max_log; ++K) sizes.push_back(size_t{1} << K);
  std::printf("plain G1 MSM by window c, median of %u runs (ms); * = msm_default_window\n%9s", o.reps, "n");
  constexpr uint32_t kWidths[] = {8, 10, 13, 16};
  for (uint32_t c : kWidths) std::printf(" %8u", c);
  std::printf("\n");
  for (size_t n : sizes) {
    DeviceBuffer<G1Affine> bases(n);
    DeviceBuffer<Fr> scalars(n);
    DeviceBuffer<G1Xyzz> result(1);
    tile_kernel<<<4096, 256, 0, s>>>(bases.data(), n, tile.data(), tile.size());
    SNARKD_CUDA_CHECK(cudaGetLastError());
    fill_random_fr(scalars.data(), n, n, s);
    std::printf("%9zu", n);
    for (uint32_t c : kWidths) {
      DeviceBuffer<uint8_t> scratch(msm_scratch_bytes<Fp>(n, c));
      const double ms = median_ms(s, o.reps, [&] {
        msm<Fp>(bases.data(), scalars.data(), n, result.data(), scratch.data(), scratch.size(), s, c);
      });
      std::printf(" %7.3f%s", ms, c == msm_default_window(n) ? "*" : " ");
    }
    std::printf("\n");
    std::fflush(stdout);
  }
}

void bench_msm(const MsmBenchOptions& o, const Stream& s) {
  const size_t check_n = size_t{1} << 14;
  const auto g1 = bench::random_g1(size_t{1} << 16, 1);
  const auto g2 = bench::random_g2(size_t{1} << 14, 2);
  const auto sc = bench::random_fr(check_n, 3);
  const std::vector<ec::G1Affine> g1c(g1.begin(), g1.begin() + check_n);
  if (!self_check<Fp>(g1c, bench::cpu_msm_g1(g1c, sc), sc) || !self_check<Fp2>(g2, bench::cpu_msm_g2(g2, sc), sc)) {
    std::printf("SELF-CHECK FAILED: GPU MSM differs from the CPU MSM at 2^14\n");
    std::exit(3);
  }
  std::printf("self-check: GPU MSM (G1, G2) equals the CPU MSM at 2^14\n\nMSM, median of %u runs; precomputation "
              "budget %.1f GiB\n", o.reps, o.precomp_budget / double(1 << 30));
  bench_group<Fp>("G1", g1, o.max_log, o, s);
  bench_group<Fp2>("G2", g2, std::min(o.max_log, 24u), o, s);
}

}  // namespace snarkd::cuda
