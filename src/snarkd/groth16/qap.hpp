// The quadratic arithmetic program behind a Groth16 proof: the evaluations a = A·w, b = B·w,
// c = C·w on the domain ⟨ω⟩ of n = 2^k points, and the H polynomial's part of the proof.
//
// Rows of the QAP, in domain order: the circuit's constraints, then (bellperson flavour only)
// one row "w_j · 0 = 0" per input j (ONE included) so that the input columns of A are linearly
// independent (Groth16's requirement for the public-input part), then zeros up to n. snarkjs
// keys put those rows into the circuit the zkey describes, so nothing is appended for them; and
// a zkey has no C matrix: its prover takes c = a∘b, which equals C·w for a satisfying witness.
//
// H, for both flavours, starts with a·b − c evaluated on a coset s·⟨ω⟩ (three inverse and three
// coset forward NTTs), then:
//   kBellperson  s = 7: divide by Z(s·ωⁱ) = sⁿ − 1 (a constant) and coset-inverse-NTT to the
//                coefficients of h = (a·b − c)/Z, degree ≤ n − 2: the n − 1 MSM scalars.
//   kSnarkjs     s = ω₂ₙ (so Z = −2 on the coset, folded into the key): the n coset evaluations
//                themselves are the MSM scalars for the odd-Lagrange H query.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "snarkd/groth16/keys.hpp"
#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::groth16 {

// Rows of the QAP before padding: constraints (+ inputs for bellperson).
uint64_t qap_rows(const r1cs::Circuit& circuit, KeyFlavour flavour);
// Smallest k with 2^k ≥ qap_rows (at least 1). Throws InvalidArgument above 2^32 points.
uint32_t qap_log_domain(const r1cs::Circuit& circuit, KeyFlavour flavour);

struct QapEvaluations {
  std::vector<Fr> a, b, c;  // each n = 2^log_domain long
};

// a, b, c for witness w (w.size() = num_vars; InvalidArgument otherwise, or when the rows do not
// fit 2^log_domain). w[0] = 1 is the callers' entry-point check (bound_key.hpp's check_witness).
QapEvaluations evaluate_qap(const r1cs::Circuit& circuit, KeyFlavour flavour, uint32_t log_domain,
                            std::span<const Fr> witness);

// The first row where a·b ≠ c, if any (always none for kSnarkjs, whose c is a∘b).
std::optional<uint64_t> first_failing_row(const QapEvaluations& e);

// The H-query scalars (see above): n − 1 coefficients (kBellperson) or n evaluations
// (kSnarkjs). Consumes the evaluations (the transforms run in place).
std::vector<Fr> h_scalars(KeyFlavour flavour, uint32_t log_domain, QapEvaluations&& e);

// The coset shift s above: 7 for bellperson, ω₂ₙ (generator 5) for snarkjs.
Fr h_coset_shift(KeyFlavour flavour, uint32_t log_domain);

// The variables a bellperson A query holds points for: those occurring in A plus every input
// (the appended input rows put each input in A).
r1cs::DensityBitmap bellperson_a_density(const r1cs::Circuit& circuit);

// v[j] for the variables j set in d, in order (all of v when d is empty: a full query).
std::vector<Fr> gather_by_density(std::span<const Fr> v, const r1cs::DensityBitmap& d);

}  // namespace snarkd::groth16
