// Proving from what bellperson synthesised, without the circuit: the QAP row evaluations a, b, c
// (the constraints, then one "input·0 = 0" row per input), the input and aux assignments and
// the density bit vectors of its ProvingAssignment. This is the job supraseal-c2's
// generate_groth16_proofs_c receives (src/snarkd/ffi), so the SpMV step is skipped:
//
//   H      a, b, c zero-padded to n = |h| + 1 → iNTT, coset NTT (shift 7), (a·b − c)/Z,
//          coset iNTT → the n − 1 scalars of the H MSM (qap.hpp's h_scalars);
//   A      scalars = every input, then the aux values whose a_aux bit is set
//          (|A query| = |inputs| + a_aux popcount: bellperson's input rows put every input in A);
//   B      scalars = the inputs whose b_inp bit is set, then the aux whose b_aux bit is set
//          (the same scalars for B_G1 and B_G2);
//   L      scalars = every aux value;
// then groth16::assemble with r, s. For a, b, c = the SpMV of a circuit's witness plus the input
// rows and the circuit's densities this is exactly groth16::prove (same r, s → same bytes;
// tests/groth16/prove_abc_test.cpp).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "snarkd/groth16/keys.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::groth16 {

// A density bit vector as bellperson's DensityTracker stores it: bit i of words[i / 64] (LSB
// first) for i < bit_len; bits at or past bit_len are ignored. popcount is the caller's count,
// checked against the bits.
struct DensityBits {
  const uint64_t* words = nullptr;
  uint64_t bit_len = 0;
  uint64_t popcount = 0;

  bool test(uint64_t i) const { return (words[i / 64] >> (i % 64)) & 1; }
  uint64_t count_set() const;  // set bits among the first bit_len
};

// One circuit's synthesis result; spans point at the caller's memory, read during the call.
struct AbcAssignment {
  std::span<const Fr> a, b, c;  // the QAP rows, each abc_size ≤ n long
  std::span<const Fr> inputs;   // input assignment, ONE first
  std::span<const Fr> aux;      // aux assignment
  DensityBits a_aux, b_inputs, b_aux;
};

// Checks that the assignment fits pk (a bellperson-flavour key): equal a/b/c lengths ≤ n, one
// input per IC point, |L| aux values, bit lengths equal to the assignment lengths, popcounts
// equal to the bits, |A| = |inputs| + a_aux popcount, |B_G1| = |B_G2| = b_inp + b_aux popcounts,
// inputs[0] = 1, non-null data for non-empty spans. Throws InvalidArgument naming `name` and the
// field: "provers[2].a_aux_popcount is 5, a_aux_density has 6 bits set".
void check_abc_assignment(const ProvingKey& pk, const AbcAssignment& asg, const std::string& name);

// The five sums (the "start" half), after check_abc_assignment. Refuses rows with a·b ≠ c
// (UnsatisfiedWitness naming the row: a constraint, or an input row past the constraints
// cannot be told apart here, so the message gives the row index). Fills t's step times
// (qap = the copy and row check).
QuerySums compute_sums_abc(const ProvingKey& pk, const AbcAssignment& asg, const std::string& name,
                           const ProveOptions& opt, ProveTimings& t);

// compute_sums_abc + assemble; opt.self_check verifies the proof against inputs[1..).
Proof prove_abc(const ProvingKey& pk, const AbcAssignment& asg, const ProofRandomness& rs,
                const ProveOptions& opt = {}, ProveTimings* timings = nullptr);

// What bellperson's ProvingAssignment holds after synthesis of `circuit` with `witness`, in
// owned vectors: the a, b, c rows (constraints then input rows, qap_rows long), the density
// words, the assignments. For tests, the FFI harness and tools that feed the a/b/c form.
struct BellpersonSynthesis {
  std::vector<Fr> a, b, c, inputs, aux;
  std::vector<uint64_t> a_aux_words, b_inp_words, b_aux_words;
  uint64_t a_aux_popcount = 0, b_inp_popcount = 0, b_aux_popcount = 0;

  AbcAssignment view() const;  // spans into this object
};
BellpersonSynthesis synthesize_bellperson(const r1cs::Circuit& circuit, std::span<const Fr> witness);
// An owned copy of v (after check_abc_assignment: the bit lengths are the assignment's).
BellpersonSynthesis copy_of(const AbcAssignment& v);

}  // namespace snarkd::groth16
