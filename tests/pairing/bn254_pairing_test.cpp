// BN254's final exponentiation against GMP: its exponent is not the textbook (p¹² − 1)/r but a
// multiple, 2u(6u² + 3u + 1)·(p¹² − 1)/r (Fuentes-Castañeda et al.), and its hard part is public.
// Everything both curves share (known answers, bilinearity, order, negation, infinity,
// multi_pairing, pairing_product_is_one) is the typed suite in pairing_test.cpp.
#include "snarkd/pairing/bn254.hpp"

#include <gtest/gtest.h>

#include "common/gmp_util.hpp"
#include "common/seed.hpp"
#include "pairing/helpers.hpp"

namespace {

using snarkd::ff::bn254::Fp;
using snarkd::ff::bn254::Fp12;
using snarkd::ff::bn254::Fr;
using snarkd::test::Mpz;
namespace bn = snarkd::pairing::bn254;

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

}  // namespace
