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
//
// Two steps, so the expensive second one can run elsewhere (cuda/setup_gpu.hpp):
//   setup_scalars     every query's scalars (the values above before "·G"), on the thread pool;
//   key_from_scalars  the fixed-base multiplications s·G1 / s·G2 through a FixedBaseBackend.
// Points are affine with canonical (fully reduced) coordinates, so any correct backend gives
// the same bytes: setup_insecure (CPU backend) and the GPU setup produce identical keys.
//
// setup_snarkjs_insecure<E> makes, for a circom circuit over either curve (curve.hpp), the
// snarkjs-flavour key and zkey circuit that `snarkjs groth16 setup` would make from a ptau of
// the same τ, α, β and a phase 2 that set γ and δ (tools/dev_zkey writes it as a .zkey).
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "snarkd/groth16/keys.hpp"
#include "snarkd/groth16/zkey.hpp"
#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::groth16 {

template <class F>
struct ToxicWasteT {
  F tau, alpha, beta, gamma, delta;  // all non-zero; τ must not be a domain point
};
using ToxicWaste = ToxicWasteT<Fr>;

// Deterministic toxic waste from a 64-bit seed (tests and `snarkd setup --seed`), or from the
// operating system's CSPRNG, over the scalar field F (BLS12-381's by default). Both are
// insecure setups: one party knows the trapdoor.
template <class F = Fr>
ToxicWasteT<F> toxic_waste_from_seed(uint64_t seed);
template <class F = Fr>
ToxicWasteT<F> toxic_waste_random();

// The scalars of every point of a bellperson-flavour key (the key is these times G1 or G2).
struct SetupScalars {
  uint32_t log_domain = 0;
  r1cs::DensityBitmap a_density, b_density;  // bellperson_a_density, r1cs::density(B)
  Fr alpha, beta, gamma, delta;              // vk: α, β, δ (G1) and β, γ, δ (G2)
  std::vector<Fr> ic;  // (β u_j + α v_j + w_j)/γ, j < num_inputs
  std::vector<Fr> a;   // u_j for the variables j set in a_density, in order
  std::vector<Fr> b;   // v_j for the variables j set in b_density (both B queries)
  std::vector<Fr> l;   // (β u_j + α v_j + w_j)/δ, j = num_inputs + k
  std::vector<Fr> h;   // τⁱ·Z(τ)/δ, i < n − 1
};

// Step (a). Lagrange values with one batch inversion per block of rows, column sums with the
// columns split among the pool's threads (each scans every row and keeps its own columns: no
// per-thread copies of the num_vars-long sums, no atomics), the rest element-wise, all on the
// global pool. Peak memory besides the circuit ≈ 4 vectors of max(n, num_vars) elements
// (lag + u, v, w, then u, v, w, l, ...): 16 GiB at n = 2^27.
// Throws InvalidArgument for a circuit that fails r1cs::find_structure_error, a τ that is a
// root of unity of the domain, or γ = 0 or δ = 0.
SetupScalars setup_scalars(const r1cs::Circuit& circuit, const ToxicWaste& t);

// Batch fixed-base multiplication by the group generator: out[i] = scalars[i]·G, out.size() =
// scalars.size(), affine (infinity = (0, 0) for a zero scalar).
struct FixedBaseBackend {
  std::function<std::vector<G1Affine>(std::span<const Fr>)> g1;
  std::function<std::vector<G2Affine>(std::span<const Fr>)> g2;
};

// ec::FixedBaseTable::mul_many on the global pool (tables of the two generators, built once).
FixedBaseBackend cpu_fixed_base();

// Step (b): the proving key (densities attached) from its scalars. Each scalar vector is freed
// as soon as its points exist, so the peak is the key plus its largest query's scalars.
// Throws InvalidArgument when the backend returns a wrong number of points.
ProvingKey key_from_scalars(SetupScalars&& s, const FixedBaseBackend& backend);

// An upper bound of what setup_insecure allocates for `circuit` at its peak (the scalars of
// every query, then the points they become, plus the generator tables), from the counts alone:
// nothing is allocated. A small circuit file may claim 2^32 variables (~2.5 TiB here), so
// callers compare this with what they may use before they start.
uint64_t setup_peak_bytes(const r1cs::Circuit& circuit);

// setup_scalars + key_from_scalars(cpu_fixed_base()): same errors as setup_scalars.
ProvingKey setup_insecure(const r1cs::Circuit& circuit, const ToxicWaste& t);

// The circuit a zkey describes for `circuit` (snarkjs zkey_new.js; zkey.hpp): its A and B,
// then one row "x_s · 0 = 0" per input s (ONE included; A holds x_s with coefficient 1), and C
// with those rows but no non-zeros.
template <class F>
r1cs::CircuitT<F> snarkjs_zkey_circuit(const r1cs::CircuitT<F>& circuit);

// Called after each step of setup_snarkjs_insecure with its name ("scalars", "A", "B2", ...)
// and seconds; may be empty.
using SetupProgress = std::function<void(const char* step, double seconds)>;

// The snarkjs-flavour key for `circuit` (a circom circuit, C included) and the zkey's circuit
// (snarkjs_zkey_circuit), for toxic waste t, over the domain ⟨ωₙ⟩ (generator 5) of the zkey's
// rows (constraints + inputs):
//   u_j, v_j = Σ_i A_ij·L_i(τ), Σ_i B_ij·L_i(τ) over the zkey's rows, w_j = Σ_i C_ij·L_i(τ)
//   over the circuit's; a_j = u_j·G1, b_j = v_j·G1 / v_j·G2 for every variable (0 → ∞);
//   ic_j = (β u_j + α v_j + w_j)/γ·G1 for inputs, l_j = (β u_j + α v_j + w_j)/δ·G1 for aux;
//   h_i = L_{2i+1}(τ)/δ·G1, i < n, the odd Lagrange basis of the 2n domain. With ω₂ₙ² = ωₙ,
//   L_{2i+1}(τ) = −(τⁿ − 1)/2 · ℓ_i(τ/ω₂ₙ) in the n-point basis ℓ (τ − ω₂ₙωₙⁱ = ω₂ₙ(τ/ω₂ₙ − ωₙⁱ)
//   and (τ/ω₂ₙ)ⁿ = −τⁿ), so no 2n-long vector is made.
// Scalars on the global pool (column sums split by columns, Lagrange values by blocks with one
// batch inversion each); points by fixed-base multiplication (ec/fixed_base.hpp: 8-bit window
// tables, affine accumulators sharing one inversion per window and 1024 points) on the pool.
// Each query's scalars are freed once its points exist: the peak is the key (nVars·(3 G1 + G2)
// + n G1) plus the zkey circuit and 4 scalar vectors of nVars.
// InvalidArgument when the circuit fails r1cs::find_structure_error, its domain (doubled) is
// too large for F, τⁿ = ±1 (τ on the 2n domain) or γ, δ = 0.
template <class E>
ZkeyT<E> setup_snarkjs_insecure(const r1cs::CircuitT<typename E::Fr>& circuit, const ToxicWasteT<typename E::Fr>& t,
                                const SetupProgress& progress = {});

#define SNARKD_SETUP_DECLARE(E)                                                                               \
  extern template ToxicWasteT<typename E::Fr> toxic_waste_from_seed<typename E::Fr>(uint64_t);                \
  extern template ToxicWasteT<typename E::Fr> toxic_waste_random<typename E::Fr>();                           \
  extern template r1cs::CircuitT<typename E::Fr> snarkjs_zkey_circuit(const r1cs::CircuitT<typename E::Fr>&); \
  extern template ZkeyT<E> setup_snarkjs_insecure<E>(const r1cs::CircuitT<typename E::Fr>&,                   \
                                                     const ToxicWasteT<typename E::Fr>&, const SetupProgress&);
SNARKD_SETUP_DECLARE(Bls12_381)
SNARKD_SETUP_DECLARE(Bn254)
#undef SNARKD_SETUP_DECLARE

}  // namespace snarkd::groth16
