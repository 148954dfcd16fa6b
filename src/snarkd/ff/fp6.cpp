#include "snarkd/ff/fp6.hpp"

#include "snarkd/ff/bn254_tower.hpp"
#include "snarkd/ff/inverse.hpp"

namespace snarkd::ff {

namespace detail {
namespace {

// Quotient and remainder of a by a 64-bit divisor (long division from the top limb).
template <size_t N>
struct DivSmall {
  BigInt<N> quot;
  uint64_t rem;
};
template <size_t N>
constexpr DivSmall<N> div_small(const BigInt<N>& a, uint64_t d) {
  DivSmall<N> r{};
  u128 rem = 0;
  for (size_t i = N; i-- > 0;) {
    u128 cur = (rem << 64) | a.limb[i];
    r.quot.limb[i] = uint64_t(cur / d);
    rem = cur % d;
  }
  r.rem = uint64_t(rem);
  return r;
}
// γ_1 = ξ^((p − 1)/6) by one power; then γ_k = γ_{k−1}^p · γ_1 because
// (p^k − 1)/6 = p·(p^(k−1) − 1)/6 + (p − 1)/6, and y ↦ y^p on Fp2 is conjugation.
template <class Cfg>
constexpr FrobeniusTableT<Cfg> make_frobenius_table() {
  using Fp2 = Fp2T<Cfg>;
  constexpr auto kPMinusOneOver6 = div_small(Cfg::Base::kModulusMinusOne, 6);
  static_assert(kPMinusOneOver6.rem == 0, "the sextic twist needs 6 | p − 1");
  const Fp2 gamma1 = Fp2::nonresidue().pow(kPMinusOneOver6.quot);
  FrobeniusTableT<Cfg> t{};
  Fp2 gamma = Fp2::one();  // γ_0 = ξ^0
  for (size_t k = 0; k < 12; ++k) {
    Fp2 power = Fp2::one();
    for (size_t j = 0; j < 6; ++j) {
      t[k][j] = power;
      power = power * gamma;
    }
    gamma = gamma.conjugate() * gamma1;
  }
  return t;
}

}  // namespace

template <class Cfg>
constinit const FrobeniusTableT<Cfg> FrobeniusCoefficients<Cfg>::kGamma = make_frobenius_table<Cfg>();
template struct FrobeniusCoefficients<Bls12381Tower>;
template struct FrobeniusCoefficients<bn254::Tower>;
}  // namespace detail

// Karatsuba over the three coefficients (v³ = ξ):
//   c0 = a0b0 + ξ(a1b2 + a2b1), c1 = a0b1 + a1b0 + ξ a2b2, c2 = a0b2 + a1b1 + a2b0.
template <class Cfg>
Fp6T<Cfg> Fp6T<Cfg>::operator*(const Fp6T& b) const {
  Fp2 t0 = c0 * b.c0, t1 = c1 * b.c1, t2 = c2 * b.c2;
  Fp2 r0 = ((c1 + c2) * (b.c1 + b.c2) - t1 - t2).mul_by_nonresidue() + t0;
  Fp2 r1 = (c0 + c1) * (b.c0 + b.c1) - t0 - t1 + t2.mul_by_nonresidue();
  Fp2 r2 = (c0 + c2) * (b.c0 + b.c2) - t0 - t2 + t1;
  return {r0, r1, r2};
}

// Chung–Hasan SQR2 ("Asymmetric squaring formulae", 2007): s0 = a0², s1 = 2a0a1,
// s2 = (a0 − a1 + a2)², s3 = 2a1a2, s4 = a2²; then
//   c0 = s0 + ξ s3, c1 = s1 + ξ s4, c2 = s1 + s2 + s3 − s0 − s4  (= a1² + 2a0a2).
template <class Cfg>
Fp6T<Cfg> Fp6T<Cfg>::square() const {
  Fp2 s0 = c0.square(), s1 = (c0 * c1).dbl(), s2 = (c0 - c1 + c2).square();
  Fp2 s3 = (c1 * c2).dbl(), s4 = c2.square();
  return {s0 + s3.mul_by_nonresidue(), s1 + s4.mul_by_nonresidue(), s1 + s2 + s3 - s0 - s4};
}

// Adjugate over Fp2: with A = a0² − ξa1a2, B = ξa2² − a0a1, C = a1² − a0a2,
// x·(A + Bv + Cv²) = a0A + ξ(a2B + a1C) ∈ Fp2, so x⁻¹ = (A + Bv + Cv²)/that norm.
template <class Cfg>
Fp6T<Cfg> Fp6T<Cfg>::inverse() const {
  Fp2 A = c0.square() - (c1 * c2).mul_by_nonresidue();
  Fp2 B = c2.square().mul_by_nonresidue() - c0 * c1;
  Fp2 C = c1.square() - c0 * c2;
  Fp2 n = c0 * A + (c2 * B + c1 * C).mul_by_nonresidue();
  // The binary-GCD inversion (≈ 10 µs instead of Fermat's 27 for Fp on the dev VM); Fp12
  // inversion, i.e. the final exponentiation's easy part, lands here.
  const Fp2 ni = inverse_vartime(n);
  return {A * ni, B * ni, C * ni};
}

// (a0 + a1v + a2v²)(b0 + b1v) = a0b0 + ξa2b1 + (a0b1 + a1b0)v + (a1b1 + a2b0)v², Karatsuba.
template <class Cfg>
Fp6T<Cfg> Fp6T<Cfg>::mul_by_01(const Fp2& b0, const Fp2& b1) const {
  Fp2 t0 = c0 * b0, t1 = c1 * b1;
  Fp2 r0 = ((c1 + c2) * b1 - t1).mul_by_nonresidue() + t0;
  Fp2 r1 = (c0 + c1) * (b0 + b1) - t0 - t1;
  Fp2 r2 = (c0 + c2) * b0 - t0 + t1;
  return {r0, r1, r2};
}

// (a0 + a1v + a2v²)·b1v = ξa2b1 + a0b1 v + a1b1 v².
template <class Cfg>
Fp6T<Cfg> Fp6T<Cfg>::mul_by_1(const Fp2& b1) const {
  return {(c2 * b1).mul_by_nonresidue(), c0 * b1, c1 * b1};
}

// (Σ a_i v^i)^(p^k) = Σ a_i^(p^k) · v^i · ξ^(i(p^k − 1)/3), and ξ^(i(p^k−1)/3) = γ_k^(2i).
template <class Cfg>
Fp6T<Cfg> Fp6T<Cfg>::frobenius(size_t k) const {
  const auto& g = detail::FrobeniusCoefficients<Cfg>::kGamma[k % 12];
  return {c0.frobenius(k), c1.frobenius(k) * g[2], c2.frobenius(k) * g[4]};
}

// The out-of-line members only (see fp2.cpp for why not `template struct`).
#define SNARKD_FF_INSTANTIATE_FP6(C)                                        \
  template Fp6T<C> Fp6T<C>::operator*(const Fp6T<C>&) const;                \
  template Fp6T<C> Fp6T<C>::square() const;                                 \
  template Fp6T<C> Fp6T<C>::inverse() const;                                \
  template Fp6T<C> Fp6T<C>::mul_by_01(const Fp2T<C>&, const Fp2T<C>&) const; \
  template Fp6T<C> Fp6T<C>::mul_by_1(const Fp2T<C>&) const;                 \
  template Fp6T<C> Fp6T<C>::frobenius(size_t) const;
SNARKD_FF_INSTANTIATE_FP6(Bls12381Tower)
SNARKD_FF_INSTANTIATE_FP6(bn254::Tower)
#undef SNARKD_FF_INSTANTIATE_FP6

}  // namespace snarkd::ff
