// Groth16 verification: e(A, B) = e(α, β) · e(X, γ) · e(C, δ) with X = IC₀ + Σ xⱼ·ICⱼ₊₁ over the
// public inputs x (ONE excluded), checked as one multi-pairing
//   e(A, B) · e(−α, β) · e(−X, γ) · e(−C, δ) = 1
// (four Miller loops sharing one final exponentiation).
//
// Proof and key points must already be validated (on the curve, in the subgroup): every
// decoder in this layer does that. Wrong input counts are InvalidArgument, never "invalid".
// Templates over the curve E (curve.hpp), deduced from the key; instantiated in verifier.cpp.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "snarkd/groth16/keys.hpp"

namespace snarkd::groth16 {

// What makes a verifying key degenerate: a key under which the equation above no longer binds a
// proof to its public inputs, so proofs can be forged —
//   α, β, γ or δ at infinity: e(P, ∞) = e(∞, Q) = 1 drops that factor (with γ = ∞ the inputs
//     vanish from the check; with γ = δ = ∞ so does C);
//   an IC point at infinity: that input (or the constant) no longer enters X;
//   γ = ±δ: e(X, γ)·e(C, ±γ) = e(X ± C, γ), so C' = C ± (X − X') turns a proof for inputs x into
//     one for any x' (snarkjs's `groth16 setup` output has δ = γ until `zkey contribute`).
// Real setups never produce these (IC_j includes β·u_j(τ) with u_j ≠ 0 for every input: the
// input·0 rows). Returns "" for a sound key, else the defect, naming the field.
template <class E>
std::string find_vk_defect(const VerifyingKeyT<E>& vk);
// Throws InvalidArgument("<where>: <defect>") for a degenerate key.
template <class E>
void require_sound_vk(const VerifyingKeyT<E>& vk, const std::string& where);

// Throws InvalidArgument for a degenerate key (find_vk_defect) or a wrong input count.
template <class E>
bool verify(const VerifyingKeyT<E>& vk, const std::type_identity_t<ProofT<E>>& proof,
            r1cs::Values<typename E::Fr> public_inputs);

// Many proofs under one key with a random linear combination (uniform non-zero weights ρₖ in Fr
// from the OS CSPRNG): Π e(ρₖAₖ, Bₖ) · e(−Σρₖ·α, β) · e(−Σρₖ·Xₖ, γ) · e(−ΣρₖCₖ, δ) = 1, i.e.
// k + 3 Miller loops and one final exponentiation instead of 4k and k. True iff all proofs are
// valid, except with probability ≤ 1/(r − 1) ≈ 2⁻²⁵⁴ per batch. An empty batch is valid.
template <class E>
bool verify_batch(const VerifyingKeyT<E>& vk, std::type_identity_t<std::span<const ProofT<E>>> proofs,
                  std::type_identity_t<std::span<const std::vector<typename E::Fr>>> public_inputs);

#define SNARKD_VERIFIER_DECLARE(E)                                                                            \
  extern template std::string find_vk_defect<E>(const VerifyingKeyT<E>&);                                     \
  extern template void require_sound_vk<E>(const VerifyingKeyT<E>&, const std::string&);                      \
  extern template bool verify<E>(const VerifyingKeyT<E>&, const ProofT<E>&, r1cs::Values<typename E::Fr>);   \
  extern template bool verify_batch<E>(const VerifyingKeyT<E>&, std::span<const ProofT<E>>,                   \
                                       std::span<const std::vector<typename E::Fr>>);
SNARKD_VERIFIER_DECLARE(Bls12_381)
SNARKD_VERIFIER_DECLARE(Bn254)
#undef SNARKD_VERIFIER_DECLARE

}  // namespace snarkd::groth16
