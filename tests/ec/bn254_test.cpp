// BN254 G1/G2: the curve constants, group laws in the three coordinate forms, scalar
// multiplication against @noble/curves (tests/vectors/bn254.json), the subgroup tests against
// the reference [r]Q = O (with points outside G2 from the whole twist group), and the encodings:
// snarkjs LEM bytes and JSON objects from ffjavascript, the Ethereum layout, and rejections.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/decode_error.hpp"
#include "common/gmp_util.hpp"
#include "common/json.hpp"
#include "common/seed.hpp"
#include "ec/ec_test_util.hpp"
#include "snarkd/ec/bn254.hpp"
#include "snarkd/ec/bn254_encoding.hpp"

namespace snarkd::test {
namespace {

namespace bn = ec::bn254;
using ff::bn254::Fp;
using ff::bn254::Fp2;
using ff::bn254::Fr;

const Json& vectors() {
  static const Json v = Json::load(std::string(SNARKD_VECTORS_DIR) + "/bn254.json");
  return v;
}
Fp fp_hex(const Json& v) {
  Fp r;
  EXPECT_TRUE(v.str().size() == 64 && Fp::from_repr(ff::BigInt<4>::from_hex(v.str().c_str()), r)) << v.str();
  return r;
}
Fp2 fp2_hex(const Json& v) { return {fp_hex(v[0]), fp_hex(v[1])}; }
bn::G1Affine g1_hex(const Json& v) { return {fp_hex(v["x"]), fp_hex(v["y"])}; }
bn::G2Affine g2_hex(const Json& v) { return {fp2_hex(v["x"]), fp2_hex(v["y"])}; }
Fr fr_hex(const Json& v) { return Fr::from_repr_unchecked(ff::BigInt<4>::from_hex(v.str().c_str())); }

template <class C>
ec::Affine<C> mul_gen(const Fr& k) {
  return ec::Jacobian<C>::from_affine(ec::generator<C>()).mul_scalar(k).to_affine();
}
template <class C, class G>
ec::Affine<C> random_point(G& g) {
  return mul_gen<C>(Fr::random(g));
}

// p, r, the trace t = 6u² + 1 and the twist cofactor h2 = 2p − r, from u with GMP.
struct Params {
  Mpz u{ff::bn254::kCurveParameter}, p, r, t, h2;
  Params() {
    p = to_mpz(Fp::kModulus);  // checked against u in tests/ff
    r = to_mpz(Fr::kModulus);
    mpz_mul(t, u, u);
    mpz_mul_ui(t, t, 6);
    mpz_add_ui(t, t, 1);
    mpz_mul_2exp(h2, p, 1);
    mpz_sub(h2, h2, r);
  }
};

TEST(Bn254Curve, Constants) {
  const Params P;
  Mpz n;
  mpz_add_ui(n, P.p, 1);  // #E(Fp) = p + 1 − t = r: cofactor 1
  mpz_sub(n, n, P.t);
  EXPECT_TRUE(n == P.r);
  EXPECT_EQ(bn::G2Config::b(), fp2_hex(vectors()["twist_b"]));
  EXPECT_EQ(bn::G2Config::b() * Fp2::nonresidue(), (Fp2{Fp::from_u64(3), Fp::zero()}));
  EXPECT_EQ(bn::kG1Generator, g1_hex(vectors()["generator_pairing"]["p"]));
  EXPECT_EQ(bn::kG2Generator, g2_hex(vectors()["generator_pairing"]["q"]));
  EXPECT_TRUE(to_mpz(bn::kSixUSquared) == (mpz_sub_ui(n, P.t, 1), n));
  // The subgroup test is exact: λ = 6u² ≡ p (mod r) and gcd(λ² − tλ + p, h2) = 1.
  Mpz lambda = to_mpz(bn::kSixUSquared), q, g;
  mpz_sub(q, P.p, lambda);
  EXPECT_TRUE(mpz_divisible_p(q, P.r));
  mpz_sub(q, lambda, P.t);
  mpz_mul(q, q, lambda);
  mpz_add(q, q, P.p);
  mpz_gcd(g, q, P.h2);
  EXPECT_TRUE(g == Mpz(1)) << "gcd " << g.hex();
}

template <class C>
class Bn254GroupLaw : public ::testing::Test {};
using Groups = ::testing::Types<bn::G1Config, bn::G2Config>;
TYPED_TEST_SUITE(Bn254GroupLaw, Groups);

TYPED_TEST(Bn254GroupLaw, LawsAcrossForms) {
  using C = TypeParam;
  using J = ec::Jacobian<C>;
  using X = ec::Xyzz<C>;
  auto g = rng("Bn254GroupLaw.LawsAcrossForms");
  for (int i = 0; i < 16; ++i) {
    const auto a = random_point<C>(g), b = random_point<C>(g), c = random_point<C>(g);
    const J ja = randomize(a, g), jb = randomize(b, g), jc = randomize(c, g);
    ASSERT_TRUE(a.is_on_curve() && b.is_on_curve());
    EXPECT_EQ((ja + jb) + jc, ja + (jb + jc));
    EXPECT_EQ(ja + jb, jb + ja);
    EXPECT_EQ(ja + J::infinity(), ja);
    EXPECT_TRUE((ja + (-ja)).is_infinity());
    EXPECT_EQ(ja.dbl(), ja + ja);
    EXPECT_EQ(ja.add_mixed(b), ja + jb);
    EXPECT_EQ(ja.add_mixed(a), ja.dbl());
    EXPECT_EQ((ja + jb).to_affine(), (randomize_xyzz(a, g) + randomize_xyzz(b, g)).to_affine());
    EXPECT_EQ(X::from_affine(a).add_mixed(b).to_jacobian(), ja + jb);
    EXPECT_EQ(X::from_affine(a).add_mixed(a).to_affine(), ja.dbl().to_affine());
    EXPECT_EQ(randomize_xyzz(a, g).dbl().to_affine(), ja.dbl().to_affine());
    EXPECT_TRUE((ja + jb).to_affine().is_on_curve());
  }
}

// k(aG) = (ka)G, (a + b)G = aG + bG, rG = O.
TYPED_TEST(Bn254GroupLaw, ScalarMultiplication) {
  using C = TypeParam;
  using J = ec::Jacobian<C>;
  auto g = rng("Bn254GroupLaw.ScalarMultiplication");
  for (int i = 0; i < 8; ++i) {
    const Fr a = Fr::random(g), b = Fr::random(g);
    const J ga = J::from_affine(mul_gen<C>(a));
    EXPECT_EQ(ga.mul_scalar(b).to_affine(), mul_gen<C>(a * b));
    EXPECT_EQ((ga + J::from_affine(mul_gen<C>(b))).to_affine(), mul_gen<C>(a + b));
  }
  EXPECT_TRUE(J::from_affine(ec::generator<C>()).mul(Fr::kModulus).is_infinity());
  EXPECT_EQ(mul_gen<C>(Fr::one()), ec::generator<C>());
}

TEST(Bn254Curve, ScalarMultiplesMatchNoble) {
  const Json& cases = vectors()["cases"];
  ASSERT_GE(cases.size(), 5u);
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(mul_gen<bn::G1Config>(fr_hex(cases[i]["a"])), g1_hex(cases[i]["p"])) << "case " << i;
    EXPECT_EQ(mul_gen<bn::G2Config>(fr_hex(cases[i]["b"])), g2_hex(cases[i]["q"])) << "case " << i;
  }
}

// Random points of the whole twist group E'(Fp2) (order r·h2) are almost never in G2; clearing
// the cofactor puts them there. The fast test must agree with [r]Q = O on all of them.
TEST(Bn254Subgroup, G2FastTestMatchesReference) {
  const Params P;
  const auto h2 = to_bigint<4>(P.h2);
  auto g = rng("Bn254Subgroup.G2FastTestMatchesReference");
  size_t outside = 0;
  for (int i = 0; i < 12; ++i) {
    const bn::G2Affine q = random_curve_point<bn::G2Config>(g);
    ASSERT_TRUE(q.is_on_curve());
    const bool ref = bn::is_in_subgroup_reference(q);
    EXPECT_EQ(bn::is_in_subgroup(q), ref) << i;
    outside += !ref;
    const bn::G2Affine cleared = bn::G2Jacobian::from_affine(q).mul(h2).to_affine();
    EXPECT_TRUE(bn::is_in_subgroup_reference(cleared));
    EXPECT_TRUE(bn::is_in_subgroup(cleared)) << i;
    // ψ satisfies ψ² − tψ + p = 0 on the whole twist (what makes the test exact).
    const bn::G2Jacobian j = bn::G2Jacobian::from_affine(q);
    const auto t = to_bigint<2>(P.t);
    EXPECT_EQ(bn::psi(bn::psi(j)) + j.mul(Fp::kModulus), bn::psi(j).mul(t)) << i;
  }
  EXPECT_EQ(outside, 12u);
  EXPECT_TRUE(bn::is_in_subgroup(bn::G2Affine::infinity()));
  auto gen = rng("Bn254Subgroup.members");
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(bn::is_in_subgroup(random_point<bn::G2Config>(gen)));
}

TEST(Bn254Subgroup, G1IsTheWholeCurve) {
  auto g = rng("Bn254Subgroup.G1IsTheWholeCurve");
  for (int i = 0; i < 4; ++i) {
    const bn::G1Affine p = random_curve_point<bn::G1Config>(g);
    EXPECT_TRUE(bn::is_in_subgroup_reference(p));
    EXPECT_TRUE(bn::is_in_subgroup(p));
  }
  EXPECT_FALSE(bn::is_in_subgroup(bn::G1Affine{Fp::from_u64(1), Fp::from_u64(3)}));
}

// ---- encodings ----

TEST(Bn254Encoding, SnarkjsVectors) {
  const Json& cases = vectors()["encodings"];
  ASSERT_GE(cases.size(), 2u);
  for (size_t i = 0; i < cases.size(); ++i) {
    const Json& c = cases[i];
    const bool inf = i == 0;
    const bn::G1Affine p = inf ? bn::G1Affine::infinity() : g1_hex(c["p"]);
    const bn::G2Affine q = inf ? bn::G2Affine::infinity() : g2_hex(c["q"]);
    ASSERT_EQ(inf, fr_hex(c["k"]).is_zero());
    if (!inf) {
      ASSERT_EQ(p, mul_gen<bn::G1Config>(fr_hex(c["k"])));
      ASSERT_EQ(q, mul_gen<bn::G2Config>(fr_hex(c["k"])));
    }
    EXPECT_EQ(to_hex(bn::encode_g1_lem(p)), c["g1_lem"].str()) << i;
    EXPECT_EQ(to_hex(bn::encode_g2_lem(q)), c["g2_lem"].str()) << i;
    EXPECT_EQ(bn::decode_g1_lem(from_hex(c["g1_lem"].str())), p) << i;
    EXPECT_EQ(bn::decode_g2_lem(from_hex(c["g2_lem"].str())), q) << i;
    EXPECT_EQ(bn::decode_g1_lem_unchecked(from_hex(c["g1_lem"].str())), p) << i;
    EXPECT_EQ(bn::decode_g2_lem_unchecked(from_hex(c["g2_lem"].str())), q) << i;
    EXPECT_EQ(bn::g1_to_snarkjs_json(p).dump(1), c["g1_json"].dump(1)) << i;
    EXPECT_EQ(bn::g2_to_snarkjs_json(q).dump(1), c["g2_json"].dump(1)) << i;
    EXPECT_EQ(bn::g1_from_snarkjs_json(c["g1_json"]), p) << i;
    EXPECT_EQ(bn::g2_from_snarkjs_json(c["g2_json"]), q) << i;
  }
}

// Ethereum layout: big-endian, G2 with c1 first; byte positions checked against to_bytes_be.
TEST(Bn254Encoding, EthereumLayoutRoundTrips) {
  auto g = rng("Bn254Encoding.EthereumLayoutRoundTrips");
  for (int i = 0; i < 6; ++i) {
    const bn::G1Affine p = i == 0 ? bn::G1Affine::infinity() : random_point<bn::G1Config>(g);
    const bn::G2Affine q = i == 0 ? bn::G2Affine::infinity() : random_point<bn::G2Config>(g);
    const auto e1 = bn::encode_g1_uncompressed(p);
    const auto e2 = bn::encode_g2_uncompressed(q);
    uint8_t want[32];
    p.y.to_bytes_be(want);
    EXPECT_TRUE(std::equal(want, want + 32, e1.begin() + 32));
    q.x.c1.to_bytes_be(want);
    EXPECT_TRUE(std::equal(want, want + 32, e2.begin()));
    q.y.c0.to_bytes_be(want);
    EXPECT_TRUE(std::equal(want, want + 32, e2.begin() + 96));
    EXPECT_EQ(bn::decode_g1_uncompressed(e1), p);
    EXPECT_EQ(bn::decode_g2_uncompressed(e2), q);
    if (i == 0) {
      EXPECT_TRUE(std::all_of(e1.begin(), e1.end(), [](uint8_t b) { return b == 0; }));
      EXPECT_TRUE(std::all_of(e2.begin(), e2.end(), [](uint8_t b) { return b == 0; }));
    }
  }
}

// p itself as a big-endian or Montgomery little-endian coordinate.
void put_modulus(uint8_t* out, bool lem) {
  for (size_t i = 0; i < 32; ++i) {
    const uint8_t byte = uint8_t(Fp::kModulus.limb[i / 8] >> (8 * (i % 8)));
    out[lem ? i : 31 - i] = byte;
  }
}

TEST(Bn254Encoding, RejectionsNameTheProblem) {
  auto g = rng("Bn254Encoding.RejectionsNameTheProblem");
  const bn::G1Affine p = random_point<bn::G1Config>(g);
  const bn::G2Affine q = random_point<bn::G2Config>(g);
  auto l1 = bn::encode_g1_lem(p);
  auto l2 = bn::encode_g2_lem(q);
  auto u1 = bn::encode_g1_uncompressed(p);
  auto u2 = bn::encode_g2_uncompressed(q);
  using Bytes = std::vector<uint8_t>;
  EXPECT_EQ(decode_error([&] { bn::decode_g1_lem(Bytes(l1.begin(), l1.end() - 1)); }),
            "BN254 G1 LEM: expected 64 bytes, got 63");
  Bytes longer(u2.begin(), u2.end());
  longer.push_back(0);
  EXPECT_EQ(decode_error([&] { bn::decode_g2_uncompressed(longer); }),
            "BN254 G2 uncompressed: expected 128 bytes, got 129");
  // Non-canonical coordinates (= p).
  put_modulus(l1.data() + 32, true);
  EXPECT_EQ(decode_error([&] { bn::decode_g1_lem(l1); }), "BN254 G1 LEM: y is not a canonical field element");
  EXPECT_EQ(decode_error([&] { bn::decode_g1_lem_unchecked(l1); }), "BN254 G1 LEM: y is not a canonical field element");
  put_modulus(l2.data() + 32, true);
  EXPECT_EQ(decode_error([&] { bn::decode_g2_lem(l2); }), "BN254 G2 LEM: x.c1 is not a canonical field element");
  put_modulus(u2.data(), false);
  EXPECT_EQ(decode_error([&] { bn::decode_g2_uncompressed(u2); }),
            "BN254 G2 uncompressed: x.c1 is not a canonical field element");
  put_modulus(u1.data(), false);
  EXPECT_EQ(decode_error([&] { bn::decode_g1_uncompressed(u1); }),
            "BN254 G1 uncompressed: x is not a canonical field element");
  // Off the curve: y + 1.
  const bn::G1Affine off1{p.x, p.y + Fp::one()};
  const bn::G2Affine off2{q.x, q.y + Fp2::one()};
  EXPECT_EQ(decode_error([&] { bn::decode_g1_uncompressed(bn::encode_g1_uncompressed(off1)); }),
            "BN254 G1 uncompressed: point is not on the curve");
  EXPECT_EQ(decode_error([&] { bn::decode_g2_lem(bn::encode_g2_lem(off2)); }), "BN254 G2 LEM: point is not on the curve");
  EXPECT_EQ(bn::decode_g2_lem_unchecked(bn::encode_g2_lem(off2)), off2);  // trusted input: not checked
  // On the twist, outside G2.
  bn::G2Affine outside = random_curve_point<bn::G2Config>(g);
  ASSERT_FALSE(bn::is_in_subgroup_reference(outside));
  EXPECT_EQ(decode_error([&] { bn::decode_g2_uncompressed(bn::encode_g2_uncompressed(outside)); }),
            "BN254 G2 uncompressed: point is not in the prime-order subgroup");
  EXPECT_EQ(decode_error([&] { bn::decode_g2_lem(bn::encode_g2_lem(outside)); }),
            "BN254 G2 LEM: point is not in the prime-order subgroup");
  EXPECT_EQ(decode_error([&] { bn::g2_from_snarkjs_json(bn::g2_to_snarkjs_json(outside)); }),
            "BN254 G2 JSON: point is not in the prime-order subgroup");
}

TEST(Bn254Encoding, JsonRejections) {
  auto parse = [](const char* s) { return Json::parse(s); };
  EXPECT_EQ(decode_error([&] { bn::g1_from_snarkjs_json(parse(R"(["1", "2"])")); }),
            "BN254 G1 JSON: expected an array of 3 elements");
  EXPECT_EQ(decode_error([&] { bn::g1_from_snarkjs_json(parse(R"(["1", "2", "2"])")); }),
            "BN254 G1 JSON: [2]: z coordinate must be 1 (affine) or 0 (infinity)");
  EXPECT_EQ(decode_error([&] { bn::g1_from_snarkjs_json(parse(R"(["1", "3", "1"])")); }),
            "BN254 G1 JSON: point is not on the curve");
  EXPECT_EQ(decode_error([&] { bn::g1_from_snarkjs_json(parse(R"(["0", "0", "0"])")); }),
            "BN254 G1 JSON: point at infinity must be written as (0, 1, 0)");
  EXPECT_EQ(decode_error([&] { bn::g1_from_snarkjs_json(parse(R"([1, "2", "1"])")); }),
            "BN254 G1 JSON: [0]: expected a decimal string");
  const Mpz p = to_mpz(Fp::kModulus);
  std::string p_dec(mpz_sizeinbase(p, 10) + 2, '\0');
  mpz_get_str(p_dec.data(), 10, p);
  p_dec.resize(std::char_traits<char>::length(p_dec.c_str()));
  const std::string msg = decode_error([&] {
    bn::g2_from_snarkjs_json(parse(("[[\"1\", \"" + p_dec + "\"], [\"1\", \"0\"], [\"1\", \"0\"]]").c_str()));
  });
  EXPECT_NE(msg.find("BN254 G2 JSON: [0][1]: "), std::string::npos) << msg;
  EXPECT_NE(msg.find("Fp modulus"), std::string::npos) << msg;
  EXPECT_EQ(bn::g1_from_snarkjs_json(parse(R"(["1", "2", "1"])")), bn::kG1Generator);
}

}  // namespace
}  // namespace snarkd::test
