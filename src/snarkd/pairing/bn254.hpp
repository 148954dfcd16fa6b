// The optimal ate pairing on BN254 (alt_bn128, EIP-197): e: G1 × G2 → GT ⊂ Fp12*.
//
// Miller loop over 6u + 2 in signed-digit (NAF) form with G2 (the D-type twist y² = x³ + 3/ξ)
// in homogeneous projective coordinates and lines evaluated at the G1 point, then the two extra
// line steps with Q1 = π(Q) and Q2 = −π²(Q) (Vercauteren, "Optimal pairings", IEEE TIT 2010;
// the form of Beuchat et al., eprint 2010/354). Final exponentiation: easy part
// (p⁶ − 1)(p² + 1), hard part by Fuentes-Castañeda–Knapp–Rodríguez-Henríquez ("Faster hashing
// to G2", SAC 2011), which raises to 2u(6u² + 3u + 1)·(p⁴ − p² + 1)/r, a multiple of the hard
// exponent coprime to r. So the result is e_std^(2u(6u² + 3u + 1)) for the textbook e_std: still
// a non-degenerate bilinear pairing, and the value @noble/curves' bn254.pairing returns
// (tests/vectors/bn254.json checks this).
//
// Inputs must be valid subgroup points (decoders check that); the point at infinity contributes
// the factor 1. Variable time: every input here is public (verification keys, proofs).
#pragma once
#include <span>
#include <utility>

#include "snarkd/ec/bn254.hpp"
#include "snarkd/ff/bn254_tower.hpp"

namespace snarkd::pairing::bn254 {

using GT = ff::bn254::Fp12;
using G1G2Pair = std::pair<ec::bn254::G1Affine, ec::bn254::G2Affine>;

// f_{6u+2,Q}(P) · ℓ_{T,Q1}(P) · ℓ_{T+Q1,Q2}(P), before the final exponentiation.
ff::bn254::Fp12 miller_loop(const ec::bn254::G1Affine& p, const ec::bn254::G2Affine& q);
// The product of the Miller loops with one accumulator: one Fp12 squaring per step for all pairs.
ff::bn254::Fp12 multi_miller_loop(std::span<const G1G2Pair> pairs);
// f^((p¹² − 1)/r · 2u(6u² + 3u + 1)).
GT final_exponentiation(const ff::bn254::Fp12& f);
// The hard part alone, m^(2u(6u² + 3u + 1)(p⁴ − p² + 1)/r), for m in the cyclotomic subgroup
// (exposed for tests).
GT final_exponentiation_hard_part(const ff::bn254::Fp12& m);

GT pairing(const ec::bn254::G1Affine& p, const ec::bn254::G2Affine& q);
// ∏ e(P_i, Q_i): one shared Miller loop and one final exponentiation. Empty input gives 1.
GT multi_pairing(std::span<const G1G2Pair> pairs);
// ∏ e(P_i, Q_i) == 1, the check of the EIP-197 precompile and of every Groth16 verifier.
bool pairing_product_is_one(std::span<const G1G2Pair> pairs);

}  // namespace snarkd::pairing::bn254
