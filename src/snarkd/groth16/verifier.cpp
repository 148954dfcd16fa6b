#include "snarkd/groth16/verifier.hpp"

#include <string>

#include "snarkd/msm/msm.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/random.hpp"

namespace snarkd::groth16 {
namespace {

template <class E>
void check_count(const VerifyingKeyT<E>& vk, size_t got) {
  if (got != vk.num_public())
    throw InvalidArgument("got " + std::to_string(got) + " public inputs, the verifying key expects " +
                          std::to_string(vk.num_public()));
}

// Σ weights[j]·ic[j] over ic with weights[0] the coefficient of IC₀.
template <class E>
typename E::G1Jacobian combine_ic(const VerifyingKeyT<E>& vk, std::span<const typename E::Fr> weights) {
  msm::Options opt;
  opt.threads = 1;  // a handful of points: not worth the pool
  return msm::msm<typename E::G1>(vk.ic, weights, opt);
}

}  // namespace

template <class E>
std::string find_vk_defect(const VerifyingKeyT<E>& vk) {
  if (vk.alpha_g1.is_infinity()) return "alpha_1 is the point at infinity";
  if (vk.beta_g2.is_infinity()) return "beta_2 is the point at infinity";
  if (vk.gamma_g2.is_infinity()) return "gamma_2 is the point at infinity";
  if (vk.delta_g2.is_infinity()) return "delta_2 is the point at infinity";
  if (vk.ic.empty()) return "IC is empty (IC[0], the constant ONE's point, must be present)";
  for (size_t j = 0; j < vk.ic.size(); ++j)
    if (vk.ic[j].is_infinity()) return "IC[" + std::to_string(j) + "] is the point at infinity";
  if (vk.gamma_g2 == vk.delta_g2) return "gamma_2 equals delta_2, so proofs can be forged for any public inputs";
  if (vk.gamma_g2 == -vk.delta_g2) return "gamma_2 equals -delta_2, so proofs can be forged for any public inputs";
  return "";
}

template <class E>
void require_sound_vk(const VerifyingKeyT<E>& vk, const std::string& where) {
  if (std::string d = find_vk_defect(vk); !d.empty()) throw InvalidArgument(where + ": degenerate verifying key: " + d);
}

template <class E>
bool verify(const VerifyingKeyT<E>& vk, const std::type_identity_t<ProofT<E>>& proof,
            r1cs::Values<typename E::Fr> public_inputs) {
  using Fr = typename E::Fr;
  require_sound_vk(vk, "verify");
  check_count(vk, public_inputs.size());
  std::vector<Fr> w(vk.ic.size());
  w[0] = Fr::one();
  for (size_t j = 0; j < public_inputs.size(); ++j) w[j + 1] = public_inputs[j];
  const typename E::G1Affine x = combine_ic<E>(vk, w).to_affine();
  const typename E::G1G2Pair pairs[] = {
      {proof.a, proof.b}, {-vk.alpha_g1, vk.beta_g2}, {-x, vk.gamma_g2}, {-proof.c, vk.delta_g2}};
  return E::product_is_one(pairs);
}

template <class E>
bool verify_batch(const VerifyingKeyT<E>& vk, std::type_identity_t<std::span<const ProofT<E>>> proofs,
                  std::type_identity_t<std::span<const std::vector<typename E::Fr>>> public_inputs) {
  using Fr = typename E::Fr;
  using J1 = typename E::G1Jacobian;
  require_sound_vk(vk, "verify");
  if (proofs.size() != public_inputs.size())
    throw InvalidArgument(std::to_string(proofs.size()) + " proofs but " +
                          std::to_string(public_inputs.size()) + " public-input vectors");
  for (const auto& in : public_inputs) check_count(vk, in.size());
  if (proofs.empty()) return true;
  OsRandom g;
  std::vector<Fr> rho(proofs.size()), ic_w(vk.ic.size());
  std::vector<typename E::G1Affine> cs(proofs.size());
  std::vector<typename E::G1G2Pair> pairs;
  Fr rho_sum = Fr::zero();
  for (size_t k = 0; k < proofs.size(); ++k) {
    do rho[k] = Fr::random(g);
    while (rho[k].is_zero());
    rho_sum += rho[k];
    ic_w[0] += rho[k];
    for (size_t j = 0; j < public_inputs[k].size(); ++j) ic_w[j + 1] += rho[k] * public_inputs[k][j];
    cs[k] = proofs[k].c;
    pairs.push_back({J1::from_affine(proofs[k].a).mul_scalar(rho[k]).to_affine(), proofs[k].b});
  }
  msm::Options opt;
  opt.threads = 1;
  const typename E::G1Affine c_sum = msm::msm<typename E::G1>(cs, rho, opt).to_affine();
  const typename E::G1Affine alpha_sum = J1::from_affine(vk.alpha_g1).mul_scalar(rho_sum).to_affine();
  pairs.push_back({-alpha_sum, vk.beta_g2});
  pairs.push_back({-combine_ic<E>(vk, ic_w).to_affine(), vk.gamma_g2});
  pairs.push_back({-c_sum, vk.delta_g2});
  return E::product_is_one(pairs);
}

#define SNARKD_VERIFIER_INSTANTIATE(E)                                                                   \
  template std::string find_vk_defect<E>(const VerifyingKeyT<E>&);                                       \
  template void require_sound_vk<E>(const VerifyingKeyT<E>&, const std::string&);                        \
  template bool verify<E>(const VerifyingKeyT<E>&, const ProofT<E>&, r1cs::Values<typename E::Fr>);     \
  template bool verify_batch<E>(const VerifyingKeyT<E>&, std::span<const ProofT<E>>,                     \
                                std::span<const std::vector<typename E::Fr>>);
SNARKD_VERIFIER_INSTANTIATE(Bls12_381)
SNARKD_VERIFIER_INSTANTIATE(Bn254)
#undef SNARKD_VERIFIER_INSTANTIATE

}  // namespace snarkd::groth16
