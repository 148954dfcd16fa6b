// Fp6 / Fp12: products against schoolbook polynomial arithmetic modulo v³ − ξ and w⁶ − ξ,
// field axioms, inverses, the sparse line product, Frobenius maps against x^(p^k) computed with
// a multiplication-only power routine, the Frobenius table against ξ^(j(p^k − 1)/6) from GMP,
// and the cyclotomic squaring on outputs of the final exponentiation's easy part.
#include <gtest/gtest.h>

#include <array>

#include "common/seed.hpp"
#include "pairing/helpers.hpp"
#include "snarkd/ff/fp12.hpp"

namespace {

using snarkd::ff::BigInt;
using snarkd::ff::Fp12;
using snarkd::ff::Fp2;
using snarkd::ff::Fp6;
using snarkd::test::pow_by_mul;

constexpr int kTrials = 8;

const Fp2 kXi = {snarkd::ff::Fp::one(), snarkd::ff::Fp::one()};  // ξ = 1 + u

// Product of polynomials over Fp2 of degree < n, reduced with X^n = ξ (schoolbook).
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
std::array<Fp2, 6> coeffs(const Fp12& a) {
  return {a.c0.c0, a.c1.c0, a.c0.c1, a.c1.c1, a.c0.c2, a.c1.c2};
}

// p^k as a BigInt wide enough for k ≤ 11 (4191 bits).
BigInt<72> p_power(unsigned k) {
  mpz_t p, e;
  mpz_inits(p, e, nullptr);
  snarkd::test::modulus_p(p);
  mpz_pow_ui(e, p, k);
  BigInt<72> r = snarkd::test::to_bigint<72>(e);
  mpz_clears(p, e, nullptr);
  return r;
}

// f^((p⁶ − 1)(p² + 1)), an element of the cyclotomic subgroup, through f^(p⁶) = conjugate(f) and
// f^(p²) = frobenius(2), both checked against pow_by_mul in the Frobenius tests.
Fp12 easy_part(const Fp12& f) {
  Fp12 t = f.conjugate() * f.inverse();
  return t.frobenius(2) * t;
}

TEST(Fp6, ProductMatchesSchoolbook) {
  auto g = snarkd::test::rng("Fp6.ProductMatchesSchoolbook");
  for (int i = 0; i < kTrials; ++i) {
    Fp6 a = Fp6::random(g), b = Fp6::random(g);
    EXPECT_EQ(coeffs(a * b), poly_mul_mod(coeffs(a), coeffs(b)));
    EXPECT_EQ(coeffs(a.square()), poly_mul_mod(coeffs(a), coeffs(a)));
    const Fp6 v = {Fp2::zero(), Fp2::one(), Fp2::zero()};
    const Fp6 b01 = {b.c0, b.c1, Fp2::zero()}, b1 = {Fp2::zero(), b.c1, Fp2::zero()};
    const Fp6 b2 = {b.c2, Fp2::zero(), Fp2::zero()};
    EXPECT_EQ(a.mul_by_nonresidue(), a * v);
    EXPECT_EQ(a.mul_by_01(b.c0, b.c1), a * b01);
    EXPECT_EQ(a.mul_by_1(b.c1), a * b1);
    EXPECT_EQ(a * b.c2, a * b2);
  }
}

TEST(Fp6, FieldAxiomsAndInverse) {
  auto g = snarkd::test::rng("Fp6.FieldAxiomsAndInverse");
  for (int i = 0; i < kTrials; ++i) {
    Fp6 a = Fp6::random(g), b = Fp6::random(g), c = Fp6::random(g);
    EXPECT_EQ((a + b) + c, a + (b + c));
    EXPECT_EQ(a + b, b + a);
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ(a - b + b, a);
    EXPECT_EQ(a + (-a), Fp6::zero());
    EXPECT_EQ(a.dbl(), a + a);
    EXPECT_EQ(a * Fp6::one(), a);
    EXPECT_EQ(a * Fp6::zero(), Fp6::zero());
    ASSERT_FALSE(a.is_zero());
    EXPECT_TRUE((a * a.inverse()).is_one());
  }
  EXPECT_TRUE(Fp6::zero().inverse().is_zero());
}

TEST(Fp12, ProductMatchesSchoolbook) {
  auto g = snarkd::test::rng("Fp12.ProductMatchesSchoolbook");
  for (int i = 0; i < kTrials; ++i) {
    Fp12 a = Fp12::random(g), b = Fp12::random(g);
    EXPECT_EQ(coeffs(a * b), poly_mul_mod(coeffs(a), coeffs(b)));
    EXPECT_EQ(coeffs(a.square()), poly_mul_mod(coeffs(a), coeffs(a)));
  }
}

TEST(Fp12, FieldAxiomsAndInverse) {
  auto g = snarkd::test::rng("Fp12.FieldAxiomsAndInverse");
  for (int i = 0; i < kTrials; ++i) {
    Fp12 a = Fp12::random(g), b = Fp12::random(g), c = Fp12::random(g);
    EXPECT_EQ((a + b) + c, a + (b + c));
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ(a - b + b, a);
    EXPECT_EQ(a + (-a), Fp12::zero());
    EXPECT_EQ(a * Fp12::one(), a);
    ASSERT_FALSE(a.is_zero());
    EXPECT_TRUE((a * a.inverse()).is_one());
    EXPECT_EQ(a.pow(BigInt<1>::from_u64(13)), pow_by_mul(a, BigInt<1>::from_u64(13)));
  }
  EXPECT_TRUE(Fp12::zero().inverse().is_zero());
}

// The Miller loop's line ℓ = l0 + l1·v + l4·vw as a dense element.
TEST(Fp12, SparseLineProduct) {
  auto g = snarkd::test::rng("Fp12.SparseLineProduct");
  for (int i = 0; i < kTrials; ++i) {
    Fp12 f = Fp12::random(g);
    Fp2 l0 = Fp2::random(g), l1 = Fp2::random(g), l4 = Fp2::random(g);
    Fp12 dense = {{l0, l1, Fp2::zero()}, {Fp2::zero(), l4, Fp2::zero()}};
    EXPECT_EQ(f.mul_by_014(l0, l1, l4), f * dense);
  }
}

// kFrobeniusGamma[k][j] = ξ^(j(p^k − 1)/6), exponent reduced mod p² − 1 (the order of Fp2*).
TEST(Frobenius, TableMatchesGmp) {
  mpz_t p, pk, e, ord;
  mpz_inits(p, pk, e, ord, nullptr);
  snarkd::test::modulus_p(p);
  mpz_mul(ord, p, p);
  mpz_sub_ui(ord, ord, 1);
  for (unsigned k = 0; k < 12; ++k) {
    mpz_pow_ui(pk, p, k);
    mpz_sub_ui(pk, pk, 1);
    ASSERT_TRUE(mpz_divisible_ui_p(pk, 6));
    for (unsigned j = 0; j < 6; ++j) {
      mpz_mul_ui(e, pk, j);
      mpz_divexact_ui(e, e, 6);
      mpz_mod(e, e, ord);
      Fp2 want = pow_by_mul(kXi, snarkd::test::to_bigint<12>(e));
      EXPECT_EQ(snarkd::ff::detail::kFrobeniusGamma[k][j], want) << "k=" << k << " j=" << j;
    }
  }
  mpz_clears(p, pk, e, ord, nullptr);
}

TEST(Frobenius, Fp6MatchesPowerOfP) {
  auto g = snarkd::test::rng("Frobenius.Fp6MatchesPowerOfP");
  for (unsigned k = 1; k <= 11; ++k) {
    Fp6 a = Fp6::random(g);
    EXPECT_EQ(a.frobenius(k), pow_by_mul(a, p_power(k))) << "k=" << k;
  }
}

TEST(Frobenius, Fp12MatchesPowerOfP) {
  auto g = snarkd::test::rng("Frobenius.Fp12MatchesPowerOfP");
  for (unsigned k = 1; k <= 11; ++k) {
    Fp12 a = Fp12::random(g);
    EXPECT_EQ(a.frobenius(k), pow_by_mul(a, p_power(k))) << "k=" << k;
  }
  Fp12 a = Fp12::random(g);
  EXPECT_EQ(a.frobenius(6), a.conjugate());
  EXPECT_EQ(a.frobenius(12), a);
  EXPECT_EQ(a.frobenius(1).frobenius(2), a.frobenius(3));
}

TEST(Cyclotomic, SquareMatchesGenericOnEasyPartOutputs) {
  auto g = snarkd::test::rng("Cyclotomic.SquareMatchesGenericOnEasyPartOutputs");
  mpz_t p, phi;
  mpz_inits(p, phi, nullptr);
  snarkd::test::modulus_p(p);
  mpz_pow_ui(phi, p, 4);  // Φ12(p) = p⁴ − p² + 1
  mpz_submul(phi, p, p);
  mpz_add_ui(phi, phi, 1);
  const auto phi_big = snarkd::test::to_bigint<24>(phi);
  mpz_clears(p, phi, nullptr);
  for (int i = 0; i < 4; ++i) {
    Fp12 m = easy_part(Fp12::random(g));
    ASSERT_TRUE(pow_by_mul(m, phi_big).is_one());  // m is in the cyclotomic subgroup
    EXPECT_EQ(m.cyclotomic_square(), m * m);
    EXPECT_TRUE((m * m.conjugate()).is_one());  // conjugation inverts there
  }
  Fp12 f = Fp12::random(g);  // outside the subgroup the shortcut does not hold
  EXPECT_NE(f.cyclotomic_square(), f * f);
}

}  // namespace
