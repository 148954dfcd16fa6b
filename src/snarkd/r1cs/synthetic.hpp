// Random satisfiable R1CS shaped like a Filecoin PoRep partition (anchors §1: 130,278,869
// constraints, 328 public inputs with ONE, non-zeros per row A 2.37, B 1.00, C 2.17, witness
// mostly bits), at any size from a few rows up, for tests and benchmarks of everything that
// consumes circuits (SpMV, file I/O, the Groth16 prover) before real circuits are available.
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
//    rest any earlier variable; v_r = s·(a·b − rest of C), computed afterwards in row order.
// Term counts per row are ⌊mean⌋ or ⌊mean⌋ + 1 with the right probability; a balancing term
// may be added (C mean < 2) or dropped (no 0-valued variable found), which moves the means by
// well under 1% at the defaults. No column repeats within a row; coefficients are small
// integers, so the dictionary has a few dozen entries.
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
  double nnz_a = 2.37;         // mean non-zeros per row of A: 309.4M / 130.3M
  double nnz_b = 1.00;         // B: 130.3M / 130.3M
  double nnz_c = 2.17;         // C: 282.7M / 130.3M, the row's new variable included
  double bit_fraction = 0.95;  // aux values in {0, 1}
  double zero_fraction = 0.5;  // aux values equal to 0 (counted in bit_fraction too)
  uint64_t seed = 1;
};

struct SyntheticCircuit {
  Circuit circuit;
  std::vector<Fr> witness;  // satisfies circuit
};

// InvalidArgument unless num_constraints ≥ 1, num_inputs ≥ 1, num_inputs + num_constraints ≤
// 2^32, 0 ≤ nnz_a, nnz_b ≤ 64, 1 ≤ nnz_c ≤ 64, 0 ≤ zero_fraction ≤ bit_fraction ≤ 1.
SyntheticCircuit generate_synthetic(const SyntheticParams& params);

}  // namespace snarkd::r1cs
