// Random curve points for tests: k·G for uniform k, by one shared fixed-base table per group
// (≈ 32 mixed additions a point instead of a full scalar multiplication). k is drawn in
// BLS12-381's Fr (the table's digits are of its canonical integer) for every group, BN254's
// included: any integer multiple of the generator is a group element.
#pragma once
#include <random>
#include <vector>

#include "snarkd/ec/curve.hpp"
#include "snarkd/ec/fixed_base.hpp"
#include "snarkd/ff/fr.hpp"

namespace snarkd::test {

template <class C>
std::vector<ec::Affine<C>> random_points(std::mt19937_64& g, size_t n) {
  static const ec::FixedBaseTable<C> table(ec::generator<C>());
  using Scalar = typename C::Scalar;  // the table's scalars: the group's own field
  std::vector<Scalar> k(n);
  for (auto& x : k) x = Scalar::random(g);
  return table.mul_many(k);
}

// Points as an accumulation leaves them (ZZ ≠ 1): sums of two random points.
template <class C>
std::vector<ec::Xyzz<C>> random_xyzz(std::mt19937_64& g, size_t n) {
  const auto pts = random_points<C>(g, 2 * n);
  std::vector<ec::Xyzz<C>> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(ec::Xyzz<C>::from_affine(pts[2 * i]).add_mixed(pts[2 * i + 1]));
  return out;
}

}  // namespace snarkd::test
