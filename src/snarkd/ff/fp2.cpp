#include "snarkd/ff/fp2.hpp"

namespace snarkd::ff {

bool lexicographically_largest(const Fp& y) {
  // (p − 1)/2 as a canonical integer; y is "largest" when its canonical value exceeds it.
  static constexpr Fp::Repr kHalf = shr(Fp::kModulusMinusOne, 1);
  return less_than(kHalf, y.to_repr());
}

bool Fp2::lexicographically_largest() const {
  if (!c1.is_zero()) return ff::lexicographically_largest(c1);
  return ff::lexicographically_largest(c0);
}

bool Fp2::sqrt(Fp2& out) const {
  if (is_zero()) {
    out = zero();
    return true;
  }
  // a1 = a^((p−3)/4); alpha = a1² a; x0 = a1 a.
  Fp::Repr e;
  sub_borrow(e, Fp::kModulus, Fp::Repr::from_u64(3));
  Fp2 a1 = pow(shr(e, 2));
  Fp2 alpha = a1.square() * *this;
  Fp2 x0 = a1 * *this;
  Fp2 cand;
  if (alpha == -one()) {
    cand = Fp2{-x0.c1, x0.c0};  // i·x0
  } else {
    // b = (1 + alpha)^((p−1)/2); x = b·x0.
    Fp2 b = (one() + alpha).pow(shr(Fp::kModulusMinusOne, 1));
    cand = b * x0;
  }
  if (cand.square() != *this) return false;
  out = cand;
  return true;
}

}  // namespace snarkd::ff
