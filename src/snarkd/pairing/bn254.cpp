#include "snarkd/pairing/bn254.hpp"

#include <array>
#include <cstdint>

#include "snarkd/pairing/ate_detail.hpp"

namespace snarkd::pairing::bn254 {

namespace {

using ec::bn254::G1Affine;
using ec::bn254::G2Affine;
using ff::bn254::Fp;
using ff::bn254::Fp12;
using ff::bn254::Fp2;

constexpr uint64_t kU = ff::bn254::kCurveParameter;

// 6u + 2 in non-adjacent form, least significant digit first (66 digits at most for 65 bits).
struct Naf {
  std::array<int8_t, 67> digit{};
  int length = 0;
};
constexpr Naf naf_of_6u_plus_2() {
  ff::u128 k = ff::u128(6) * kU + 2;
  Naf n;
  while (k != 0) {
    int8_t d = 0;
    if (k & 1) {
      d = (k & 3) == 1 ? 1 : -1;  // k ≡ 1 (mod 4) → 1, k ≡ 3 → −1, leaving k − d ≡ 0 (mod 4)
      k = d == 1 ? k - 1 : k + 1;
    }
    n.digit[n.length++] = d;
    k >>= 1;
  }
  return n;
}
constexpr Naf kLoop = naf_of_6u_plus_2();
static_assert(kLoop.digit[kLoop.length - 1] == 1);

// 3b' for the twist's b' = 3/ξ.
constexpr Fp2 kThreeB = ec::bn254::G2Config::kB.dbl() + ec::bn254::G2Config::kB;

// The Frobenius coefficients γ_{k,j} = ξ^(j(p^k − 1)/6) (ff/fp6.hpp).
const auto& kGamma = ff::detail::FrobeniusCoefficients<ff::bn254::Tower>::kGamma;

// A line ℓ = l0 + l3·w + l4·vw evaluated at P (see Fp12T::mul_by_034 for the slots).
struct Line {
  Fp2 l0, l3, l4;
};

// G2 point in homogeneous projective coordinates: x = X/Z, y = Y/Z.
struct G2Proj {
  Fp2 X, Y, Z;
};

// Per-pair Miller-loop state. P enters the lines only through −x_P and y_P.
struct PairState {
  Fp neg_px, py;
  G2Affine q, neg_q;
  G2Proj t;
};

// Why the lines have this shape: the D-type untwist is (x', y') ↦ (x'·w², y'·w³), so a line
// of twist slope λ' through the twist point (x_T, y_T), untwisted and evaluated at P, is
//   y_P − λ'x_P·w + (λ'x_T − y_T)·w³,   w³ = vw.
// Any Fp2 factor is killed by the final exponentiation (Fp2* has order p² − 1, which divides
// (p¹² − 1)/r), so both steps clear their denominators with one.

// T ← 2T and its tangent (Costello–Lange–Naehrig, eprint 2009/615, homogeneous form as in
// Aranha et al., eprint 2010/526, §4). λ' = 3X²/(2YZ); scaled by 2YZ² and divided by Z, using
// Y²Z = X³ + b'Z³, the line is
//   2YZ·y_P − 3X²x_P·w + (Y² − 3b'Z²)·vw,
// and the point is the textbook one scaled by 4 to avoid halvings:
//   X3 = 2XY(Y² − 9b'Z²), Y3 = (Y² + 9b'Z²)² − 108b'²Z⁴, Z3 = 8Y³Z.
Line double_step(PairState& s) {
  G2Proj& T = s.t;
  Fp2 A = T.X * T.Y, B = T.Y.square(), C = T.Z.square();
  Fp2 E = C * kThreeB, F = E.dbl() + E;
  Fp2 H = (T.Y + T.Z).square() - B - C;  // 2YZ
  Fp2 J = T.X.square();
  Fp2 E2 = E.square().dbl().dbl();  // 4E²
  Line l{H * s.py, (J.dbl() + J) * s.neg_px, B - E};
  T.X = A.dbl() * (B - F);
  T.Y = (B + F).square() - E2.dbl() - E2;  // (B + F)² − 12E²
  T.Z = (B * H).dbl().dbl();
  return l;
}

// T ← T + Q (Q affine) and the line through them: θ = Y − y_Q Z, λ = X − x_Q Z, slope θ/λ; the
// line through Q scaled by λ is λy_P − θx_P·w + (θx_Q − λy_Q)·vw (Aranha et al. §4):
//   X3 = λH, Y3 = θ(G − H) − Yλ³, Z3 = Zλ³, H = λ³ + Zθ² − 2Xλ², G = Xλ².
// T ≠ ±Q in every call for Q of order r.
Line add_step(PairState& s, const G2Affine& Q) {
  G2Proj& T = s.t;
  Fp2 theta = T.Y - Q.y * T.Z, lambda = T.X - Q.x * T.Z;
  Fp2 C = theta.square(), D = lambda.square();
  Fp2 E = lambda * D, F = T.Z * C, G = T.X * D;
  Fp2 H = E + F - G.dbl();
  Line l{lambda * s.py, theta * s.neg_px, theta * Q.x - lambda * Q.y};
  T.X = lambda * H;
  T.Y = theta * (G - H) - T.Y * E;
  T.Z = T.Z * E;
  return l;
}

// π^k on the twist: (x, y) ↦ (x^(p^k)·γ_{k,2}, y^(p^k)·γ_{k,3}) (see ec::bn254::psi).
G2Affine frobenius(const G2Affine& q, size_t k) {
  return {q.x.frobenius(k) * kGamma[k][2], q.y.frobenius(k) * kGamma[k][3]};
}

Fp12 miller_loop_states(std::span<PairState> states) {
  Fp12 f = Fp12::one();
  for (int i = kLoop.length - 2; i >= 0; --i) {
    if (i != kLoop.length - 2) f = f.square();  // f = 1 on the first iteration
    for (PairState& s : states) {
      Line l = double_step(s);
      f = f.mul_by_034(l.l0, l.l3, l.l4);
    }
    if (kLoop.digit[i] != 0) {
      for (PairState& s : states) {
        Line l = add_step(s, kLoop.digit[i] > 0 ? s.q : s.neg_q);
        f = f.mul_by_034(l.l0, l.l3, l.l4);
      }
    }
  }
  // T = [6u + 2]Q; add Q1 = π(Q), then Q2 = −π²(Q).
  for (PairState& s : states) {
    Line l = add_step(s, frobenius(s.q, 1));
    f = f.mul_by_034(l.l0, l.l3, l.l4);
    l = add_step(s, -frobenius(s.q, 2));
    f = f.mul_by_034(l.l0, l.l3, l.l4);
  }
  return f;
}

PairState make_state(const G1Affine& p, const G2Affine& q) {
  return {-p.x, p.y, q, -q, {q.x, q.y, Fp2::one()}};
}

// a^u for a in the cyclotomic subgroup: left-to-right over the bits of u below its top bit
// (bit 62) with cyclotomic squarings.
Fp12 cyclotomic_exp_by_u(const Fp12& a) {
  Fp12 r = a;
  for (int i = 61; i >= 0; --i) {
    r = r.cyclotomic_square();
    if ((kU >> i) & 1) r *= a;
  }
  return r;
}
static_assert((kU >> 62) == 1, "u has 63 bits");

using Ate = detail::AtePairing<G1Affine, G2Affine, PairState, make_state, miller_loop_states,
                               final_exponentiation_hard_part>;

}  // namespace

Fp12 miller_loop(const G1Affine& p, const G2Affine& q) { return Ate::miller_loop(p, q); }
Fp12 multi_miller_loop(std::span<const G1G2Pair> pairs) { return Ate::multi_miller_loop(pairs); }
GT final_exponentiation(const Fp12& f) { return Ate::final_exponentiation(f); }

// Fuentes-Castañeda et al. (SAC 2011), their BN hard part: m^(λ0 + λ1·p + λ2·p² + λ3·p³) with
//   λ0 = 12u³ + 12u² + 6u + 1, λ1 = 12u³ + 6u² + 4u, λ2 = 12u³ + 6u² + 6u, λ3 = λ1 − 1,
// which is 2u(6u² + 3u + 1)·(p⁴ − p² + 1)/r. Built from A = m^(12u³ + 6u²):
//   x1 = A·m^(4u), x2 = A·m^(6u), x3 = x1·m⁻¹, x0 = x2·m^(6u²)·m.
// Three exponentiations by u; conjugation is the inverse (m is cyclotomic).
GT final_exponentiation_hard_part(const Fp12& m) {
  const Fp12 m2u = cyclotomic_exp_by_u(m).cyclotomic_square();
  const Fp12 m4u = m2u.cyclotomic_square();
  const Fp12 m6u = m4u * m2u;
  const Fp12 m6u2 = cyclotomic_exp_by_u(m6u);
  const Fp12 A = cyclotomic_exp_by_u(m6u2).cyclotomic_square() * m6u2;
  const Fp12 x1 = A * m4u, x2 = A * m6u;
  const Fp12 x3 = x1 * m.conjugate();
  const Fp12 x0 = x2 * m6u2 * m;
  return x0 * x1.frobenius(1) * x2.frobenius(2) * x3.frobenius(3);
}

GT pairing(const G1Affine& p, const G2Affine& q) { return Ate::pairing(p, q); }
GT multi_pairing(std::span<const G1G2Pair> pairs) { return Ate::multi_pairing(pairs); }
bool pairing_product_is_one(std::span<const G1G2Pair> pairs) { return Ate::product_is_one(pairs); }

}  // namespace snarkd::pairing::bn254
