#include "snarkd/ec/bn254.hpp"

namespace snarkd::ec::bn254 {

namespace {
// γ_{1,j} = ξ^(j(p − 1)/6): j = 2 and 3 give ψ's coefficients ξ^((p−1)/3) and ξ^((p−1)/2).
const auto& kGamma1 = ff::detail::FrobeniusCoefficients<ff::bn254::Tower>::kGamma[1];
}  // namespace

G2Jacobian psi(const G2Jacobian& q) {
  return {q.X.conjugate() * kGamma1[2], q.Y.conjugate() * kGamma1[3], q.Z.conjugate()};
}

bool is_in_subgroup(const G1Affine& p) { return p.is_on_curve(); }

bool is_in_subgroup(const G2Affine& q) {
  if (q.is_infinity()) return true;
  const G2Jacobian j = G2Jacobian::from_affine(q);
  return psi(j) == j.mul(kSixUSquared);
}

}  // namespace snarkd::ec::bn254
