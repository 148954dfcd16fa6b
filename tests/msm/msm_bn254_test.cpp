// The CPU MSM instantiated for BN254's G1 and G2 (scalars in ff::bn254::Fr) against a naive
// Σ kᵢ·Pᵢ built from Jacobian::mul_scalar and + only: every window width and bucket kind, the
// Straus path for small inputs, degenerate bases, and the split (0 / 1 / other) MSM. Also the
// signed-digit recoding over BN254's Fr, checked by summing the digits back.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "common/seed.hpp"
#include "snarkd/ec/bn254.hpp"
#include "snarkd/msm/msm.hpp"
#include "snarkd/msm/pippenger.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd {
namespace {

using Fq = ff::bn254::Fr;
using msm::Accumulation;
using msm::Options;

template <class C>
class MsmBn254 : public ::testing::Test {};
using Groups = ::testing::Types<ec::bn254::G1Config, ec::bn254::G2Config>;
TYPED_TEST_SUITE(MsmBn254, Groups);

static_assert(std::is_same_v<ec::bn254::G1Config::Scalar, Fq>);
static_assert(std::is_same_v<ec::bn254::G2Config::Scalar, Fq>);

// Chained sums of a few random multiples of the generator: distinct points at one addition each.
template <class C>
std::vector<ec::Affine<C>> random_bases(size_t n, std::mt19937_64& g) {
  using J = ec::Jacobian<C>;
  J seeds[3];
  for (J& s : seeds) s = J::from_affine(ec::generator<C>()).mul_scalar(Fq::random(g));
  std::vector<J> pts(n);
  for (size_t i = 0; i < n; ++i) pts[i] = i == 0 ? seeds[0] : pts[i - 1] + seeds[i % 3];
  return ec::batch_to_affine<C>(pts);
}

// About 1 in `every` bases becomes infinity, a repeat of an earlier base, or its negation.
template <class C>
void degenerate(std::vector<ec::Affine<C>>& bases, size_t every, std::mt19937_64& g) {
  for (size_t i = 1; i < bases.size(); ++i) {
    if (g() % every != 0) continue;
    const size_t j = g() % i;
    const unsigned kind = unsigned(g() % 3);
    bases[i] = kind == 0 ? ec::Affine<C>::infinity() : kind == 1 ? bases[j] : -bases[j];
  }
}

// Uniform scalars mixed with 0, 1, −1, r − 1 − small, powers of two and all-ones runs.
std::vector<Fq> mixed_scalars(size_t n, std::mt19937_64& g) {
  std::vector<Fq> s(n);
  for (Fq& k : s) {
    switch (g() % 8) {
      case 0: k = Fq::zero(); break;
      case 1: k = Fq::one(); break;
      case 2: k = -Fq::one(); break;
      case 3: k = -Fq::from_u64(1 + g() % 1000); break;
      case 4: k = Fq::from_u64(2).pow(uint64_t(g() % 254)); break;
      case 5: k = Fq::from_repr_unchecked({~0ull, ~0ull, ~0ull, 0x0fffffffffffffffull}); break;
      default: k = Fq::random(g); break;
    }
  }
  return s;
}

template <class C>
ec::Jacobian<C> naive(std::span<const ec::Affine<C>> bases, std::span<const Fq> scalars) {
  ec::Jacobian<C> acc = ec::Jacobian<C>::infinity();
  for (size_t i = 0; i < bases.size(); ++i)
    acc += ec::Jacobian<C>::from_affine(bases[i]).mul_scalar(scalars[i]);
  return acc;
}

// Sizes around the Straus/Pippenger boundary (16), not powers of two, and n = 0, 1; default
// options, one thread, and several explicit windows with both bucket kinds.
TYPED_TEST(MsmBn254, MatchesNaive) {
  using C = TypeParam;
  auto g = test::rng(std::string("MsmBn254.MatchesNaive.") + typeid(C).name());
  for (size_t n : {0u, 1u, 2u, 7u, 16u, 17u, 100u, 777u}) {
    auto bases = random_bases<C>(n, g);
    degenerate(bases, 9, g);
    const std::vector<Fq> k = mixed_scalars(n, g);
    const ec::Jacobian<C> want = naive<C>(bases, k);
    ASSERT_EQ(msm::msm<C>(bases, k), want) << "n=" << n;
    for (size_t bits : {2u, 5u, 9u, 16u})
      for (Accumulation acc : {Accumulation::kXyzz, Accumulation::kBatchAffine}) {
        Options o;
        o.window_bits = bits;
        o.accumulation = acc;
        o.threads = bits % 2 ? 1 : 0;
        ASSERT_EQ(msm::msm<C>(bases, k, o), want)
            << "n=" << n << " window=" << bits << " xyzz=" << (acc == Accumulation::kXyzz);
      }
  }
}

// From 512 buckets (c ≥ 10) the batch-affine buckets run; split over 3 threads' worth of chunks.
TYPED_TEST(MsmBn254, BatchAffineBuckets) {
  using C = TypeParam;
  auto g = test::rng(std::string("MsmBn254.BatchAffineBuckets.") + typeid(C).name());
  const size_t n = 3001;
  auto bases = random_bases<C>(n, g);
  degenerate(bases, 50, g);
  const std::vector<Fq> k = mixed_scalars(n, g);
  const ec::Jacobian<C> want = naive<C>(bases, k);
  for (size_t threads : {1u, 3u}) {
    Options o;
    o.window_bits = 12;
    o.threads = threads;
    ASSERT_EQ(msm::msm<C>(bases, k, o), want) << "threads=" << threads;
  }
  ASSERT_EQ(msm::msm<C>(bases, k), want);
}

// Straus (n ≤ 16): small scalars take the bit-wise path, large ones width-5 NAF digits.
TYPED_TEST(MsmBn254, SmallInputs) {
  using C = TypeParam;
  auto g = test::rng(std::string("MsmBn254.SmallInputs.") + typeid(C).name());
  const auto bases = random_bases<C>(16, g);
  for (size_t n = 1; n <= 16; ++n) {
    std::vector<Fq> k(n);
    for (size_t i = 0; i < n; ++i) k[i] = i % 2 ? Fq::from_u64(g() % (1u << 20)) : Fq::random(g);
    const std::span<const ec::Affine<C>> b(bases.data(), n);
    ASSERT_EQ(msm::msm<C>(b, k), naive<C>(b, k)) << "n=" << n;
  }
  const std::vector<ec::Affine<C>> inf(3, ec::Affine<C>::infinity());
  const std::vector<Fq> k3 = {Fq::random(g), Fq::one(), Fq::zero()};
  EXPECT_TRUE(msm::msm<C>(inf, k3).is_infinity());
  EXPECT_TRUE(msm::msm<C>(std::span<const ec::Affine<C>>(), std::span<const Fq>()).is_infinity());
  // Σ over one repeated base: (k₀ + k₁ + k₂)·P.
  const std::vector<ec::Affine<C>> same(3, bases[0]);
  EXPECT_EQ(msm::msm<C>(same, k3),
            ec::Jacobian<C>::from_affine(bases[0]).mul_scalar(k3[0] + k3[1] + k3[2]));
  const std::vector<Fq> two(2);
  EXPECT_THROW(msm::msm<C>(same, two), InvalidArgument);
}

// Witness-like mixes (mostly 0 and 1): split_scalars' counts, msm_split both ways, sum_bits.
TYPED_TEST(MsmBn254, Split) {
  using C = TypeParam;
  auto g = test::rng(std::string("MsmBn254.Split.") + typeid(C).name());
  for (size_t n : {0u, 1u, 63u, 64u, 65u, 1000u}) {
    auto bases = random_bases<C>(n, g);
    degenerate(bases, 11, g);
    std::vector<Fq> k(n);
    msm::SplitStats counted;
    for (Fq& x : k) {
      const unsigned roll = unsigned(g() % 10);
      x = roll < 4 ? Fq::zero() : roll < 8 ? Fq::one() : Fq::random(g);
      ++(x.is_zero() ? counted.zeros : x.is_one() ? counted.ones : counted.others);
    }
    const ec::Jacobian<C> want = naive<C>(bases, k);
    msm::SplitStats stats;
    ASSERT_EQ(msm::msm_split<C>(bases, k, &stats), want) << "n=" << n;
    EXPECT_EQ(stats.zeros, counted.zeros);
    EXPECT_EQ(stats.ones, counted.ones);
    EXPECT_EQ(stats.others, counted.others);
    const msm::ScalarSplitT<Fq> split = msm::split_scalars(k);
    ASSERT_EQ(msm::msm_split<C>(bases, split), want) << "n=" << n;
    ec::Jacobian<C> ones = ec::Jacobian<C>::infinity();
    for (size_t i = 0; i < n; ++i)
      if (k[i].is_one()) ones += ec::Jacobian<C>::from_affine(bases[i]);
    ASSERT_EQ(msm::sum_bits<C>(bases, split.ones.data()), ones) << "n=" << n;
  }
  const msm::ScalarSplitT<Fq> three = msm::split_scalars(std::vector<Fq>(3, Fq::one()));
  EXPECT_THROW(msm::msm_split<C>(random_bases<C>(2, g), three), InvalidArgument);
}

// Σ_w d_w·2^(wc) = k in Fr, every digit in [−2^(c−1), 2^(c−1)), for every window width.
TEST(MsmBn254Recode, DigitsSumBack) {
  auto g = test::rng("MsmBn254Recode.DigitsSumBack");
  std::vector<Fq> k = mixed_scalars(200, g);
  k.push_back(-Fq::one());
  for (size_t c = msm::detail::kMinWindowBits; c <= msm::detail::kMaxWindowBits; ++c) {
    const msm::detail::Plan plan{c, msm::detail::window_count<Fq>(c), 1};
    EXPECT_LE(plan.windows * c, 254 + c + c) << "c=" << c;  // no more windows than r needs
    const auto digits = msm::detail::recode<Fq>(k, plan, 1);
    const Fq radix = Fq::from_u64(uint64_t(1) << c);
    const int64_t half = int64_t(1) << (c - 1);
    for (size_t i = 0; i < k.size(); ++i) {
      Fq sum = Fq::zero();
      for (size_t w = plan.windows; w-- > 0;) {
        const int64_t d = digits[w * k.size() + i];
        ASSERT_TRUE(d >= -half && d < half) << "c=" << c << " d=" << d;
        sum = sum * radix + Fq::from_i64(d);
      }
      ASSERT_EQ(sum, k[i]) << "c=" << c << " i=" << i;
    }
  }
}

}  // namespace
}  // namespace snarkd
