// Random satisfiable R1CS at any size from a few rows up, for tests and benchmarks of everything
// that consumes circuits (SpMV, file I/O, the Groth16 prover, tools/dev_zkey's benchmark keys)
// before real circuits are available. Two measured shapes:
//  * SyntheticParams{} (the defaults): a Filecoin PoRep partition (anchors §1: 130,278,869
//    constraints, 328 public inputs with ONE, non-zeros per row A 2.37, B 1.00, C 2.17, witness
//    mostly bits);
//  * circom_poseidon_shape(): circom's Poseidon circuits (bench/circom/bn254_16, measured with
//    measure_shape below: half the rows linear, the rest x·y = z with one term each, witness
//    random field elements, a few hundred distinct large coefficients).
// Generic over the scalar field F (BLS12-381's ff::Fr, the default, or BN254's ff::bn254::Fr):
// the rows depend on the parameters only, so both fields get the same matrices.
//
// Construction: row r defines one new aux variable v_r (so num_aux = num_constraints) and
// refers otherwise only to earlier variables, 3/4 of the time among the last 4096 (gadgets use
// what they just allocated), else uniformly. Every aux variable has a kind fixed by a hash of
// (seed, index) before any row exists: 0, 1 or "other", in the requested proportions.
//  * Bit rows (v_r is 0 or 1): A, B and C pick only variables of kind 0/1 (ONE included) with
//    coefficients ±1 (15/16) or ±2, ±4, ±8, so ⟨A,w⟩, ⟨B,w⟩ are small integers a, b; C is
//    s·v_r (s = ±1) plus terms, the last of which balances: coefficient d = a·b − s·v_r −
//    (the others) on a variable of value 1, or ±1 on a variable of value 0 when d = 0. The
//    equation then holds over the integers, hence in Fr, with no field arithmetic at all.
//  * Other rows: the first term of A and of B is an "other" variable (random-looking value), the
//    rest any earlier variable; v_r = s·(a·b − rest of C), computed afterwards in row order. C's
//    terms after v_r take a random constant coefficient (one of num_consts field elements drawn
//    from the seed) with probability const_fraction, else a small integer.
//  * circom's shapes (all off by default, and then no extra draws: the PoRep circuits are
//    unchanged): a row is linear (A = B = ∅, C alone: circom's linear constraints, with
//    nnz_c_linear terms) with probability linear_fraction; a non-linear row repeats A as B (x·x,
//    Poseidon's S-box squares) with probability square_fraction; A's first term is the previous
//    row's variable (a chain, as circom's templates consume what they just computed, so A's
//    columns are all distinct) with probability chain_fraction, when that variable has the kind
//    the row wants; in a non-square non-linear "other" row, B's first term is a variable that a
//    square row took that way (x⁵ = x⁴·x: B reuses x) with probability b_squared_fraction.
// Term counts per row are ⌊mean⌋ or ⌊mean⌋ + 1 with the right probability; a balancing term
// may be added (C mean < 2) or dropped (no 0-valued variable found), which moves the means by
// well under 1% at the defaults. No column repeats within a row; coefficients are small
// integers (a few dozen dictionary entries) plus the num_consts random constants.
//
// Every row draws from its own splitmix64 stream seeded by (seed, row), so the output depends
// on the parameters only — not on the thread count. Rows are built twice (once to count, once
// to write in place) instead of being buffered: peak memory is the result itself (at PoRep
// size ≈ 8 GiB of CSR + 4 GiB of witness).
#pragma once
#include <cstdint>
#include <vector>

#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::r1cs {

inline constexpr uint64_t kPorepPartitionConstraints = 130'278'869;

struct SyntheticParams {
  uint64_t num_constraints = uint64_t(1) << 20;
  uint64_t num_inputs = 328;   // counts ONE
  double nnz_a = 2.37;         // mean non-zeros per non-linear row of A: 309.4M / 130.3M
  double nnz_b = 1.00;         // B: 130.3M / 130.3M (ignored by square rows, whose B is A)
  double nnz_c = 2.17;         // C: 282.7M / 130.3M, the row's new variable included
  double bit_fraction = 0.95;  // aux values in {0, 1}
  double zero_fraction = 0.5;  // aux values equal to 0 (counted in bit_fraction too)
  double linear_fraction = 0;  // rows with A = B = ∅
  double nnz_c_linear = 3;     // mean non-zeros of C in a linear row, the new variable included
  double square_fraction = 0;  // non-linear rows whose B equals their A
  double chain_fraction = 0;   // rows whose first A term is the previous row's variable
  double b_squared_fraction = 0;  // other non-linear rows whose first B term a square row squared
  double const_fraction = 0;      // C terms after v_r (other rows) with a random constant coefficient
  uint32_t num_consts = 0;        // distinct random constants (≥ 1 when const_fraction > 0)
  uint64_t seed = 1;
};

// circom's Poseidon circuits, measured on the r1cs of bench/circom/bn254_16.circom (126 chained circomlib
// Poseidon(2), circom2 0.2.23 --O1: 65,267 rows, 34,649 linear) and its witness; the figures
// are in bench/circom/README.md ("snarkd_dev_zkey"). Per row: A 0.469, B 0.469, C 2.212;
// linear rows 53.1% with C 3.28 terms; non-linear rows one term in each of A, B, C, two thirds
// of them squares (B's column is A's); coefficients 73.5% ±1, the rest 448 distinct large
// constants, found in the linear rows (1.57 of their 2.28 terms besides the defined variable);
// witness: no 0 and no 1 except ONE. A takes 46.9% of the variables (each once), B 31.3% (only
// squared ones: the other rows' B reuse them).
SyntheticParams circom_poseidon_shape(uint64_t num_constraints, uint64_t num_inputs, uint64_t seed);

template <class F = Fr>
struct SyntheticCircuitT {
  CircuitT<F> circuit;
  std::vector<F> witness;  // satisfies circuit
};
using SyntheticCircuit = SyntheticCircuitT<Fr>;

// InvalidArgument unless num_constraints ≥ 1, num_inputs ≥ 1, num_inputs + num_constraints ≤
// 2^32, 0 ≤ nnz_a, nnz_b ≤ 64, 1 ≤ nnz_c, nnz_c_linear ≤ 64, 0 ≤ zero_fraction ≤ bit_fraction ≤
// 1, the other fractions in [0, 1], num_consts ≤ 2^20 and ≥ 1 when const_fraction > 0.
// Instantiated for ff::Fr and ff::bn254::Fr; callers without a field get BLS12-381's.
template <class F = Fr>
SyntheticCircuitT<F> generate_synthetic(const SyntheticParams& params);
// generate_synthetic's checks alone (tools check their flags before other work): the message
// names the parameter ("synthetic circuit: linear_fraction must be in [0, 1]").
void check_synthetic_params(const SyntheticParams& params);

// What a circuit looks like, for matching synthetic circuits to real ones (snarkd_dev_zkey
// --measure prints it for a circom .r1cs and .wtns). Means are per row of the whole circuit
// unless named otherwise; a row is linear when A and B are both empty.
struct CircuitShape {
  uint64_t constraints = 0, num_inputs = 0, num_vars = 0;
  double nnz_a = 0, nnz_b = 0, nnz_c = 0;
  double linear_fraction = 0;
  double nnz_c_linear = 0;  // mean C of the linear rows
  double nnz_a_nonlinear = 0, nnz_b_nonlinear = 0, nnz_c_nonlinear = 0;
  double square_fraction = 0;           // non-linear rows whose B has A's columns (coefficients may differ)
  double a_density = 0, b_density = 0;  // variables occurring in A, in B, over num_vars
  double unit_coeff_fraction = 0;       // non-zeros with coefficient ±1
  uint64_t dictionary_size = 0;         // distinct coefficients
  // Over the aux values of the witness (0 when there is none).
  double zero_fraction = 0, bit_fraction = 0;
};
// witness may be empty (then the witness fractions stay 0); otherwise num_vars long.
template <class F>
CircuitShape measure_shape(const CircuitT<F>& circuit, Values<F> witness);

#define SNARKD_SYNTHETIC_DECLARE(F)                                                   \
  extern template SyntheticCircuitT<F> generate_synthetic<F>(const SyntheticParams&); \
  extern template CircuitShape measure_shape<F>(const CircuitT<F>&, Values<F>);
SNARKD_SYNTHETIC_DECLARE(ff::Fr)
SNARKD_SYNTHETIC_DECLARE(ff::bn254::Fr)
#undef SNARKD_SYNTHETIC_DECLARE

}  // namespace snarkd::r1cs
