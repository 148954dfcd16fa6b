// BN254 fields: the moduli recomputed from the curve parameter u with GMP and the NTT constants of
// Fr (2-adicity 28, roots of unity from snarkjs's generator 5). Fp, Fr and Fp2 themselves run the
// generic suites with BLS12-381's (field_test.cpp, constants_test.cpp, fp2_test.cpp list them).
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "common/gmp_util.hpp"
#include "common/json.hpp"
#include "snarkd/ff/bn254.hpp"

namespace snarkd::test {
namespace {

using ff::bn254::Fp;
using ff::bn254::Fr;

// p = 36u⁴ + 36u³ + 24u² + 6u + 1, r = 36u⁴ + 36u³ + 18u² + 6u + 1 (EIP-196).
TEST(Bn254Constants, ModuliFromCurveParameter) {
  Mpz u(ff::bn254::kCurveParameter), p, r, t;
  EXPECT_TRUE(u == Mpz::from_hex("44e992b44a6909f1"));
  for (auto [out, c2] : {std::pair<Mpz*, unsigned>{&p, 24}, {&r, 18}}) {
    // Horner in u: ((36u + 36)u + c2)u + 6)u + 1.
    mpz_set_ui(*out, 36);
    for (unsigned c : {36u, c2, 6u, 1u}) {
      mpz_mul(*out, *out, u);
      mpz_add_ui(*out, *out, c);
    }
  }
  EXPECT_TRUE(to_mpz(Fp::kModulus) == p) << "Fp modulus " << to_mpz(Fp::kModulus).hex();
  EXPECT_TRUE(to_mpz(Fr::kModulus) == r) << "Fr modulus " << to_mpz(Fr::kModulus).hex();
  EXPECT_NE(mpz_probab_prime_p(p, 50), 0);
  EXPECT_NE(mpz_probab_prime_p(r, 50), 0);
  EXPECT_EQ(mpz_fdiv_ui(p, 4), 3u);  // Fp2 = Fp[u]/(u² + 1) and the simple square roots need it
  EXPECT_EQ(mpz_fdiv_ui(p, 6), 1u);  // sextic twist
  mpz_sub_ui(t, r, 1);
  EXPECT_EQ(mpz_scan1(t, 0), 28u);
  EXPECT_EQ(Fr::kTwoAdicity, 28u);
}

// snarkjs's bn128 Fr domain: w = 5^((r − 1)/2^28), of order exactly 2^28.
TEST(Bn254Constants, FrRootOfUnityFromFive) {
  GmpField<Fr> gf;
  Mpz g(5), e, w, t, minus_one;
  mpz_sub_ui(minus_one, gf.p, 1);
  EXPECT_EQ(mpz_legendre(g, gf.p), -1) << "5 must be a quadratic non-residue mod r";
  mpz_fdiv_q_2exp(e, minus_one, 28);
  mpz_powm(w, g, e, gf.p);
  const Fr root = ff::bn254::kRootOfUnity5;
  EXPECT_TRUE(gf.has_value(root, w));
  mpz_powm_ui(t, w, uint64_t(1) << 27, gf.p);
  EXPECT_TRUE(t == minus_one) << "w^(2^27) must be −1";
  for (size_t k : {1, 10, 20, 27}) {
    mpz_mul_2exp(e, Mpz(1), 28 - k);
    mpz_powm(t, w, e, gf.p);
    EXPECT_TRUE(gf.has_value(Fr::root_of_unity(k, 5), t)) << "k=" << k;
  }
}

// The same root as ffjavascript's Fr.w[28] (what snarkjs's FFTs use), from tests/vectors/bn254.json.
TEST(Bn254Constants, FrRootOfUnityMatchesSnarkjs) {
  const Json v = Json::load(std::string(SNARKD_VECTORS_DIR) + "/bn254.json");
  const Json& root = v["fr_root_of_unity"];
  EXPECT_EQ(root["s"].as_u64(), Fr::kTwoAdicity);
  EXPECT_EQ(root["generator"].str(), std::to_string(ff::bn254::kSnarkjsDomainGenerator));
  EXPECT_EQ(ff::bn254::kRootOfUnity5.to_repr(), ff::BigInt<4>::from_hex(root["w"].str().c_str()));
}

}  // namespace
}  // namespace snarkd::test
