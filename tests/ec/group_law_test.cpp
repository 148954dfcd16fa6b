// Group laws for G1 and G2 in all three coordinate forms, on random points of the whole curve
// (the laws hold there too, and off-subgroup points reach formula branches subgroup points do
// not). Every comparison goes through affine coordinates or the projective ==.
#include <gtest/gtest.h>

#include <vector>

#include "snarkd/ec/curve.hpp"
#include "ec/ec_test_util.hpp"

namespace snarkd::test {
namespace {

template <class C>
class GroupLaw : public ::testing::Test {};
using Groups = ::testing::Types<ec::G1Config, ec::G2Config>;
TYPED_TEST_SUITE(GroupLaw, Groups);

constexpr int kTrials = 16;

TYPED_TEST(GroupLaw, AssociativeCommutativeIdentityInverse) {
  using C = TypeParam;
  using J = ec::Jacobian<C>;
  auto g = rng("group-law-basic");
  for (int t = 0; t < kTrials; ++t) {
    J p = randomize(random_curve_point<C>(g), g);
    J q = randomize(random_curve_point<C>(g), g);
    J r = randomize(random_subgroup_point<C>(g), g);
    EXPECT_EQ((p + q) + r, p + (q + r));
    EXPECT_EQ(p + q, q + p);
    EXPECT_EQ(p + J::infinity(), p);
    EXPECT_EQ(J::infinity() + p, p);
    EXPECT_TRUE((p + (-p)).is_infinity());
    EXPECT_TRUE((p - p).is_infinity());
    EXPECT_EQ((p - q) + q, p);
    EXPECT_TRUE((p + q).to_affine().is_on_curve());
    EXPECT_FALSE(p == q);
  }
  EXPECT_TRUE(J::infinity().dbl().is_infinity());
  EXPECT_TRUE((J::infinity() + J::infinity()).is_infinity());
}

TYPED_TEST(GroupLaw, DoublingMatchesAddition) {
  using C = TypeParam;
  auto g = rng("group-law-dbl");
  for (int t = 0; t < kTrials; ++t) {
    ec::Affine<C> a = random_curve_point<C>(g);
    ec::Jacobian<C> p = randomize(a, g), p2 = randomize(a, g);  // same point, different Z
    EXPECT_EQ(p + p2, p.dbl());
    EXPECT_EQ(p.add_mixed(a), p.dbl());
    EXPECT_EQ(p.dbl().to_affine(), (p + p2).to_affine());
    EXPECT_TRUE(p.dbl().to_affine().is_on_curve());
    EXPECT_EQ(p.dbl() + p, p + p.dbl());
  }
}

TYPED_TEST(GroupLaw, MixedAdditionMatchesJacobian) {
  using C = TypeParam;
  using J = ec::Jacobian<C>;
  auto g = rng("group-law-mixed");
  for (int t = 0; t < kTrials; ++t) {
    J p = randomize(random_curve_point<C>(g), g);
    ec::Affine<C> q = random_curve_point<C>(g);
    EXPECT_EQ(p.add_mixed(q), p + J::from_affine(q));
    EXPECT_EQ(p.add_mixed(q), p + randomize(q, g));
    EXPECT_EQ(p.add_mixed(ec::Affine<C>::infinity()), p);
    EXPECT_EQ(J::infinity().add_mixed(q), J::from_affine(q));
    EXPECT_TRUE(J::from_affine(q).add_mixed(-q).is_infinity());
    EXPECT_TRUE(randomize(q, g).add_mixed(-q).is_infinity());
  }
}

TYPED_TEST(GroupLaw, XyzzMatchesJacobian) {
  using C = TypeParam;
  using J = ec::Jacobian<C>;
  using X = ec::Xyzz<C>;
  auto g = rng("group-law-xyzz");
  for (int t = 0; t < kTrials; ++t) {
    ec::Affine<C> a = random_curve_point<C>(g), b = random_curve_point<C>(g);
    X xa = randomize_xyzz(a, g), xb = randomize_xyzz(b, g);
    J ja = randomize(a, g), jb = randomize(b, g);
    EXPECT_EQ((xa + xb).to_affine(), (ja + jb).to_affine());
    EXPECT_EQ(xa.add_mixed(b).to_affine(), ja.add_mixed(b).to_affine());
    EXPECT_EQ(xa.sub_mixed(b).to_affine(), (ja - jb).to_affine());
    EXPECT_EQ(xa.dbl().to_affine(), ja.dbl().to_affine());
    EXPECT_EQ((xa + xb).to_jacobian(), ja + jb);
    // Doubling and cancellation cases inside the addition formulas.
    EXPECT_EQ(xa.add_mixed(a).to_affine(), ja.dbl().to_affine());
    EXPECT_EQ((xa + randomize_xyzz(a, g)).to_affine(), ja.dbl().to_affine());
    EXPECT_TRUE(xa.sub_mixed(a).is_infinity());
    EXPECT_TRUE((xa + (-xa)).is_infinity());
    EXPECT_EQ(X::infinity().add_mixed(a).to_affine(), a);
    EXPECT_EQ((X::infinity() + xb).to_affine(), b);
    EXPECT_EQ(xa.add_mixed(ec::Affine<C>::infinity()).to_affine(), a);
    EXPECT_TRUE(X::infinity().dbl().is_infinity());
    EXPECT_TRUE(X::infinity().to_jacobian().is_infinity());
    EXPECT_TRUE(X::infinity().to_affine().is_infinity());
  }
}

TYPED_TEST(GroupLaw, AffineRoundTrips) {
  using C = TypeParam;
  using J = ec::Jacobian<C>;
  auto g = rng("group-law-affine");
  for (int t = 0; t < kTrials; ++t) {
    ec::Affine<C> a = random_curve_point<C>(g);
    EXPECT_TRUE(a.is_on_curve());
    EXPECT_EQ(randomize(a, g).to_affine(), a);
    EXPECT_EQ(J::from_affine(a).to_affine(), a);
    EXPECT_EQ(randomize_xyzz(a, g).to_affine(), a);
    EXPECT_EQ(randomize_xyzz(a, g).to_jacobian().to_affine(), a);
    EXPECT_EQ((-randomize(a, g)).to_affine(), -a);
    ec::Affine<C> off = a;
    off.y += C::Field::one();
    EXPECT_FALSE(off.is_on_curve());
  }
  EXPECT_TRUE(J::infinity().to_affine().is_infinity());
  EXPECT_TRUE(J::from_affine(ec::Affine<C>::infinity()).is_infinity());
  EXPECT_TRUE(ec::Affine<C>::infinity().is_on_curve());
  EXPECT_EQ(-ec::Affine<C>::infinity(), ec::Affine<C>::infinity());
}

TYPED_TEST(GroupLaw, BatchToAffineWithInfinities) {
  using C = TypeParam;
  using J = ec::Jacobian<C>;
  auto g = rng("group-law-batch");
  std::vector<J> pts;
  std::vector<ec::Affine<C>> expect;
  for (int i = 0; i < 2 * kTrials; ++i) {
    ec::Affine<C> a = (i % 5 == 0 || i == 2 * kTrials - 1) ? ec::Affine<C>::infinity() : random_curve_point<C>(g);
    pts.push_back(randomize(a, g));
    expect.push_back(a);
  }
  auto out = ec::batch_to_affine<C>(std::span<const J>(pts));
  ASSERT_EQ(out.size(), expect.size());
  for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], expect[i]) << "index " << i;
  EXPECT_TRUE(ec::batch_to_affine<C>(std::span<const J>()).empty());
}

}  // namespace
}  // namespace snarkd::test
