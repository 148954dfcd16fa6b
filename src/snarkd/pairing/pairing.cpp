#include "snarkd/pairing/pairing.hpp"

#include <cstdint>

#include "snarkd/pairing/ate_detail.hpp"

namespace snarkd::pairing {

namespace {

using ff::Fp;
using ff::Fp12;
using ff::Fp2;

// |x| for the BLS12-381 parameter x = −0xd201000000010000 (64 bits, Hamming weight 6).
constexpr uint64_t kAbsX = 0xd201000000010000;
constexpr int kAbsXTopBit = 63;
static_assert((kAbsX >> kAbsXTopBit) == 1);

// ·3b' for the twist's b' = 4ξ: 12·ξ·a with additions only (ξ·a, then 4t + 8t).
Fp2 mul_by_3b(const Fp2& a) {
  Fp2 t4 = a.mul_by_nonresidue().dbl().dbl();
  return t4 + t4.dbl();
}

// A line ℓ = l0 + l1·v + l4·vw evaluated at P (see Fp12::mul_by_014 for the slots).
struct Line {
  Fp2 l0, l1, l4;
};

// G2 point in homogeneous projective coordinates: x = X/Z, y = Y/Z.
struct G2Proj {
  Fp2 X, Y, Z;
};

// Per-pair Miller-loop state. P enters the lines only through −x_P and y_P.
struct PairState {
  Fp neg_px, py;
  ec::G2Affine q;
  G2Proj t;
};

// Why the line has this shape: the M-type untwist is ψ(x', y') = (x'/w², y'/w³). A line through
// points of E' with slope λ' (in twist coordinates) evaluated at P = (x_P, y_P), and multiplied
// by w³ (an element of the subfield Fp2[w³], which the final exponentiation sends to 1), is
//   (λ'x_T − y_T) − λ'x_P·v + y_P·vw.
// Any further Fp2 factor is also killed, which lets both steps below clear denominators.

// T ← 2T and the tangent at T (Costello–Lange–Naehrig, eprint 2009/615, homogeneous form as
// in Aranha et al., eprint 2010/526, §4): with the tangent scaled by 2yZ², the line is
//   (Y² − 3b'Z²) − 3X²x_P·v + 2YZ·y_P·vw,
// and the point is theirs scaled by 4 to avoid the two halvings:
//   X3 = 2XY(Y² − 9b'Z²), Y3 = (Y² + 9b'Z²)² − 108b'²Z⁴, Z3 = 8Y³Z.
// 3M + 6S in Fp2 plus 4 Fp multiplications for the line.
Line double_step(PairState& s) {
  G2Proj& T = s.t;
  Fp2 A = T.X * T.Y, B = T.Y.square(), C = T.Z.square();
  Fp2 E = mul_by_3b(C), F = E.dbl() + E;
  Fp2 H = (T.Y + T.Z).square() - B - C;  // 2YZ
  Fp2 J = T.X.square();
  Fp2 E2 = E.square().dbl().dbl();  // 4E²
  Line l{B - E, (J.dbl() + J) * s.neg_px, H * s.py};
  T.X = A.dbl() * (B - F);
  T.Y = (B + F).square() - E2.dbl() - E2;  // (B + F)² − 12E²
  T.Z = (B * H).dbl().dbl();
  return l;
}

// T ← T + Q (Q affine) and the line through them; with θ = Y − y_Q Z, λ = X − x_Q Z the slope
// is θ/λ and the line scaled by λ is (θx_Q − λy_Q) − θx_P·v + λy_P·vw (Aranha et al. §4):
//   X3 = λH, Y3 = θ(G − H) − Yλ³, Z3 = Zλ³, H = λ³ + Zθ² − 2Xλ², G = Xλ².
// 11M + 2S in Fp2 plus 4 Fp multiplications. T ≠ ±Q inside the loop for Q of order r.
Line add_step(PairState& s) {
  G2Proj& T = s.t;
  const ec::G2Affine& Q = s.q;
  Fp2 theta = T.Y - Q.y * T.Z, lambda = T.X - Q.x * T.Z;
  Fp2 C = theta.square(), D = lambda.square();
  Fp2 E = lambda * D, F = T.Z * C, G = T.X * D;
  Fp2 H = E + F - G.dbl();
  Line l{theta * Q.x - lambda * Q.y, theta * s.neg_px, lambda * s.py};
  T.X = lambda * H;
  T.Y = theta * (G - H) - T.Y * E;
  T.Z = T.Z * E;
  return l;
}

// ∏ f_{|x|,Q_i}(P_i) by the bits of |x| below the top one (T starts at Q), then conjugated:
// f_{x,Q} = 1/f_{|x|,Q} up to a vertical line (killed by the final exponentiation), and after it
// conjugation equals inversion on GT, so conj(f) stands in for the Fp12 inversion.
Fp12 miller_loop_states(std::span<PairState> states) {
  Fp12 f = Fp12::one();
  for (int i = kAbsXTopBit - 1; i >= 0; --i) {
    if (i != kAbsXTopBit - 1) f = f.square();  // f = 1 on the first iteration
    for (PairState& s : states) {
      Line l = double_step(s);
      f = f.mul_by_014(l.l0, l.l1, l.l4);
    }
    if ((kAbsX >> i) & 1) {
      for (PairState& s : states) {
        Line l = add_step(s);
        f = f.mul_by_014(l.l0, l.l1, l.l4);
      }
    }
  }
  return f.conjugate();
}

PairState make_state(const ec::G1Affine& p, const ec::G2Affine& q) {
  return {-p.x, p.y, q, {q.x, q.y, Fp2::one()}};
}

// a^x for a in the cyclotomic subgroup: a^|x| by 63 cyclotomic squarings and 5 multiplications,
// then conjugation (= inversion there) for the sign.
Fp12 cyclotomic_exp_by_x(const Fp12& a) {
  Fp12 r = a;
  for (int i = kAbsXTopBit - 1; i >= 0; --i) {
    r = r.cyclotomic_square();
    if ((kAbsX >> i) & 1) r *= a;
  }
  return r.conjugate();
}

// Hard part, m ↦ m^(3(p⁴ − p² + 1)/r), from Hayashida–Hayasaka–Teruya (eprint 2020/875, §5):
//   3(p⁴ − p² + 1)/r = (x − 1)²·(x + p)·(x² + p² − 1) + 3.
// 5 exponentiations by x, 2 Frobenius maps, 7 multiplications, 1 cyclotomic squaring.
Fp12 hard_part(const Fp12& m) {
  Fp12 t0 = cyclotomic_exp_by_x(m) * m.conjugate();     // m^(x − 1)
  Fp12 t1 = cyclotomic_exp_by_x(t0) * t0.conjugate();   // m^((x − 1)²)
  Fp12 t2 = cyclotomic_exp_by_x(t1) * t1.frobenius(1);  // ·^(x + p)
  Fp12 t3 = cyclotomic_exp_by_x(cyclotomic_exp_by_x(t2)) * t2.frobenius(2) * t2.conjugate();
  return t3 * m.cyclotomic_square() * m;  // ·m³
}

using Ate = detail::AtePairing<ec::G1Affine, ec::G2Affine, PairState, make_state, miller_loop_states, hard_part>;

}  // namespace

Fp12 miller_loop(const ec::G1Affine& p, const ec::G2Affine& q) { return Ate::miller_loop(p, q); }
Fp12 multi_miller_loop(std::span<const G1G2Pair> pairs) { return Ate::multi_miller_loop(pairs); }
GT final_exponentiation(const Fp12& f) { return Ate::final_exponentiation(f); }
GT pairing(const ec::G1Affine& p, const ec::G2Affine& q) { return Ate::pairing(p, q); }
GT multi_pairing(std::span<const G1G2Pair> pairs) { return Ate::multi_pairing(pairs); }
bool pairing_product_is_one(std::span<const G1G2Pair> pairs) { return Ate::product_is_one(pairs); }

}  // namespace snarkd::pairing
