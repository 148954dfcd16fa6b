// BN254 fields: the moduli recomputed from the curve parameter u with GMP, the NTT constants of
// Fr (2-adicity 28, roots of unity from snarkjs's generator 5), and Fp2 = Fp[u]/(u² + 1) with
// ξ = 9 + u against formulas evaluated with GMP on the components. Fp and Fr themselves run the
// generic differential suites (field_test.cpp, constants_test.cpp list them).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "common/gmp_util.hpp"
#include "common/json.hpp"
#include "common/seed.hpp"
#include "snarkd/ff/bn254.hpp"
#include "snarkd/ff/bn254_tower.hpp"
#include "snarkd/ff/inverse.hpp"

namespace snarkd::test {
namespace {

using ff::bn254::Fp;
using ff::bn254::Fp2;
using ff::bn254::Fr;

constexpr size_t kIters = 20000;
constexpr size_t kSlowIters = 1000;

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

class Bn254Fp2 : public ::testing::Test {
 protected:
  GmpField<Fp> gf;
  std::mt19937_64 g;
  Mpz a0, a1, b0, b1, t0, t1, u;

  Bn254Fp2()
      : g(rng(std::string("Bn254Fp2.") + ::testing::UnitTest::GetInstance()->current_test_info()->name())) {}

  // 1 in 8 components is an edge value (0, 1, p − 1, (p − 1)/2), else uniform.
  Fp component(mpz_ptr v) {
    switch (g() % 32) {
      case 0: mpz_set_ui(v, 0); break;
      case 1: mpz_set_ui(v, 1); break;
      case 2: mpz_sub_ui(v, gf.p, 1); break;
      case 3: mpz_set(v, gf.half); break;
      default: {
        Fp x = Fp::random(g);
        gf.value(v, x);
        return x;
      }
    }
    return gf.element(v);
  }
  Fp2 sample(mpz_ptr c0, mpz_ptr c1) {
    Fp x = component(c0);
    return {x, component(c1)};
  }
  ::testing::AssertionResult has_value(const Fp2& x, mpz_srcptr c0, mpz_srcptr c1) {
    auto r0 = gf.has_value(x.c0, c0);
    if (!r0) return r0 << " (c0)";
    auto r1 = gf.has_value(x.c1, c1);
    if (!r1) return r1 << " (c1)";
    return ::testing::AssertionSuccess();
  }
};

TEST_F(Bn254Fp2, MulSquareAndNonresidueMatchGmp) {
  for (size_t i = 0; i < kIters; ++i) {
    Fp2 x = sample(a0, a1), y = sample(b0, b1);
    mpz_mul(t0, a0, b0);
    mpz_submul(t0, a1, b1);
    mpz_mul(t1, a0, b1);
    mpz_addmul(t1, a1, b0);
    ASSERT_TRUE(has_value(x * y, t0, t1)) << "mul, i=" << i;
    mpz_mul(t0, a0, a0);
    mpz_submul(t0, a1, a1);
    mpz_mul(t1, a0, a1);
    mpz_mul_2exp(t1, t1, 1);
    ASSERT_TRUE(has_value(x.square(), t0, t1)) << "square, i=" << i;
    // ξ = 9 + u: (a0 + a1u)(9 + u) = (9a0 − a1) + (a0 + 9a1)u.
    mpz_mul_ui(t0, a0, 9);
    mpz_sub(t0, t0, a1);
    mpz_mul_ui(t1, a1, 9);
    mpz_add(t1, t1, a0);
    ASSERT_TRUE(has_value(x.mul_by_nonresidue(), t0, t1)) << "mul_by_nonresidue, i=" << i;
    ASSERT_TRUE(has_value(x + y, (mpz_add(t0, a0, b0), t0), (mpz_add(t1, a1, b1), t1))) << i;
    ASSERT_TRUE(has_value(x - y, (mpz_sub(t0, a0, b0), t0), (mpz_sub(t1, a1, b1), t1))) << i;
  }
  EXPECT_TRUE(has_value(Fp2::nonresidue(), Mpz(9), Mpz(1)));
}

TEST_F(Bn254Fp2, InverseAndNorm) {
  for (size_t i = 0; i < kIters; ++i) {
    Fp2 x = sample(a0, a1);
    mpz_mul(u, a0, a0);
    mpz_addmul(u, a1, a1);
    mpz_mod(u, u, gf.p);
    ASSERT_TRUE(gf.has_value(x.norm(), u)) << "norm, i=" << i;
    if (u.sign() == 0) {
      ASSERT_TRUE(x.inverse().is_zero() && ff::inverse_vartime(x).is_zero());
      continue;
    }
    ASSERT_NE(mpz_invert(u, u, gf.p), 0);
    mpz_mul(t0, a0, u);
    mpz_neg(t1, a1);
    mpz_mul(t1, t1, u);
    ASSERT_TRUE(has_value(x.inverse(), t0, t1)) << "inverse, i=" << i;
    ASSERT_TRUE(has_value(ff::inverse_vartime(x), t0, t1)) << "inverse_vartime, i=" << i;
  }
}

TEST_F(Bn254Fp2, SqrtAndFrobenius) {
  size_t squares = 0, non_squares = 0;
  for (size_t i = 0; i < kSlowIters; ++i) {
    Fp2 x = sample(a0, a1);
    if (i % 2) x = x.square();
    gf.value(a0, x.c0);
    gf.value(a1, x.c1);
    mpz_mul(u, a0, a0);
    mpz_addmul(u, a1, a1);
    const int want = mpz_legendre(u, gf.p);
    ASSERT_EQ(x.legendre(), want) << i;
    Fp2 root;
    const bool ok = x.sqrt(root);
    ASSERT_EQ(ok, want != -1) << i;
    if (ok) {
      ++squares;
      ASSERT_TRUE(root.square() == x) << i;
    } else {
      ++non_squares;
    }
    ASSERT_TRUE(x.pow(Fp::kModulus) == x.conjugate() && x.frobenius(1) == x.conjugate()) << i;
  }
  EXPECT_GT(squares, kSlowIters / 2);
  EXPECT_GT(non_squares, kSlowIters / 8);
  // ξ is neither a square nor a cube in Fp2 (the sextic twist needs a non-residue).
  Mpz e, ord;
  mpz_mul(ord, gf.p, gf.p);
  mpz_sub_ui(ord, ord, 1);
  mpz_divexact_ui(e, ord, 2);
  EXPECT_FALSE(Fp2::nonresidue().pow(to_bigint<8>(e)).is_one());
  mpz_divexact_ui(e, ord, 3);
  EXPECT_FALSE(Fp2::nonresidue().pow(to_bigint<8>(e)).is_one());
}

}  // namespace
}  // namespace snarkd::test
