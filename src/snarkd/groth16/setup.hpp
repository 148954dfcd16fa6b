// Development setup (INSECURE: the toxic waste is derived from a seed or held in memory and
// could be recovered; never use its keys for anything of value). Real Filecoin keys come from a
// ceremony as `.params` files; real circom keys from snarkjs.
//
// It produces a bellperson-flavour key (domain generator 7, monomial H query, density-compacted
// A/B queries) for a circuit, following Groth 2016 §3.2:
//   u_j, v_j, w_j = Σ_i A_ij·L_i(τ), Σ_i B_ij·L_i(τ), Σ_i C_ij·L_i(τ) over the QAP rows i, where
//   L_i is the Lagrange basis of ⟨ω⟩: L_i(τ) = Z(τ)·ωⁱ / (n·(τ − ωⁱ)), Z(τ) = τⁿ − 1;
//   ic_j = (β u_j + α v_j + w_j)/γ for inputs, l_j = (β u_j + α v_j + w_j)/δ for aux;
//   a_j = u_j·G1, b_j = v_j·G1 / v_j·G2 for the variables in the A / B density;
//   h_i = τⁱ·Z(τ)/δ · G1 for i < n − 1.
#pragma once
#include <cstdint>

#include "snarkd/groth16/keys.hpp"
#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::groth16 {

struct ToxicWaste {
  Fr tau, alpha, beta, gamma, delta;  // all non-zero; τ must not be a domain point
};

// Deterministic toxic waste from a 64-bit seed (tests and `snarkd setup --seed`), or from the
// operating system's CSPRNG. Both are insecure setups: one party knows the trapdoor.
ToxicWaste toxic_waste_from_seed(uint64_t seed);
ToxicWaste toxic_waste_random();

// The proving key (densities attached) for `circuit`. Throws InvalidArgument for a circuit that
// fails r1cs::find_structure_error or a τ that is a root of unity of the domain.
ProvingKey setup_insecure(const r1cs::Circuit& circuit, const ToxicWaste& t);

}  // namespace snarkd::groth16
