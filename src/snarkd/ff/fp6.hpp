// Fp6 = Fp2[v]/(v³ − ξ): the middle of the tower, ξ = Cfg::kXiC0 + u (1 + u for BLS12-381,
// 9 + u for BN254). Element c0 + c1·v + c2·v².
//
// The Frobenius coefficients are derived in constexpr from ξ and p (fp6.cpp), never pasted;
// tests/pairing recomputes them with GMP.
#pragma once
#include <array>
#include <cstddef>

#include "snarkd/ff/fp2.hpp"

namespace snarkd::ff {

namespace detail {
// Gamma[k][j] = ξ^(j·(p^k − 1)/6) for k = 0..11, j = 0..5. Since w⁶ = v³ = ξ,
// (w^j)^(p^k) = w^j · Gamma[k][j]: Fp6 uses j = 2, 4 (v, v²), Fp12 uses j odd, the twists'
// Frobenius endomorphisms use j = 2, 3.
template <class Cfg>
using FrobeniusTableT = std::array<std::array<Fp2T<Cfg>, 6>, 12>;
// One table per tower, defined and instantiated in fp6.cpp.
template <class Cfg>
struct FrobeniusCoefficients {
  static const FrobeniusTableT<Cfg> kGamma;
};
using FrobeniusTable = FrobeniusTableT<Bls12381Tower>;
// The BLS12-381 table (its historical name).
inline constexpr const FrobeniusTable& kFrobeniusGamma = FrobeniusCoefficients<Bls12381Tower>::kGamma;
}  // namespace detail

template <class Cfg>
struct Fp6T {
  using Fp2 = Fp2T<Cfg>;
  Fp2 c0, c1, c2;

  static constexpr Fp6T zero() { return {}; }
  static constexpr Fp6T one() { return {Fp2::one(), Fp2::zero(), Fp2::zero()}; }
  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
  constexpr bool is_one() const { return c0.is_one() && c1.is_zero() && c2.is_zero(); }
  constexpr bool operator==(const Fp6T& o) const { return c0 == o.c0 && c1 == o.c1 && c2 == o.c2; }
  constexpr bool operator!=(const Fp6T& o) const { return !(*this == o); }

  constexpr Fp6T operator+(const Fp6T& b) const { return {c0 + b.c0, c1 + b.c1, c2 + b.c2}; }
  constexpr Fp6T operator-(const Fp6T& b) const { return {c0 - b.c0, c1 - b.c1, c2 - b.c2}; }
  constexpr Fp6T operator-() const { return {-c0, -c1, -c2}; }
  constexpr Fp6T dbl() const { return {c0.dbl(), c1.dbl(), c2.dbl()}; }
  constexpr Fp6T& operator+=(const Fp6T& b) { return *this = *this + b; }
  constexpr Fp6T& operator-=(const Fp6T& b) { return *this = *this - b; }
  Fp6T& operator*=(const Fp6T& b) { return *this = *this * b; }

  Fp6T operator*(const Fp6T& b) const;  // Karatsuba: 6 Fp2 multiplications
  Fp6T operator*(const Fp2& b) const { return {c0 * b, c1 * b, c2 * b}; }
  Fp6T square() const;   // Chung–Hasan SQR2: 2 Fp2 mul + 3 Fp2 sq
  Fp6T inverse() const;  // one Fp2 inversion; 0 ↦ 0
  // ·v: (c0 + c1 v + c2 v²)·v = ξ c2 + c0 v + c1 v² (additions only).
  constexpr Fp6T mul_by_nonresidue() const { return {c2.mul_by_nonresidue(), c0, c1}; }
  // Sparse products used by the Miller loop's line multiplication.
  Fp6T mul_by_01(const Fp2& b0, const Fp2& b1) const;  // ·(b0 + b1 v): 5 Fp2 mul
  Fp6T mul_by_1(const Fp2& b1) const;                  // ·(b1 v): 3 Fp2 mul
  // x ↦ x^(p^k) for any k (the map has period 6 on Fp6).
  Fp6T frobenius(size_t k) const;

  template <class G>
  static Fp6T random(G& g) {
    Fp2 a = Fp2::random(g), b = Fp2::random(g);
    return {a, b, Fp2::random(g)};
  }
};

using Fp6 = Fp6T<Bls12381Tower>;

}  // namespace snarkd::ff
