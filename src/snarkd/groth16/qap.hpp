// The quadratic arithmetic program behind a Groth16 proof: the evaluations a = A·w, b = B·w,
// c = C·w on the domain ⟨ω⟩ of n = 2^k points, and the H polynomial's part of the proof.
//
// Rows of the QAP, in domain order: the circuit's constraints, then (bellperson flavour only)
// one row "w_j · 0 = 0" per input j (ONE included) so that the input columns of A are linearly
// independent (Groth16's requirement for the public-input part), then zeros up to n. snarkjs
// keys put those rows into the circuit the zkey describes, so nothing is appended for them; and
// a zkey has no C matrix: its prover takes c = a∘b, which equals C·w for a satisfying witness.
//
// H, for both flavours, is (a·b − c)/Z on a coset s·⟨ω⟩, Z(s·ωⁱ) = sⁿ − 1 a constant:
//   kBellperson  s = 7: the coefficients of h = (a·b − c)/Z, degree ≤ n − 2: the n − 1 MSM
//                scalars. Computed as f·(coset_intt(â·b̂) − intt(c)), f = 1/(sⁿ − 1), â, b̂
//                the coset evaluations of a, b: the coset inverse is linear and undoes c's coset
//                transform, so this is the same vector as coset_intt((â·b̂ − ĉ)·f) for any
//                a, b, c, with 6 transforms instead of 7.
//   kSnarkjs     s = ω₂ₙ (so Z = −2 on the coset, folded into the key): the n coset evaluations
//                â·b̂ − ĉ themselves (three inverse and three coset NTTs) are the MSM scalars for
//                the odd-Lagrange H query.
//
// Everything here depends on the curve only through its scalar field F (the templates are
// instantiated in qap.cpp for BLS12-381's and BN254's Fr; names default to BLS12-381's).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "snarkd/groth16/keys.hpp"
#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::groth16 {

// Rows of the QAP before padding: constraints (+ inputs for bellperson).
template <class F>
uint64_t qap_rows(const r1cs::CircuitT<F>& circuit, KeyFlavour flavour) {
  const uint64_t m = circuit.num_constraints();
  return flavour == KeyFlavour::kBellperson ? m + circuit.num_inputs : m;
}
// Smallest k with 2^k ≥ qap_rows (at least 1). Throws InvalidArgument when the domain (or, for
// snarkjs, its double) exceeds F's two-adicity: 2^31 points for BLS12-381, 2^27 for BN254.
template <class F>
uint32_t qap_log_domain(const r1cs::CircuitT<F>& circuit, KeyFlavour flavour);

template <class F>
struct QapEvaluationsT {
  std::vector<F> a, b, c;  // each n = 2^log_domain long
};
using QapEvaluations = QapEvaluationsT<Fr>;

// a, b, c for witness w (w.size() = num_vars; InvalidArgument otherwise, or when the rows do not
// fit 2^log_domain). w[0] = 1 is the callers' entry-point check (bound_key.hpp's check_witness).
template <class F>
QapEvaluationsT<F> evaluate_qap(const r1cs::CircuitT<F>& circuit, KeyFlavour flavour, uint32_t log_domain,
                                r1cs::Values<F> witness);

// The first row where a·b ≠ c, if any (always none for kSnarkjs, whose c is a∘b).
template <class F>
std::optional<uint64_t> first_failing_row(const QapEvaluationsT<F>& e);

// The H-query scalars (see above): n − 1 coefficients (kBellperson) or n evaluations
// (kSnarkjs). Consumes the evaluations (the transforms run in place).
template <class F>
std::vector<F> h_scalars(KeyFlavour flavour, uint32_t log_domain, QapEvaluationsT<F>&& e);

// The coset shift s above: 7 for bellperson, ω₂ₙ (generator 5) for snarkjs.
template <class F = Fr>
F h_coset_shift(KeyFlavour flavour, uint32_t log_domain);

// The variables a bellperson A query holds points for: those occurring in A plus every input
// (the appended input rows put each input in A).
template <class F>
r1cs::DensityBitmap bellperson_a_density(const r1cs::CircuitT<F>& circuit);

// v[j] for the variables j set in d, in order (all of v when d is empty: a full query).
template <class F = Fr>
std::vector<F> gather_by_density(r1cs::Values<F> v, const r1cs::DensityBitmap& d);

#define SNARKD_QAP_DECLARE(F)                                                                              \
  extern template uint32_t qap_log_domain<F>(const r1cs::CircuitT<F>&, KeyFlavour);                        \
  extern template QapEvaluationsT<F> evaluate_qap<F>(const r1cs::CircuitT<F>&, KeyFlavour, uint32_t,       \
                                                     r1cs::Values<F>);                                     \
  extern template std::optional<uint64_t> first_failing_row<F>(const QapEvaluationsT<F>&);                 \
  extern template std::vector<F> h_scalars<F>(KeyFlavour, uint32_t, QapEvaluationsT<F>&&);                 \
  extern template F h_coset_shift<F>(KeyFlavour, uint32_t);                                                \
  extern template r1cs::DensityBitmap bellperson_a_density<F>(const r1cs::CircuitT<F>&);                   \
  extern template std::vector<F> gather_by_density<F>(r1cs::Values<F>, const r1cs::DensityBitmap&);
SNARKD_QAP_DECLARE(ff::Fr)
SNARKD_QAP_DECLARE(ff::bn254::Fr)
#undef SNARKD_QAP_DECLARE

}  // namespace snarkd::groth16
