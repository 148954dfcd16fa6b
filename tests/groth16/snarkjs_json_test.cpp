// snarkjs proof.json / public.json / verification_key.json, on both curves: byte-exact round trips
// of the snarkjs-written fixtures, random round trips, and one test per kind of malformed input,
// each asserting that the message names the file and the JSON field.
#include "snarkd/groth16/snarkjs_json.hpp"

#include <gtest/gtest.h>

#include <functional>

#include "common/decode_error.hpp"

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "common/seed.hpp"
#include "curves.hpp"

namespace {

using namespace snarkd;
using groth16::ProofT;
using groth16::VerifyingKeyT;
using groth16::test::fixture;
using groth16::test::random_point;

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

using snarkd::test::decode_error;

// Every test runs on both curves' snarkjs fixtures (curves.hpp).
template <class E>
class SnarkjsJson : public ::testing::Test {};
TYPED_TEST_SUITE(SnarkjsJson, groth16::test::Curves, groth16::test::CurveNames);

TYPED_TEST(SnarkjsJson, FixturesRoundTripByteForByte) {
  using E = TypeParam;
  for (const char* c : {"multiplier", "lincomb"}) {
    const auto p = groth16::read_snarkjs_proof<E>(fixture<E>(c, "proof.json"));
    EXPECT_EQ(groth16::proof_to_snarkjs_json(p).dump(1), slurp(fixture<E>(c, "proof.json"))) << c;
    const auto x = groth16::read_snarkjs_public<E>(fixture<E>(c, "public.json"));
    EXPECT_EQ(groth16::public_to_snarkjs_json<E>(x).dump(1), slurp(fixture<E>(c, "public.json"))) << c;
    // vk_alphabeta_12 is recomputed by our pairing: equal text means equal pairing values.
    const auto vk = groth16::read_snarkjs_vk<E>(fixture<E>(c, "verification_key.json"));
    EXPECT_EQ(groth16::vk_to_snarkjs_json(vk).dump(1), slurp(fixture<E>(c, "verification_key.json"))) << c;
  }
}

TYPED_TEST(SnarkjsJson, RandomRoundTripThroughFiles) {
  using E = TypeParam;
  using G1 = typename E::G1;
  using G2 = typename E::G2;
  using F = typename E::Fr;
  auto rng = snarkd::test::rng("snarkjs json round trip");
  const std::string dir = ::testing::TempDir() + "/" + E::kSnarkjsName;
  const ProofT<E> p{random_point<G1>(rng), random_point<G2>(rng), E::G1Affine::infinity()};
  groth16::write_snarkjs_proof(dir + "_p.json", p);
  EXPECT_EQ(groth16::read_snarkjs_proof<E>(dir + "_p.json"), p);

  VerifyingKeyT<E> vk;
  vk.alpha_g1 = random_point<G1>(rng);
  vk.beta_g2 = random_point<G2>(rng);
  vk.gamma_g2 = random_point<G2>(rng);
  vk.delta_g2 = random_point<G2>(rng);
  for (int i = 0; i < 4; ++i) vk.ic.push_back(random_point<G1>(rng));
  groth16::write_snarkjs_vk(dir + "_vk.json", vk);
  EXPECT_EQ(groth16::read_snarkjs_vk<E>(dir + "_vk.json"), vk);  // beta_g1, delta_g1 stay infinity

  std::vector<F> x = {F::zero(), -F::one()};
  for (int i = 0; i < 5; ++i) x.push_back(F::random(rng));
  groth16::write_snarkjs_public<E>(dir + "_pub.json", x);
  EXPECT_EQ(groth16::read_snarkjs_public<E>(dir + "_pub.json"), x);
}

// Loads a fixture, lets `edit` change its text, writes it to a temp file and returns the reader's
// error; the message must begin with that file's path.
template <class E>
class BadJson : public ::testing::Test {
 protected:
  template <class Read>
  std::string error(const std::string& file, const std::string& from, const std::string& to, Read read) {
    std::string text = slurp(fixture<E>("multiplier", file));
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    std::ofstream(path_, std::ios::binary) << text;
    const std::string e = decode_error([&] { read(path_); });
    EXPECT_EQ(e.rfind(path_ + ": ", 0), 0u) << e;
    return e.substr(std::min(e.size(), path_.size() + 2));
  }
  std::string proof_error(const std::string& from, const std::string& to) {
    return error("proof.json", from, to, &groth16::read_snarkjs_proof<E>);
  }
  std::string vk_error(const std::string& from, const std::string& to) {
    return error("verification_key.json", from, to, &groth16::read_snarkjs_vk<E>);
  }
  std::string public_error(const std::string& from, const std::string& to) {
    return error("public.json", from, to, &groth16::read_snarkjs_public<E>);
  }
  // A modulus as the quoted decimal string a JSON file would hold (built by appends: a literal
  // + string temporary trips a GCC 12 -Wrestrict false positive).
  template <class F>
  static std::string quoted_modulus() {
    std::string q = "\"";
    q += detail::limbs_to_decimal(std::span<const uint64_t>(F::kModulus.limb, F::Repr::kLimbs));
    q += '"';
    return q;
  }
  const std::string path_ = ::testing::TempDir() + "/bad_" + E::kSnarkjsName + ".json";
};
TYPED_TEST_SUITE(BadJson, groth16::test::Curves, groth16::test::CurveNames);

TYPED_TEST(BadJson, Syntax) {
  // The position is that of the '[' after the member name, whose ':' was removed.
  EXPECT_EQ(this->proof_error("\"pi_b\":", "\"pi_b\""),
            "json: line 7, column 9: syntax error while parsing object separator - unexpected '['; expected ':'");
  EXPECT_EQ(this->public_error("]", ""),
            "json: line 4, column 1: syntax error while parsing array - unexpected end of input; expected ']'");
}

TYPED_TEST(BadJson, MissingField) {
  EXPECT_EQ(this->proof_error("\"pi_c\"", "\"pi_x\""), "missing field \"pi_c\"");
  EXPECT_EQ(this->vk_error("\"IC\"", "\"ic\""), "missing field \"IC\"");
  EXPECT_EQ(this->vk_error("\"vk_gamma_2\"", "\"gamma\""), "missing field \"vk_gamma_2\"");
}

TYPED_TEST(BadJson, OutOfRangeDecimals) {
  using E = TypeParam;
  const Json proof = Json::load(fixture<E>("multiplier", "proof.json"));
  EXPECT_EQ(this->proof_error("\"" + proof["pi_a"][0].str() + "\"", this->template quoted_modulus<typename E::Fp>()),
            "pi_a[0]: decimal value is not below the Fp modulus");
  EXPECT_EQ(this->proof_error("\"" + proof["pi_b"][0][1].str() + "\"", "\"-1\""),
            "pi_b[0][1]: \"-1\" is not a decimal Fp element (digits only, below the modulus)");
  EXPECT_EQ(this->public_error("\"11\"", this->template quoted_modulus<typename E::Fr>()),
            "[1]: decimal value is not below the Fr modulus");
  EXPECT_EQ(this->public_error("\"11\"", "11"), "[1]: expected a decimal string, found a number");
}

TYPED_TEST(BadJson, WrongArrayLengths) {
  EXPECT_EQ(this->proof_error("   \"1\",\n   \"0\"\n  ]", "   \"1\",\n   \"0\",\n   \"0\"\n  ]"),
            "pi_b[2]: expected an array of 2 elements, found 3");
  EXPECT_EQ(this->proof_error(",\n  \"1\"\n ],\n \"pi_b\"", "\n ],\n \"pi_b\""),
            "pi_a: expected an array of 3 elements, found 2");
  EXPECT_EQ(this->vk_error("\"nPublic\": 2", "\"nPublic\": 3"),
            "nPublic: 3 does not match IC, which has 3 points (nPublic + 1 expected)");
  EXPECT_EQ(this->vk_error("\"nPublic\": 2", "\"nPublic\": \"2\""), "nPublic: json: expected a number, found a string");
  EXPECT_EQ(decode_error([] { groth16::public_from_snarkjs_json<TypeParam>(Json::parse("{}"), "x.json"); }),
            "x.json: public inputs: expected an array, found an object");
}

TYPED_TEST(BadJson, BadPointsAndTags) {
  using E = TypeParam;
  using O = groth16::test::OtherCurve<E>;
  // pi_a with y replaced by 1: not on the curve.
  const Json proof = Json::load(fixture<E>("multiplier", "proof.json"));
  EXPECT_EQ(this->proof_error("\"" + proof["pi_a"][1].str() + "\"", "\"1\""), "pi_a: point is not on the curve");
  EXPECT_EQ(this->proof_error("  \"1\"\n ],\n \"pi_b\"", "  \"2\"\n ],\n \"pi_b\""),
            "pi_a: z coordinate must be 1 (affine) or 0 (infinity)");
  EXPECT_EQ(this->vk_error("\"protocol\": \"groth16\"", "\"protocol\": \"plonk\""),
            "protocol: is \"plonk\", expected \"groth16\"");
  const std::string tag = std::string("\"curve\": \"") + E::kSnarkjsName + "\"";
  const std::string other = std::string("\"curve\": \"") + O::kSnarkjsName + "\"";
  const std::string want = std::string("curve: is \"") + O::kSnarkjsName + "\", expected \"" + E::kSnarkjsName + "\"";
  EXPECT_EQ(this->proof_error(tag, other), want);
  EXPECT_EQ(this->vk_error(tag, other), want);
}

TYPED_TEST(BadJson, PointOutsideTheSubgroup) {
  using E = TypeParam;
  // A point of the G2 twist outside the order-r subgroup (BN254's G1 has cofactor 1, so G2 is
  // where both curves have such points).
  const typename E::G2Affine q = groth16::test::g2_point_outside_subgroup<E>();
  ASSERT_TRUE(q.is_on_curve());
  ASSERT_FALSE(E::in_subgroup(q));
  const auto p = groth16::read_snarkjs_proof<E>(fixture<E>("multiplier", "proof.json"));
  groth16::proof_to_snarkjs_json(ProofT<E>{p.a, q, p.c}).save(this->path_);
  EXPECT_EQ(decode_error([&] { groth16::read_snarkjs_proof<E>(this->path_); }),
            this->path_ + ": pi_b: point is not in the prime-order subgroup");
}

// Each degenerate key (verifier.hpp: find_vk_defect) is refused by the reader, naming the field;
// snarkjs 0.7.6 rejects proofs under every one of them.
TYPED_TEST(BadJson, DegenerateVerifyingKeys) {
  using E = TypeParam;
  using Vk = VerifyingKeyT<E>;
  const Vk good = groth16::read_snarkjs_vk<E>(fixture<E>("multiplier", "verification_key.json"));
  const auto g1_inf = E::G1Affine::infinity();
  const auto g2_inf = E::G2Affine::infinity();
  const std::pair<std::function<void(Vk&)>, std::string> cases[] = {
      {[&](Vk& k) { k.alpha_g1 = g1_inf; }, "alpha_1 is the point at infinity"},
      {[&](Vk& k) { k.beta_g2 = g2_inf; }, "beta_2 is the point at infinity"},
      {[&](Vk& k) { k.gamma_g2 = g2_inf; }, "gamma_2 is the point at infinity"},
      {[&](Vk& k) { k.delta_g2 = g2_inf; }, "delta_2 is the point at infinity"},
      {[&](Vk& k) { k.gamma_g2 = k.delta_g2 = g2_inf; }, "gamma_2 is the point at infinity"},
      {[&](Vk& k) { k.ic.assign(k.ic.size(), g1_inf); }, "IC[0] is the point at infinity"},
      {[&](Vk& k) { k.ic[2] = g1_inf; }, "IC[2] is the point at infinity"},
      {[&](Vk& k) { k.gamma_g2 = k.delta_g2; }, "gamma_2 equals delta_2"},
      {[&](Vk& k) { k.gamma_g2 = -k.delta_g2; }, "gamma_2 equals -delta_2"},
  };
  for (const auto& [edit, want] : cases) {
    Vk vk = good;
    edit(vk);
    groth16::vk_to_snarkjs_json(vk).save(this->path_);
    const std::string e = decode_error([&] { groth16::read_snarkjs_vk<E>(this->path_); });
    EXPECT_EQ(e.rfind(this->path_ + ": degenerate verifying key: " + want, 0), 0u) << e;
  }
}

TYPED_TEST(BadJson, AlphaBetaMustMatch) {
  // Swap the first two Fp coefficients of e(α, β): still well-formed, no longer the pairing.
  const Json vk = Json::load(fixture<TypeParam>("multiplier", "verification_key.json"));
  const std::string a = vk["vk_alphabeta_12"][0][0][0].str(), b = vk["vk_alphabeta_12"][0][0][1].str();
  EXPECT_EQ(this->vk_error("\"" + a + "\",\n    \"" + b + "\"", "\"" + b + "\",\n    \"" + a + "\""),
            "vk_alphabeta_12: is not e(vk_alpha_1, vk_beta_2)");
}

}  // namespace
