// Setup, prover and verifier (bellperson flavour) against the slow reference path, plus the
// properties a verifier must have: tampered inputs and proofs rejected, batches, bad witnesses.
#include <gtest/gtest.h>

#include "common/bound.hpp"
#include "reference.hpp"
#include "snarkd/ec/fixed_base.hpp"
#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/groth16/qap.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/pairing/pairing.hpp"
#include "snarkd/groth16/zkey.hpp"
#include "snarkd/r1cs/circom.hpp"
#include "snarkd/r1cs/builder.hpp"
#include "snarkd/r1cs/synthetic.hpp"
#include "common/seed.hpp"

namespace snarkd::groth16 {
namespace {

using r1cs::LinearCombination;
using r1cs::Variable;

r1cs::SyntheticCircuit small_synthetic(uint64_t constraints, uint64_t inputs, uint64_t seed) {
  r1cs::SyntheticParams p;
  p.num_constraints = constraints;
  p.num_inputs = inputs;
  p.seed = seed;
  return r1cs::generate_synthetic(p);
}

// x³ + x + 5 = y with y public, plus an aux variable that occurs nowhere and an input that
// occurs only in C: density gaps in A and B.
r1cs::Synthesized cubic(uint64_t x_value) {
  r1cs::CircuitBuilder cb;
  const Fr x = Fr::from_u64(x_value);
  const Fr y = x * x * x + x + Fr::from_u64(5);
  const Variable out = cb.allocate_input(y);
  const Variable only_c = cb.allocate_input(Fr::from_u64(9));
  const Variable vx = cb.allocate_aux(x);
  const Variable x2 = cb.allocate_aux(x * x);
  const Variable x3 = cb.allocate_aux(x * x * x);
  cb.allocate_aux(Fr::from_u64(1234));  // unused
  cb.enforce(vx, vx, x2);
  cb.enforce(x2, vx, x3);
  cb.enforce(LinearCombination(x3) + LinearCombination(vx) + LinearCombination::constant(Fr::from_u64(5)),
             Variable::one(), out);
  cb.enforce(LinearCombination::constant(Fr::from_u64(3)), LinearCombination::constant(Fr::from_u64(3)), only_c);
  return std::move(cb).finish();
}

ProofRandomness random_rs(std::mt19937_64& g) { return {Fr::random(g), Fr::random(g)}; }

TEST(FixedBase, MatchesScalarMultiplication) {
  auto g = snarkd::test::rng("fixed_base");
  const ec::FixedBaseTable<ec::G1Config> t1(ec::generator<ec::G1Config>());
  const ec::FixedBaseTable<ec::G2Config> t2(ec::generator<ec::G2Config>());
  std::vector<Fr> s = {Fr::zero(), Fr::one(), -Fr::one(), Fr::from_u64(255), Fr::from_u64(256)};
  for (int i = 0; i < 20; ++i) s.push_back(Fr::random(g));
  const auto many = t1.mul_many(s);
  for (size_t i = 0; i < s.size(); ++i) {
    const auto want1 = ec::G1Jacobian::from_affine(ec::generator<ec::G1Config>()).mul_scalar(s[i]);
    EXPECT_EQ(t1.mul(s[i]), want1) << i;
    EXPECT_EQ(many[i], want1.to_affine()) << i;
    EXPECT_EQ(t2.mul(s[i]), ec::G2Jacobian::from_affine(ec::generator<ec::G2Config>()).mul_scalar(s[i])) << i;
  }
}

TEST(Qap, HScalarsMatchPolynomialArithmetic) {
  for (KeyFlavour f : {KeyFlavour::kBellperson, KeyFlavour::kSnarkjs}) {
    for (uint64_t m : {1, 5, 29, 60}) {
      auto sc = small_synthetic(m, 3, 40 + m);
      const uint32_t k = qap_log_domain(sc.circuit, f);
      QapEvaluations e = evaluate_qap(sc.circuit, f, k, sc.witness);
      const auto want = test::reference_h(f, k, e.a, e.b, e.c);
      EXPECT_EQ(h_scalars(f, k, std::move(e)), want) << flavour_name(f) << " m=" << m;
    }
  }
}

TEST(Prover, BellpersonProofEqualsReferenceAndVerifies) {
  auto g = snarkd::test::rng("prover_reference");
  for (uint64_t m : {1, 3, 31, 100}) {
    auto sc = small_synthetic(m, 1 + m % 4, 7 * m);
    const ProvingKey pk = setup_insecure(sc.circuit, toxic_waste_from_seed(g()));
    const auto [r, s] = random_rs(g);
    const Proof got = prove(*snarkd::test::bind(pk, sc.circuit), sc.witness, ProofRandomness{r, s});
    EXPECT_EQ(got, test::reference_prove(pk, sc.circuit, sc.witness, r, s)) << "m=" << m;
    const auto pub = public_inputs(sc.circuit, sc.witness);
    EXPECT_TRUE(verify(pk.vk, got, pub)) << "m=" << m;
  }
}

// assemble() reads fixed-base tables of δ₁, δ₂ cached per key and joins s·A + r·B₁ in one
// Straus pass: the proof must equal the plain formulas (each product its own double-and-add),
// for random sums, zero and random r, s, sums at infinity, and more keys than the cache keeps
// (a key seen again after eviction rebuilds its tables).
TEST(Prover, AssembleEqualsPlainFormulas) {
  using J1 = ec::G1Jacobian;
  using J2 = ec::G2Jacobian;
  auto g = snarkd::test::rng("prover_assemble");
  auto g1 = [&] { return J1::from_affine(ec::generator<ec::G1Config>()).mul_scalar(Fr::random(g)); };
  auto g2 = [&] { return J2::from_affine(ec::generator<ec::G2Config>()).mul_scalar(Fr::random(g)); };
  std::vector<VerifyingKey> vks(11);
  for (VerifyingKey& vk : vks) {
    vk.alpha_g1 = g1().to_affine();
    vk.beta_g1 = g1().to_affine();
    vk.beta_g2 = g2().to_affine();
    vk.delta_g1 = g1().to_affine();
    vk.delta_g2 = g2().to_affine();
  }
  for (int i = 0; i < 40; ++i) {
    const VerifyingKey& vk = vks[size_t(g() % vks.size())];
    QuerySums sums{g1(), g1(), g1(), g1(), g2()};
    if (i % 5 == 0) sums = QuerySums{J1::infinity(), J1::infinity(), J1::infinity(), J1::infinity(), J2::infinity()};
    const ProofRandomness rs = i % 7 == 0 ? ProofRandomness{Fr::zero(), Fr::zero()} : random_rs(g);
    const J1 d1 = J1::from_affine(vk.delta_g1);
    const J1 a = sums.a.add_mixed(vk.alpha_g1) + d1.mul_scalar(rs.r);
    const J1 b1 = sums.b1.add_mixed(vk.beta_g1) + d1.mul_scalar(rs.s);
    const J2 b2 = sums.b2.add_mixed(vk.beta_g2) + J2::from_affine(vk.delta_g2).mul_scalar(rs.s);
    const J1 c = sums.l + sums.h + a.mul_scalar(rs.s) + b1.mul_scalar(rs.r) - d1.mul_scalar(rs.r * rs.s);
    EXPECT_EQ(assemble(vk, sums, rs), (Proof{a.to_affine(), b2.to_affine(), c.to_affine()})) << "case " << i;
  }
}

TEST(Prover, DensityGapsAndZeroBlinding) {
  auto g = snarkd::test::rng("prover_density");
  auto syn = cubic(3);
  ASSERT_FALSE(r1cs::first_unsatisfied(syn.circuit, syn.witness));
  const ProvingKey pk = setup_insecure(syn.circuit, toxic_waste_from_seed(g()));
  EXPECT_LT(pk.a.size(), syn.circuit.num_vars());     // the unused aux and x3·… gaps
  EXPECT_LT(pk.b_g1.size(), syn.circuit.num_vars());
  for (auto [r, s] : {ProofRandomness{Fr::zero(), Fr::zero()}, random_rs(g)}) {
    const Proof p = prove(*snarkd::test::bind(pk, syn.circuit), syn.witness, ProofRandomness{r, s});
    EXPECT_EQ(p, test::reference_prove(pk, syn.circuit, syn.witness, r, s));
    EXPECT_TRUE(verify(pk.vk, p, public_inputs(syn.circuit, syn.witness)));
  }
}

TEST(Verifier, RejectsTamperingAndCountsInputs) {
  auto g = snarkd::test::rng("verifier_tamper");
  auto sc = small_synthetic(40, 4, 11);
  const ProvingKey pk = setup_insecure(sc.circuit, toxic_waste_from_seed(g()));
  const Proof p = prove(*snarkd::test::bind(pk, sc.circuit), sc.witness, random_proof_randomness());
  auto pub = public_inputs(sc.circuit, sc.witness);
  ASSERT_TRUE(verify(pk.vk, p, pub));
  for (size_t j = 0; j < pub.size(); ++j) {
    auto bad = pub;
    bad[j] += Fr::one();
    EXPECT_FALSE(verify(pk.vk, p, bad)) << "input " << j;
  }
  Proof q = p;
  q.a = (ec::G1Jacobian::from_affine(q.a) + ec::G1Jacobian::from_affine(ec::generator<ec::G1Config>())).to_affine();
  EXPECT_FALSE(verify(pk.vk, q, pub));
  q = p;
  std::swap(q.a, q.c);
  EXPECT_FALSE(verify(pk.vk, q, pub));
  q = p;
  q.b = ec::G2Affine::infinity();
  EXPECT_FALSE(verify(pk.vk, q, pub));
  pub.pop_back();
  EXPECT_THROW(verify(pk.vk, p, pub), InvalidArgument);
}

// The forgeries a degenerate key allows, refused by the verifier itself (keys can be built in
// memory, not only read). A setup with γ = δ: C' = C + X − X' moves an honest proof to any inputs
// x', and the pairing equation accepts it; verify must refuse the key instead.
TEST(Verifier, RefusesDegenerateKeysThatAllowForgeries) {
  auto g = snarkd::test::rng("verifier_degenerate");
  auto sc = small_synthetic(40, 4, 13);
  ToxicWaste tw = toxic_waste_from_seed(g());
  tw.delta = tw.gamma;
  const ProvingKey pk = setup_insecure(sc.circuit, tw);
  const auto pub = public_inputs(sc.circuit, sc.witness);
  std::vector<Fr> forged_pub = pub;
  for (Fr& x : forged_pub) x = Fr::random(g);
  auto x_of = [&](const std::vector<Fr>& in) {
    ec::G1Jacobian x = ec::G1Jacobian::from_affine(pk.vk.ic[0]);
    for (size_t j = 0; j < in.size(); ++j) x = x + ec::G1Jacobian::from_affine(pk.vk.ic[j + 1]).mul_scalar(in[j]);
    return x;
  };
  const Proof p = prove(*snarkd::test::bind(pk, sc.circuit), sc.witness, random_proof_randomness());
  Proof forged = p;
  forged.c = (ec::G1Jacobian::from_affine(p.c) + x_of(pub) - x_of(forged_pub)).to_affine();
  const pairing::G1G2Pair eq[] = {{forged.a, forged.b},
                                  {-pk.vk.alpha_g1, pk.vk.beta_g2},
                                  {-x_of(forged_pub).to_affine(), pk.vk.gamma_g2},
                                  {-forged.c, pk.vk.delta_g2}};
  ASSERT_TRUE(pairing::pairing_product_is_one(eq)) << "the forgery this key allows";
  EXPECT_EQ(find_vk_defect(pk.vk), "gamma_2 equals delta_2, so proofs can be forged for any public inputs");
  EXPECT_THROW(verify(pk.vk, forged, forged_pub), InvalidArgument);
  EXPECT_THROW(verify(pk.vk, p, pub), InvalidArgument);

  const ProvingKey sound = setup_insecure(sc.circuit, toxic_waste_from_seed(g()));
  const Proof q = prove(*snarkd::test::bind(sound, sc.circuit), sc.witness, random_proof_randomness());
  ASSERT_TRUE(verify(sound.vk, q, pub));
  EXPECT_EQ(find_vk_defect(sound.vk), "");
  for (auto edit : std::initializer_list<void (*)(VerifyingKey&)>{
           [](VerifyingKey& k) { k.gamma_g2 = ec::G2Affine::infinity(); },
           [](VerifyingKey& k) { k.gamma_g2 = k.delta_g2 = ec::G2Affine::infinity(); },
           [](VerifyingKey& k) { k.ic.assign(k.ic.size(), ec::G1Affine::infinity()); },
           [](VerifyingKey& k) { k.alpha_g1 = ec::G1Affine::infinity(); },
           [](VerifyingKey& k) { k.beta_g2 = ec::G2Affine::infinity(); },
           [](VerifyingKey& k) { k.gamma_g2 = -k.delta_g2; }}) {
    VerifyingKey bad = sound.vk;
    edit(bad);
    EXPECT_FALSE(find_vk_defect(bad).empty());
    EXPECT_THROW(verify(bad, q, forged_pub), InvalidArgument);
    const std::vector<std::vector<Fr>> pubs = {forged_pub};
    EXPECT_THROW(verify_batch(bad, std::span<const Proof>(&q, 1), pubs), InvalidArgument);
  }
}

TEST(Verifier, BatchAcceptsValidAndRejectsOneBad) {
  auto g = snarkd::test::rng("verifier_batch");
  auto sc = small_synthetic(20, 3, 5);
  const ProvingKey pk = setup_insecure(sc.circuit, toxic_waste_from_seed(g()));
  std::vector<Proof> proofs;
  std::vector<std::vector<Fr>> pubs;
  for (int k = 0; k < 4; ++k) {
    proofs.push_back(prove(*snarkd::test::bind(pk, sc.circuit), sc.witness, random_proof_randomness()));
    pubs.push_back(public_inputs(sc.circuit, sc.witness));
  }
  EXPECT_TRUE(verify_batch(pk.vk, proofs, pubs));
  EXPECT_TRUE(verify_batch(pk.vk, {}, {}));
  pubs[2][1] += Fr::one();
  EXPECT_FALSE(verify_batch(pk.vk, proofs, pubs));
  pubs[2][1] -= Fr::one();
  std::swap(proofs[0].c, proofs[1].c);
  EXPECT_FALSE(verify_batch(pk.vk, proofs, pubs));
  pubs.pop_back();
  EXPECT_THROW(verify_batch(pk.vk, proofs, pubs), InvalidArgument);
}

TEST(Prover, RefusesUnsatisfiedWitnessWithRow) {
  auto g = snarkd::test::rng("prover_unsat");
  auto sc = small_synthetic(50, 2, 3);
  const ProvingKey pk = setup_insecure(sc.circuit, toxic_waste_from_seed(g()));
  auto w = sc.witness;
  const uint64_t target = sc.circuit.num_inputs + 17;  // row 17 defines aux 17 (synthetic.hpp)
  w[target] += Fr::one();
  const auto row = r1cs::first_unsatisfied(sc.circuit, w);
  ASSERT_TRUE(row.has_value());
  try {
    prove(*snarkd::test::bind(pk, sc.circuit), w, random_proof_randomness());
    FAIL() << "proved an unsatisfied witness";
  } catch (const UnsatisfiedWitness& e) {
    EXPECT_EQ(e.row(), *row);
    EXPECT_NE(std::string(e.what()).find("constraint " + std::to_string(*row)), std::string::npos) << e.what();
  }
  w = sc.witness;  // a short witness: refused by the prover too (the ONE is the entry points' check)
  w.pop_back();
  EXPECT_THROW(prove(*snarkd::test::bind(pk, sc.circuit), w, random_proof_randomness()), InvalidArgument);
}

TEST(Prover, BindNamesTheDisagreement) {
  auto g = snarkd::test::rng("prover_bind");
  auto sc = small_synthetic(30, 3, 8);
  ProvingKey pk = setup_insecure(sc.circuit, toxic_waste_from_seed(g()));
  const ProvingKey with_densities = pk;
  pk.a_density = {};
  pk.b_density = {};
  const auto key = BoundKey::bind(pk, sc.circuit);  // recomputes the same densities
  EXPECT_EQ(key->pk().a_density.words, with_densities.a_density.words);
  EXPECT_EQ(key->pk().b_density.words, with_densities.b_density.words);
  EXPECT_EQ(prove(*key, sc.witness, ProofRandomness{Fr::one(), Fr::one()}),
            test::reference_prove(with_densities, sc.circuit, sc.witness, Fr::one(), Fr::one()));
  ProvingKey bad = pk;
  bad.l.pop_back();
  try {
    (void)BoundKey::bind(bad, sc.circuit);
    FAIL();
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("L points"), std::string::npos) << e.what();
  }
  auto bigger = small_synthetic(31, 3, 8);
  EXPECT_THROW((void)BoundKey::bind(pk, bigger.circuit), DecodeError);
  // The parts the key hands out keep it alive.
  std::shared_ptr<const ProvingKey> part = key->shared_pk();
  EXPECT_EQ(part.get(), &key->pk());
  EXPECT_EQ(key->shared_circuit().get(), &key->circuit());
}

// The entry points' witness check names the label and what is wrong.
TEST(Prover, CheckWitnessNamesWhatIsWrong) {
  auto sc = small_synthetic(20, 2, 3);
  const auto key = BoundKey::bind(setup_insecure(sc.circuit, toxic_waste_from_seed(5)), sc.circuit);
  key->check_witness(sc.witness, "w");
  auto w = sc.witness;
  w[0] = Fr::from_u64(2);
  const auto message = [&](std::span<const Fr> v) {
    try {
      key->check_witness(v, "p3");
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message(w), "p3: value 0 (the constant ONE) is not 1");
  w = sc.witness;
  w.pop_back();
  EXPECT_EQ(message(w), "p3: has " + std::to_string(w.size()) + " witness values, the circuit has " +
                            std::to_string(sc.witness.size()) + " variables");
  EXPECT_EQ(message({}), "p3: has 0 witness values, the circuit has " + std::to_string(sc.witness.size()) +
                             " variables");
}

}  // namespace
}  // namespace snarkd::groth16
