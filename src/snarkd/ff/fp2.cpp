#include "snarkd/ff/fp2.hpp"

#include "snarkd/ff/bn254_tower.hpp"

#ifdef SNARKD_FF_ADX
#include <immintrin.h>
#endif

namespace snarkd::ff {

#ifdef SNARKD_FF_ADX
namespace {
// Carry chains through the _addcarry/_subborrow intrinsics (adc/sbb): BigInt's portable u128
// loops made mul_lazy 470 cycles instead of 282.
using Carry = unsigned char;
template <size_t N>
[[gnu::always_inline]] inline Carry sub_words(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  Carry br = 0;
  for (size_t i = 0; i < N; ++i)
    br = _subborrow_u64(br, a[i], b[i], reinterpret_cast<unsigned long long*>(&r[i]));
  return br;
}
template <size_t N>
[[gnu::always_inline]] inline Carry add_words(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  Carry c = 0;
  for (size_t i = 0; i < N; ++i)
    c = _addcarry_u64(c, a[i], b[i], reinterpret_cast<unsigned long long*>(&r[i]));
  return c;
}
}  // namespace

// (a0 + a1·u)(b0 + b1·u) = (a0b0 − a1b1) + ((a0 + a1)(b0 + b1) − a0b0 − a1b1)·u with the
// double-width products combined before reducing. Bounds (p < 2^381, R = 2^384): the sums
// a0 + a1 < 2p fit in 6 words unreduced; c1 = a0b1 + a1b0 < 2p² < p·R; c0 = a0b0 − a1b1 is
// made non-negative by adding p·R when it borrows, so it lies in [0, p·R). Both meet redc's
// input bound.
template <>
Fp2 Fp2::mul_lazy(const Fp2& b) const {
  uint64_t sa[6], sb[6], v0[12], v1[12], im[12], re[12], pm[6];
  add_words<6>(sa, c0.l, c1.l);  // < 2p < 2^382: no carry out
  add_words<6>(sb, b.c0.l, b.c1.l);
  Fp::mul_wide(v0, c0.l, b.c0.l);
  Fp::mul_wide(v1, c1.l, b.c1.l);
  Fp::mul_wide(im, sa, sb);
  sub_words<12>(im, im, v0);
  sub_words<12>(im, im, v1);
  const uint64_t mask = uint64_t(0) - sub_words<12>(re, v0, v1);
  for (size_t i = 0; i < 6; ++i) pm[i] = Fp::kModulus.limb[i] & mask;
  add_words<6>(re + 6, re + 6, pm);
  return {Fp::redc(re), Fp::redc(im)};
}
#endif

template <class Cfg>
bool Fp2T<Cfg>::sqrt(Fp2T& out) const {
  if (is_zero()) {
    out = zero();
    return true;
  }
  // a1 = a^((p−3)/4); alpha = a1² a; x0 = a1 a.
  typename Base::Repr e;
  sub_borrow(e, Base::kModulus, Base::Repr::from_u64(3));
  Fp2T a1 = pow(shr(e, 2));
  Fp2T alpha = a1.square() * *this;
  Fp2T x0 = a1 * *this;
  Fp2T cand;
  if (alpha == -one()) {
    cand = Fp2T{-x0.c1, x0.c0};  // i·x0
  } else {
    // b = (1 + alpha)^((p−1)/2); x = b·x0.
    Fp2T b = (one() + alpha).pow(shr(Base::kModulusMinusOne, 1));
    cand = b * x0;
  }
  if (cand.square() != *this) return false;
  out = cand;
  return true;
}

// Only the out-of-line members are instantiated: `template struct` would also emit every inline
// member out of line, and GCC then inlined them less into the Fp6/Fp12 code (pairing +7 %).
template bool Fp2T<Bls12381Tower>::sqrt(Fp2T&) const;
template bool Fp2T<bn254::Tower>::sqrt(Fp2T&) const;

}  // namespace snarkd::ff
