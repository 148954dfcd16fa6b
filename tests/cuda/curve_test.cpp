// The device point formulas (cuda/curve.hpp) run on the host too, through the device fields'
// host path; here they are compared with the host reference ec::Xyzz on random points, doublings
// (one, and chains of k by dbl_n), P + P, P + (−P) and infinities, for every group (BLS12-381 and
// BN254, G1 and G2). No GPU needed.
#include <gtest/gtest.h>

#include <bit>
#include <random>

#include "common/seed.hpp"
#include "group_names.hpp"
#include "snarkd/cuda/curve.hpp"
#include "snarkd/ec/fixed_base.hpp"

namespace snarkd::cuda {
namespace {

template <class C>
class CudaCurve : public ::testing::Test {};
TYPED_TEST_SUITE(CudaCurve, test::Groups, test::GroupNames);

TYPED_TEST(CudaCurve, FormulasMatchHost) {
  using C = TypeParam;
  using F = DeviceFieldOf<C>;
  static_assert(std::is_same_v<typename HostCurve<F>::type, C>);
  auto g = snarkd::test::current_test_rng();
  using HA = ec::Affine<C>;
  using HX = ec::Xyzz<C>;
  auto dev = [](const HX& p) { return std::bit_cast<Xyzz<F>>(p); };
  auto host = [](const Xyzz<F>& p) { return std::bit_cast<HX>(p).to_jacobian(); };
  auto dev_a = [](const HA& p) { return std::bit_cast<Affine<F>>(p); };
  const auto gen = ec::Jacobian<C>::from_affine(ec::generator<C>());
  for (int i = 0; i < 20; ++i) {
    const HA p = gen.mul_scalar(C::Scalar::random(g)).to_affine();
    const HA q = gen.mul_scalar(C::Scalar::random(g)).to_affine();
    const HX xp = HX::from_affine(p).dbl();  // a point with ZZ ≠ 1
    const HX xq = HX::from_affine(q);
    EXPECT_EQ(host(dev(xp).add_mixed(dev_a(q))), xp.add_mixed(q).to_jacobian());
    EXPECT_EQ(host(dev(xp) + dev(xq)), (xp + xq).to_jacobian());
    EXPECT_EQ(host(dev(xp).dbl()), xp.dbl().to_jacobian());
    EXPECT_EQ(host(Xyzz<F>::from_affine(dev_a(p)).add_mixed(dev_a(p))), HX::from_affine(p).dbl().to_jacobian());
    EXPECT_TRUE(Xyzz<F>::from_affine(dev_a(p)).add_mixed(-dev_a(p)).is_infinity());
    EXPECT_EQ(host(Xyzz<F>::infinity().add_mixed(dev_a(p))), ec::Jacobian<C>::from_affine(p));
    EXPECT_EQ(host(dev(xp).add_mixed(Affine<F>::infinity())), xp.to_jacobian());
    EXPECT_EQ(host(dev(xp) + Xyzz<F>::infinity()), xp.to_jacobian());
    HX twice = xp;  // 2^k·xp by XYZZ doublings against dbl_n's Jacobian chain
    for (uint32_t k = 0; k <= 21; ++k, twice = twice.dbl()) {
      if (k % 7 == 0 || k < 3) EXPECT_EQ(host(dev(xp).dbl_n(k)), twice.to_jacobian()) << "k = " << k;
    }
  }
  EXPECT_TRUE(Xyzz<F>::infinity().dbl_n(5).is_infinity());
}

}  // namespace
}  // namespace snarkd::cuda
