// GPU MSM (G1 and G2) against the CPU twin snarkd::msm::msm on fresh random inputs (seed
// printed, SNARKD_TEST_SEED pins it) and edge cases: sizes 0, 1, 31, 2^k ± 1; zero, one, −1 and
// r − 1 scalars; all-zero vectors; infinities and repeated bases; every window width on small
// inputs. The stream-ordered test poisons the result and the scratch before running.
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

template <class C>
void expect_matches_cpu(std::span<const ec::Affine<C>> b, std::span<const Fr> s, uint32_t c, const std::string& what) {
  const auto want = msm::msm<C>(b, s);
  EXPECT_EQ(msm_sync<C>(b, s, c), want) << what;
}

template <class C>
void sizes_and_windows(const char* label, std::vector<size_t> sizes) {
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
}

TEST(CudaMsm, G1SizesAndWindows) {
  sizes_and_windows<ec::G1Config>("cuda_msm_g1", {0, 1, 2, 31, 255, 1023, 1025, 4097, (1u << 16) + 1, (1u << 18) - 1});
}
TEST(CudaMsm, G2SizesAndWindows) { sizes_and_windows<ec::G2Config>("cuda_msm_g2", {0, 1, 31, 1025, 4097}); }

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
  EXPECT_THROW(msm<Fp>(d_b.data(), d_s.data(), n, d_r.data(), scratch.data(), scratch.size(), stream, 17),
               InvalidArgument);
}

}  // namespace
}  // namespace snarkd::cuda
