// Groth16 verification: e(A, B) = e(α, β) · e(X, γ) · e(C, δ) with X = IC₀ + Σ xⱼ·ICⱼ₊₁ over the
// public inputs x (ONE excluded), checked as one multi-pairing
//   e(A, B) · e(−α, β) · e(−X, γ) · e(−C, δ) = 1
// (four Miller loops sharing one final exponentiation).
//
// Proof and key points must already be validated (on the curve, in the subgroup): every
// decoder in this layer does that. Wrong input counts are InvalidArgument, never "invalid".
#pragma once
#include <span>
#include <vector>

#include "snarkd/groth16/keys.hpp"

namespace snarkd::groth16 {

bool verify(const VerifyingKey& vk, const Proof& proof, std::span<const Fr> public_inputs);

// Many proofs under one key with a random linear combination (uniform non-zero weights ρₖ in Fr
// from the OS CSPRNG): Π e(ρₖAₖ, Bₖ) · e(−Σρₖ·α, β) · e(−Σρₖ·Xₖ, γ) · e(−ΣρₖCₖ, δ) = 1, i.e.
// k + 3 Miller loops and one final exponentiation instead of 4k and k. True iff all proofs are
// valid, except with probability ≤ 1/(r − 1) ≈ 2⁻²⁵⁴ per batch. An empty batch is valid.
bool verify_batch(const VerifyingKey& vk, std::span<const Proof> proofs,
                  std::span<const std::vector<Fr>> public_inputs);

}  // namespace snarkd::groth16
