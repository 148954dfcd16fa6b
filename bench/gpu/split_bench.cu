// Split-MSM timings for snarkd_gpu_bench (--only=split): G1 at 2^20, 2^24, 2^26, 2^27 (those in
// [min_log, max_log]) with a PoRep-like scalar mix made on the device (50% zero, 45% one, 5%
// random), against cuda::msm on the same scalars and bases (one run, up to 2^20: see
// kMaxLogPlainOnMix) and on uniformly random scalars of the same length (the dense baseline).
//
// Bases: 2^16 random host points tiled cyclically to n on the device (2^27 distinct G1 points are
// 12 GiB and would take minutes to make on the host; repeats cost the ones sum the same mixed
// additions, and the tail's random scalars make them irrelevant to Pippenger). A self-check of
// the split against the CPU MSM at 2^14 runs first; at every size the split result must equal the
// CPU MSM over the 2^16 tile points with the scalars folded per tile index (and cuda::msm's where
// that runs), or the benchmark stops.
//
// One timed run = what a prover does: classify (event e1), enqueue the ones sum, wait on e1 for
// the counts, enqueue the tail (cuda::msm over the gathered others) and the final addition (e3).
// classify = e0→e1, ones = e1→e2, tail = e2→e3 (includes any gap while the host reads the counts,
// normally hidden behind the ones sum). Medians of each part over the runs, after 2 warm-ups.
#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "bench_points.hpp"
#include "snarkd/cuda/msm.hpp"
#include "snarkd/cuda/msm_split.hpp"
#include "snarkd/cuda/runtime.hpp"

namespace snarkd::cuda {

double median_ms(const Stream& s, uint32_t reps, const std::function<void()>& fn);  // gpu_bench.cu
void fill_random_fr(Fr* d, size_t n, uint64_t seed, cudaStream_t s);                 // gpu_bench.cu

namespace {

__device__ __forceinline__ uint64_t splitmix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Scalar i: 0 (u < 50), 1 (u < 95) or a random element below 2^254 < r (Montgomery form of some
// element), u = a hash of (seed, i) mod 100.
__global__ void porep_fill_kernel(Fr* out, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const uint64_t h = splitmix(seed ^ (i * 0x632be59bd9b4e019ull));
    const uint32_t u = uint32_t(h % 100);
    Fr v = u < 50 ? Fr::zero() : Fr::one();
    if (u >= 95) {
      for (uint32_t w = 0; w < Fr::kWords; w += 2) {
        const uint64_t z = splitmix(h + w);
        v.w[w] = uint32_t(z), v.w[w + 1] = uint32_t(z >> 32);
      }
      v.w[Fr::kWords - 1] &= (1u << ((Fr::Host::kBits - 1) % 32)) - 1;
    }
    out[i] = v;
  }
}

template <class P>
__global__ void tile_points_kernel(P* out, size_t n, const P* src, size_t m) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    out[i] = src[i % m];
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

ec::G1Xyzz to_host_point(const DeviceBuffer<G1Xyzz>& d, const Stream& s) {
  G1Xyzz h;
  d.download(&h, 1, s);
  s.synchronize();
  return std::bit_cast<ec::G1Xyzz>(h);
}

// cuda::msm on the PoRep mix itself puts every one-scalar into bucket 1 of window 0, which one
// thread adds serially (4.7 s at 2^20 on the H200, 0.45·n additions): timed once, and only up to
// this size. The dense baseline (cuda::msm over uniformly random scalars of the same length,
// median of reps) is what an unsplit MSM of that length costs at best.
constexpr uint32_t kMaxLogPlainOnMix = 20;

void bench_size(uint32_t K, const std::vector<ec::G1Affine>& host_tile, const DeviceBuffer<G1Affine>& tile,
                uint32_t reps, const Stream& s) {
  const size_t n = size_t{1} << K;
  DeviceBuffer<G1Affine> d_bases(n);
  DeviceBuffer<Fr> d_scalars(n);
  tile_points_kernel<<<4096, 256, 0, s>>>(d_bases.data(), n, tile.data(), tile.size());
  SNARKD_CUDA_CHECK_LAUNCH();
  porep_fill_kernel<<<4096, 256, 0, s>>>(d_scalars.data(), n, 1000 + K);
  SNARKD_CUDA_CHECK_LAUNCH();
  DeviceBuffer<uint8_t> split_mem(split_buffer_bytes(n));
  DeviceBuffer<uint8_t> scratch(msm_split_scratch_bytes<Fp>(n));  // worst case, as a prover sizes it
  DeviceBuffer<G1Xyzz> r_split(1), r_msm(1);
  PinnedBuffer<SplitCounts> h(1);
  const DeviceSplit split{split_mem.data(), split_mem.size(), n};
  Event e0(true), e1(true), e2(true), e3(true);
  std::vector<double> classify, ones, tail, total;
  for (uint32_t r = 0; r < reps + 2; ++r) {
    e0.record(s);
    msm_split_classify(d_scalars.data(), split, h.data(), s);
    e1.record(s);
    msm_split_ones<Fp>(d_bases.data(), split, r_split.data(), scratch.data(), scratch.size(), s);
    e2.record(s);
    e1.synchronize();
    msm_split_finish<Fp>(d_bases.data(), split, h[0], r_split.data(), r_split.data(), scratch.data(), scratch.size(),
                         s);
    e3.record(s);
    e3.synchronize();
    if (r < 2) continue;  // warm-up
    classify.push_back(e1.elapsed_ms_since(e0));
    ones.push_back(e2.elapsed_ms_since(e1));
    tail.push_back(e3.elapsed_ms_since(e2));
    total.push_back(e3.elapsed_ms_since(e0));
  }
  const SplitCounts c = h[0];
  const ec::G1Xyzz got = to_host_point(r_split, s);
  std::vector<ff::Fr> host_scalars(n);
  d_scalars.download(reinterpret_cast<Fr*>(host_scalars.data()), n, s);
  s.synchronize();
  bool ok = bench::equals_tiled_msm(host_tile, host_scalars, got);
  // cuda::msm's own workspace: from 2^24 its batch-affine lanes need more than the split's scratch
  // (2^24: 7.25 against 6.59 GB).
  DeviceBuffer<uint8_t> msm_scratch(msm_scratch_bytes<Fp>(n));
  auto plain = [&] {
    msm<Fp>(d_bases.data(), d_scalars.data(), n, r_msm.data(), msm_scratch.data(), msm_scratch.size(), s);
  };
  double plain_mix_ms = -1;
  if (K <= kMaxLogPlainOnMix) {
    Event a(true), b(true);
    a.record(s);
    plain();
    b.record(s);
    b.synchronize();
    plain_mix_ms = b.elapsed_ms_since(a);
    ok = ok && bench::same_point(to_host_point(r_msm, s), got);
  }
  fill_random_fr(d_scalars.data(), n, 2000 + K, s);
  const double dense_ms = median_ms(s, reps, plain);
  const double t = median(total);
  std::printf("G1 2^%-2u  zeros %9llu  ones %9llu  others %8llu | classify %7.3f  ones %7.3f  tail %8.3f  total "
              "%8.3f | msm same scalars ",
              K, (unsigned long long)c.zeros, (unsigned long long)c.ones, (unsigned long long)c.others,
              median(classify), median(ones), median(tail), t);
  if (plain_mix_ms >= 0) std::printf("%9.1f (1 run)", plain_mix_ms);
  else std::printf("%17s", "(not run)");
  std::printf(" | msm random scalars %8.3f (%.1fx split) | split %.2f GiB scratch %.2f GiB | %s\n", dense_ms,
              dense_ms / t, split_mem.size() / double(1 << 30), scratch.size() / double(1 << 30),
              ok ? "equal" : "MISMATCH");
  std::fflush(stdout);
  if (!ok) {
    std::printf("SELF-CHECK FAILED: the split MSM at 2^%u differs from the folded CPU MSM or cuda::msm\n", K);
    std::exit(3);
  }
}

}  // namespace

void bench_split(uint32_t min_log, uint32_t max_log, uint32_t reps, const Stream& s) {
  const auto g1 = bench::random_points<ec::G1Config>(size_t{1} << 16, 1);
  const std::vector<ec::G1Affine> check(g1.begin(), g1.begin() + (size_t{1} << 14));
  if (!bench::split_self_check_g1(check, 4)) {
    std::printf("SELF-CHECK FAILED: GPU split MSM differs from the CPU MSM at 2^14\n");
    std::exit(3);
  }
  std::printf("self-check: GPU split MSM equals the CPU MSM at 2^14 (PoRep mix)\n\n");
  std::printf("split MSM, G1, PoRep mix (50%% zero, 45%% one, 5%% random), bases 2^16 points tiled; median of %u runs "
              "(ms)\n", reps);
  DeviceBuffer<G1Affine> tile(g1.size());
  tile.upload(reinterpret_cast<const G1Affine*>(g1.data()), g1.size(), s);
  for (uint32_t K : {20u, 24u, 26u, 27u})
    if (K >= min_log && K <= max_log) bench_size(K, g1, tile, reps, s);
}

}  // namespace snarkd::cuda
