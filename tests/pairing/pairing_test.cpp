// The optimal ate pairing: known answers from @noble/curves (cross-checked with mcl when the
// file was generated), bilinearity, order r, non-degeneracy, negation, infinity, the shared
// Miller loop of multi_pairing, and pairing_product_is_one.
#include "snarkd/pairing/pairing.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "common/seed.hpp"
#include "pairing/helpers.hpp"

namespace {

using snarkd::ec::G1Affine;
using snarkd::ec::G1Jacobian;
using snarkd::ec::G2Affine;
using snarkd::ec::G2Jacobian;
using snarkd::ec::kG1Generator;
using snarkd::ec::kG2Generator;
using snarkd::ff::Fr;
using snarkd::pairing::G1G2Pair;
using snarkd::pairing::GT;
using Value = snarkd::test::Json;

const Value& vectors() {
  static const Value v =
      snarkd::test::Json::load(std::string(SNARKD_VECTORS_DIR) + "/pairing.json");
  return v;
}
G1Affine g1_from_json(const Value& v) {
  return {snarkd::test::fp_from_hex(v["x"].str()), snarkd::test::fp_from_hex(v["y"].str())};
}
G2Affine g2_from_json(const Value& v) {
  return {snarkd::test::fp2_from_json(v["x"]), snarkd::test::fp2_from_json(v["y"])};
}

G1Affine g1_mul(const Fr& k) {
  return G1Jacobian::from_affine(kG1Generator).mul_scalar(k).to_affine();
}
G2Affine g2_mul(const Fr& k) {
  return G2Jacobian::from_affine(kG2Generator).mul_scalar(k).to_affine();
}

// Exponentiation of GT elements by multiplications only, independent of Fp12::pow.
GT gt_pow(const GT& x, const Fr& k) { return snarkd::test::pow_by_mul(x, k.to_repr()); }

TEST(PairingKat, Generators) {
  const Value& g = vectors()["generator_pairing"];
  ASSERT_EQ(g1_from_json(g["p"]), kG1Generator);
  ASSERT_EQ(g2_from_json(g["q"]), kG2Generator);
  EXPECT_EQ(snarkd::pairing::pairing(kG1Generator, kG2Generator),
            snarkd::test::fp12_from_json(g["gt"]));
}

TEST(PairingKat, RandomScalars) {
  const Value& cases = vectors()["cases"];
  ASSERT_GE(cases.size(), 5u);
  for (size_t i = 0; i < cases.size(); ++i) {
    const Value& c = cases[i];
    G1Affine p = g1_from_json(c["p"]);
    G2Affine q = g2_from_json(c["q"]);
    ASSERT_TRUE(p.is_on_curve() && q.is_on_curve()) << "case " << i;
    Fr a = Fr::from_repr_unchecked(snarkd::ff::BigInt<4>::from_hex(c["a"].str().c_str()));
    Fr b = Fr::from_repr_unchecked(snarkd::ff::BigInt<4>::from_hex(c["b"].str().c_str()));
    EXPECT_EQ(p, g1_mul(a)) << "case " << i;
    EXPECT_EQ(q, g2_mul(b)) << "case " << i;
    EXPECT_EQ(snarkd::pairing::pairing(p, q), snarkd::test::fp12_from_json(c["gt"]))
        << "case " << i;
  }
}

// Exercises the final exponentiation alone on elements that are not Miller-loop outputs.
TEST(PairingKat, FinalExponentiation) {
  const Value& cases = vectors()["final_exponentiation"];
  ASSERT_GE(cases.size(), 1u);
  for (size_t i = 0; i < cases.size(); ++i) {
    GT want = snarkd::test::fp12_from_json(cases[i]["result"]);
    EXPECT_EQ(snarkd::pairing::final_exponentiation(snarkd::test::fp12_from_json(cases[i]["f"])),
              want)
        << "case " << i;
  }
}

TEST(Pairing, Bilinearity) {
  auto g = snarkd::test::rng("Pairing.Bilinearity");
  const GT base = snarkd::pairing::pairing(kG1Generator, kG2Generator);
  for (int i = 0; i < 3; ++i) {
    Fr a = Fr::random(g), b = Fr::random(g);
    G1Affine ap = g1_mul(a);
    G2Affine bq = g2_mul(b);
    GT e = snarkd::pairing::pairing(ap, bq);
    EXPECT_EQ(e, gt_pow(base, a * b));
    EXPECT_EQ(snarkd::pairing::pairing(g1_mul(a * b), kG2Generator), e);
    EXPECT_EQ(snarkd::pairing::pairing(kG1Generator, g2_mul(a * b)), e);
  }
}

TEST(Pairing, OrderAndNonDegeneracy) {
  auto g = snarkd::test::rng("Pairing.OrderAndNonDegeneracy");
  GT e = snarkd::pairing::pairing(g1_mul(Fr::random(g)), g2_mul(Fr::random(g)));
  EXPECT_FALSE(e.is_one());
  EXPECT_TRUE(snarkd::test::pow_by_mul(e, Fr::kModulus).is_one());
  EXPECT_FALSE(snarkd::pairing::pairing(kG1Generator, kG2Generator).is_one());
}

TEST(Pairing, Negation) {
  auto g = snarkd::test::rng("Pairing.Negation");
  G1Affine p = g1_mul(Fr::random(g));
  G2Affine q = g2_mul(Fr::random(g));
  GT e = snarkd::pairing::pairing(p, q);
  GT inv = e.inverse();
  EXPECT_EQ(snarkd::pairing::pairing(-p, q), inv);
  EXPECT_EQ(snarkd::pairing::pairing(p, -q), inv);
  EXPECT_EQ(snarkd::pairing::pairing(-p, -q), e);
  EXPECT_EQ(e.conjugate(), inv);  // GT is unitary
}

TEST(Pairing, InfinityGivesOne) {
  const G1Affine o1 = G1Affine::infinity();
  const G2Affine o2 = G2Affine::infinity();
  EXPECT_TRUE(snarkd::pairing::pairing(o1, kG2Generator).is_one());
  EXPECT_TRUE(snarkd::pairing::pairing(kG1Generator, o2).is_one());
  EXPECT_TRUE(snarkd::pairing::pairing(o1, o2).is_one());
  EXPECT_TRUE(snarkd::pairing::multi_pairing({}).is_one());
  std::vector<G1G2Pair> pairs = {
      {o1, kG2Generator}, {kG1Generator, kG2Generator}, {kG1Generator, o2}};
  EXPECT_EQ(snarkd::pairing::multi_pairing(pairs),
            snarkd::pairing::pairing(kG1Generator, kG2Generator));
}

TEST(Pairing, MultiPairingIsProductOfPairings) {
  auto g = snarkd::test::rng("Pairing.MultiPairingIsProductOfPairings");
  for (size_t n : {1, 2, 5}) {
    std::vector<G1G2Pair> pairs;
    GT want = GT::one();
    for (size_t i = 0; i < n; ++i) {
      pairs.emplace_back(g1_mul(Fr::random(g)), g2_mul(Fr::random(g)));
      want = want * snarkd::pairing::pairing(pairs.back().first, pairs.back().second);
    }
    EXPECT_EQ(snarkd::pairing::multi_pairing(pairs), want) << "n=" << n;
    EXPECT_EQ(snarkd::pairing::final_exponentiation(snarkd::pairing::multi_miller_loop(pairs)),
              want);
  }
}

TEST(Pairing, MillerLoopThenFinalExponentiation) {
  auto g = snarkd::test::rng("Pairing.MillerLoopThenFinalExponentiation");
  G1Affine p = g1_mul(Fr::random(g));
  G2Affine q = g2_mul(Fr::random(g));
  EXPECT_EQ(snarkd::pairing::final_exponentiation(snarkd::pairing::miller_loop(p, q)),
            snarkd::pairing::pairing(p, q));
}

TEST(Pairing, ProductIsOne) {
  auto g = snarkd::test::rng("Pairing.ProductIsOne");
  Fr a = Fr::random(g);
  G1Affine p = g1_mul(Fr::random(g));
  G2Affine q = g2_mul(Fr::random(g));
  G1Affine ap = G1Jacobian::from_affine(p).mul_scalar(a).to_affine();
  G2Affine aq = G2Jacobian::from_affine(q).mul_scalar(a).to_affine();
  std::vector<G1G2Pair> good = {{ap, q}, {-p, aq}};
  EXPECT_TRUE(snarkd::pairing::pairing_product_is_one(good));
  std::vector<G1G2Pair> bad = {{ap, q}, {p, aq}};
  EXPECT_FALSE(snarkd::pairing::pairing_product_is_one(bad));
}

}  // namespace
