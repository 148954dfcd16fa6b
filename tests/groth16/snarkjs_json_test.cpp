// snarkjs proof.json / public.json / verification_key.json: byte-exact round trips of the
// snarkjs-written fixtures, random round trips, and one test per kind of malformed input, each
// asserting that the message names the file and the JSON field.
#include "snarkd/groth16/snarkjs_json.hpp"

#include <gtest/gtest.h>

#include <functional>

#include "common/decode_error.hpp"

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "common/seed.hpp"
#include "snarkd/ec/subgroup.hpp"

namespace {

using namespace snarkd;
using groth16::Proof;
using groth16::VerifyingKey;

std::string fixture(const std::string& file) { return std::string(SNARKD_GROTH16_FIXTURES) + "/" + file; }

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

using snarkd::test::decode_error;

template <class C, class R>
ec::Affine<C> random_point(R& rng) {
  return ec::Jacobian<C>::from_affine(ec::generator<C>()).mul_scalar(ff::Fr::random(rng)).to_affine();
}

TEST(SnarkjsJson, FixturesRoundTripByteForByte) {
  for (const char* c : {"multiplier", "lincomb"}) {
    const std::string dir = std::string(c) + "/";
    const Proof p = groth16::read_snarkjs_proof(fixture(dir + "proof.json"));
    EXPECT_EQ(groth16::proof_to_snarkjs_json(p).dump(1), slurp(fixture(dir + "proof.json"))) << c;
    const std::vector<ff::Fr> x = groth16::read_snarkjs_public(fixture(dir + "public.json"));
    EXPECT_EQ(groth16::public_to_snarkjs_json(x).dump(1), slurp(fixture(dir + "public.json"))) << c;
    const VerifyingKey vk = groth16::read_snarkjs_vk(fixture(dir + "verification_key.json"));
    EXPECT_EQ(groth16::vk_to_snarkjs_json(vk).dump(1), slurp(fixture(dir + "verification_key.json"))) << c;
  }
}

TEST(SnarkjsJson, RandomRoundTripThroughFiles) {
  auto rng = snarkd::test::rng("snarkjs json round trip");
  const std::string dir = ::testing::TempDir();
  const Proof p{random_point<ec::G1Config>(rng), random_point<ec::G2Config>(rng), ec::G1Affine::infinity()};
  groth16::write_snarkjs_proof(dir + "/p.json", p);
  EXPECT_EQ(groth16::read_snarkjs_proof(dir + "/p.json"), p);

  VerifyingKey vk;
  vk.alpha_g1 = random_point<ec::G1Config>(rng);
  vk.beta_g2 = random_point<ec::G2Config>(rng);
  vk.gamma_g2 = random_point<ec::G2Config>(rng);
  vk.delta_g2 = random_point<ec::G2Config>(rng);
  for (int i = 0; i < 4; ++i) vk.ic.push_back(random_point<ec::G1Config>(rng));
  groth16::write_snarkjs_vk(dir + "/vk.json", vk);
  EXPECT_EQ(groth16::read_snarkjs_vk(dir + "/vk.json"), vk);  // beta_g1, delta_g1 stay infinity

  std::vector<ff::Fr> x = {ff::Fr::zero(), -ff::Fr::one()};
  for (int i = 0; i < 5; ++i) x.push_back(ff::Fr::random(rng));
  groth16::write_snarkjs_public(dir + "/pub.json", x);
  EXPECT_EQ(groth16::read_snarkjs_public(dir + "/pub.json"), x);
}

// Loads a fixture, lets `edit` change its text, writes it to a temp file and returns the reader's
// error; the message must begin with that file's path.
class BadJson : public ::testing::Test {
 protected:
  template <class Read>
  std::string error(const std::string& file, const std::string& from, const std::string& to, Read read) {
    std::string text = slurp(fixture("multiplier/" + file));
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    std::ofstream(path_, std::ios::binary) << text;
    const std::string e = decode_error([&] { read(path_); });
    EXPECT_EQ(e.rfind(path_ + ": ", 0), 0u) << e;
    return e.substr(std::min(e.size(), path_.size() + 2));
  }
  std::string proof_error(const std::string& from, const std::string& to) {
    return error("proof.json", from, to, &groth16::read_snarkjs_proof);
  }
  std::string vk_error(const std::string& from, const std::string& to) {
    return error("verification_key.json", from, to, &groth16::read_snarkjs_vk);
  }
  std::string public_error(const std::string& from, const std::string& to) {
    return error("public.json", from, to, &groth16::read_snarkjs_public);
  }
  const std::string path_ = ::testing::TempDir() + "/bad.json";
};

TEST_F(BadJson, Syntax) {
  // The position is that of the '[' after the member name, whose ':' was removed.
  EXPECT_EQ(proof_error("\"pi_b\":", "\"pi_b\""),
            "json: line 7, column 9: syntax error while parsing object separator - unexpected '['; expected ':'");
  EXPECT_EQ(public_error("]", ""),
            "json: line 4, column 1: syntax error while parsing array - unexpected end of input; expected ']'");
}

TEST_F(BadJson, MissingField) {
  EXPECT_EQ(proof_error("\"pi_c\"", "\"pi_x\""), "missing field \"pi_c\"");
  EXPECT_EQ(vk_error("\"IC\"", "\"ic\""), "missing field \"IC\"");
  EXPECT_EQ(vk_error("\"vk_gamma_2\"", "\"gamma\""), "missing field \"vk_gamma_2\"");
}

TEST_F(BadJson, OutOfRangeDecimals) {
  const std::string p = "40024095552216673934177898257359041565568828199390078853320581361240316504908378644426876"
                        "29129015664037894272559787";
  const Json proof = Json::load(fixture("multiplier/proof.json"));
  EXPECT_EQ(proof_error("\"" + proof["pi_a"][0].str() + "\"", "\"" + p + "\""),
            "pi_a[0]: decimal value is not below the Fp modulus");
  EXPECT_EQ(proof_error("\"" + proof["pi_b"][0][1].str() + "\"", "\"-1\""),
            "pi_b[0][1]: \"-1\" is not a decimal Fp element (digits only, below the modulus)");
  EXPECT_EQ(public_error("\"11\"", "\"52435875175126190479447740508185965837690552500527637822603658699938581184513\""),
            "[1]: decimal value is not below the Fr modulus");
  EXPECT_EQ(public_error("\"11\"", "11"), "[1]: expected a decimal string, found a number");
}

TEST_F(BadJson, WrongArrayLengths) {
  EXPECT_EQ(proof_error("   \"1\",\n   \"0\"\n  ]", "   \"1\",\n   \"0\",\n   \"0\"\n  ]"),
            "pi_b[2]: expected an array of 2 elements, found 3");
  EXPECT_EQ(proof_error(",\n  \"1\"\n ],\n \"pi_b\"", "\n ],\n \"pi_b\""), "pi_a: expected an array of 3 elements, found 2");
  EXPECT_EQ(vk_error("\"nPublic\": 2", "\"nPublic\": 3"), "nPublic: 3 does not match IC, which has 3 points (nPublic + 1 expected)");
  EXPECT_EQ(vk_error("\"nPublic\": 2", "\"nPublic\": \"2\""), "nPublic: json: expected a number, found a string");
  EXPECT_EQ(decode_error([] { groth16::public_from_snarkjs_json(Json::parse("{}"), "x.json"); }),
            "x.json: public inputs: expected an array, found an object");
}

TEST_F(BadJson, BadPoints) {
  // pi_a with y replaced by 1: not on the curve.
  const Json proof = Json::load(fixture("multiplier/proof.json"));
  EXPECT_EQ(proof_error("\"" + proof["pi_a"][1].str() + "\"", "\"1\""),
            "pi_a: point is not on the curve");
  EXPECT_EQ(proof_error("  \"1\"\n ],\n \"pi_b\"", "  \"2\"\n ],\n \"pi_b\""),
            "pi_a: z coordinate must be 1 (affine) or 0 (infinity)");
  EXPECT_EQ(vk_error("\"protocol\": \"groth16\"", "\"protocol\": \"plonk\""), "protocol: is \"plonk\", expected \"groth16\"");
  EXPECT_EQ(proof_error("\"curve\": \"bls12381\"", "\"curve\": \"bn128\""), "curve: is \"bn128\", expected \"bls12381\"");
}

TEST_F(BadJson, PointOutsideTheSubgroup) {
  // A curve point of G1 outside the order-r subgroup: the first x ≥ 1 with x³ + 4 a square
  // (G1's cofactor is ~2^126, so such a point is in the subgroup with negligible probability).
  ec::G1Affine q;
  for (uint64_t x = 1;; ++x) {
    ff::Fp y;
    const ff::Fp fx = ff::Fp::from_u64(x);
    if ((fx.square() * fx + ff::Fp::from_u64(4)).sqrt(y)) {
      q = {fx, y};
      break;
    }
  }
  ASSERT_TRUE(q.is_on_curve());
  ASSERT_FALSE(ec::is_in_subgroup(q));
  const Proof p = groth16::read_snarkjs_proof(fixture("multiplier/proof.json"));
  Json j = groth16::proof_to_snarkjs_json({p.a, p.b, q});
  j.save(path_);
  EXPECT_EQ(decode_error([&] { groth16::read_snarkjs_proof(path_); }),
            path_ + ": pi_c: point is not in the prime-order subgroup");
}

// Each degenerate key (verifier.hpp: find_vk_defect) is refused by the reader, naming the field;
// snarkjs 0.7.6 rejects proofs under every one of them.
TEST_F(BadJson, DegenerateVerifyingKeys) {
  const VerifyingKey good = groth16::read_snarkjs_vk(fixture("multiplier/verification_key.json"));
  const auto g1_inf = ec::G1Affine::infinity();
  const auto g2_inf = ec::G2Affine::infinity();
  const std::pair<std::function<void(VerifyingKey&)>, std::string> cases[] = {
      {[&](VerifyingKey& k) { k.alpha_g1 = g1_inf; }, "alpha_1 is the point at infinity"},
      {[&](VerifyingKey& k) { k.beta_g2 = g2_inf; }, "beta_2 is the point at infinity"},
      {[&](VerifyingKey& k) { k.gamma_g2 = g2_inf; }, "gamma_2 is the point at infinity"},
      {[&](VerifyingKey& k) { k.delta_g2 = g2_inf; }, "delta_2 is the point at infinity"},
      {[&](VerifyingKey& k) { k.gamma_g2 = k.delta_g2 = g2_inf; }, "gamma_2 is the point at infinity"},
      {[&](VerifyingKey& k) { k.ic.assign(k.ic.size(), g1_inf); }, "IC[0] is the point at infinity"},
      {[&](VerifyingKey& k) { k.ic[2] = g1_inf; }, "IC[2] is the point at infinity"},
      {[&](VerifyingKey& k) { k.gamma_g2 = k.delta_g2; }, "gamma_2 equals delta_2"},
      {[&](VerifyingKey& k) { k.gamma_g2 = -k.delta_g2; }, "gamma_2 equals -delta_2"},
  };
  for (const auto& [edit, want] : cases) {
    VerifyingKey vk = good;
    edit(vk);
    groth16::vk_to_snarkjs_json(vk).save(path_);
    const std::string e = decode_error([&] { groth16::read_snarkjs_vk(path_); });
    EXPECT_EQ(e.rfind(path_ + ": degenerate verifying key: " + want, 0), 0u) << e;
  }
}

TEST_F(BadJson, AlphaBetaMustMatch) {
  // Swap the first two Fp coefficients of e(α, β): still well-formed, no longer the pairing.
  const Json vk = Json::load(fixture("multiplier/verification_key.json"));
  const std::string a = vk["vk_alphabeta_12"][0][0][0].str(), b = vk["vk_alphabeta_12"][0][0][1].str();
  EXPECT_EQ(vk_error("\"" + a + "\",\n    \"" + b + "\"", "\"" + b + "\",\n    \"" + a + "\""),
            "vk_alphabeta_12: is not e(vk_alpha_1, vk_beta_2)");
}

}  // namespace
