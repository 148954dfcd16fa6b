// Fp2 = Fp[u]/(u² + 1), the field of G2 coordinates. Element c0 + c1·u; memory layout c0‖c1
// (snarkjs LEM order; ZCash encodings write c1 first, handled by the encoders).
#pragma once
#include <type_traits>

#include "snarkd/ff/fp.hpp"

namespace snarkd::ff {

struct Fp2 {
  Fp c0, c1;

  static constexpr Fp2 zero() { return {}; }
  static constexpr Fp2 one() { return {Fp::one(), Fp::zero()}; }
  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  constexpr bool is_one() const { return c0.is_one() && c1.is_zero(); }
  constexpr bool operator==(const Fp2& o) const { return c0 == o.c0 && c1 == o.c1; }
  constexpr bool operator!=(const Fp2& o) const { return !(*this == o); }

  constexpr Fp2 operator+(const Fp2& b) const { return {c0 + b.c0, c1 + b.c1}; }
  constexpr Fp2 operator-(const Fp2& b) const { return {c0 - b.c0, c1 - b.c1}; }
  constexpr Fp2 operator-() const { return {-c0, -c1}; }
  // Karatsuba: 3 Fp multiplications. ADX builds reduce lazily (mul_lazy): 3 double-width
  // products, 2 reductions instead of 3.
  constexpr Fp2 operator*(const Fp2& b) const {
#ifdef SNARKD_FF_ADX
    if (!std::is_constant_evaluated()) return mul_lazy(b);
#endif
    Fp v0 = c0 * b.c0, v1 = c1 * b.c1;
    return {v0 - v1, (c0 + c1) * (b.c0 + b.c1) - v0 - v1};
  }
  constexpr Fp2 operator*(const Fp& b) const { return {c0 * b, c1 * b}; }
  constexpr Fp2& operator+=(const Fp2& b) { return *this = *this + b; }
  constexpr Fp2& operator-=(const Fp2& b) { return *this = *this - b; }
  constexpr Fp2& operator*=(const Fp2& b) { return *this = *this * b; }
  constexpr Fp2 dbl() const { return {c0.dbl(), c1.dbl()}; }
  // (a + bu)² = (a+b)(a−b) + 2ab·u: 2 multiplications.
  constexpr Fp2 square() const { return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()}; }
  constexpr Fp2 conjugate() const { return {c0, -c1}; }
  // Multiplication by the sextic non-residue ξ = 1 + u used by the Fp6 tower.
  constexpr Fp2 mul_by_nonresidue() const { return {c0 - c1, c0 + c1}; }
  // Frobenius x ↦ x^(p^k): conjugation for odd k.
  constexpr Fp2 frobenius(size_t k) const { return (k & 1) ? conjugate() : *this; }
  constexpr Fp norm() const { return c0.square() + c1.square(); }
  constexpr Fp2 inverse() const {
    Fp t = norm().inverse();
    return {c0 * t, -(c1 * t)};
  }
  template <size_t M>
  constexpr Fp2 pow(const BigInt<M>& e) const {
    return pow_vartime(*this, e);
  }
  // Non-zero squares have a norm that is a square in Fp.
  constexpr int legendre() const { return is_zero() ? 0 : norm().legendre(); }
  // Square root for p ≡ 3 mod 4 (Adj–Rodríguez-Henríquez, eprint 2012/685, Algorithm 9).
  bool sqrt(Fp2& out) const;
  // Lexicographic "largest" as in the ZCash encoding's sign bit: compares c1 first, then c0.
  bool lexicographically_largest() const;
#ifdef SNARKD_FF_ADX
  Fp2 mul_lazy(const Fp2& b) const;
#endif

  template <class G>
  static Fp2 random(G& g) {
    Fp a = Fp::random(g);
    return {a, Fp::random(g)};
  }
};

// True when y > (p − 1)/2 as an integer (ZCash's sign of an Fp element).
bool lexicographically_largest(const Fp& y);

}  // namespace snarkd::ff
