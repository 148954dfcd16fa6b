// The bit-scalar path: sum_bits against a plain sum, split_scalars' classification, and
// msm_split against the naive MSM on witness-like mixes (mostly 0 and 1).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/seed.hpp"
#include "msm/msm_test_util.hpp"
#include "snarkd/msm/msm.hpp"

namespace snarkd {
namespace {

using ff::Fr;
using msm::Options;
using test::ScalarMix;

template <class C>
class SplitTest : public ::testing::Test {};
using Groups = ::testing::Types<ec::G1Config, ec::G2Config>;
TYPED_TEST_SUITE(SplitTest, Groups);

// Bits set with probability 35%; the last word also gets set bits past n, which must be ignored.
std::vector<uint64_t> random_bitmap(size_t n, std::mt19937_64& g) {
  std::vector<uint64_t> bits((n + 63) / 64, 0);
  for (size_t i = 0; i < n; ++i)
    if (g() % 100 < 35) bits[i / 64] |= uint64_t(1) << (i % 64);
  if (n % 64) bits.back() |= ~uint64_t(0) << (n % 64);
  return bits;
}

template <class C>
ec::Jacobian<C> plain_sum(const std::vector<ec::Affine<C>>& bases,
                          const std::vector<uint64_t>& bits) {
  ec::Jacobian<C> acc = ec::Jacobian<C>::infinity();
  for (size_t i = 0; i < bases.size(); ++i)
    if ((bits[i / 64] >> (i % 64)) & 1) acc += ec::Jacobian<C>::from_affine(bases[i]);
  return acc;
}

// 20001 points: with 2 threads, parts of ≥ 8192 points switch sum_bits to batch-affine buckets.
TYPED_TEST(SplitTest, SumBitsMatchesPlainSum) {
  using C = TypeParam;
  auto g = test::rng("sum-bits");
  for (size_t n : {size_t(0), size_t(1), size_t(63), size_t(64), size_t(65), size_t(1000),
                   size_t(20001)}) {
    auto bases = test::random_bases<C>(n, g);
    test::add_degenerate_bases<C>(bases, 50, g);
    const auto bits = random_bitmap(n, g);
    EXPECT_EQ(msm::sum_bits<C>(bases, bits.data()), plain_sum<C>(bases, bits)) << "n " << n;
  }
}

TEST(SplitScalars, ClassifiesAndCounts) {
  auto g = test::rng("split-classify");
  const size_t n = 1000;
  const auto s = test::random_scalars(n, ScalarMix{60, 35, 0, 0}, g);
  const msm::ScalarSplit split = msm::split_scalars(s);
  ASSERT_EQ(split.size, n);
  uint64_t zeros = 0, ones = 0;
  std::vector<size_t> others;
  for (size_t i = 0; i < n; ++i) {
    const bool bit = (split.ones[i / 64] >> (i % 64)) & 1;
    EXPECT_EQ(bit, s[i] == Fr::one()) << i;
    if (s[i] == Fr::zero()) ++zeros;
    else if (s[i] == Fr::one()) ++ones;
    else others.push_back(i);
  }
  EXPECT_EQ(split.stats.zeros, zeros);
  EXPECT_EQ(split.stats.ones, ones);
  EXPECT_EQ(split.stats.others, others.size());
  EXPECT_EQ(split.others, others);
  ASSERT_EQ(split.other_scalars.size(), others.size());
  for (size_t j = 0; j < others.size(); ++j) EXPECT_EQ(split.other_scalars[j], s[others[j]]);
}

// 60% zero, 35% one, 5% random (with r − 1 and edge values among them), like a PoRep witness.
TYPED_TEST(SplitTest, MsmSplitMatchesNaiveOnBitMix) {
  using C = TypeParam;
  auto g = test::rng("msm-split");
  const ScalarMix mix{60, 35, 1, 1};
  for (size_t n : {size_t(0), size_t(1), size_t(5), size_t(1000), size_t(10007)}) {
    auto bases = test::random_bases<C>(n, g);
    test::add_degenerate_bases<C>(bases, 50, g);
    const auto scalars = test::random_scalars(n, mix, g);
    const auto want = test::naive_msm<C>(bases, scalars);
    msm::SplitStats stats;
    EXPECT_EQ(msm::msm_split<C>(bases, scalars, &stats), want) << "n " << n;
    EXPECT_EQ(stats.zeros + stats.ones + stats.others, n);
    // One thread: a single sum_bits range, so large inputs take the batch-affine sum.
    const Options one_thread{1, 0, msm::Accumulation::kBatchAffine};
    EXPECT_EQ(msm::msm_split<C>(bases, scalars, nullptr, one_thread), want)
        << "n " << n << ", one thread";
    if (n <= 1000) {
      EXPECT_EQ(msm::msm<C>(bases, scalars), want) << "n " << n << ", msm";
    }
  }
}

// One split serves several base vectors (the Groth16 A / B queries share a witness).
TYPED_TEST(SplitTest, SplitReusedAcrossBases) {
  using C = TypeParam;
  auto g = test::rng("split-reuse");
  const size_t n = 777;
  const auto scalars = test::random_scalars(n, ScalarMix{60, 35, 0, 2}, g);
  const msm::ScalarSplit split = msm::split_scalars(scalars);
  for (int rep = 0; rep < 2; ++rep) {
    const auto bases = test::random_bases<C>(n, g);
    EXPECT_EQ(msm::msm_split<C>(bases, split), test::naive_msm<C>(bases, scalars));
  }
}

}  // namespace
}  // namespace snarkd
