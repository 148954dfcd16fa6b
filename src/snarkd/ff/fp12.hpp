// Fp12 = Fp6[w]/(w² − v): the top of the tower and the home of GT. Element c0 + c1·w.
// Over Fp2 the basis is 1, v, v², w, vw, v²w = w⁰, w², w⁴, w¹, w³, w⁵ (w⁶ = ξ); the sparse
// multiplications name their non-zero slots by position in that list (mul_by_014 = 1, v, vw for
// the lines of an M-type twist such as BLS12-381's, mul_by_034 = 1, w, vw for a D-type twist
// such as BN254's).
#pragma once
#include <cstddef>

#include "snarkd/ff/fp6.hpp"

namespace snarkd::ff {

template <class Cfg>
struct Fp12T {
  using Fp2 = Fp2T<Cfg>;
  using Fp6 = Fp6T<Cfg>;
  Fp6 c0, c1;

  static constexpr Fp12T zero() { return {}; }
  static constexpr Fp12T one() { return {Fp6::one(), Fp6::zero()}; }
  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  constexpr bool is_one() const { return c0.is_one() && c1.is_zero(); }
  constexpr bool operator==(const Fp12T& o) const { return c0 == o.c0 && c1 == o.c1; }
  constexpr bool operator!=(const Fp12T& o) const { return !(*this == o); }

  constexpr Fp12T operator+(const Fp12T& b) const { return {c0 + b.c0, c1 + b.c1}; }
  constexpr Fp12T operator-(const Fp12T& b) const { return {c0 - b.c0, c1 - b.c1}; }
  constexpr Fp12T operator-() const { return {-c0, -c1}; }
  Fp12T& operator*=(const Fp12T& b) { return *this = *this * b; }

  Fp12T operator*(const Fp12T& b) const;  // Karatsuba: 3 Fp6 mul = 18 Fp2 mul
  Fp12T square() const;                   // complex squaring: 2 Fp6 mul
  Fp12T inverse() const;                  // one Fp6 inversion; 0 ↦ 0
  // x^(p^6): the non-trivial automorphism over Fp6; the inverse on the cyclotomic subgroup.
  constexpr Fp12T conjugate() const { return {c0, -c1}; }
  // x ↦ x^(p^k) for any k (period 12), one Fp2 multiplication per non-constant coefficient.
  Fp12T frobenius(size_t k) const;
  // ·(l0 + l1·v + l4·vw): the shape of a Miller-loop line on the M-type twist; 13 Fp2 mul.
  Fp12T mul_by_014(const Fp2& l0, const Fp2& l1, const Fp2& l4) const;
  // ·(l0 + l3·w + l4·vw): the shape of a Miller-loop line on the D-type twist; 13 Fp2 mul.
  Fp12T mul_by_034(const Fp2& l0, const Fp2& l3, const Fp2& l4) const;
  // x² for x in the cyclotomic subgroup (x^(p⁴ − p² + 1) = 1, which holds for every output of
  // the easy part of the final exponentiation): Granger–Scott, 9 Fp2 squarings instead of the
  // 12 Fp2 multiplications of square(). Wrong for other elements.
  Fp12T cyclotomic_square() const;

  // Generic left-to-right square-and-multiply (variable time in the public exponent e).
  template <size_t M>
  Fp12T pow(const BigInt<M>& e) const {
    return ff::pow_vartime(*this, e);
  }

  template <class G>
  static Fp12T random(G& g) {
    Fp6 a = Fp6::random(g);
    return {a, Fp6::random(g)};
  }
};

using Fp12 = Fp12T<Bls12381Tower>;

}  // namespace snarkd::ff
