// GPU MSM timings for snarkd_gpu_bench (--only=msm): G1 2^min..2^max, G2 2^min..2^min(max, 24),
// random 255-bit scalars, bases already on the device. Bases: 2^16 random points (host) tiled to
// n on the device — repeats change nothing for random scalars, and 2^27 host points would take
// minutes to make. A self-check against the CPU MSM at 2^14 guards the timings.
#include <algorithm>
#include <bit>
#include <cstdio>
#include <functional>

#include "bench_points.hpp"
#include "snarkd/cuda/msm.hpp"
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
bool self_check(const Stream& s, const std::vector<HostPoint>& pts, const HostPoint& want, const std::vector<ff::Fr>& sc) {
  using C = typename HostCurve<F>::type;
  const auto got = msm_sync<C>(std::span<const HostPoint>(pts), std::span<const ff::Fr>(sc)).to_affine();
  return got == want;
}

template <class F, class HostPoint>
void bench_group(const char* name, const std::vector<HostPoint>& tile, uint32_t min_log, uint32_t max_log,
                 uint32_t reps, const Stream& s) {
  const size_t m = tile.size();
  DeviceBuffer<Affine<F>> d_tile(m);
  d_tile.upload(reinterpret_cast<const Affine<F>*>(tile.data()), m, s);
  for (uint32_t K = min_log; K <= max_log; ++K) {
    const size_t n = size_t{1} << K;
    DeviceBuffer<Affine<F>> d_bases(n);
    DeviceBuffer<Fr> d_scalars(n);
    DeviceBuffer<Xyzz<F>> d_result(1);
    tile_kernel<<<4096, 256, 0, s>>>(d_bases.data(), n, d_tile.data(), m);
    SNARKD_CUDA_CHECK(cudaGetLastError());
    fill_random_fr(d_scalars.data(), n, K, s);
    const uint32_t c = msm_default_window(n);
    DeviceBuffer<uint8_t> scratch(msm_scratch_bytes<F>(n));
    const double ms = median_ms(s, reps, [&] {
      msm<F>(d_bases.data(), d_scalars.data(), n, d_result.data(), scratch.data(), scratch.size(), s);
    });
    std::printf("%-3s msm 2^%-2u  c=%-2u  %10.3f ms   scratch %.2f GiB\n", name, K, c, ms,
                scratch.size() / double(1 << 30));
    std::fflush(stdout);
  }
}

}  // namespace

void bench_msm(uint32_t min_log, uint32_t max_log, uint32_t reps, const Stream& s) {
  const size_t check_n = size_t{1} << 14;
  const auto g1 = bench::random_g1(size_t{1} << 16, 1);
  const auto g2 = bench::random_g2(size_t{1} << 14, 2);
  const auto sc = bench::random_fr(check_n, 3);
  const std::vector<ec::G1Affine> g1c(g1.begin(), g1.begin() + check_n);
  if (!self_check<Fp>(s, g1c, bench::cpu_msm_g1(g1c, sc), sc) ||
      !self_check<Fp2>(s, g2, bench::cpu_msm_g2(g2, sc), sc)) {
    std::printf("SELF-CHECK FAILED: GPU MSM differs from the CPU MSM at 2^14\n");
    std::exit(3);
  }
  std::printf("self-check: GPU MSM (G1, G2) equals the CPU MSM at 2^14\n\nMSM, median of %u runs\n", reps);
  bench_group<Fp>("G1", g1, min_log, max_log, reps, s);
  bench_group<Fp2>("G2", g2, min_log, std::min(max_log, 24u), reps, s);
}

}  // namespace snarkd::cuda
