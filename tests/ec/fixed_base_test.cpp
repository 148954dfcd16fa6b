// ec::FixedBaseTable over BLS12-381's and BN254's G1 and G2: mul_many (affine accumulators with
// shared inversions, in chunks on the pool) against mul (mixed Jacobian additions) and against
// double-and-add, for edge scalars (0, 1, −1, one digit per window, the top window) and enough
// random ones to span several chunks and both threads.
#include <gtest/gtest.h>

#include <vector>

#include "common/seed.hpp"
#include "snarkd/ec/bn254.hpp"
#include "snarkd/ec/fixed_base.hpp"
#include "snarkd/ec/g1.hpp"
#include "snarkd/ec/g2.hpp"

namespace snarkd::ec {
namespace {

template <class C>
class FixedBase : public ::testing::Test {};
using Groups = ::testing::Types<G1Config, G2Config, bn254::G1Config, bn254::G2Config>;
TYPED_TEST_SUITE(FixedBase, Groups);

template <class S>
std::vector<S> edge_scalars() {
  std::vector<S> s = {S::zero(),        S::one(),         -S::one(),
                      S::from_u64(255), S::from_u64(256), S::from_u64(0xff00ff00ff00ffull)};
  S window = S::one();
  for (int w = 0; w < 32; ++w, window *= S::from_u64(256)) s.push_back(window * S::from_u64(1 + w));
  return s;
}

TYPED_TEST(FixedBase, ManyMatchesOneByOne) {
  using C = TypeParam;
  using S = typename C::Scalar;
  auto g = test::rng("fixed-base-many");
  const FixedBaseTable<C> table(generator<C>());
  std::vector<S> s = edge_scalars<S>();
  const size_t edges = s.size();
  while (s.size() < 2600) s.push_back(S::random(g));  // 3 chunks of 1024, split over the pool
  const auto many = table.mul_many(s);
  ASSERT_EQ(many.size(), s.size());
  const auto base = Jacobian<C>::from_affine(generator<C>());
  for (size_t i = 0; i < s.size(); ++i) {
    ASSERT_EQ(many[i], table.mul(s[i]).to_affine()) << i;
    if (i < edges || i % 97 == 0) {
      ASSERT_EQ(many[i], base.mul_scalar(s[i]).to_affine()) << i;
    }
  }
}

}  // namespace
}  // namespace snarkd::ec
