// The BN254 optimal ate pairing: known answers from @noble/curves cross-checked with mcl
// (tests/vectors/bn254.json), the final exponentiation's exponent against GMP, bilinearity,
// order r, non-degeneracy, negation, infinity, the shared Miller loop and pairing_product_is_one.
#include "snarkd/pairing/bn254.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "common/gmp_util.hpp"
#include "common/json.hpp"
#include "common/seed.hpp"
#include "pairing/helpers.hpp"

namespace {

using snarkd::ec::bn254::G1Affine;
using snarkd::ec::bn254::G1Jacobian;
using snarkd::ec::bn254::G2Affine;
using snarkd::ec::bn254::G2Jacobian;
using snarkd::ec::bn254::kG1Generator;
using snarkd::ec::bn254::kG2Generator;
using snarkd::ff::bn254::Fp;
using snarkd::ff::bn254::Fp12;
using snarkd::ff::bn254::Fp2;
using snarkd::ff::bn254::Fr;
using snarkd::pairing::bn254::G1G2Pair;
using snarkd::pairing::bn254::GT;
using snarkd::test::Mpz;
using Value = snarkd::test::Json;
namespace bn = snarkd::pairing::bn254;

const Value& vectors() {
  static const Value v = Value::load(std::string(SNARKD_VECTORS_DIR) + "/bn254.json");
  return v;
}
Fp fp_hex(const Value& v) {
  Fp r;
  if (v.str().size() != 64 || !Fp::from_repr(snarkd::ff::BigInt<4>::from_hex(v.str().c_str()), r))
    throw std::runtime_error("bad Fp hex: " + v.str());
  return r;
}
Fp2 fp2_hex(const Value& v) { return {fp_hex(v[0]), fp_hex(v[1])}; }
Fp12 fp12_hex(const Value& v) {
  if (v.size() != 12) throw std::runtime_error("Fp12 needs 12 values");
  Fp2 c[6];
  for (size_t i = 0; i < 6; ++i) c[i] = {fp_hex(v[2 * i]), fp_hex(v[2 * i + 1])};
  return {{c[0], c[1], c[2]}, {c[3], c[4], c[5]}};
}
G1Affine g1_hex(const Value& v) { return {fp_hex(v["x"]), fp_hex(v["y"])}; }
G2Affine g2_hex(const Value& v) { return {fp2_hex(v["x"]), fp2_hex(v["y"])}; }
Fr fr_hex(const Value& v) { return Fr::from_repr_unchecked(snarkd::ff::BigInt<4>::from_hex(v.str().c_str())); }

G1Affine g1_mul(const Fr& k) { return G1Jacobian::from_affine(kG1Generator).mul_scalar(k).to_affine(); }
G2Affine g2_mul(const Fr& k) { return G2Jacobian::from_affine(kG2Generator).mul_scalar(k).to_affine(); }
GT gt_pow(const GT& x, const Fr& k) { return snarkd::test::pow_by_mul(x, k.to_repr()); }

TEST(Bn254PairingKat, Generators) {
  const Value& g = vectors()["generator_pairing"];
  ASSERT_EQ(g1_hex(g["p"]), kG1Generator);
  ASSERT_EQ(g2_hex(g["q"]), kG2Generator);
  EXPECT_EQ(bn::pairing(kG1Generator, kG2Generator), fp12_hex(g["gt"]));
}

TEST(Bn254PairingKat, RandomScalars) {
  const Value& cases = vectors()["cases"];
  ASSERT_GE(cases.size(), 5u);
  for (size_t i = 0; i < cases.size(); ++i) {
    const Value& c = cases[i];
    const G1Affine p = g1_hex(c["p"]);
    const G2Affine q = g2_hex(c["q"]);
    ASSERT_EQ(p, g1_mul(fr_hex(c["a"]))) << "case " << i;
    ASSERT_EQ(q, g2_mul(fr_hex(c["b"]))) << "case " << i;
    EXPECT_EQ(bn::pairing(p, q), fp12_hex(c["gt"])) << "case " << i;
    EXPECT_EQ(bn::miller_loop(p, q) * bn::miller_loop(-p, q),
              bn::multi_miller_loop(std::vector<G1G2Pair>{{p, q}, {-p, q}}));
  }
}

TEST(Bn254PairingKat, FinalExponentiation) {
  const Value& cases = vectors()["final_exponentiation"];
  ASSERT_GE(cases.size(), 1u);
  for (size_t i = 0; i < cases.size(); ++i)
    EXPECT_EQ(bn::final_exponentiation(fp12_hex(cases[i]["f"])), fp12_hex(cases[i]["result"])) << "case " << i;
}

// The exponent itself, from GMP: (p¹² − 1)/r · 2u(6u² + 3u + 1) for the whole map, and
// 2u(6u² + 3u + 1)(p⁴ − p² + 1)/r for the hard part (on cyclotomic inputs).
TEST(Bn254Pairing, FinalExponentMatchesGmp) {
  auto g = snarkd::test::rng("Bn254Pairing.FinalExponentMatchesGmp");
  const Mpz p = snarkd::test::to_mpz(Fp::kModulus), r = snarkd::test::to_mpz(Fr::kModulus);
  const Mpz u(snarkd::ff::bn254::kCurveParameter);
  Mpz m, t, full, hard;
  mpz_mul(m, u, u);  // m = 2u(6u² + 3u + 1)
  mpz_mul_ui(m, m, 6);
  mpz_addmul_ui(m, u, 3);
  mpz_add_ui(m, m, 1);
  mpz_mul(m, m, u);
  mpz_mul_2exp(m, m, 1);
  mpz_pow_ui(full, p, 12);
  mpz_sub_ui(full, full, 1);
  ASSERT_TRUE(mpz_divisible_p(full, r));
  mpz_divexact(full, full, r);
  mpz_mul(full, full, m);
  mpz_pow_ui(hard, p, 4);
  mpz_submul(hard, p, p);
  mpz_add_ui(hard, hard, 1);
  ASSERT_TRUE(mpz_divisible_p(hard, r));
  mpz_divexact(hard, hard, r);
  mpz_mul(hard, hard, m);
  const Fp12 f = Fp12::random(g);
  EXPECT_EQ(bn::final_exponentiation(f), snarkd::test::pow_by_mul(f, snarkd::test::to_bigint<48>(full)));
  Fp12 e = f.conjugate() * f.inverse();
  e = e.frobenius(2) * e;
  EXPECT_EQ(bn::final_exponentiation_hard_part(e), snarkd::test::pow_by_mul(e, snarkd::test::to_bigint<16>(hard)));
}

TEST(Bn254Pairing, Bilinearity) {
  auto g = snarkd::test::rng("Bn254Pairing.Bilinearity");
  const GT base = bn::pairing(kG1Generator, kG2Generator);
  for (int i = 0; i < 3; ++i) {
    const Fr a = Fr::random(g), b = Fr::random(g);
    const GT e = bn::pairing(g1_mul(a), g2_mul(b));
    EXPECT_EQ(e, gt_pow(base, a * b));
    EXPECT_EQ(bn::pairing(g1_mul(a * b), kG2Generator), e);
    EXPECT_EQ(bn::pairing(kG1Generator, g2_mul(a * b)), e);
  }
}

TEST(Bn254Pairing, OrderNonDegeneracyNegation) {
  auto g = snarkd::test::rng("Bn254Pairing.OrderNonDegeneracyNegation");
  const G1Affine p = g1_mul(Fr::random(g));
  const G2Affine q = g2_mul(Fr::random(g));
  const GT e = bn::pairing(p, q);
  EXPECT_FALSE(e.is_one());
  EXPECT_FALSE(bn::pairing(kG1Generator, kG2Generator).is_one());
  EXPECT_TRUE(snarkd::test::pow_by_mul(e, Fr::kModulus).is_one());
  EXPECT_TRUE((bn::pairing(p, -q) * e).is_one());
  EXPECT_TRUE((bn::pairing(-p, q) * e).is_one());
  EXPECT_EQ(bn::pairing(-p, -q), e);
  EXPECT_EQ(e.conjugate(), e.inverse());  // GT is unitary
}

TEST(Bn254Pairing, InfinityAndMultiPairing) {
  auto g = snarkd::test::rng("Bn254Pairing.InfinityAndMultiPairing");
  const G1Affine o1 = G1Affine::infinity();
  const G2Affine o2 = G2Affine::infinity();
  EXPECT_TRUE(bn::pairing(o1, kG2Generator).is_one());
  EXPECT_TRUE(bn::pairing(kG1Generator, o2).is_one());
  EXPECT_TRUE(bn::multi_pairing({}).is_one());
  for (size_t n : {1, 2, 4}) {
    std::vector<G1G2Pair> pairs = {{o1, kG2Generator}};
    GT want = GT::one();
    for (size_t i = 0; i < n; ++i) {
      pairs.emplace_back(g1_mul(Fr::random(g)), g2_mul(Fr::random(g)));
      want = want * bn::pairing(pairs.back().first, pairs.back().second);
    }
    EXPECT_EQ(bn::multi_pairing(pairs), want) << "n=" << n;
    EXPECT_EQ(bn::final_exponentiation(bn::multi_miller_loop(pairs)), want);
  }
}

// The Groth16-verifier shape: e(aP, Q)·e(−P, aQ) = 1, and a wrong sign fails.
TEST(Bn254Pairing, ProductIsOne) {
  auto g = snarkd::test::rng("Bn254Pairing.ProductIsOne");
  const Fr a = Fr::random(g);
  const G1Affine p = g1_mul(Fr::random(g));
  const G2Affine q = g2_mul(Fr::random(g));
  const G1Affine ap = G1Jacobian::from_affine(p).mul_scalar(a).to_affine();
  const G2Affine aq = G2Jacobian::from_affine(q).mul_scalar(a).to_affine();
  EXPECT_TRUE(bn::pairing_product_is_one(std::vector<G1G2Pair>{{ap, q}, {-p, aq}}));
  EXPECT_FALSE(bn::pairing_product_is_one(std::vector<G1G2Pair>{{ap, q}, {p, aq}}));
}

}  // namespace
