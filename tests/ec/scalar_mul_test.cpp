// Scalar multiplication: linearity in the scalar, the group order, and small multiples against
// repeated addition. Scalars are Fr elements; on subgroup points arithmetic mod r is exact.
#include <gtest/gtest.h>

#include "snarkd/ec/curve.hpp"
#include "ec/ec_test_util.hpp"

namespace snarkd::test {
namespace {

template <class C>
class ScalarMul : public ::testing::Test {};
using Groups = ::testing::Types<ec::G1Config, ec::G2Config>;
TYPED_TEST_SUITE(ScalarMul, Groups);

constexpr int kTrials = 6;

TYPED_TEST(ScalarMul, LinearInTheScalar) {
  using C = TypeParam;
  auto g = rng("scalar-mul-linear");
  for (int t = 0; t < kTrials; ++t) {
    ec::Jacobian<C> p = randomize(random_subgroup_point<C>(g), g);
    ff::Fr a = random_fr(g), b = random_fr(g);
    EXPECT_EQ(p.mul_scalar(a + b), p.mul_scalar(a) + p.mul_scalar(b));  // (a+b)P = aP + bP
    EXPECT_EQ(p.mul_scalar(a * b), p.mul_scalar(b).mul_scalar(a));      // (ab)P = a(bP)
    EXPECT_EQ(p.mul_scalar(-a), -p.mul_scalar(a));
  }
}

TYPED_TEST(ScalarMul, GroupOrderAndEdges) {
  using C = TypeParam;
  using J = ec::Jacobian<C>;
  auto g = rng("scalar-mul-order");
  for (int t = 0; t < kTrials; ++t) {
    J p = randomize(random_subgroup_point<C>(g), g);
    EXPECT_TRUE(p.mul(ff::Fr::kModulus).is_infinity());                 // rP = O
    EXPECT_TRUE(p.mul_scalar(ff::Fr::zero()).is_infinity());            // 0P = O
    EXPECT_EQ(p.mul_scalar(ff::Fr::one()), p);                          // 1P = P
    EXPECT_EQ(p.mul(ff::Fr::kModulusMinusOne), -p);                     // (r−1)P = −P
    EXPECT_TRUE(J::infinity().mul_scalar(random_fr(g)).is_infinity());  // kO = O
  }
  // A point outside the subgroup is not killed by r.
  J q = J::from_affine(random_curve_point<C>(g));
  EXPECT_FALSE(q.mul(ff::Fr::kModulus).is_infinity());
}

// kP against P + P + … + P for k < 40, on points in and out of the subgroup, and the same k as
// 1-limb and 4-limb integers.
TYPED_TEST(ScalarMul, SmallMultiplesMatchRepeatedAddition) {
  using C = TypeParam;
  using J = ec::Jacobian<C>;
  auto g = rng("scalar-mul-small");
  for (bool subgroup : {true, false}) {
    ec::Affine<C> a = subgroup ? random_subgroup_point<C>(g) : random_curve_point<C>(g);
    J p = randomize(a, g);
    J acc = J::infinity();
    for (uint64_t k = 0; k < 40; ++k) {
      EXPECT_EQ(p.mul(ff::BigInt<1>::from_u64(k)), acc) << "k = " << k;
      EXPECT_EQ(p.mul(ff::BigInt<4>::from_u64(k)), acc) << "k = " << k;
      acc = acc.add_mixed(a);
    }
  }
}

// A 64-bit scalar against binary double-and-add written out here (independent of the windows).
TYPED_TEST(ScalarMul, MatchesDoubleAndAdd) {
  using C = TypeParam;
  using J = ec::Jacobian<C>;
  auto g = rng("scalar-mul-dbl-add");
  for (int t = 0; t < kTrials; ++t) {
    ec::Affine<C> a = random_curve_point<C>(g);
    uint64_t k = g();
    J expect = J::infinity();
    for (int i = 63; i >= 0; --i) {
      expect = expect.dbl();
      if ((k >> i) & 1) expect = expect.add_mixed(a);
    }
    EXPECT_EQ(J::from_affine(a).mul(ff::BigInt<1>::from_u64(k)), expect);
  }
}

}  // namespace
}  // namespace snarkd::test
