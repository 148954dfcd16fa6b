// Groth16 with snarkjs keys on every curve (BLS12-381 and BN254, typed tests): a key made here
// from known toxic waste (curves.hpp's snarkjs_setup) proves a small circuit; the proof equals
// the slow reference prover's and verifies, and tampered proofs and inputs do not; the zkey and
// .wtns writers round-trip through the readers; a file made for the other curve is refused with
// a message naming the file and both curves.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "common/decode_error.hpp"
#include "common/seed.hpp"
#include "curves.hpp"
#include "reference.hpp"
#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/groth16/snarkjs_json.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/groth16/zkey.hpp"
#include "snarkd/r1cs/circom.hpp"

namespace snarkd::groth16 {
namespace {

using snarkd::test::decode_error;

template <class E>
class CurveTest : public ::testing::Test {
 protected:
  using F = typename E::Fr;
  void SetUp() override {
    circuit_ = test::cubic<F>(3);
    zkey_ = test::snarkjs_setup<E>(circuit_.circuit, test::fixed_toxic_waste<F>());
    key_ = BoundKeyT<E>::bind(zkey_.pk, zkey_.circuit);
  }
  std::vector<F> publics() const { return public_inputs(key_->circuit(), circuit_.witness); }
  std::string temp(const std::string& name) const { return ::testing::TempDir() + "/" + E::kSnarkjsName + "_" + name; }

  test::TestCircuit<F> circuit_;
  ZkeyT<E> zkey_;
  std::shared_ptr<const BoundKeyT<E>> key_;
};
TYPED_TEST_SUITE(CurveTest, test::Curves, test::CurveNames);

TYPED_TEST(CurveTest, ProofEqualsReferenceAndVerifies) {
  using F = typename TypeParam::Fr;
  auto g = snarkd::test::rng("curves.prove");
  const F r = F::random(g), s = F::random(g);
  const auto proof = prove(*this->key_, this->circuit_.witness, {r, s});
  EXPECT_EQ(proof, test::reference_prove(this->key_->pk(), this->key_->circuit(), this->circuit_.witness, r, s));
  EXPECT_TRUE(verify(this->key_->pk().vk, proof, this->publics()));
  // Fresh blinding: another proof of the same statement, just as valid.
  const auto other = prove(*this->key_, this->circuit_.witness, random_proof_randomness<TypeParam>());
  EXPECT_NE(other, proof);
  EXPECT_TRUE(verify(this->key_->pk().vk, other, this->publics()));
}

TYPED_TEST(CurveTest, RejectsTamperedProofsAndInputs) {
  using F = typename TypeParam::Fr;
  const auto& vk = this->key_->pk().vk;
  const auto proof = prove(*this->key_, this->circuit_.witness, random_proof_randomness<TypeParam>());
  const std::vector<F> x = this->publics();
  for (size_t i = 0; i < x.size(); ++i) {
    std::vector<F> bad = x;
    bad[i] += F::one();
    EXPECT_FALSE(verify(vk, proof, bad)) << "input " << i;
  }
  auto bad = proof;
  bad.c = -bad.c;
  EXPECT_FALSE(verify(vk, bad, x));
  bad = proof;
  bad.a = proof.c;
  EXPECT_FALSE(verify(vk, bad, x));
  bad = proof;
  bad.b = -bad.b;
  EXPECT_FALSE(verify(vk, bad, x));
  EXPECT_THROW(verify(vk, proof, std::vector<F>(x.begin(), x.end() - 1)), InvalidArgument);
  const std::vector<ProofT<TypeParam>> two = {proof, bad};
  EXPECT_TRUE(verify_batch(vk, std::vector<ProofT<TypeParam>>{proof, proof}, std::vector<std::vector<F>>{x, x}));
  EXPECT_FALSE(verify_batch(vk, two, std::vector<std::vector<F>>{x, x}));
}

// A snarkjs key carries no C: a witness that breaks a constraint gives a proof that does not
// verify, and the prover refuses it instead of returning it.
TYPED_TEST(CurveTest, UnsatisfiedWitnessIsRefused) {
  auto w = this->circuit_.witness;
  w[5] += TypeParam::Fr::one();  // x³
  EXPECT_THROW(prove(*this->key_, w, random_proof_randomness<TypeParam>()), UnsatisfiedWitness);
}

TYPED_TEST(CurveTest, ZkeyWriteReadRoundTrip) {
  using E = TypeParam;
  const std::string path = this->temp("rt.zkey");
  write_zkey(path, *this->key_);
  EXPECT_EQ(zkey_curve(path), E::kId);
  const ZkeyT<E> back = read_zkey<E>(path, PointCheck::kFull);
  const ProvingKeyT<E>& a = this->key_->pk();
  test::expect_same_points(back.pk, a);
  EXPECT_EQ(read_zkey_vk<E>(path), a.vk);
  const auto& c = this->key_->circuit();
  EXPECT_EQ(back.circuit.num_inputs, c.num_inputs);
  EXPECT_EQ(back.circuit.num_aux, c.num_aux);
  for (r1cs::Matrix m : {r1cs::Matrix::A, r1cs::Matrix::B, r1cs::Matrix::C}) {
    EXPECT_EQ(back.circuit.matrix(m).row_ptr, c.matrix(m).row_ptr) << r1cs::matrix_name(m);
    EXPECT_EQ(back.circuit.matrix(m).col, c.matrix(m).col) << r1cs::matrix_name(m);
    for (uint64_t k = 0; k < c.matrix(m).nnz(); ++k)
      EXPECT_EQ(back.circuit.coeffs[back.circuit.matrix(m).coeff[k]], c.coeffs[c.matrix(m).coeff[k]]);
  }
  // The read key proves the same statement, and writing it again gives the same bytes.
  const auto rebound = BoundKeyT<E>::bind(back.pk, back.circuit);
  EXPECT_TRUE(verify(a.vk, prove(*rebound, this->circuit_.witness, random_proof_randomness<E>()), this->publics()));
  write_zkey(this->temp("rt2.zkey"), *rebound);
  std::ifstream f1(path, std::ios::binary), f2(this->temp("rt2.zkey"), std::ios::binary);
  EXPECT_TRUE(std::string(std::istreambuf_iterator<char>(f1), {}) == std::string(std::istreambuf_iterator<char>(f2), {}));
}

TYPED_TEST(CurveTest, ZkeyWriterRefusesWhatAZkeyCannotHold) {
  using E = TypeParam;
  // With C non-zeros (the circom circuit, input rows appended by hand)...
  auto with_c = snarkjs_zkey_circuit(this->circuit_.circuit);
  with_c.c = this->circuit_.circuit.c;
  for (uint64_t s = 0; s < with_c.num_inputs; ++s) with_c.c.row_ptr.push_back(with_c.c.col.size());
  const auto key = BoundKeyT<E>::bind(this->zkey_.pk, with_c);
  EXPECT_THROW(write_zkey(this->temp("c.zkey"), *key), InvalidArgument);
}

TYPED_TEST(CurveTest, WtnsRoundTripAndCurve) {
  using F = typename TypeParam::Fr;
  const std::string path = this->temp("w.wtns");
  r1cs::write_wtns(path, this->circuit_.witness);
  EXPECT_EQ(r1cs::circom_curve(path), TypeParam::kId);
  EXPECT_EQ(r1cs::read_wtns<F>(path), this->circuit_.witness);
  const r1cs::CircomR1csInfo info{2, 0, 1, 7, {}};
  r1cs::write_circom_r1cs(this->temp("c.r1cs"), this->circuit_.circuit, info);
  EXPECT_EQ(r1cs::circom_curve(this->temp("c.r1cs")), TypeParam::kId);
  const auto back = r1cs::read_circom_r1cs<F>(this->temp("c.r1cs"));
  EXPECT_EQ(r1cs::first_unsatisfied(back.circuit, this->circuit_.witness), std::nullopt);
}

// Every reader of the other curve names the file and both curves.
TYPED_TEST(CurveTest, FilesOfTheOtherCurveAreRefused) {
  using E = TypeParam;
  using O = test::OtherCurve<E>;
  const std::string zkey = this->temp("o.zkey"), wtns = this->temp("o.wtns");
  write_zkey(zkey, *this->key_);
  r1cs::write_wtns(wtns, this->circuit_.witness);
  const std::string want_zkey = zkey + ": section 2 (groth16 header): q is " + E::kName + "'s (a " +
                                E::kSnarkjsName + " zkey), expected " + O::kName + "'s";
  EXPECT_EQ(decode_error([&] { read_zkey<O>(zkey); }), want_zkey);
  EXPECT_EQ(decode_error([&] { read_zkey_vk<O>(zkey); }), want_zkey);
  const std::string e = decode_error([&] { r1cs::read_wtns<typename O::Fr>(wtns); });
  EXPECT_EQ(e.rfind(wtns + ": prime 0x", 0), 0u) << e;
  EXPECT_NE(e.find(std::string(" is not ") + O::kName + "'s r 0x"), std::string::npos) << e;
  EXPECT_NE(e.find(std::string("(it is ") + E::kName + "'s"), std::string::npos) << e;
  const std::string json = this->temp("o.json");
  write_snarkjs_vk(json, this->key_->pk().vk);
  EXPECT_EQ(decode_error([&] { read_snarkjs_vk<O>(json); }),
            json + ": curve: is \"" + E::kSnarkjsName + "\", expected \"" + O::kSnarkjsName + "\"");
}

TYPED_TEST(CurveTest, SnarkjsJsonCurveNames) {
  using E = TypeParam;
  Json vk = vk_to_snarkjs_json(this->key_->pk().vk);
  EXPECT_EQ(snarkjs_json_curve(vk, "vk.json"), E::kId);
  VerifyingKeyT<E> want = this->key_->pk().vk;
  want.beta_g1 = want.delta_g1 = E::G1Affine::infinity();  // not in the JSON
  // snarkjs's getCurveFromName ignores case and punctuation: "Alt_BN128" is bn128.
  for (const char* alias : E::kSnarkjsAliases) {
    vk.set("curve", Json::string(std::string(alias) == "altbn128" ? "Alt_BN128" : alias));
    EXPECT_EQ(snarkjs_json_curve(vk, "vk.json"), E::kId) << alias;
    EXPECT_EQ(vk_from_snarkjs_json<E>(vk, "vk.json"), want) << alias;
  }
  vk.set("curve", Json::string("secp256k1"));
  EXPECT_EQ(decode_error([&] { snarkjs_json_curve(vk, "vk.json"); }),
            "vk.json: curve: is \"secp256k1\", not a curve snarkd proves over (\"bls12381\" or \"bn128\")");
  vk.set("curve", Json::number(254));
  EXPECT_EQ(decode_error([&] { snarkjs_json_curve(vk, "vk.json"); }), "vk.json: curve: expected a decimal string, found a number");
}

// snarkjs's own keys: each curve's circom + snarkjs zkeys (tests/groth16/fixtures), fixed r, s:
// our proof equals the naive reference (c = a∘b, H by evaluation on the coset ω₂ₙ·⟨ω⟩, full
// queries) and verifies under the zkey's vk; the witness with one value changed is refused by
// the self-check.
TYPED_TEST(CurveTest, SnarkjsZkeyProofEqualsReferenceAndVerifies) {
  using E = TypeParam;
  using F = typename E::Fr;
  auto g = snarkd::test::rng("prover_zkey");
  for (const std::string name : {"multiplier", "lincomb"}) {
    const ZkeyT<E> zk = read_zkey<E>(test::fixture<E>(name, name + ".zkey"));
    const std::vector<F> w = r1cs::read_wtns<F>(test::fixture<E>(name, name + ".wtns"));
    const F r = F::random(g), s = F::random(g);
    const auto key = BoundKeyT<E>::bind(zk.pk, zk.circuit);
    const auto p = prove(*key, w, {r, s});
    EXPECT_EQ(p, test::reference_prove(zk.pk, zk.circuit, w, r, s)) << name;
    EXPECT_TRUE(verify(zk.pk.vk, p, public_inputs(zk.circuit, w))) << name;
    auto bad = w;
    bad.back() += F::one();
    EXPECT_THROW(prove(*key, bad, {r, s}), UnsatisfiedWitness) << name;
  }
}

}  // namespace
}  // namespace snarkd::groth16
