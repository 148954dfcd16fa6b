#include "snarkd/ff/fp12.hpp"

#include "snarkd/ff/bn254_tower.hpp"

namespace snarkd::ff {

namespace {
// (x + y·z)² in Fp4 = Fp2[z]/(z² − ξ): (x² + ξy²) + ((x + y)² − x² − y²)·z, 3 Fp2 squarings.
template <class Fp2>
struct Fp4Square {
  Fp2 c0, c1;
};
template <class Fp2>
Fp4Square<Fp2> fp4_square(const Fp2& x, const Fp2& y) {
  Fp2 x2 = x.square(), y2 = y.square();
  return {x2 + y2.mul_by_nonresidue(), (x + y).square() - x2 - y2};
}
// 3t − 2a and 3t + 2a, the two shapes of Granger–Scott's output coefficients.
template <class Fp2>
Fp2 three_minus_two(const Fp2& t, const Fp2& a) {
  return (t - a).dbl() + t;
}
template <class Fp2>
Fp2 three_plus_two(const Fp2& t, const Fp2& a) {
  return (t + a).dbl() + t;
}
}  // namespace

// (a0 + a1w)(b0 + b1w) = a0b0 + a1b1·v + ((a0 + a1)(b0 + b1) − a0b0 − a1b1)·w.
template <class Cfg>
Fp12T<Cfg> Fp12T<Cfg>::operator*(const Fp12T& b) const {
  Fp6 t0 = c0 * b.c0, t1 = c1 * b.c1;
  return {t0 + t1.mul_by_nonresidue(), (c0 + c1) * (b.c0 + b.c1) - t0 - t1};
}

// (a + bw)² = a² + b²v + 2ab·w, with a² + b²v = (a + b)(a + bv) − ab − ab·v.
template <class Cfg>
Fp12T<Cfg> Fp12T<Cfg>::square() const {
  Fp6 ab = c0 * c1;
  Fp6 r0 = (c0 + c1) * (c0 + c1.mul_by_nonresidue()) - ab - ab.mul_by_nonresidue();
  return {r0, ab.dbl()};
}

// (a + bw)⁻¹ = (a − bw)/(a² − b²v).
template <class Cfg>
Fp12T<Cfg> Fp12T<Cfg>::inverse() const {
  Fp6 t = (c0.square() - c1.square().mul_by_nonresidue()).inverse();
  return {c0 * t, -(c1 * t)};
}

// c0 is an Fp6 element (w², w⁴ terms); c1 = b0 w + b1 w³ + b2 w⁵ picks up γ_k^1, γ_k^3, γ_k^5.
template <class Cfg>
Fp12T<Cfg> Fp12T<Cfg>::frobenius(size_t k) const {
  const auto& g = detail::FrobeniusCoefficients<Cfg>::kGamma[k % 12];
  Fp6 r1 = {c1.c0.frobenius(k) * g[1], c1.c1.frobenius(k) * g[3], c1.c2.frobenius(k) * g[5]};
  return {c0.frobenius(k), r1};
}

// With ℓ = ℓ0 + ℓ1·w, ℓ0 = l0 + l1·v and ℓ1 = l4·v, Karatsuba over w:
//   (a + bw)ℓ = aℓ0 + bℓ1·v + ((a + b)(ℓ0 + ℓ1) − aℓ0 − bℓ1)·w, ℓ0 + ℓ1 = l0 + (l1 + l4)v.
// 5 + 3 + 5 = 13 Fp2 multiplications (a full product costs 18).
template <class Cfg>
Fp12T<Cfg> Fp12T<Cfg>::mul_by_014(const Fp2& l0, const Fp2& l1, const Fp2& l4) const {
  Fp6 t0 = c0.mul_by_01(l0, l1);
  Fp6 t1 = c1.mul_by_1(l4);
  Fp6 r1 = (c0 + c1).mul_by_01(l0, l1 + l4) - t0 - t1;
  return {t0 + t1.mul_by_nonresidue(), r1};
}

// Granger–Scott (eprint 2009/565, §3.2). Over Fp4 = Fp2[z], z = w³ (z² = ξ), write
//   x = A + B·w + C·w², A = a0 + b1z, B = b0 + a2z, C = a1 + b2z
// for c0 = a0 + a1v + a2v², c1 = b0 + b1v + b2v². On the cyclotomic subgroup x^(p⁶) = x⁻¹,
// and that identity turns the square into
//   x² = (3A² − 2Ā) + (3z·C² + 2B̄)·w + (3B² − 2C̄)·w²,   Ā: z ↦ −z,
// i.e. three Fp4 squarings and additions.
template <class Cfg>
Fp12T<Cfg> Fp12T<Cfg>::cyclotomic_square() const {
  const Fp2 &a0 = c0.c0, &a1 = c0.c1, &a2 = c0.c2, &b0 = c1.c0, &b1 = c1.c1, &b2 = c1.c2;
  auto A = fp4_square(a0, b1), B = fp4_square(b0, a2), C = fp4_square(a1, b2);
  Fp6 r0 = {three_minus_two(A.c0, a0), three_minus_two(B.c0, a1), three_minus_two(C.c0, a2)};
  Fp6 r1 = {three_plus_two(C.c1.mul_by_nonresidue(), b0), three_plus_two(A.c1, b1),
            three_plus_two(B.c1, b2)};
  return {r0, r1};
}

// With ℓ = ℓ0 + ℓ1·w, ℓ0 = l0 and ℓ1 = l3 + l4·v, Karatsuba over w:
//   (a + bw)ℓ = aℓ0 + bℓ1·v + ((a + b)(ℓ0 + ℓ1) − aℓ0 − bℓ1)·w, ℓ0 + ℓ1 = (l0 + l3) + l4·v.
// 3 + 5 + 5 = 13 Fp2 multiplications.
template <class Cfg>
Fp12T<Cfg> Fp12T<Cfg>::mul_by_034(const Fp2& l0, const Fp2& l3, const Fp2& l4) const {
  Fp6 t0 = c0 * l0;
  Fp6 t1 = c1.mul_by_01(l3, l4);
  Fp6 r1 = (c0 + c1).mul_by_01(l0 + l3, l4) - t0 - t1;
  return {t0 + t1.mul_by_nonresidue(), r1};
}

// The out-of-line members only (see fp2.cpp for why not `template struct`).
#define SNARKD_FF_INSTANTIATE_FP12(C)                                                          \
  template Fp12T<C> Fp12T<C>::operator*(const Fp12T<C>&) const;                               \
  template Fp12T<C> Fp12T<C>::square() const;                                                 \
  template Fp12T<C> Fp12T<C>::inverse() const;                                                \
  template Fp12T<C> Fp12T<C>::frobenius(size_t) const;                                        \
  template Fp12T<C> Fp12T<C>::mul_by_014(const Fp2T<C>&, const Fp2T<C>&, const Fp2T<C>&) const; \
  template Fp12T<C> Fp12T<C>::mul_by_034(const Fp2T<C>&, const Fp2T<C>&, const Fp2T<C>&) const; \
  template Fp12T<C> Fp12T<C>::cyclotomic_square() const;
SNARKD_FF_INSTANTIATE_FP12(Bls12381Tower)
SNARKD_FF_INSTANTIATE_FP12(bn254::Tower)
#undef SNARKD_FF_INSTANTIATE_FP12

}  // namespace snarkd::ff
