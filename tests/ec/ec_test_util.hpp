// Shared helpers for the curve tests: random points (in and out of the subgroup), hex, GMP.
#pragma once
#include <gmp.h>

#include <cstdint>
#include <stdexcept>
#include <span>
#include <string>
#include <vector>

#include "snarkd/ec/g1.hpp"
#include "snarkd/ec/g2.hpp"
#include "snarkd/ff/fr.hpp"
#include "common/gmp_util.hpp"
#include "common/seed.hpp"

namespace snarkd::test {

// The BLS parameter x = −0xd201000000010000 as a GMP integer (the tests derive r, p, cofactors
// from it independently of the library's constants).
inline Mpz bls_x() {
  Mpz x = Mpz::from_hex("d201000000010000");
  mpz_neg(x, x);
  return x;
}

inline std::vector<uint8_t> from_hex(const std::string& s) {
  std::vector<uint8_t> out(s.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) out[i] = uint8_t(std::stoul(s.substr(2 * i, 2), nullptr, 16));
  return out;
}
inline std::string to_hex(std::span<const uint8_t> b) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (uint8_t c : b) s += {d[c >> 4], d[c & 15]};
  return s;
}

using ec::generator;

template <class Rng>
ff::Fr random_fr(Rng& g) {
  return ff::Fr::random(g);
}

// k·G for a random k: a uniformly random subgroup point.
template <class C, class Rng>
ec::Affine<C> random_subgroup_point(Rng& g) {
  return ec::Jacobian<C>::from_affine(generator<C>()).mul_scalar(random_fr(g)).to_affine();
}

// A random point of the whole curve group: random x until x³ + b is a square, random root.
// Outside the subgroup with probability 1 − 1/h.
template <class C, class Rng>
ec::Affine<C> random_curve_point(Rng& g) {
  using F = typename C::Field;
  for (;;) {
    F x = F::random(g), y;
    if (!(x.square() * x + C::b()).sqrt(y)) continue;
    return {x, (g() & 1) ? -y : y};
  }
}

// The same point with a random Z (so formulas are exercised with Z ≠ 1).
template <class C, class Rng>
ec::Jacobian<C> randomize(const ec::Affine<C>& p, Rng& g) {
  using F = typename C::Field;
  if (p.is_infinity()) return ec::Jacobian<C>::infinity();
  F z = F::random(g), z2 = z.square();
  return {p.x * z2, p.y * z2 * z, z};
}
template <class C, class Rng>
ec::Xyzz<C> randomize_xyzz(const ec::Affine<C>& p, Rng& g) {
  using F = typename C::Field;
  if (p.is_infinity()) return ec::Xyzz<C>::infinity();
  F z = F::random(g), z2 = z.square(), z3 = z2 * z;
  return {p.x * z2, p.y * z3, z2, z3};
}

}  // namespace snarkd::test
