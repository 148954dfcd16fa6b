// GPU MSM (G1 and G2) against the CPU twin snarkd::msm::msm on fresh random inputs (seed
// printed, SNARKD_TEST_SEED pins it) and edge cases, for every accumulation kind (the chunked
// XYZZ and batch-affine lanes and the one-thread-per-bucket kernel): sizes 0, 1, 31, 2^k ± 1;
// zero, one, −1 and r − 1 scalars; all-zero vectors; infinities and repeated bases; P − P; every
// point in one bucket; every window width on small inputs, up to 24 bits. The stream-ordered
// test poisons the result and the scratch before running.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "common/ec_util.hpp"
#include "common/seed.hpp"
#include "gpu_test_util.hpp"
#include "snarkd/cuda/msm.hpp"
#include "snarkd/ec/fixed_base.hpp"
#include "snarkd/msm/msm.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {
namespace {

using ff::Fr;

using snarkd::test::random_points;

std::vector<Fr> random_scalars(std::mt19937_64& g, size_t n) {
  std::vector<Fr> s(n);
  for (auto& x : s) x = Fr::random(g);
  return s;
}

constexpr MsmAccumulation kKinds[] = {MsmAccumulation::kChunkedXyzz, MsmAccumulation::kChunkedAffine,
                                      MsmAccumulation::kBucketThreads};

// Checks every accumulation kind (or only `only`) at window c.
template <class C>
void expect_matches_cpu(std::span<const ec::Affine<C>> b, std::span<const Fr> s, uint32_t c, const std::string& what,
                        MsmAccumulation only = MsmAccumulation::kDefault) {
  const auto want = msm::msm<C>(b, s);
  for (MsmAccumulation a : kKinds) {
    if (only != MsmAccumulation::kDefault && only != a) continue;
    EXPECT_EQ(msm_sync<C>(b, s, MsmOptions{c, a}), want) << what << " " << msm_accumulation_name(a);
  }
}

template <class C>
void sizes_and_windows(const char* label, std::vector<size_t> sizes, std::vector<uint32_t> wide) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng(label);
  for (size_t n : sizes) {
    const auto b = random_points<C>(g, n);
    const auto s = random_scalars(g, n);
    expect_matches_cpu<C>(b, s, 0, "n=" + std::to_string(n));
  }
  const auto b = random_points<C>(g, 100);
  const auto s = random_scalars(g, 100);
  for (uint32_t c : {4u, 5u, 7u, 8u, 11u, 12u, 13u, 14u, 15u, 16u}) expect_matches_cpu<C>(b, s, c, "c=" + std::to_string(c));
  // Wide windows: the chunked kernels only (one thread per bucket would add the ~n/2 points of a
  // 0-bit top window serially; correct but slow). Each costs the reduction's running sums over
  // W·2^(c−1) mostly empty buckets, so G2 stops at 18 (c = 24 runs in the precomputed tests).
  for (uint32_t c : wide)
    for (MsmAccumulation a : {MsmAccumulation::kChunkedXyzz, MsmAccumulation::kChunkedAffine})
      expect_matches_cpu<C>(b, s, c, "c=" + std::to_string(c), a);
}

TEST(CudaMsm, G1SizesAndWindows) {
  sizes_and_windows<ec::G1Config>("cuda_msm_g1", {0, 1, 2, 31, 255, 1023, 1025, 4097, (1u << 16) + 1, (1u << 18) - 1},
                                  {18, 20, 22});
}
TEST(CudaMsm, G2SizesAndWindows) { sizes_and_windows<ec::G2Config>("cuda_msm_g2", {0, 1, 31, 1025, 4097}, {18}); }

// The default kind (SNARKD_MSM_ACCUMULATE or the built-in choice) is one of the three.
TEST(CudaMsm, DefaultAccumulationResolves) {
  const MsmAccumulation a = msm_resolve_accumulation<Fp>(MsmAccumulation::kDefault);
  EXPECT_NE(a, MsmAccumulation::kDefault);
  EXPECT_NE(msm_resolve_accumulation<Fp2>(MsmAccumulation::kDefault), MsmAccumulation::kDefault);
  EXPECT_GE(msm_window<Fp>(size_t{1} << 24), 4u);
  EXPECT_LE(msm_window<Fp>(size_t{1} << 27), 20u);
}

template <class C>
void edge_cases(const char* label) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng(label);
  const size_t n = 777;
  auto b = random_points<C>(g, n);
  std::vector<Fr> s(n, Fr::zero());
  expect_matches_cpu<C>(b, s, 0, "all zero");
  EXPECT_TRUE(msm_sync<C>(b, s).is_infinity());
  for (size_t i = 0; i < n; ++i) {
    switch (g() % 6) {
      case 0: s[i] = Fr::zero(); break;
      case 1: s[i] = Fr::one(); break;
      case 2: s[i] = -Fr::one(); break;                // r − 1: every window borrows
      case 3: s[i] = Fr::from_u64(g() % 70000); break;  // small: most windows zero
      default: s[i] = Fr::random(g);
    }
    if (g() % 10 == 0) b[i] = ec::Affine<C>::infinity();
    if (g() % 10 == 0) b[i] = b[0];  // repeated base
  }
  expect_matches_cpu<C>(b, s, 0, "mixed");
  expect_matches_cpu<C>(b, s, 6, "mixed c=6");
  // One base n times with the same scalar: every entry in one bucket (and P + P doublings).
  std::vector<ec::Affine<C>> same(300, b[1]);
  std::vector<Fr> one_scalar(300, Fr::from_u64(12345));
  expect_matches_cpu<C>(same, one_scalar, 0, "one bucket");
  // P and −P with equal scalars cancel.
  std::vector<ec::Affine<C>> pm = {b[1], -b[1]};
  std::vector<Fr> eq = {s[5], s[5]};
  EXPECT_TRUE(msm_sync<C>(pm, eq).is_infinity());
}

TEST(CudaMsm, G1EdgeCases) { edge_cases<ec::G1Config>("cuda_msm_g1_edges"); }
TEST(CudaMsm, G2EdgeCases) { edge_cases<ec::G2Config>("cuda_msm_g2_edges"); }

TEST(CudaMsm, StreamOrderedWithPoisonedOutputAndScratch) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng("cuda_msm_stream");
  const size_t n = 5000;
  const auto b = random_points<ec::G1Config>(g, n);
  const auto s = random_scalars(g, n);
  Stream stream;
  auto d_b = test::to_device<G1Affine>(b, stream);
  auto d_s = test::to_device<cuda::Fr>(s, stream);
  DeviceBuffer<G1Xyzz> d_r(1);
  DeviceBuffer<uint8_t> scratch(msm_scratch_bytes<Fp>(n));
  d_r.fill_bytes(0xff, stream);
  scratch.fill_bytes(0xa5, stream);
  msm<Fp>(d_b.data(), d_s.data(), n, d_r.data(), scratch.data(), scratch.size(), stream);
  const auto r = test::to_host<ec::G1Xyzz>(d_r, stream);
  EXPECT_EQ(r[0].to_jacobian(), msm::msm<ec::G1Config>(b, s));
  EXPECT_THROW(msm<Fp>(d_b.data(), d_s.data(), n, d_r.data(), scratch.data(), scratch.size() - 1, stream),
               InvalidArgument);
  EXPECT_THROW(msm<Fp>(d_b.data(), d_s.data(), n, d_r.data(), scratch.data(), scratch.size(), stream, 25),
               InvalidArgument);
  // Every kind, stream-ordered, poisoned result and scratch.
  for (MsmAccumulation a : kKinds) {
    const MsmOptions o{0, a};
    DeviceBuffer<uint8_t> sc(msm_scratch_bytes<Fp>(n, o));
    d_r.fill_bytes(0xff, stream);
    sc.fill_bytes(0x5a, stream);
    msm<Fp>(d_b.data(), d_s.data(), n, d_r.data(), sc.data(), sc.size(), stream, o);
    EXPECT_EQ(test::to_host<ec::G1Xyzz>(d_r, stream)[0].to_jacobian(), msm::msm<ec::G1Config>(b, s))
        << msm_accumulation_name(a);
  }
}

// Larger inputs where chunks hold many runs and runs span many chunks: 2^20 + 3 random points
// (random bases repeated: only the scalars matter) and 2^19 points that all share one scalar (every
// window's entries in one bucket, which the chunked kernels split over ~all lanes), G1; 2^17 + 5
// for G2.
TEST(CudaMsm, LargeAndSkewed) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng("cuda_msm_large");
  const auto tile = random_points<ec::G1Config>(g, 4096);
  auto tiled = [&](size_t n) {
    std::vector<ec::G1Affine> b(n);
    for (size_t i = 0; i < n; ++i) b[i] = tile[i % tile.size()];
    return b;
  };
  const size_t n = (size_t{1} << 20) + 3;
  const auto b = tiled(n);
  const auto s = random_scalars(g, n);
  for (MsmAccumulation a : {MsmAccumulation::kChunkedXyzz, MsmAccumulation::kChunkedAffine})
    expect_matches_cpu<ec::G1Config>(b, s, 0, "2^20 + 3", a);
  const auto b2 = tiled(size_t{1} << 19);
  const std::vector<Fr> same(b2.size(), Fr::random(g));
  for (MsmAccumulation a : {MsmAccumulation::kChunkedXyzz, MsmAccumulation::kChunkedAffine})
    expect_matches_cpu<ec::G1Config>(b2, same, 0, "one scalar", a);
  const auto t2 = random_points<ec::G2Config>(g, 1024);
  std::vector<ec::G2Affine> b3((size_t{1} << 17) + 5);
  for (size_t i = 0; i < b3.size(); ++i) b3[i] = t2[i % t2.size()];
  const auto s3 = random_scalars(g, b3.size());
  for (MsmAccumulation a : {MsmAccumulation::kChunkedXyzz, MsmAccumulation::kChunkedAffine})
    expect_matches_cpu<ec::G2Config>(b3, s3, 0, "G2 2^17 + 5", a);
}

}  // namespace
}  // namespace snarkd::cuda
