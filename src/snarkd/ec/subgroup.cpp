#include "snarkd/ec/subgroup.hpp"

namespace snarkd::ec {

namespace {

using ff::Fp;
using ff::Fp2;

// a / d for a small divisor that divides a exactly (schoolbook long division over the limbs).
template <size_t N>
constexpr ff::BigInt<N> div_exact(const ff::BigInt<N>& a, uint64_t d) {
  ff::BigInt<N> q;
  ff::u128 rem = 0;
  for (size_t i = N; i-- > 0;) {
    ff::u128 cur = (rem << 64) | a.limb[i];
    q.limb[i] = uint64_t(cur / d);
    rem = cur % d;
  }
  return q;
}

// p ≡ 1 (mod 3), so Fp has cube roots of unity; 2 is not a cube, so 2^((p−1)/3) is primitive.
constexpr ff::BigInt<6> kPMinusOneOver3 = div_exact(Fp::kModulusMinusOne, 3);
constexpr ff::BigInt<6> kPMinusOneOver2 = div_exact(Fp::kModulusMinusOne, 2);
constexpr Fp kOmega = Fp::from_u64(2).pow(kPMinusOneOver3);
static_assert(!kOmega.is_one() && (kOmega.square() * kOmega).is_one(), "ω must be a primitive cube root of 1");

// ψ's coefficients from ξ = 1 + u (computed at compile time, ~3·10³ Fp multiplications).
constexpr Fp2 kXiInverse = Fp2{Fp::one(), Fp::one()}.inverse();
constexpr Fp2 kPsiX = kXiInverse.pow(kPMinusOneOver3);
constexpr Fp2 kPsiY = kXiInverse.pow(kPMinusOneOver2);
// ψ² must be (x, y) ↦ (x·N(cx), −y) with N(cx) a primitive cube root of unity in Fp.
static_assert(kPsiY.norm() == -Fp::one(), "ψ²'s y coefficient must be −1");
static_assert(!kPsiX.norm().is_one() && (kPsiX.norm().square() * kPsiX.norm()).is_one());

}  // namespace

const Fp& g1_beta() {
  // Of the two primitive cube roots ω, ω², exactly one makes φ act on G1 as [−x²]; one check on
  // the generator decides which (once, on first use).
  static const Fp beta = [] {
    G1Jacobian minus_x2_g = -mul_by_x(mul_by_x(kG1Generator));
    G1Jacobian phi_g{kG1Generator.x * kOmega, kG1Generator.y, Fp::one()};
    return phi_g == minus_x2_g ? kOmega : kOmega.square();
  }();
  return beta;
}

G1Jacobian phi(const G1Jacobian& p) { return {p.X * g1_beta(), p.Y, p.Z}; }

const PsiCoefficients& psi_coefficients() {
  static const PsiCoefficients c{kPsiX, kPsiY, kPsiX.norm()};
  return c;
}

// Frobenius is a field automorphism, so it commutes with the Jacobian scaling: conjugate X, Y, Z
// and scale X, Y by cx, cy (x = X/Z² ↦ X̄·cx / Z̄²). Cost: 2 Fp2 multiplications, no inversion.
G2Jacobian psi(const G2Jacobian& p) {
  return {p.X.conjugate() * kPsiX, p.Y.conjugate() * kPsiY, p.Z.conjugate()};
}

G2Jacobian psi2(const G2Jacobian& p) {
  static constexpr Fp kNorm = kPsiX.norm();
  return {p.X * kNorm, -p.Y, p.Z};
}

bool is_in_subgroup(const G1Affine& p) {
  if (p.is_infinity()) return true;
  G1Jacobian x2p = mul_by_x(mul_by_x(p));  // [x²]P
  G1Jacobian phi_p{p.x * g1_beta(), p.y, Fp::one()};
  return phi_p == -x2p;
}

bool is_in_subgroup(const G2Affine& p) {
  if (p.is_infinity()) return true;
  return psi(G2Jacobian::from_affine(p)) == mul_by_x(p);
}

G1Jacobian clear_cofactor(const G1Jacobian& p) { return p - mul_by_x(p); }

// RFC 9380 Appendix G.3's sequence, regrouped:
//   t1 = [x]P, t2 = ψ(P), t3 = ψ²(2P) − ψ(P), t2 = [x](t1 + t2) = [x²]P + [x]ψ(P),
//   result = t3 + t2 − t1 − P = [x² − x − 1]P + [x − 1]ψ(P) + ψ²(2P).
G2Jacobian clear_cofactor(const G2Jacobian& p) {
  G2Jacobian t1 = mul_by_x(p);
  G2Jacobian t2 = psi(p);
  G2Jacobian t3 = psi2(p.dbl()) - t2;
  t2 = mul_by_x(t1 + t2);
  return t3 + t2 - t1 - p;
}

}  // namespace snarkd::ec
