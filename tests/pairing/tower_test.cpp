// Fp6 = Fp2[v]/(v³ − ξ) and Fp12 = Fp6[w]/(w² − v) of both towers, BLS12-381 (ξ = 1 + u) and
// BN254 (ξ = 9 + u), in one typed suite: products against schoolbook polynomial arithmetic modulo
// v³ − ξ and w⁶ − ξ, field axioms, inverses, both sparse line products, Frobenius maps against
// x^(p^k) computed with a multiplication-only power routine, the Frobenius table against
// ξ^(j(p^k − 1)/6) from GMP, and the cyclotomic squaring on outputs of the final
// exponentiation's easy part.
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "common/gmp_util.hpp"
#include "common/seed.hpp"
#include "pairing/helpers.hpp"
#include "snarkd/ff/bn254_tower.hpp"
#include "snarkd/ff/fp12.hpp"

namespace {

using snarkd::ff::BigInt;
using snarkd::test::Mpz;
using snarkd::test::pow_by_mul;

constexpr int kTrials = 8;

template <class Tower>
class TowerTest : public ::testing::Test {
 protected:
  using Fp = typename Tower::Base;
  using Fp2 = snarkd::ff::Fp2T<Tower>;
  using Fp6 = snarkd::ff::Fp6T<Tower>;
  using Fp12 = snarkd::ff::Fp12T<Tower>;
  // Limbs for p^k, k ≤ 11, and for numbers of p⁴'s size.
  static constexpr size_t kPPowerLimbs = 12 * Fp::N;
  static constexpr size_t kP4Limbs = 4 * Fp::N;

  // ξ = kXiC0 + u, built from integers (not from Fp2::nonresidue).
  const Fp2 xi{Fp::from_u64(Tower::kXiC0), Fp::one()};
  const Mpz p = snarkd::test::to_mpz(Fp::kModulus);
  std::mt19937_64 g = snarkd::test::current_test_rng();

  // Product of polynomials over Fp2 of degree < n, reduced with X^n = ξ (schoolbook).
  template <size_t n>
  std::array<Fp2, n> poly_mul_mod(const std::array<Fp2, n>& a, const std::array<Fp2, n>& b) const {
    std::array<Fp2, 2 * n> t{};
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) t[i + j] = t[i + j] + a[i] * b[j];
    std::array<Fp2, n> r;
    for (size_t i = 0; i < n; ++i) r[i] = t[i] + xi * t[i + n];
    return r;
  }
  static std::array<Fp2, 3> coeffs(const Fp6& a) { return {a.c0, a.c1, a.c2}; }
  // Fp12 over Fp2 in powers of w: 1, w, w², w³, w⁴, w⁵ = c0.c0, c1.c0, c0.c1, c1.c1, c0.c2, c1.c2.
  static std::array<Fp2, 6> coeffs(const Fp12& a) {
    return {a.c0.c0, a.c1.c0, a.c0.c1, a.c1.c1, a.c0.c2, a.c1.c2};
  }

  BigInt<kPPowerLimbs> p_power(unsigned k) const {
    Mpz e;
    mpz_pow_ui(e, p, k);
    return snarkd::test::to_bigint<kPPowerLimbs>(e);
  }

  // f^((p⁶ − 1)(p² + 1)), an element of the cyclotomic subgroup, through f^(p⁶) = conjugate(f) and
  // f^(p²) = frobenius(2), both checked against pow_by_mul in the Frobenius tests.
  static Fp12 easy_part(const Fp12& f) {
    Fp12 t = f.conjugate() * f.inverse();
    return t.frobenius(2) * t;
  }
};

using Towers = ::testing::Types<snarkd::ff::Bls12381Tower, snarkd::ff::bn254::Tower>;
TYPED_TEST_SUITE(TowerTest, Towers);

TYPED_TEST(TowerTest, Fp6ProductMatchesSchoolbook) {
  using Fp2 = typename TestFixture::Fp2;
  using Fp6 = typename TestFixture::Fp6;
  for (int i = 0; i < kTrials; ++i) {
    Fp6 a = Fp6::random(this->g), b = Fp6::random(this->g);
    EXPECT_EQ(this->coeffs(a * b), this->poly_mul_mod(this->coeffs(a), this->coeffs(b)));
    EXPECT_EQ(this->coeffs(a.square()), this->poly_mul_mod(this->coeffs(a), this->coeffs(a)));
    const Fp6 v = {Fp2::zero(), Fp2::one(), Fp2::zero()};
    const Fp6 b01 = {b.c0, b.c1, Fp2::zero()}, b1 = {Fp2::zero(), b.c1, Fp2::zero()};
    const Fp6 b2 = {b.c2, Fp2::zero(), Fp2::zero()};
    EXPECT_EQ(a.mul_by_nonresidue(), a * v);
    EXPECT_EQ(a.mul_by_01(b.c0, b.c1), a * b01);
    EXPECT_EQ(a.mul_by_1(b.c1), a * b1);
    EXPECT_EQ(a * b.c2, a * b2);
    EXPECT_EQ(a * (b + a), a * b + a.square());
  }
}

TYPED_TEST(TowerTest, Fp6FieldAxiomsAndInverse) {
  using Fp6 = typename TestFixture::Fp6;
  for (int i = 0; i < kTrials; ++i) {
    Fp6 a = Fp6::random(this->g), b = Fp6::random(this->g), c = Fp6::random(this->g);
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

TYPED_TEST(TowerTest, Fp12ProductMatchesSchoolbook) {
  using Fp12 = typename TestFixture::Fp12;
  for (int i = 0; i < kTrials; ++i) {
    Fp12 a = Fp12::random(this->g), b = Fp12::random(this->g);
    EXPECT_EQ(this->coeffs(a * b), this->poly_mul_mod(this->coeffs(a), this->coeffs(b)));
    EXPECT_EQ(this->coeffs(a.square()), this->poly_mul_mod(this->coeffs(a), this->coeffs(a)));
  }
}

TYPED_TEST(TowerTest, Fp12FieldAxiomsAndInverse) {
  using Fp12 = typename TestFixture::Fp12;
  for (int i = 0; i < kTrials; ++i) {
    Fp12 a = Fp12::random(this->g), b = Fp12::random(this->g), c = Fp12::random(this->g);
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

// Both Miller-loop line shapes as dense elements: ℓ = l0 + l1·v + l4·vw (M-type twist,
// BLS12-381's) and l0 + l3·w + l4·vw (D-type, BN254's).
TYPED_TEST(TowerTest, SparseLineProducts) {
  using Fp2 = typename TestFixture::Fp2;
  using Fp12 = typename TestFixture::Fp12;
  for (int i = 0; i < kTrials; ++i) {
    Fp12 f = Fp12::random(this->g);
    Fp2 a = Fp2::random(this->g), b = Fp2::random(this->g), c = Fp2::random(this->g);
    const Fp2 z = Fp2::zero();
    const Fp12 line_014 = {{a, b, z}, {z, c, z}}, line_034 = {{a, z, z}, {b, c, z}};
    EXPECT_EQ(f.mul_by_014(a, b, c), f * line_014);
    EXPECT_EQ(f.mul_by_034(a, b, c), f * line_034);
  }
}

// kGamma[k][j] = ξ^(j(p^k − 1)/6), exponent reduced mod p² − 1 (the order of Fp2*).
TYPED_TEST(TowerTest, FrobeniusTableMatchesGmp) {
  const auto& table = snarkd::ff::detail::FrobeniusCoefficients<TypeParam>::kGamma;
  const Mpz& p = this->p;
  Mpz pk, e, ord;
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
      const auto want = pow_by_mul(this->xi, snarkd::test::to_bigint<2 * TestFixture::Fp::N>(e));
      EXPECT_EQ(table[k][j], want) << "k=" << k << " j=" << j;
    }
  }
}

TYPED_TEST(TowerTest, FrobeniusMatchesPowerOfP) {
  using Fp6 = typename TestFixture::Fp6;
  using Fp12 = typename TestFixture::Fp12;
  for (unsigned k = 1; k <= 11; ++k) {
    Fp6 a = Fp6::random(this->g);
    EXPECT_EQ(a.frobenius(k), pow_by_mul(a, this->p_power(k))) << "Fp6, k=" << k;
    Fp12 b = Fp12::random(this->g);
    EXPECT_EQ(b.frobenius(k), pow_by_mul(b, this->p_power(k))) << "Fp12, k=" << k;
  }
  Fp12 a = Fp12::random(this->g);
  EXPECT_EQ(a.frobenius(6), a.conjugate());
  EXPECT_EQ(a.frobenius(12), a);
  EXPECT_EQ(a.frobenius(1).frobenius(2), a.frobenius(3));
}

TYPED_TEST(TowerTest, CyclotomicSquareOnEasyPartOutputs) {
  using Fp12 = typename TestFixture::Fp12;
  const Mpz& p = this->p;
  Mpz phi;
  mpz_pow_ui(phi, p, 4);  // Φ12(p) = p⁴ − p² + 1
  mpz_submul(phi, p, p);
  mpz_add_ui(phi, phi, 1);
  const auto phi_big = snarkd::test::to_bigint<TestFixture::kP4Limbs>(phi);
  for (int i = 0; i < 4; ++i) {
    Fp12 m = this->easy_part(Fp12::random(this->g));
    ASSERT_TRUE(pow_by_mul(m, phi_big).is_one());  // m is in the cyclotomic subgroup
    EXPECT_EQ(m.cyclotomic_square(), m * m);
    EXPECT_TRUE((m * m.conjugate()).is_one());  // conjugation inverts there
  }
  Fp12 f = Fp12::random(this->g);  // outside the subgroup the shortcut does not hold
  EXPECT_NE(f.cyclotomic_square(), f * f);
}

}  // namespace
