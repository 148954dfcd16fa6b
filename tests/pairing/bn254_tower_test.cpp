// The BN254 tower Fp6 = Fp2[v]/(v³ − ξ), Fp12 = Fp6[w]/(w² − v), ξ = 9 + u: products against
// schoolbook polynomial arithmetic modulo v³ − ξ and w⁶ − ξ, field axioms and inverses, both
// sparse line products, the Frobenius table against ξ^(j(p^k − 1)/6) computed with GMP exponents
// and a multiplication-only power routine, Frobenius maps against x^(p^k), and the cyclotomic
// squaring on outputs of the final exponentiation's easy part.
#include <gtest/gtest.h>

#include <array>

#include "common/gmp_util.hpp"
#include "common/seed.hpp"
#include "pairing/helpers.hpp"
#include "snarkd/ff/bn254_tower.hpp"

namespace {

using snarkd::ff::BigInt;
using snarkd::ff::bn254::Fp;
using snarkd::ff::bn254::Fp12;
using snarkd::ff::bn254::Fp2;
using snarkd::ff::bn254::Fp6;
using snarkd::test::Mpz;
using snarkd::test::pow_by_mul;

constexpr int kTrials = 8;

// ξ = 9 + u, built from integers (not from Fp2::nonresidue, which is under test).
const Fp2 kXi = {Fp::from_u64(9), Fp::from_u64(1)};

template <size_t n>
std::array<Fp2, n> poly_mul_mod(const std::array<Fp2, n>& a, const std::array<Fp2, n>& b) {
  std::array<Fp2, 2 * n> t{};
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) t[i + j] = t[i + j] + a[i] * b[j];
  std::array<Fp2, n> r;
  for (size_t i = 0; i < n; ++i) r[i] = t[i] + kXi * t[i + n];
  return r;
}
std::array<Fp2, 3> coeffs(const Fp6& a) { return {a.c0, a.c1, a.c2}; }
// Fp12 over Fp2 in powers of w: 1, w, w², w³, w⁴, w⁵ = c0.c0, c1.c0, c0.c1, c1.c1, c0.c2, c1.c2.
std::array<Fp2, 6> coeffs(const Fp12& a) { return {a.c0.c0, a.c1.c0, a.c0.c1, a.c1.c1, a.c0.c2, a.c1.c2}; }

Mpz modulus_p() { return snarkd::test::to_mpz(Fp::kModulus); }

// p^k for k ≤ 11 (2800 bits).
BigInt<48> p_power(unsigned k) {
  Mpz e;
  mpz_pow_ui(e, modulus_p(), k);
  return snarkd::test::to_bigint<48>(e);
}

Fp12 easy_part(const Fp12& f) {
  Fp12 t = f.conjugate() * f.inverse();
  return t.frobenius(2) * t;
}

TEST(Bn254Tower, Fp6ProductMatchesSchoolbook) {
  auto g = snarkd::test::rng("Bn254Tower.Fp6ProductMatchesSchoolbook");
  for (int i = 0; i < kTrials; ++i) {
    Fp6 a = Fp6::random(g), b = Fp6::random(g);
    EXPECT_EQ(coeffs(a * b), poly_mul_mod(coeffs(a), coeffs(b)));
    EXPECT_EQ(coeffs(a.square()), poly_mul_mod(coeffs(a), coeffs(a)));
    const Fp6 v = {Fp2::zero(), Fp2::one(), Fp2::zero()};
    EXPECT_EQ(a.mul_by_nonresidue(), a * v);
    const Fp6 b01 = {b.c0, b.c1, Fp2::zero()}, b1 = {Fp2::zero(), b.c1, Fp2::zero()};
    EXPECT_EQ(a.mul_by_01(b.c0, b.c1), a * b01);
    EXPECT_EQ(a.mul_by_1(b.c1), a * b1);
    ASSERT_FALSE(a.is_zero());
    EXPECT_TRUE((a * a.inverse()).is_one());
    EXPECT_EQ(a * (b + a), a * b + a.square());
  }
  EXPECT_TRUE(Fp6::zero().inverse().is_zero());
}

TEST(Bn254Tower, Fp12ProductMatchesSchoolbook) {
  auto g = snarkd::test::rng("Bn254Tower.Fp12ProductMatchesSchoolbook");
  for (int i = 0; i < kTrials; ++i) {
    Fp12 a = Fp12::random(g), b = Fp12::random(g);
    EXPECT_EQ(coeffs(a * b), poly_mul_mod(coeffs(a), coeffs(b)));
    EXPECT_EQ(coeffs(a.square()), poly_mul_mod(coeffs(a), coeffs(a)));
    ASSERT_FALSE(a.is_zero());
    EXPECT_TRUE((a * a.inverse()).is_one());
    EXPECT_EQ(a.pow(BigInt<1>::from_u64(13)), pow_by_mul(a, BigInt<1>::from_u64(13)));
  }
  EXPECT_TRUE(Fp12::zero().inverse().is_zero());
}

// Both line shapes as dense elements: 1, v, vw (M-type) and 1, w, vw (D-type, BN254's).
TEST(Bn254Tower, SparseLineProducts) {
  auto g = snarkd::test::rng("Bn254Tower.SparseLineProducts");
  for (int i = 0; i < kTrials; ++i) {
    Fp12 f = Fp12::random(g);
    Fp2 a = Fp2::random(g), b = Fp2::random(g), c = Fp2::random(g);
    const Fp2 z = Fp2::zero();
    const Fp12 line_034 = {{a, z, z}, {b, c, z}}, line_014 = {{a, b, z}, {z, c, z}};
    EXPECT_EQ(f.mul_by_034(a, b, c), f * line_034);
    EXPECT_EQ(f.mul_by_014(a, b, c), f * line_014);
  }
}

// Gamma[k][j] = ξ^(j(p^k − 1)/6), exponent reduced mod p² − 1 (the order of Fp2*).
TEST(Bn254Tower, FrobeniusTableMatchesGmp) {
  const Mpz p = modulus_p();
  Mpz pk, e, ord;
  mpz_mul(ord, p, p);
  mpz_sub_ui(ord, ord, 1);
  const auto& table = snarkd::ff::detail::FrobeniusCoefficients<snarkd::ff::bn254::Tower>::kGamma;
  for (unsigned k = 0; k < 12; ++k) {
    mpz_pow_ui(pk, p, k);
    mpz_sub_ui(pk, pk, 1);
    ASSERT_TRUE(mpz_divisible_ui_p(pk, 6));
    for (unsigned j = 0; j < 6; ++j) {
      mpz_mul_ui(e, pk, j);
      mpz_divexact_ui(e, e, 6);
      mpz_mod(e, e, ord);
      EXPECT_EQ(table[k][j], pow_by_mul(kXi, snarkd::test::to_bigint<8>(e))) << "k=" << k << " j=" << j;
    }
  }
}

TEST(Bn254Tower, FrobeniusMatchesPowerOfP) {
  auto g = snarkd::test::rng("Bn254Tower.FrobeniusMatchesPowerOfP");
  for (unsigned k = 1; k <= 11; ++k) {
    Fp6 a = Fp6::random(g);
    EXPECT_EQ(a.frobenius(k), pow_by_mul(a, p_power(k))) << "Fp6, k=" << k;
    Fp12 b = Fp12::random(g);
    EXPECT_EQ(b.frobenius(k), pow_by_mul(b, p_power(k))) << "Fp12, k=" << k;
  }
  Fp12 a = Fp12::random(g);
  EXPECT_EQ(a.frobenius(6), a.conjugate());
  EXPECT_EQ(a.frobenius(12), a);
}

TEST(Bn254Tower, CyclotomicSquareOnEasyPartOutputs) {
  auto g = snarkd::test::rng("Bn254Tower.CyclotomicSquareOnEasyPartOutputs");
  const Mpz p = modulus_p();
  Mpz phi;
  mpz_pow_ui(phi, p, 4);  // Φ12(p) = p⁴ − p² + 1
  mpz_submul(phi, p, p);
  mpz_add_ui(phi, phi, 1);
  const auto phi_big = snarkd::test::to_bigint<16>(phi);
  for (int i = 0; i < 3; ++i) {
    Fp12 m = easy_part(Fp12::random(g));
    ASSERT_TRUE(pow_by_mul(m, phi_big).is_one());
    EXPECT_EQ(m.cyclotomic_square(), m * m);
    EXPECT_TRUE((m * m.conjugate()).is_one());
  }
  Fp12 f = Fp12::random(g);
  EXPECT_NE(f.cyclotomic_square(), f * f);
}

}  // namespace
