// The optimal ate pairing on BLS12-381: e: G1 × G2 → GT ⊂ Fp12*.
//
// Miller loop over the loop parameter x = −0xd201000000010000 with G2 (the M-type twist
// y² = x³ + 4(1 + u)) in homogeneous projective coordinates and lines evaluated at the G1 point;
// final exponentiation to the power 3·(p¹² − 1)/r (Hayashida–Hayasaka–Teruya, see pairing.cpp).
// The cofactor 3 is coprime to r, so the map stays a non-degenerate bilinear pairing, and it is
// the value @noble/curves, mcl and zkcrypto return (tests/vectors/pairing.json checks this).
//
// Inputs must be valid subgroup points (decoders check that); the point at infinity contributes
// the factor 1. Variable time: every input here is public (verification keys, proofs).
#pragma once
#include <span>
#include <utility>

#include "snarkd/ec/g1.hpp"
#include "snarkd/ec/g2.hpp"
#include "snarkd/ff/fp12.hpp"

namespace snarkd::pairing {

// Elements of GT are Fp12 values of order dividing r; the group law is Fp12 multiplication.
using GT = ff::Fp12;
using G1G2Pair = std::pair<ec::G1Affine, ec::G2Affine>;

// f_{x,Q}(P) with the sign of x applied (conjugated), before the final exponentiation.
ff::Fp12 miller_loop(const ec::G1Affine& p, const ec::G2Affine& q);
// ∏ f_{x,Q_i}(P_i) with one accumulator: one Fp12 squaring per loop bit for all pairs.
ff::Fp12 multi_miller_loop(std::span<const G1G2Pair> pairs);
// f^(3(p¹² − 1)/r).
GT final_exponentiation(const ff::Fp12& f);

GT pairing(const ec::G1Affine& p, const ec::G2Affine& q);
// ∏ e(P_i, Q_i): one shared Miller loop and one final exponentiation. Empty input gives 1.
GT multi_pairing(std::span<const G1G2Pair> pairs);
// ∏ e(P_i, Q_i) == 1, the form every pairing-based verifier reduces to.
bool pairing_product_is_one(std::span<const G1G2Pair> pairs);

}  // namespace snarkd::pairing
