// The curve-independent parts of Pippenger: window counts, plans and signed digits.
#include <gtest/gtest.h>

#include <vector>

#include "common/seed.hpp"
#include "msm/msm_test_util.hpp"
#include "snarkd/msm/pippenger.hpp"

namespace snarkd {
namespace {

using ff::Fr;
namespace detail = msm::detail;

// By hand from r − 1 = 0x73eda753…: its bits from 240 up are 0x73ed (15 bits).
TEST(Pippenger, WindowCount) {
  EXPECT_EQ(detail::window_count(16), 16u);  // top window 0x73ed + 1 < 2^15
  EXPECT_EQ(detail::window_count(15), 18u);  // 0x73ed ≥ 2^14 at window 17: one more
  EXPECT_EQ(detail::window_count(8), 32u);   // window 31 holds 0x73, + 1 < 2^7
  EXPECT_EQ(detail::window_count(2), 129u);  // window 127 holds 1 (bit 254), + 1 = 2^1: one more
}

// Digits are in [−2^(c−1), 2^(c−1)) and Σ d_w·2^(wc) (evaluated in Fr) gives back the scalar.
TEST(Pippenger, RecodeRoundTrips) {
  auto g = test::rng("recode");
  const size_t n = 200;
  auto scalars = test::random_scalars(n, test::ScalarMix{5, 5, 10, 40}, g);
  for (size_t c = detail::kMinWindowBits; c <= detail::kMaxWindowBits; ++c) {
    const detail::Plan plan{c, detail::window_count(c), 1};
    for (size_t threads : {size_t(1), size_t(3)}) {
      const auto digits = detail::recode(scalars, plan, threads);
      ASSERT_EQ(digits.size(), n * plan.windows);
      const Fr radix = Fr::from_u64(uint64_t(1) << c);
      const int64_t half = int64_t(1) << (c - 1);
      for (size_t i = 0; i < n; ++i) {
        Fr acc = Fr::zero();
        for (size_t w = plan.windows; w-- > 0;) {
          const int64_t d = digits[w * n + i];
          EXPECT_TRUE(d >= -half && d < half) << "c " << c << " digit " << d;
          acc = acc * radix + Fr::from_i64(d);
        }
        EXPECT_EQ(acc, scalars[i]) << "c " << c << " scalar " << i;
      }
    }
  }
}

// Plans stay in range and keep most threads busy when the work allows it.
TEST(Pippenger, PlanShapes) {
  for (size_t threads : {size_t(1), size_t(2), size_t(16), size_t(64)}) {
    for (size_t n : {size_t(1), size_t(100), size_t(1) << 16, size_t(1) << 20}) {
      const detail::Plan p = detail::make_plan(n, threads, 0, 2.0);
      EXPECT_GE(p.bits, detail::kMinWindowBits);
      EXPECT_LE(p.bits, detail::kMaxWindowBits);
      EXPECT_EQ(p.windows, detail::window_count(p.bits));
      EXPECT_GE(p.chunks, 1u);
      EXPECT_LE(p.chunks, n);
      if (n >= (size_t(1) << 16)) {  // at least 3/4 of the threads get a task
        EXPECT_GE(4 * p.windows * p.chunks, 3 * threads) << n << " " << threads;
      }
    }
  }
  EXPECT_EQ(detail::make_plan(1000, 2, 11, 2.0).bits, 11u);
  // msm_test's 64-thread variants rely on these splitting windows into point ranges.
  EXPECT_GT(detail::make_plan(1000, 64, 0, 1.5).chunks, 1u);
  EXPECT_GT(detail::make_plan(1000, 64, 12, 1.5).chunks, 1u);
}

}  // namespace
}  // namespace snarkd
