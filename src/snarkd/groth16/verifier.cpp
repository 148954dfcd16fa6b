#include "snarkd/groth16/verifier.hpp"

#include <string>

#include "snarkd/msm/msm.hpp"
#include "snarkd/pairing/pairing.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/random.hpp"

namespace snarkd::groth16 {
namespace {

void check_count(const VerifyingKey& vk, size_t got) {
  if (got != vk.num_public())
    throw InvalidArgument("got " + std::to_string(got) + " public inputs, the verifying key expects " +
                          std::to_string(vk.num_public()));
}

// Σ weights[j]·ic[j] over ic with weights[0] the coefficient of IC₀.
ec::G1Jacobian combine_ic(const VerifyingKey& vk, std::span<const Fr> weights) {
  msm::Options opt;
  opt.threads = 1;  // a handful of points: not worth the pool
  return msm::msm<ec::G1Config>(vk.ic, weights, opt);
}

}  // namespace

std::string find_vk_defect(const VerifyingKey& vk) {
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

void require_sound_vk(const VerifyingKey& vk, const std::string& where) {
  if (std::string d = find_vk_defect(vk); !d.empty()) throw InvalidArgument(where + ": degenerate verifying key: " + d);
}

bool verify(const VerifyingKey& vk, const Proof& proof, std::span<const Fr> public_inputs) {
  require_sound_vk(vk, "verify");
  check_count(vk, public_inputs.size());
  std::vector<Fr> w(vk.ic.size());
  w[0] = Fr::one();
  for (size_t j = 0; j < public_inputs.size(); ++j) w[j + 1] = public_inputs[j];
  const G1Affine x = combine_ic(vk, w).to_affine();
  const pairing::G1G2Pair pairs[] = {
      {proof.a, proof.b}, {-vk.alpha_g1, vk.beta_g2}, {-x, vk.gamma_g2}, {-proof.c, vk.delta_g2}};
  return pairing::pairing_product_is_one(pairs);
}

bool verify_batch(const VerifyingKey& vk, std::span<const Proof> proofs,
                  std::span<const std::vector<Fr>> public_inputs) {
  require_sound_vk(vk, "verify");
  if (proofs.size() != public_inputs.size())
    throw InvalidArgument(std::to_string(proofs.size()) + " proofs but " +
                          std::to_string(public_inputs.size()) + " public-input vectors");
  for (const auto& in : public_inputs) check_count(vk, in.size());
  if (proofs.empty()) return true;
  OsRandom g;
  std::vector<Fr> rho(proofs.size()), ic_w(vk.ic.size());
  std::vector<G1Affine> cs(proofs.size());
  std::vector<pairing::G1G2Pair> pairs;
  Fr rho_sum = Fr::zero();
  for (size_t k = 0; k < proofs.size(); ++k) {
    do rho[k] = Fr::random(g);
    while (rho[k].is_zero());
    rho_sum += rho[k];
    ic_w[0] += rho[k];
    for (size_t j = 0; j < public_inputs[k].size(); ++j) ic_w[j + 1] += rho[k] * public_inputs[k][j];
    cs[k] = proofs[k].c;
    pairs.push_back({ec::G1Jacobian::from_affine(proofs[k].a).mul_scalar(rho[k]).to_affine(), proofs[k].b});
  }
  msm::Options opt;
  opt.threads = 1;
  const G1Affine c_sum = msm::msm<ec::G1Config>(cs, rho, opt).to_affine();
  const G1Affine alpha_sum = ec::G1Jacobian::from_affine(vk.alpha_g1).mul_scalar(rho_sum).to_affine();
  pairs.push_back({-alpha_sum, vk.beta_g2});
  pairs.push_back({-combine_ic(vk, ic_w).to_affine(), vk.gamma_g2});
  pairs.push_back({-c_sum, vk.delta_g2});
  return pairing::pairing_product_is_one(pairs);
}

}  // namespace snarkd::groth16
