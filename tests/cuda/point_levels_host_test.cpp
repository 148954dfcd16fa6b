// cuda/point_levels.hpp on the host: the levelled doubling, addition and Horner chain (what one
// warp runs on the device, WarpMul) against curve.hpp's formulas bit for bit and against the
// reference curve (ec/curve.hpp) as points, for every group, with every special case of the
// addition. The device's lanes are covered by every GPU MSM test (each result passes through
// the warp Horner; the trees' combine with SNARKD_MSM_REDUCE=tree).
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <random>
#include <vector>

#include "common/ec_util.hpp"
#include "common/seed.hpp"
#include "group_names.hpp"
#include "snarkd/cuda/point_levels.hpp"

namespace snarkd::cuda {
namespace {

template <class C>
using DevXyzz = Xyzz<DeviceFieldOf<C>>;

template <class C>
DevXyzz<C> dev(const ec::Xyzz<C>& p) {
  return std::bit_cast<DevXyzz<C>>(p);
}
template <class C>
ec::Jacobian<C> ref(const DevXyzz<C>& p) {
  return std::bit_cast<ec::Xyzz<C>>(p).to_jacobian();
}
template <class C>
bool same_bytes(const DevXyzz<C>& a, const DevXyzz<C>& b) {
  return std::memcmp(&a, &b, sizeof a) == 0 || (a.is_infinity() && b.is_infinity());
}

template <class C>
class PointLevelsHost : public ::testing::Test {};
TYPED_TEST_SUITE(PointLevelsHost, test::Groups, test::GroupNames);

TYPED_TEST(PointLevelsHost, DoublingIsCurveDoubling) {
  using C = TypeParam;
  auto g = snarkd::test::current_test_rng();
  for (const auto& h : snarkd::test::random_xyzz<C>(g, 6)) {
    const DevXyzz<C> p = dev(h), got = dbl_levels(p, SerialMul{});
    EXPECT_TRUE(same_bytes<C>(got, p.dbl()));
    EXPECT_EQ(ref<C>(got), h.to_jacobian().dbl());
  }
  EXPECT_TRUE(dbl_levels(DevXyzz<C>::infinity(), SerialMul{}).is_infinity());
}

TYPED_TEST(PointLevelsHost, AdditionCoversEveryCase) {
  using C = TypeParam;
  auto g = snarkd::test::current_test_rng();
  const auto pts = snarkd::test::random_xyzz<C>(g, 8);
  const ec::Xyzz<C> inf = ec::Xyzz<C>::infinity();
  for (size_t i = 0; i + 1 < pts.size(); i += 2) {
    const ec::Xyzz<C> &p = pts[i], &q = pts[i + 1];
    const ec::Xyzz<C> p_other_z = p.dbl() + (-p);  // p with another ZZ: the doubling branch
    ASSERT_FALSE(same_bytes<C>(dev(p_other_z), dev(p)));
    const std::pair<ec::Xyzz<C>, ec::Xyzz<C>> cases[] = {{p, q}, {p, p}, {p, p_other_z}, {p, -p},
                                                         {p, -p_other_z}, {inf, q}, {p, inf}, {inf, inf}};
    for (const auto& [a, b] : cases) {
      const DevXyzz<C> got = add_levels(dev(a), dev(b), SerialMul{});
      EXPECT_TRUE(same_bytes<C>(got, dev(a) + dev(b)));
      EXPECT_EQ(ref<C>(got), a.to_jacobian() + b.to_jacobian());
    }
  }
}

// Σ_w 2^(c·w)·S_w with infinite sums at the top, inside and at the bottom, one window, and c = 1.
TYPED_TEST(PointLevelsHost, HornerIsTheWeightedSum) {
  using C = TypeParam;
  auto g = snarkd::test::current_test_rng();
  const bool g2 = !kIsPrimeField<DeviceFieldOf<C>>;
  for (const auto& [windows, c] : {std::pair{1u, 5u}, {2u, 1u}, {5u, 3u}, {g2 ? 4u : 13u, g2 ? 8u : 20u}}) {
    auto sums = snarkd::test::random_xyzz<C>(g, windows);
    for (int shape = 0; shape < 3; ++shape) {
      if (shape == 1) sums.back() = ec::Xyzz<C>::infinity();
      if (shape == 2) sums.front() = sums[windows / 2] = ec::Xyzz<C>::infinity();
      std::vector<DevXyzz<C>> d;
      for (const auto& s : sums) d.push_back(dev(s));
      ec::Jacobian<C> want = ec::Jacobian<C>::infinity();
      for (uint32_t w = windows; w-- > 0;) {
        for (uint32_t i = 0; i < c; ++i) want = want.dbl();
        want += sums[w].to_jacobian();
      }
      EXPECT_EQ(ref<C>(horner_levels(d.data(), windows, c, SerialMul{})), want)
          << windows << " windows, c = " << c << ", shape " << shape;
    }
  }
}

}  // namespace
}  // namespace snarkd::cuda
