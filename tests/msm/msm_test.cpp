// msm and msm_split against the naive Σ kᵢ·Pᵢ for G1 and G2: sizes, special scalars, degenerate
// bases, every window width, and work split for different thread counts.
#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/seed.hpp"
#include "msm/msm_test_util.hpp"
#include "snarkd/msm/buckets.hpp"
#include "snarkd/msm/msm.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd {
namespace {

using ff::Fr;
using msm::Accumulation;
using msm::Options;
using test::ScalarMix;

template <class C>
class MsmTest : public ::testing::Test {};
using Groups = ::testing::Types<ec::G1Config, ec::G2Config>;
TYPED_TEST_SUITE(MsmTest, Groups);

// 2^12 + 7 for both groups (the Foundation issue's size; G2, ≈ 3× G1's cost, takes ≈ 1.8 s of
// this binary on the Zen 5 dev VM).
constexpr size_t kLarge = 4103;

// Every way of running the Pippenger MSM the tests compare against the reference: work split
// for 1 thread (all on the calling thread), 2, and 64 (more than the windows, so from ~1000
// points each window is also split into point ranges whose buckets are merged; the pool runs
// the tasks on however many threads it has), with both bucket kinds.
std::vector<Options> variants() {
  return {Options{},
          Options{1, 0, Accumulation::kXyzz},
          Options{1, 0, Accumulation::kBatchAffine},
          Options{2, 0, Accumulation::kXyzz},
          Options{64, 0, Accumulation::kBatchAffine}};
}

// Inputs this small get narrow windows, where batch-affine falls back to XYZZ buckets; from
// 1000 points a forced 12-bit window also runs the batch-affine buckets, whole and split.
template <class C>
void expect_all_variants(const std::vector<ec::Affine<C>>& bases, const std::vector<Fr>& scalars,
                         const std::string& what) {
  const ec::Jacobian<C> want = test::naive_msm<C>(bases, scalars);
  std::vector<Options> opts = variants();
  if (bases.size() >= 1000) {
    opts.push_back(Options{2, 12, Accumulation::kBatchAffine});
    opts.push_back(Options{64, 12, Accumulation::kBatchAffine});
  }
  for (const Options& o : opts) {
    EXPECT_EQ(msm::msm<C>(bases, scalars, o), want)
        << what << ", threads " << o.threads << ", window " << o.window_bits << ", accumulation "
        << int(o.accumulation);
  }
  EXPECT_EQ(msm::msm_split<C>(bases, scalars), want) << what << ", msm_split";
}

TYPED_TEST(MsmTest, MatchesNaiveOnRandomAndSpecialScalars) {
  using C = TypeParam;
  auto g = test::rng("msm-mixed");
  const ScalarMix mix{10, 10, 5, 10};
  for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(3), size_t(1000), kLarge}) {
    auto bases = test::random_bases<C>(n, g);
    test::add_degenerate_bases<C>(bases, 20, g);
    expect_all_variants<C>(bases, test::random_scalars(n, mix, g), "n " + std::to_string(n));
  }
}

// Up to 16 points msm() takes Straus's path (binary digits for scalars of at most 24 bits,
// width-5 NAF above, G1 scalars over 128 bits split by the GLV endomorphism): every size around the threshold, with degenerate bases (repeats,
// negations, infinity) and scalars of every bit length across the binary/window boundary,
// against the naive sum and against Pippenger (an explicit window forces it).
TYPED_TEST(MsmTest, SmallInputsStrausMatchesNaiveAndPippenger) {
  using C = TypeParam;
  auto g = test::rng("msm-straus");
  const ScalarMix mix{10, 10, 10, 10};
  for (size_t n = 1; n <= 17; ++n) {
    auto bases = test::random_bases<C>(n, g);
    test::add_degenerate_bases<C>(bases, 3, g);
    auto scalars = test::random_scalars(n, mix, g);
    for (size_t i = 0; i < n; i += 2) {  // small integers: 0 to 64 bits
      const unsigned bits = unsigned(g() % 65);
      scalars[i] = Fr::from_u64(bits == 0 ? 0 : (g() >> (64 - bits)) | (uint64_t{1} << (bits - 1)));
    }
    // G1 splits scalars over 128 bits as k₁ + k₂·λ (λ = z² − 1): the decomposition's edges
    const Fr z = Fr::from_u64(0xd201000000010000ULL), lam = z * z - Fr::one();
    const Fr edges[] = {lam, lam - Fr::one(), lam + Fr::one(), lam * lam, lam * lam + lam, lam * (lam + Fr::one()) - Fr::one()};
    for (size_t i = 1; i < n; i += 3) scalars[i] = edges[(i / 3) % std::size(edges)];
    const ec::Jacobian<C> want = test::naive_msm<C>(bases, scalars);
    EXPECT_EQ(msm::msm<C>(bases, scalars), want) << "n " << n;
    EXPECT_EQ(msm::msm<C>(bases, scalars, Options{1, 2, Accumulation::kXyzz}), want) << "n " << n;
    EXPECT_EQ(msm::msm_split<C>(bases, scalars), want) << "n " << n << ", msm_split";
  }
}

TYPED_TEST(MsmTest, EveryWindowWidth) {
  using C = TypeParam;
  auto g = test::rng("msm-windows");
  const size_t n = 300;
  auto bases = test::random_bases<C>(n, g);
  test::add_degenerate_bases<C>(bases, 10, g);
  const auto scalars = test::random_scalars(n, ScalarMix{5, 5, 5, 20}, g);
  const auto want = test::naive_msm<C>(bases, scalars);
  // Wide windows cost 2^c bucket additions per window whatever n, so past 12 bits only the
  // widest one the planner picks (16, for 2^20 points) runs, and only for G1 (the digits of
  // every width are checked in pippenger_test).
  std::vector<std::pair<size_t, Accumulation>> runs;
  for (size_t c = 2; c <= 12; ++c) {
    runs.push_back({c, Accumulation::kXyzz});
    runs.push_back({c, Accumulation::kBatchAffine});
  }
  if (std::is_same_v<C, ec::G1Config>) runs.push_back({16, Accumulation::kBatchAffine});
  for (const auto& [c, acc] : runs) {
    EXPECT_EQ(msm::msm<C>(bases, scalars, Options{0, c, acc}), want)
        << "window " << c << " accumulation " << int(acc);
  }
}

TYPED_TEST(MsmTest, SingleScalarKinds) {
  using C = TypeParam;
  auto g = test::rng("msm-single");
  const size_t n = 500;
  const auto bases = test::random_bases<C>(n, g);
  const auto sum = test::naive_msm<C>(bases, std::vector<Fr>(n, Fr::one()));
  // Expected values by group law only: Σ 0·P = ∞, Σ 1·P = S, Σ (r−1)·P = −S.
  EXPECT_TRUE(msm::msm<C>(bases, std::vector<Fr>(n, Fr::zero())).is_infinity());
  for (const Options& o : variants()) {
    EXPECT_EQ(msm::msm<C>(bases, std::vector<Fr>(n, Fr::one()), o), sum);
    EXPECT_EQ(msm::msm<C>(bases, std::vector<Fr>(n, Fr::zero() - Fr::one()), o), -sum);
  }
  EXPECT_TRUE(msm::msm_split<C>(bases, std::vector<Fr>(n, Fr::zero())).is_infinity());
  EXPECT_EQ(msm::msm_split<C>(bases, std::vector<Fr>(n, Fr::one())), sum);
}

// All bases equal P: Σ kᵢ·P = (Σ kᵢ)·P, with Σ kᵢ computed in Fr. Buckets here keep adding a
// point to itself (the doubling path) and, batch-affine, collide on busy buckets.
TYPED_TEST(MsmTest, RepeatedBase) {
  using C = TypeParam;
  auto g = test::rng("msm-repeated");
  const size_t n = 1000;
  const auto p = test::random_bases<C>(1, g)[0];
  const std::vector<ec::Affine<C>> bases(n, p);
  for (unsigned max_small : {1u, 3u, 0u}) {  // 0: full-size random scalars
    std::vector<Fr> scalars(n);
    Fr total = Fr::zero();
    for (Fr& k : scalars) {
      k = max_small ? Fr::from_u64(1 + g() % max_small) : Fr::random(g);
      total += k;
    }
    const auto want = ec::Jacobian<C>::from_affine(p).mul_scalar(total);
    for (const Options& o : variants()) EXPECT_EQ(msm::msm<C>(bases, scalars, o), want);
    EXPECT_EQ(msm::msm<C>(bases, scalars, Options{1, 12, Accumulation::kBatchAffine}), want);
    EXPECT_EQ(msm::msm_split<C>(bases, scalars), want);
  }
}

// P, −P, P, −P, … with equal scalars cancels pairwise; with one extra P the sum is k·P.
TYPED_TEST(MsmTest, PointAndNegationCancel) {
  using C = TypeParam;
  auto g = test::rng("msm-cancel");
  const auto p = test::random_bases<C>(1, g)[0];
  for (size_t n : {size_t(1000), size_t(1001)}) {
    std::vector<ec::Affine<C>> bases(n);
    for (size_t i = 0; i < n; ++i) bases[i] = i % 2 ? -p : p;
    for (const Fr& k : {Fr::one(), Fr::random(g)}) {
      const std::vector<Fr> scalars(n, k);
      const auto want = n % 2 ? ec::Jacobian<C>::from_affine(p).mul_scalar(k)
                              : ec::Jacobian<C>::infinity();
      for (const Options& o : variants()) EXPECT_EQ(msm::msm<C>(bases, scalars, o), want);
      EXPECT_EQ(msm::msm<C>(bases, scalars, Options{1, 12, Accumulation::kBatchAffine}), want);
      EXPECT_EQ(msm::msm_split<C>(bases, scalars), want);
    }
  }
}

// One batch-affine batch mixing cancellations with ordinary additions: with 12-bit windows,
// scalar j puts its point alone in bucket j − 1 of window 0. P_i arrives first, then −P_i
// (same scalar: its bucket sums to infinity) interleaved with Q'_j joining Q_j (a real addition),
// so a flush settles cancelled entries between pending ones.
TYPED_TEST(MsmTest, CancellationsAmongAdditionsInOneBatch) {
  using C = TypeParam;
  auto g = test::rng("msm-cancel-batch");
  const size_t m = 300;
  const auto p = test::random_bases<C>(m, g), q = test::random_bases<C>(2 * m, g);
  std::vector<ec::Affine<C>> bases;
  std::vector<Fr> scalars;
  for (size_t i = 0; i < m; ++i) {
    bases.insert(bases.end(), {p[i], q[i]});
    scalars.insert(scalars.end(), {Fr::from_u64(i + 1), Fr::from_u64(m + i + 1)});
  }
  for (size_t i = 0; i < m; ++i) {
    bases.insert(bases.end(), {-p[i], q[m + i]});
    scalars.insert(scalars.end(), {Fr::from_u64(i + 1), Fr::from_u64(m + i + 1)});
  }
  expect_all_variants<C>(bases, scalars, "cancellations in a batch");
}

// The batch-affine bucket reduction (weighted_sum_batched: runs of m/runs buckets whose running
// sums advance together) on the cases its affine additions must settle: with scalars below
// 2^(c−1) only window 0 has digits and scalar k puts its base alone in bucket k − 1. Run 0: two
// equal neighbours (the running sum doubles); run 1: P then −P (the running sum cancels); run 2:
// P, an empty bucket, then another point (the weighted sum doubles: a_g += r_g with r_g = a_g);
// run 3: P then −2P (the weighted sum cancels); thousands of duplicates in two buckets (their
// XYZZ overflows are folded in first); the top bucket; random points elsewhere.
TYPED_TEST(MsmTest, BatchedBucketReductionEdgeCases) {
  using C = TypeParam;
  auto g = test::rng("msm-batched-reduction");
  for (size_t c : {13, 16}) {
    const size_t m = size_t(1) << (c - 1), len = m / msm::detail::reduction_runs(m);
    const auto p = test::random_bases<C>(64, g);
    std::vector<ec::Affine<C>> bases;
    std::vector<Fr> scalars;
    auto put = [&](const ec::Affine<C>& b, size_t k) {
      bases.push_back(b);
      scalars.push_back(Fr::from_u64(k));
    };
    put(p[0], len), put(p[0], len - 1);                  // run 0: equal neighbours
    put(p[1], 2 * len), put(-p[1], 2 * len - 1);         // run 1: P, −P
    put(p[2], 3 * len), put(p[3], 3 * len - 2);          // run 2: P, empty, Q
    const ec::Affine<C> two = ec::Jacobian<C>::from_affine(p[4]).dbl().to_affine();
    put(p[4], 4 * len), put(-two, 4 * len - 1);          // run 3: P, −2P
    for (size_t i = 0; i < 3000; ++i) put(p[5], 5 * len + 1), put(p[6 + i % 2], 5 * len + 2);
    put(p[8], m);                                        // top bucket (digit −2^(c−1))
    for (size_t i = 9; i < 64; ++i) put(p[i], 6 * len + (g() % (m - 6 * len)));
    const ec::Jacobian<C> want = test::naive_msm<C>(bases, scalars);
    for (Accumulation a : {Accumulation::kBatchAffine, Accumulation::kXyzz})
      EXPECT_EQ(msm::msm<C>(bases, scalars, Options{1, c, a}), want)
          << "window " << c << ", accumulation " << int(a);
  }
}

TYPED_TEST(MsmTest, AllInfinityBases) {
  using C = TypeParam;
  auto g = test::rng("msm-infinity");
  const std::vector<ec::Affine<C>> bases(100, ec::Affine<C>::infinity());
  const auto scalars = test::random_scalars(100, ScalarMix{10, 10, 10, 10}, g);
  for (const Options& o : variants()) EXPECT_TRUE(msm::msm<C>(bases, scalars, o).is_infinity());
  EXPECT_TRUE(msm::msm_split<C>(bases, scalars).is_infinity());
}

TYPED_TEST(MsmTest, SizeMismatchAndBadWindowThrow) {
  using C = TypeParam;
  auto g = test::rng("msm-throw");
  const auto bases = test::random_bases<C>(3, g);
  const std::vector<Fr> two(2, Fr::one()), three(3, Fr::one());
  EXPECT_THROW(msm::msm<C>(bases, two), InvalidArgument);
  EXPECT_THROW(msm::msm_split<C>(bases, two), InvalidArgument);
  EXPECT_THROW(msm::msm_split<C>(bases, msm::split_scalars(two)), InvalidArgument);
  EXPECT_THROW(msm::msm<C>(bases, three, Options{0, 1, Accumulation::kXyzz}), InvalidArgument);
  EXPECT_THROW(msm::msm<C>(bases, three, Options{0, 17, Accumulation::kXyzz}), InvalidArgument);
}

}  // namespace
}  // namespace snarkd
