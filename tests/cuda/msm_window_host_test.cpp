// The GPU MSM's window choice (msm_window, host code only: no device needed): within range,
// constant between powers of two (the split MSM's scratch bound relies on it), for both curves'
// groups; the legacy kernel's table and BLS12-381's chunked choices unchanged by BN254's scaling of
// the cost model; the choices printed for the record; the scratch bound over shorter lengths.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdio>

#include "snarkd/cuda/msm.hpp"
#include "snarkd/cuda/scratch_bound.hpp"

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
      EXPECT_LE(c, 22u);
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

// The plain MSM's kind by size: BLS12-381 G2 from 2^22 points and G1 from 2^24 take the batch-affine
// lanes, everything else (and any kind asked for by name) keeps its own. Run without
// SNARKD_MSM_ACCUMULATE.
TEST(MsmWindowHost, PlainKindBySize) {
  const MsmAccumulation D = MsmAccumulation::kDefault, A = MsmAccumulation::kChunkedAffine;
  EXPECT_EQ(detail::plain_layout<Fp2>(size_t{1} << 22, MsmOptions{}).accumulation, A);
  EXPECT_EQ(detail::plain_layout<Fp2>(size_t{1} << 24, MsmOptions{}).accumulation, A);
  EXPECT_EQ(detail::plain_layout<Fp2>(size_t{1} << 24, MsmOptions{}).c, msm_window<Fp2>(size_t{1} << 24, A));
  EXPECT_EQ(detail::plain_layout<Fp2>((size_t{1} << 22) - 1, MsmOptions{}).accumulation, D);
  EXPECT_EQ(detail::plain_layout<Fp>(size_t{1} << 24, MsmOptions{}).accumulation, A);
  EXPECT_EQ(detail::plain_layout<Fp>(size_t{1} << 27, MsmOptions{}).c, msm_window<Fp>(size_t{1} << 27, A));
  EXPECT_EQ(detail::plain_layout<Fp>((size_t{1} << 24) - 1, MsmOptions{}).accumulation, D);
  EXPECT_EQ(detail::plain_layout<bn254::Fp>(size_t{1} << 24, MsmOptions{}).accumulation, D);
  EXPECT_EQ(detail::plain_layout<bn254::Fp2>(size_t{1} << 24, MsmOptions{}).accumulation, D);
  // The provers' H MSMs keep G1's own default (XYZZ) at any size.
  EXPECT_EQ(detail::plain_layout<Fp>(size_t{1} << 27, group_default_options<Fp>()).accumulation,
            MsmAccumulation::kChunkedXyzz);
  const MsmOptions xyzz{0, MsmAccumulation::kChunkedXyzz};
  EXPECT_EQ(detail::plain_layout<Fp2>(size_t{1} << 24, xyzz).accumulation, MsmAccumulation::kChunkedXyzz);
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

// detail::scratch_bound over a scratch model with both kinds of drop (the window widening at
// powers of two, the windows per pass falling at ⌊E/j⌋): never below the model at n, never
// decreasing, exhaustively — and the model itself does decrease, or the test would prove nothing.
TEST(ScratchBound, CoversEveryShorterLengthAndNeverDecreases) {
  constexpr size_t kE = 1000;
  auto model = [](size_t n) {
    const size_t c = std::max<size_t>(2, std::bit_width(n)), windows = (256 + c - 1) / c;
    const size_t per_pass = std::max<size_t>(1, std::min(windows, kE / std::max<size_t>(n, 1)));
    return per_pass * n * 16 + (size_t{1} << c) * 8;
  };
  size_t prev = 0, drops = 0;
  for (size_t n = 0; n <= 20000; ++n) {
    const size_t b = snarkd::cuda::detail::scratch_bound(n, kE, model);
    ASSERT_GE(b, model(n)) << n;
    ASSERT_GE(b, prev) << n;
    if (n > 0 && model(n) < model(n - 1)) ++drops;
    prev = b;
  }
  EXPECT_GT(drops, 10u);
}
