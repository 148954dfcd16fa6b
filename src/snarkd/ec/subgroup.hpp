// Prime-order subgroup membership and cofactor clearing for G1 and G2, via the curve
// endomorphisms instead of multiplication by r.
//
// BLS12-381 is built from the parameter x = −0xd201000000010000: r = x⁴ − x² + 1 and
// p = (x − 1)²·r/3 + x. Every check below assumes its input is on the curve (decoders test that
// first); the point at infinity counts as a member.
//
// References: M. Scott, "A note on group membership tests for G1, G2 and GT on BLS
// pairing-friendly curves", eprint 2021/1130 (both fast tests); Budroni–Pintore, eprint
// 2017/419, and RFC 9380 §8.8 / Appendix G.3 (cofactor clearing, h_eff).
#pragma once
#include <cstdint>
#include <type_traits>

#include "snarkd/ec/g1.hpp"
#include "snarkd/ec/g2.hpp"
#include "snarkd/ff/fr.hpp"

namespace snarkd::ec {

// |x| for the BLS parameter x (which is negative). Hamming weight 6: bits 63, 62, 60, 57, 48, 16.
inline constexpr uint64_t kBlsXAbs = 0xd201000000010000ULL;

namespace detail {
// [|x|]P by double-and-add over the 64 bits of |x|: 63 doublings + 5 additions. `Base` is the
// affine or Jacobian input; affine inputs use the cheaper mixed addition.
template <class C, class Base>
Jacobian<C> mul_by_abs_x(const Base& p, const Jacobian<C>& start) {
  Jacobian<C> acc = start;  // bit 63
  for (int i = 62; i >= 0; --i) {
    acc = acc.dbl();
    if ((kBlsXAbs >> i) & 1) {
      if constexpr (std::is_same_v<Base, Affine<C>>) {
        acc = acc.add_mixed(p);
      } else {
        acc += p;
      }
    }
  }
  return acc;
}
}  // namespace detail

// [x]P for the signed BLS parameter x (so −[|x|]P).
template <class C>
Jacobian<C> mul_by_x(const Affine<C>& p) {
  return -detail::mul_by_abs_x<C>(p, Jacobian<C>::from_affine(p));
}
template <class C>
Jacobian<C> mul_by_x(const Jacobian<C>& p) {
  return -detail::mul_by_abs_x<C>(p, p);
}

// The slow reference test [r]P == O (a full 255-bit scalar multiplication). Tests use it to
// check the fast tests; it is also valid for points of any order.
template <class C>
bool is_in_subgroup_reference(const Affine<C>& p) {
  return Jacobian<C>::from_affine(p).mul(ff::Fr::kModulus).is_infinity();
}

// G1's endomorphism φ(x, y) = (β·x, y), β a primitive cube root of unity in Fp, chosen so that φ
// acts on G1 as multiplication by −x² (the other cube root gives x² − 1).
const ff::Fp& g1_beta();
G1Jacobian phi(const G1Jacobian& p);

// G2's untwist–Frobenius–twist endomorphism ψ(x, y) = (x̄·cx, ȳ·cy) with cx = ξ^(−(p−1)/3),
// cy = ξ^(−(p−1)/2), ξ = 1 + u (the bar is conjugation, the p-power Frobenius on Fp2). On G2 it
// acts as multiplication by p ≡ x (mod r). ψ²(x, y) = (x·N(cx), −y).
struct PsiCoefficients {
  ff::Fp2 cx, cy;
  ff::Fp cx_norm;  // N(cx) = cx·c̄x, the ψ² coefficient (a cube root of unity in Fp)
};
const PsiCoefficients& psi_coefficients();
G2Jacobian psi(const G2Jacobian& p);
G2Jacobian psi2(const G2Jacobian& p);

// Scott 2021/1130: P ∈ G1 ⇔ φ(P) == [−x²]P. Two [|x|] chains: 126 doublings + 10 additions
// (the reference costs ~255 doublings + ~64 additions).
bool is_in_subgroup(const G1Affine& p);
// Scott 2021/1130: P ∈ G2 ⇔ ψ(P) == [x]P. One [|x|] chain: 63 doublings + 5 additions.
bool is_in_subgroup(const G2Affine& p);

// Maps any curve point into the subgroup, matching RFC 9380 (and @noble/curves' clearCofactor).
// G1: multiplication by h_eff = 1 − x = 0xd201000000010001, i.e. P + [|x|]P.
G1Jacobian clear_cofactor(const G1Jacobian& p);
// G2: Budroni–Pintore, [x² − x − 1]P + [x − 1]ψ(P) + ψ²(2P), which equals multiplication by
// RFC 9380's 636-bit h_eff for G2 at the cost of two [x] chains.
G2Jacobian clear_cofactor(const G2Jacobian& p);

}  // namespace snarkd::ec
