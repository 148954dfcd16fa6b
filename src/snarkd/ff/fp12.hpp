// Fp12 = Fp6[w]/(w² − v): the top of the BLS12-381 tower and the home of GT. Element c0 + c1·w.
// Over Fp2 the basis is 1, v, v², w, vw, v²w = w⁰, w², w⁴, w¹, w³, w⁵ (w⁶ = ξ); the sparse
// multiplication names its non-zero slots by position in that list (mul_by_014 = 1, v, vw).
#pragma once
#include <cstddef>

#include "snarkd/ff/fp6.hpp"

namespace snarkd::ff {

struct Fp12 {
  Fp6 c0, c1;

  static constexpr Fp12 zero() { return {}; }
  static constexpr Fp12 one() { return {Fp6::one(), Fp6::zero()}; }
  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  constexpr bool is_one() const { return c0.is_one() && c1.is_zero(); }
  constexpr bool operator==(const Fp12& o) const { return c0 == o.c0 && c1 == o.c1; }
  constexpr bool operator!=(const Fp12& o) const { return !(*this == o); }

  constexpr Fp12 operator+(const Fp12& b) const { return {c0 + b.c0, c1 + b.c1}; }
  constexpr Fp12 operator-(const Fp12& b) const { return {c0 - b.c0, c1 - b.c1}; }
  constexpr Fp12 operator-() const { return {-c0, -c1}; }
  Fp12& operator*=(const Fp12& b) { return *this = *this * b; }

  Fp12 operator*(const Fp12& b) const;  // Karatsuba: 3 Fp6 mul = 18 Fp2 mul
  Fp12 square() const;                  // complex squaring: 2 Fp6 mul
  Fp12 inverse() const;                 // one Fp6 inversion; 0 ↦ 0
  // x^(p^6): the non-trivial automorphism over Fp6; the inverse on the cyclotomic subgroup.
  constexpr Fp12 conjugate() const { return {c0, -c1}; }
  // x ↦ x^(p^k) for any k (period 12), one Fp2 multiplication per non-constant coefficient.
  Fp12 frobenius(size_t k) const;
  // ·(l0 + l1·v + l4·vw): the shape of a Miller-loop line on the M-type twist; 13 Fp2 mul.
  Fp12 mul_by_014(const Fp2& l0, const Fp2& l1, const Fp2& l4) const;
  // x² for x in the cyclotomic subgroup (x^(p⁴ − p² + 1) = 1, which holds for every output of
  // the easy part of the final exponentiation): Granger–Scott, 9 Fp2 squarings instead of the
  // 12 Fp2 multiplications of square(). Wrong for other elements.
  Fp12 cyclotomic_square() const;

  // Generic left-to-right square-and-multiply (variable time in the public exponent e).
  template <size_t M>
  Fp12 pow(const BigInt<M>& e) const {
    return ff::pow_vartime(*this, e);
  }

  template <class G>
  static Fp12 random(G& g) {
    Fp6 a = Fp6::random(g);
    return {a, Fp6::random(g)};
  }
};

}  // namespace snarkd::ff
