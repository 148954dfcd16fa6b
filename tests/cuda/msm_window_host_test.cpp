// The GPU MSM's window choice (msm_window, host code only: no device needed): within range,
// constant between powers of two (the split MSM's scratch bound relies on it), for both curves'
// groups; the legacy kernel's table and BLS12-381's chunked choices unchanged by BN254's scaling of
// the cost model; the choices printed for the record.
#include <gtest/gtest.h>

#include <cstdio>

#include "snarkd/cuda/msm.hpp"

namespace snarkd::cuda {
namespace {

template <class F>
void check(const char* name) {
  for (MsmAccumulation a : {MsmAccumulation::kChunkedXyzz, MsmAccumulation::kChunkedAffine}) {
    std::printf("%s %-6s:", name, msm_accumulation_name(a));
    for (uint32_t k = 0; k <= 28; ++k) {
      const size_t n = size_t{1} << k;
      const uint32_t c = msm_window<F>(n, a);
      EXPECT_GE(c, 4u);
      EXPECT_LE(c, 20u);
      if (k >= 1) {
        EXPECT_EQ(msm_window<F>(n / 2 + 1, a), c) << "n = 2^" << k << " / 2 + 1";
      }
      if (k >= 10 && k % 2 == 0) std::printf(" 2^%u→%u", k, c);
    }
    std::printf("\n");
  }
}

TEST(MsmWindowHost, ChunkedChoices) {
  check<Fp>("G1");
  check<Fp2>("G2");
  check<bn254::Fp>("BN254 G1");
  check<bn254::Fp2>("BN254 G2");
}

// BLS12-381's widths as before BN254 joined the cost model (its product scale is exactly 1).
TEST(MsmWindowHost, Bls12381ChunkedChoicesUnchanged) {
  const MsmAccumulation X = MsmAccumulation::kChunkedXyzz, A = MsmAccumulation::kChunkedAffine;
  EXPECT_EQ(msm_window<Fp>(size_t{1} << 16, X), 13u);
  EXPECT_EQ(msm_window<Fp>(size_t{1} << 20, X), 16u);
  EXPECT_EQ(msm_window<Fp>(size_t{1} << 22, X), 19u);
  EXPECT_EQ(msm_window<Fp>(size_t{1} << 22, A), 18u);
  EXPECT_EQ(msm_window<Fp2>(size_t{1} << 22, X), 18u);
  EXPECT_EQ(msm_window<Fp2>(size_t{1} << 14, A), 10u);
  EXPECT_EQ(msm_window<Fp2>(size_t{1} << 22, A), 16u);
}

TEST(MsmWindowHost, LegacyTableUnchanged) {
  const MsmAccumulation L = MsmAccumulation::kBucketThreads;
  EXPECT_EQ(msm_window<Fp>(size_t{1} << 20, L), 16u);
  EXPECT_EQ(msm_window<Fp>(size_t{1} << 15, L), 16u);
  EXPECT_EQ(msm_window<Fp>(size_t{1} << 14, L), 13u);
  EXPECT_EQ(msm_window<Fp>(1000, L), 6u);
  EXPECT_EQ(msm_window<Fp>(4000, L), 8u);
  EXPECT_EQ(msm_window<Fp>(8000, L), 8u);
  EXPECT_EQ(msm_window<Fp>(10000, L), 10u);
}

}  // namespace
}  // namespace snarkd::cuda
