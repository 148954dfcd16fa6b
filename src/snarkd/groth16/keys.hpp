// Groth16 keys and proofs over a curve E (curve.hpp: Bls12_381 or Bn254), in one in-memory shape
// for both key flavours. The names without T (VerifyingKey, ProvingKey, Proof) are BLS12-381's.
//
// Notation (Groth 2016, §3.2): for variable j, u_j(τ), v_j(τ), w_j(τ) are the A, B, C column
// polynomials evaluated at the secret τ; Z(X) = Xⁿ − 1 vanishes on the evaluation domain.
//
// Two flavours of proving key reach us:
//   kBellperson  bellperson/Filecoin `.params`: domain generator 7; H query hᵢ = τⁱ·Z(τ)/δ in the
//                monomial basis (n − 1 points); the prover divides a·b − c by Z on the coset
//                7·⟨ω⟩ and interpolates. A/B queries are density-compacted (points only for the
//                variables that occur in A, resp. B; all inputs occur in A because of the
//                "input·0 = 0" rows the QAP appends, see r1cs.hpp).
//   kSnarkjs     snarkjs `.zkey`: domain generator 5; H query over the odd-indexed Lagrange
//                basis of the 2n domain (n points), so the prover evaluates a·b − c on the coset
//                ω₂ₙ·⟨ωₙ⟩ and uses those evaluations as scalars (no division, no interpolation).
//                A/B queries cover every variable (absent ones are the point at infinity) and
//                the input·0 rows are already part of the circuit the zkey describes.
// Bellperson keys exist only over BLS12-381; snarkjs keys over both curves.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "snarkd/groth16/curve.hpp"
#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::groth16 {

using ec::G1Affine;
using ec::G2Affine;
using ff::Fr;

enum class KeyFlavour : uint8_t { kBellperson, kSnarkjs };
const char* flavour_name(KeyFlavour f);  // "bellperson", "snarkjs"

// The domain generator each flavour's roots of unity come from.
constexpr uint64_t domain_generator(KeyFlavour f) {
  return f == KeyFlavour::kBellperson ? ff::kBellpersonDomainGenerator : ff::kSnarkjsDomainGenerator;
}

template <class E>
struct VerifyingKeyT {
  using Curve = E;
  typename E::G1Affine alpha_g1, beta_g1, delta_g1;
  typename E::G2Affine beta_g2, gamma_g2, delta_g2;
  // ic[j] = (β·u_j(τ) + α·v_j(τ) + w_j(τ))/γ · G1 for each input j, ONE first; so
  // ic.size() = num_inputs = 1 + number of public inputs.
  std::vector<typename E::G1Affine> ic;

  uint64_t num_public() const { return ic.empty() ? 0 : ic.size() - 1; }
  bool operator==(const VerifyingKeyT&) const = default;
};
using VerifyingKey = VerifyingKeyT<Bls12_381>;

template <class E>
struct ProvingKeyT {
  using Curve = E;
  KeyFlavour flavour = KeyFlavour::kBellperson;
  VerifyingKeyT<E> vk;
  // log2 of the evaluation domain size n; n ≥ the QAP's rows (constraints + input rows).
  uint32_t log_domain = 0;

  // a[k] = u_j(τ)·G1, b_g1[k] = v_j(τ)·G1, b_g2[k] = v_j(τ)·G2 for the k-th variable j of the
  // query's density (see a_density/b_density), in variable order.
  std::vector<typename E::G1Affine> a, b_g1;
  std::vector<typename E::G2Affine> b_g2;
  // l[k] = (β·u_j(τ) + α·v_j(τ) + w_j(τ))/δ · G1 for aux variable j = num_inputs + k.
  std::vector<typename E::G1Affine> l;
  // kBellperson: h[i] = τⁱ·Z(τ)/δ · G1, i < n − 1. kSnarkjs: n points, see above.
  std::vector<typename E::G1Affine> h;

  // Which variables the A and B queries hold points for. Empty (num_bits = 0) means every
  // variable (snarkjs). Bellperson `.params` do not store densities: they come from the circuit
  // (attach_density in prover.hpp) and must agree with the query lengths.
  r1cs::DensityBitmap a_density, b_density;

  uint64_t domain_size() const { return uint64_t{1} << log_domain; }
  uint64_t num_inputs() const { return vk.ic.size(); }
  uint64_t num_aux() const { return l.size(); }
  uint64_t num_vars() const { return num_inputs() + num_aux(); }
};
using ProvingKey = ProvingKeyT<Bls12_381>;

// A Groth16 proof: proof.json, or (BLS12-381) 192 bytes as compressed A ‖ B ‖ C (see
// bellperson_io.hpp).
template <class E>
struct ProofT {
  using Curve = E;
  typename E::G1Affine a;
  typename E::G2Affine b;
  typename E::G1Affine c;
  bool operator==(const ProofT&) const = default;
};
using Proof = ProofT<Bls12_381>;

}  // namespace snarkd::groth16
