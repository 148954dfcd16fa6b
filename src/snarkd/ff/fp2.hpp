// Fp2 = Fp[u]/(u² + 1), the field of G2 coordinates. Element c0 + c1·u; memory layout c0‖c1
// (snarkjs LEM order; ZCash and Ethereum encodings write c1 first, handled by the encoders).
//
// The tower Fp2 ⊂ Fp6 ⊂ Fp12 is generic over a configuration Cfg (Fp2T, Fp6T, Fp12T) so that
// BLS12-381 and BN254 share one implementation. Cfg provides:
//   using Base = the prime field (p ≡ 3 mod 4, so u² = −1 defines Fp2);
//   kXiC0: the sextic non-residue of the Fp6 tower is ξ = kXiC0 + u;
//   kLazyFp2Mul: use the ADX lazily reduced Fp2 product (6-limb Fp only, see mul_lazy).
// ff::Fp2 / Fp6 / Fp12 stay the BLS12-381 types (same layout as before the templates);
// ff/bn254_tower.hpp names the BN254 ones.
#pragma once
#include <cstdint>
#include <type_traits>

#include "snarkd/ff/fp.hpp"

namespace snarkd::ff {

// BLS12-381: ξ = 1 + u (the tower of @noble/curves, mcl, zkcrypto).
struct Bls12381Tower {
  using Base = Fp;
  static constexpr uint64_t kXiC0 = 1;
  static constexpr bool kLazyFp2Mul = true;
};

// True when y > (p − 1)/2 as an integer (ZCash's sign of an Fp element).
template <class P>
bool lexicographically_largest(const Field<P>& y) {
  static constexpr typename Field<P>::Repr kHalf = shr(Field<P>::kModulusMinusOne, 1);
  return less_than(kHalf, y.to_repr());
}

namespace detail {
// k·x for a small compile-time k by double-and-add (ξ's coefficient: additions beat a product).
template <uint64_t k, class F>
constexpr F mul_small(const F& x) {
  static_assert(k > 0);
  if constexpr (k == 1) {
    return x;
  } else if constexpr (k % 2 == 0) {
    return mul_small<k / 2>(x).dbl();
  } else {
    return mul_small<k - 1>(x) + x;
  }
}
}  // namespace detail

template <class Cfg>
struct Fp2T {
  using Base = typename Cfg::Base;
  Base c0, c1;

  static constexpr Fp2T zero() { return {}; }
  static constexpr Fp2T one() { return {Base::one(), Base::zero()}; }
  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  constexpr bool is_one() const { return c0.is_one() && c1.is_zero(); }
  constexpr bool operator==(const Fp2T& o) const { return c0 == o.c0 && c1 == o.c1; }
  constexpr bool operator!=(const Fp2T& o) const { return !(*this == o); }

  constexpr Fp2T operator+(const Fp2T& b) const { return {c0 + b.c0, c1 + b.c1}; }
  constexpr Fp2T operator-(const Fp2T& b) const { return {c0 - b.c0, c1 - b.c1}; }
  constexpr Fp2T operator-() const { return {-c0, -c1}; }
  // Karatsuba: 3 Fp multiplications. ADX builds of the BLS tower reduce lazily (mul_lazy): 3
  // double-width products, 2 reductions instead of 3.
  constexpr Fp2T operator*(const Fp2T& b) const {
#ifdef SNARKD_FF_ADX
    if constexpr (Cfg::kLazyFp2Mul)
      if (!std::is_constant_evaluated()) return mul_lazy(b);
#endif
    Base v0 = c0 * b.c0, v1 = c1 * b.c1;
    return {v0 - v1, (c0 + c1) * (b.c0 + b.c1) - v0 - v1};
  }
  constexpr Fp2T operator*(const Base& b) const { return {c0 * b, c1 * b}; }
  constexpr Fp2T& operator+=(const Fp2T& b) { return *this = *this + b; }
  constexpr Fp2T& operator-=(const Fp2T& b) { return *this = *this - b; }
  constexpr Fp2T& operator*=(const Fp2T& b) { return *this = *this * b; }
  constexpr Fp2T dbl() const { return {c0.dbl(), c1.dbl()}; }
  // (a + bu)² = (a+b)(a−b) + 2ab·u: 2 multiplications.
  constexpr Fp2T square() const { return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()}; }
  constexpr Fp2T conjugate() const { return {c0, -c1}; }
  // Multiplication by the sextic non-residue ξ = k + u of the Fp6 tower:
  // (c0 + c1u)(k + u) = (k·c0 − c1) + (c0 + k·c1)u, additions only.
  constexpr Fp2T mul_by_nonresidue() const {
    constexpr uint64_t k = Cfg::kXiC0;
    // ξ = 1 + u spelled out: through mul_small GCC stopped inlining it into Fp6/Fp12 (pairing +3 %).
    if constexpr (k == 1) return {c0 - c1, c0 + c1};
    return {detail::mul_small<k>(c0) - c1, c0 + detail::mul_small<k>(c1)};
  }
  // ξ itself.
  static constexpr Fp2T nonresidue() { return {Base::from_u64(Cfg::kXiC0), Base::one()}; }
  // Frobenius x ↦ x^(p^k): conjugation for odd k.
  constexpr Fp2T frobenius(size_t k) const { return (k & 1) ? conjugate() : *this; }
  constexpr Base norm() const { return c0.square() + c1.square(); }
  constexpr Fp2T inverse() const {
    Base t = norm().inverse();
    return {c0 * t, -(c1 * t)};
  }
  template <size_t M>
  constexpr Fp2T pow(const BigInt<M>& e) const {
    return pow_vartime(*this, e);
  }
  // Non-zero squares have a norm that is a square in Fp.
  constexpr int legendre() const { return is_zero() ? 0 : norm().legendre(); }
  // Square root for p ≡ 3 mod 4 (Adj–Rodríguez-Henríquez, eprint 2012/685, Algorithm 9).
  bool sqrt(Fp2T& out) const;
  // Lexicographic "largest" as in the ZCash encoding's sign bit: compares c1 first, then c0.
  bool lexicographically_largest() const {
    if (!c1.is_zero()) return ff::lexicographically_largest(c1);
    return ff::lexicographically_largest(c0);
  }
#ifdef SNARKD_FF_ADX
  // Defined (fp2.cpp) for the 6-limb BLS12-381 base field only.
  Fp2T mul_lazy(const Fp2T& b) const
    requires(Cfg::kLazyFp2Mul);
#endif

  template <class G>
  static Fp2T random(G& g) {
    Base a = Base::random(g);
    return {a, Base::random(g)};
  }
};

using Fp2 = Fp2T<Bls12381Tower>;
#ifdef SNARKD_FF_ADX
template <>
Fp2 Fp2::mul_lazy(const Fp2& b) const;
#endif

}  // namespace snarkd::ff
