// Proving from bellperson's synthesis result (a, b, c rows, assignments, densities) against the
// witness prover: for a, b, c = SpMV of a real circuit + the input rows, the same r, s give the
// same proof bytes; every disagreement with the key is refused naming the field.
#include <gtest/gtest.h>

#include "common/bound.hpp"
#include "snarkd/groth16/bellperson_io.hpp"
#include "snarkd/groth16/prove_abc.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/groth16/qap.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/r1cs/builder.hpp"
#include "snarkd/r1cs/synthetic.hpp"
#include "common/seed.hpp"

namespace snarkd::groth16 {
namespace {

r1cs::SyntheticCircuit synthetic(uint64_t constraints, uint64_t inputs, uint64_t seed) {
  r1cs::SyntheticParams p;
  p.num_constraints = constraints;
  p.num_inputs = inputs;
  p.seed = seed;
  return r1cs::generate_synthetic(p);
}

// An input that occurs in B (b_inp density has a gap at the other input), an aux that occurs
// nowhere, an aux only in C: gaps in every density vector.
r1cs::Synthesized gappy(uint64_t x_value) {
  using r1cs::LinearCombination;
  r1cs::CircuitBuilder cb;
  const Fr x = Fr::from_u64(x_value);
  const auto in_b = cb.allocate_input(Fr::from_u64(2));
  const auto out = cb.allocate_input(x * x * Fr::from_u64(2));
  const auto vx = cb.allocate_aux(x);
  const auto x2 = cb.allocate_aux(x * x);
  cb.allocate_aux(Fr::from_u64(77));  // unused
  const auto only_c = cb.allocate_aux(Fr::zero());
  cb.enforce(vx, vx, x2);
  cb.enforce(x2, in_b, out);
  cb.enforce(LinearCombination(vx) - LinearCombination(vx), r1cs::Variable::one(), only_c);
  return std::move(cb).finish();
}

TEST(ProveAbc, EqualsWitnessProverByteForByte) {
  auto g = test::rng("prove_abc_equal");
  struct Case {
    r1cs::Circuit circuit;
    std::vector<Fr> witness;
  };
  std::vector<Case> cases;
  for (uint64_t m : {1, 2, 30, 61, 200}) {
    auto sc = synthetic(m, 1 + m % 5, 3 * m + 1);
    cases.push_back({std::move(sc.circuit), std::move(sc.witness)});
  }
  for (uint64_t x : {0, 3}) {
    auto s = gappy(x);
    cases.push_back({std::move(s.circuit), std::move(s.witness)});
  }
  for (const Case& c : cases) {
    ProvingKey pk = setup_insecure(c.circuit, toxic_waste_from_seed(g()));
    const BellpersonSynthesis syn = synthesize_bellperson(c.circuit, c.witness);
    ASSERT_EQ(syn.a.size(), qap_rows(c.circuit, KeyFlavour::kBellperson));
    const ProofRandomness rs{Fr::random(g), Fr::random(g)};
    ProveOptions opt;
    opt.self_check = true;
    // The key as a .params file gives it: no densities. prove_abc needs none.
    ProvingKey bare = pk;
    bare.a_density = {};
    bare.b_density = {};
    const Proof got = prove_abc(bare, syn.view(), rs, opt);
    (void)BoundKey::bind(pk, c.circuit);
    const Proof want = prove(*snarkd::test::bind(pk, c.circuit), c.witness, rs);
    EXPECT_EQ(encode_proof(got), encode_proof(want)) << "constraints " << c.circuit.num_constraints();
    EXPECT_TRUE(verify(pk.vk, got, public_inputs(c.circuit, c.witness)));
  }
}

TEST(ProveAbc, PaddedRowsAndIgnoredTrailingBits) {
  auto g = test::rng("prove_abc_pad");
  auto sc = synthetic(40, 3, 9);
  const ProvingKey pk = setup_insecure(sc.circuit, toxic_waste_from_seed(g()));
  BellpersonSynthesis syn = synthesize_bellperson(sc.circuit, sc.witness);
  const ProofRandomness rs{Fr::random(g), Fr::random(g)};
  const Proof want = prove_abc(pk, syn.view(), rs);
  // Zero rows up to n change nothing (the prover pads with zeros itself).
  BellpersonSynthesis full = syn;
  for (auto* v : {&full.a, &full.b, &full.c}) v->resize(pk.domain_size());
  EXPECT_EQ(prove_abc(pk, full.view(), rs), want);
  // Bits at or past bit_len are not part of the vector (bitvec's raw words may carry them).
  full.b_inp_words.back() |= ~uint64_t{0} << (full.inputs.size() % 64);
  full.a_aux_words.back() |= ~uint64_t{0} << (full.aux.size() % 64);
  EXPECT_EQ(prove_abc(pk, full.view(), rs), want);
}

// Runs f on a copy of the synthesis and expects InvalidArgument mentioning `needle`.
template <class F>
void expect_refused(const ProvingKey& pk, const BellpersonSynthesis& syn, const std::string& needle, F f) {
  BellpersonSynthesis bad = syn;
  AbcAssignment v = bad.view();
  f(bad, v);
  try {
    prove_abc(pk, v, ProofRandomness{Fr::one(), Fr::one()});
    ADD_FAILURE() << "accepted; wanted an error naming " << needle;
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(ProveAbc, RefusesDisagreementsNamingTheField) {
  auto g = test::rng("prove_abc_bad");
  auto s = gappy(5);
  const ProvingKey pk = setup_insecure(s.circuit, toxic_waste_from_seed(g()));
  const BellpersonSynthesis syn = synthesize_bellperson(s.circuit, s.witness);
  using B = BellpersonSynthesis;
  using V = AbcAssignment;
  expect_refused(pk, syn, "a_aux_popcount is", [](B&, V& v) { v.a_aux.popcount += 1; });
  expect_refused(pk, syn, "b_inp_popcount is", [](B&, V& v) { v.b_inputs.popcount = 0; });
  expect_refused(pk, syn, "b_aux_density has", [](B&, V& v) { v.b_aux.popcount += 2; });
  expect_refused(pk, syn, "b_aux_bit_len is", [](B&, V& v) { v.b_aux.bit_len -= 1; });
  expect_refused(pk, syn, "a_aux_density is a null pointer", [](B&, V& v) { v.a_aux.words = nullptr; });
  expect_refused(pk, syn, "aux_assignment_size is", [](B&, V& v) { v.aux = v.aux.first(v.aux.size() - 1); });
  expect_refused(pk, syn, "inp_assignment_size is", [](B&, V& v) { v.inputs = v.inputs.first(1); });
  expect_refused(pk, syn, "a, b, c differ", [](B&, V& v) { v.c = v.c.first(1); });
  expect_refused(pk, syn, "abc_size is", [&](B& b, V& v) {
    for (auto* x : {&b.a, &b.b, &b.c}) x->resize(pk.domain_size() + 1);
    v.a = b.a, v.b = b.b, v.c = b.c;
  });
  expect_refused(pk, syn, "the constant ONE", [](B& b, V&) { b.inputs[0] = Fr::from_u64(2); });
  expect_refused(pk, syn, ".b is a null pointer", [](B&, V& v) { v.b = std::span<const Fr>(static_cast<const Fr*>(nullptr), v.b.size()); });
  // Popcounts consistent with the bits but not with the key: the key's A query is the judge.
  expect_refused(pk, syn, "A points", [](B& b, V& v) {
    b.a_aux_words[0] ^= 1;  // aux 0 (x) toggled out of the A density
    v.a_aux.popcount = v.a_aux.count_set();
  });
}

TEST(ProveAbc, RefusesUnsatisfiedRows) {
  auto g = test::rng("prove_abc_unsat");
  auto sc = synthetic(30, 2, 4);
  const ProvingKey pk = setup_insecure(sc.circuit, toxic_waste_from_seed(g()));
  BellpersonSynthesis syn = synthesize_bellperson(sc.circuit, sc.witness);
  for (uint64_t row : {uint64_t{0}, uint64_t{17}, syn.a.size() - 1}) {  // the last is an input row
    BellpersonSynthesis bad = syn;
    bad.c[row] += Fr::one();
    try {
      prove_abc(pk, bad.view(), ProofRandomness{Fr::one(), Fr::one()});
      ADD_FAILURE() << "proved with row " << row << " unsatisfied";
    } catch (const UnsatisfiedWitness& e) {
      EXPECT_EQ(e.row(), row) << e.what();
    }
  }
  // Rows that hold but an aux value the rows do not reflect: only the self-check can see it.
  BellpersonSynthesis bad = syn;
  bad.aux[5] += Fr::one();
  ProveOptions opt;
  opt.self_check = true;
  EXPECT_THROW(prove_abc(pk, bad.view(), ProofRandomness{Fr::one(), Fr::one()}, opt), UnsatisfiedWitness);
}

}  // namespace
}  // namespace snarkd::groth16
