// Fp2 = Fp[u]/(u² + 1) of both towers, BLS12-381 (ξ = 1 + u) and BN254 (ξ = 9 + u), in one typed
// suite: field axioms, and every operation against formulas evaluated with GMP on the components.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/seed.hpp"
#include "common/gmp_util.hpp"
#include "snarkd/ff/bn254_tower.hpp"
#include "snarkd/ff/fp2.hpp"
#include "snarkd/ff/inverse.hpp"

namespace snarkd::test {
namespace {

constexpr size_t kIters = 50000;
constexpr size_t kSlowIters = 2000;  // sqrt and p-th powers: ~100 µs each

// The tower configuration of an Fp2 type: ξ = kXiC0 + u.
template <class T>
struct TowerOf;
template <class Cfg>
struct TowerOf<ff::Fp2T<Cfg>> {
  using type = Cfg;
};

template <class T>
class Fp2Test : public ::testing::Test {
 protected:
  using Fp2 = T;
  using Fp = typename T::Base;
  GmpField<Fp> gf;
  std::mt19937_64 g = current_test_rng();

  // A component: 1 in 8 is an edge value (0, 1, p − 1, (p − 1)/2, (p + 1)/2), else uniform.
  Fp component(mpz_ptr v) {
    switch (g() % 40) {
      case 0: mpz_set_ui(v, 0); break;
      case 1: mpz_set_ui(v, 1); break;
      case 2: mpz_sub_ui(v, gf.p, 1); break;
      case 3: mpz_set(v, gf.half); break;
      case 4: mpz_add_ui(v, gf.half, 1); break;
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

using Fp2Types = ::testing::Types<ff::Fp2, ff::bn254::Fp2>;
TYPED_TEST_SUITE(Fp2Test, Fp2Types);

TYPED_TEST(Fp2Test, FieldAxioms) {
  using Fp2 = TypeParam;
  Mpz a0, a1, b0, b1, c0, c1;
  const Fp2 zero = Fp2::zero(), one = Fp2::one();
  for (size_t i = 0; i < kIters; ++i) {
    Fp2 x = this->sample(a0, a1), y = this->sample(b0, b1), z = this->sample(c0, c1);
    ASSERT_TRUE((x + y) + z == x + (y + z)) << i;
    ASSERT_TRUE(x + y == y + x) << i;
    ASSERT_TRUE((x * y) * z == x * (y * z)) << i;
    ASSERT_TRUE(x * y == y * x) << i;
    ASSERT_TRUE(x * (y + z) == x * y + x * z) << i;
    ASSERT_TRUE(x + zero == x && x * one == x) << i;
    ASSERT_TRUE((x + (-x)).is_zero()) << i;
    ASSERT_TRUE(x - y == x + (-y)) << i;
    ASSERT_TRUE(x.dbl() == x + x) << i;
    ASSERT_TRUE(x.square() == x * x) << i;
    if (!x.is_zero()) {
      ASSERT_TRUE((x * x.inverse()).is_one()) << i;
    }
  }
  EXPECT_TRUE(Fp2::zero().inverse().is_zero());
  EXPECT_TRUE(one.is_one() && !zero.is_one() && zero.is_zero());
}

// (a0 + a1u)(b0 + b1u) = (a0b0 − a1b1) + (a0b1 + a1b0)u, the squaring special case, the product
// by an Fp element, sum and difference.
TYPED_TEST(Fp2Test, MulAndSquareMatchSchoolbook) {
  Mpz a0, a1, b0, b1, t0, t1;
  for (size_t i = 0; i < kIters; ++i) {
    TypeParam x = this->sample(a0, a1), y = this->sample(b0, b1);
    mpz_mul(t0, a0, b0);
    mpz_submul(t0, a1, b1);
    mpz_mul(t1, a0, b1);
    mpz_addmul(t1, a1, b0);
    ASSERT_TRUE(this->has_value(x * y, t0, t1)) << "mul, i=" << i;
    mpz_mul(t0, a0, a0);
    mpz_submul(t0, a1, a1);
    mpz_mul(t1, a0, a1);
    mpz_mul_2exp(t1, t1, 1);
    ASSERT_TRUE(this->has_value(x.square(), t0, t1)) << "square, i=" << i;
    mpz_mul(t0, a0, b0);  // scalar multiplication by the Fp element b0
    mpz_mul(t1, a1, b0);
    ASSERT_TRUE(this->has_value(x * y.c0, t0, t1)) << "mul by Fp, i=" << i;
    ASSERT_TRUE(this->has_value(x + y, (mpz_add(t0, a0, b0), t0), (mpz_add(t1, a1, b1), t1))) << "add, i=" << i;
    ASSERT_TRUE(this->has_value(x - y, (mpz_sub(t0, a0, b0), t0), (mpz_sub(t1, a1, b1), t1))) << "sub, i=" << i;
  }
}

// Every pair of operands built from edge components, including those whose Montgomery limbs are
// 0, 1, p − 1, p − 2: the lazily reduced multiplication (ADX builds) is at its bounds there
// (a0 + a1 close to 2p unreduced, a0b0 − a1b1 borrowing or not, products close to p²).
TYPED_TEST(Fp2Test, MulAtEdgeComponents) {
  const auto& gf = this->gf;
  Mpz t0, t1;
  std::vector<Mpz> edges(10);
  mpz_set_ui(edges[0], 0);
  mpz_set_ui(edges[1], 1);
  mpz_sub_ui(edges[2], gf.p, 1);
  mpz_sub_ui(edges[3], gf.p, 2);
  mpz_set(edges[4], gf.half);
  mpz_add_ui(edges[5], gf.half, 1);
  mpz_set(edges[6], gf.r_inv);            // Montgomery limbs 1
  mpz_sub(edges[7], gf.p, gf.r_inv);      // Montgomery limbs p − 1
  mpz_mul_ui(edges[8], gf.r_inv, 2);      // Montgomery limbs p − 2 (as the negation of 2)
  mpz_sub(edges[8], gf.p, edges[8]);
  mpz_set(edges[9], gf.r);                // R mod p
  size_t n = 0;
  for (auto& x0 : edges)
    for (auto& x1 : edges)
      for (auto& y0 : edges)
        for (auto& y1 : edges) {
          const TypeParam x{gf.element(x0), gf.element(x1)}, y{gf.element(y0), gf.element(y1)};
          mpz_mul(t0, x0, y0);
          mpz_submul(t0, x1, y1);
          mpz_mul(t1, x0, y1);
          mpz_addmul(t1, x1, y0);
          ASSERT_TRUE(this->has_value(x * y, t0, t1)) << "operand set " << n;
          ++n;
        }
}

// x⁻¹ = (a0 − a1u)/(a0² + a1²), constant-time and variable-time; norm and conjugate from the
// same formulas.
TYPED_TEST(Fp2Test, InverseNormConjugate) {
  const auto& gf = this->gf;
  Mpz a0, a1, t0, t1, u;
  for (size_t i = 0; i < kIters; ++i) {
    TypeParam x = this->sample(a0, a1);
    mpz_mul(u, a0, a0);
    mpz_addmul(u, a1, a1);
    mpz_mod(u, u, gf.p);
    ASSERT_TRUE(gf.has_value(x.norm(), u)) << "norm, i=" << i;
    mpz_neg(t1, a1);
    ASSERT_TRUE(this->has_value(x.conjugate(), a0, t1)) << "conjugate, i=" << i;
    if (u.sign() == 0) {  // only x = 0: −1 is a non-residue mod p
      ASSERT_TRUE(x.is_zero());
      ASSERT_TRUE(x.inverse().is_zero() && ff::inverse_vartime(x).is_zero());
      continue;
    }
    ASSERT_NE(mpz_invert(u, u, gf.p), 0);
    mpz_mul(t0, a0, u);
    mpz_mul(t1, t1, u);
    ASSERT_TRUE(this->has_value(x.inverse(), t0, t1)) << "inverse, i=" << i;
    ASSERT_TRUE(this->has_value(ff::inverse_vartime(x), t0, t1)) << "inverse_vartime, i=" << i;
  }
}

// An element is a square iff its norm is a square in Fp; sqrt must agree and return a root.
TYPED_TEST(Fp2Test, SqrtAndLegendre) {
  using Fp = typename TypeParam::Base;
  const auto& gf = this->gf;
  Mpz a0, a1, b0, b1, t0, t1, u;
  size_t squares = 0, non_squares = 0;
  const TypeParam sentinel{Fp::from_u64(3), Fp::from_u64(4)};
  for (size_t i = 0; i < 2 * kSlowIters; ++i) {
    TypeParam x = this->sample(a0, a1);
    if (i % 2) x = x.square();  // half the inputs are squares by construction
    gf.value(a0, x.c0);
    gf.value(a1, x.c1);
    mpz_mul(u, a0, a0);
    mpz_addmul(u, a1, a1);
    const int want = mpz_legendre(u, gf.p);
    ASSERT_EQ(x.legendre(), want) << "i=" << i;
    TypeParam root = sentinel;
    const bool ok = x.sqrt(root);
    ASSERT_EQ(ok, want != -1) << "i=" << i;
    if (!ok) {
      ASSERT_TRUE(root == sentinel) << "failed sqrt wrote its output";
      ++non_squares;
      continue;
    }
    ++squares;
    gf.value(b0, root.c0);
    gf.value(b1, root.c1);
    mpz_mul(t0, b0, b0);  // root² via GMP
    mpz_submul(t0, b1, b1);
    mpz_mul(t1, b0, b1);
    mpz_mul_2exp(t1, t1, 1);
    ASSERT_TRUE(this->has_value(x, t0, t1)) << "root² ≠ x, i=" << i;
  }
  EXPECT_GT(squares, kSlowIters);
  EXPECT_GT(non_squares, kSlowIters / 4);
}

// Frobenius: x^p is the conjugate; frobenius(k) alternates with k.
TYPED_TEST(Fp2Test, FrobeniusIsPthPower) {
  Mpz a0, a1;
  for (size_t i = 0; i < kSlowIters; ++i) {
    TypeParam x = this->sample(a0, a1);
    const TypeParam xp = x.pow(TypeParam::Base::kModulus);
    ASSERT_TRUE(xp == x.conjugate()) << "x^p, i=" << i;
    ASSERT_TRUE(x.frobenius(1) == xp && x.frobenius(3) == xp) << i;
    ASSERT_TRUE(x.frobenius(0) == x && x.frobenius(2) == x) << i;
  }
}

TYPED_TEST(Fp2Test, PowMatchesRepeatedMultiplication) {
  auto& g = this->g;
  Mpz a0, a1;
  for (size_t i = 0; i < kSlowIters; ++i) {
    TypeParam x = this->sample(a0, a1);
    const uint64_t e = g() % 64;
    TypeParam want = TypeParam::one();
    for (uint64_t k = 0; k < e; ++k) want *= x;
    ASSERT_TRUE(x.pow(ff::BigInt<1>::from_u64(e)) == want) << "e=" << e;
    ff::BigInt<2> e1, e2, sum;  // x^(e1 + e2) = x^e1 · x^e2 on wide exponents
    for (size_t k = 0; k < 2; ++k) {
      e1.limb[k] = g() >> 1;  // top bits clear: the sum fits in two limbs
      e2.limb[k] = g() >> 1;
    }
    ff::add_carry(sum, e1, e2);
    ASSERT_TRUE(x.pow(sum) == x.pow(e1) * x.pow(e2)) << i;
  }
}

// ξ = k + u (k = 1 for BLS12-381, 9 for BN254): (a0 + a1u)(k + u) = (k·a0 − a1) + (a0 + k·a1)u,
// and the same as a product by ξ built from integers.
TYPED_TEST(Fp2Test, MulByNonresidueIsXi) {
  using Fp = typename TypeParam::Base;
  constexpr uint64_t k = TowerOf<TypeParam>::type::kXiC0;
  const TypeParam xi{Fp::from_u64(k), Fp::one()};
  Mpz a0, a1, t0, t1;
  for (size_t i = 0; i < kIters; ++i) {
    TypeParam x = this->sample(a0, a1);
    mpz_mul_ui(t0, a0, k);
    mpz_sub(t0, t0, a1);
    mpz_mul_ui(t1, a1, k);
    mpz_add(t1, t1, a0);
    ASSERT_TRUE(this->has_value(x.mul_by_nonresidue(), t0, t1)) << "i=" << i;
    ASSERT_TRUE(x.mul_by_nonresidue() == x * xi) << i;
  }
  EXPECT_TRUE(this->has_value(TypeParam::nonresidue(), Mpz(k), Mpz(1)));
}

// The sextic twist needs ξ to be neither a square nor a cube in Fp2.
TYPED_TEST(Fp2Test, NonresidueIsNeitherSquareNorCube) {
  constexpr size_t kLimbs = 2 * TypeParam::Base::N;  // p² − 1
  Mpz e, ord;
  mpz_mul(ord, this->gf.p, this->gf.p);
  mpz_sub_ui(ord, ord, 1);
  mpz_divexact_ui(e, ord, 2);
  EXPECT_FALSE(TypeParam::nonresidue().pow(to_bigint<kLimbs>(e)).is_one());
  mpz_divexact_ui(e, ord, 3);
  EXPECT_FALSE(TypeParam::nonresidue().pow(to_bigint<kLimbs>(e)).is_one());
}

// ZCash's sign: c1 > (p − 1)/2, or c1 = 0 and c0 > (p − 1)/2.
TYPED_TEST(Fp2Test, LexicographicallyLargest) {
  const auto& gf = this->gf;
  Mpz a0, a1;
  for (size_t i = 0; i < kIters; ++i) {
    TypeParam x = this->sample(a0, a1);
    const bool c0_large = mpz_cmp(a0, gf.half) > 0, c1_large = mpz_cmp(a1, gf.half) > 0;
    ASSERT_EQ(ff::lexicographically_largest(x.c0), c0_large) << "c0 " << a0.hex();
    const bool want = a1.sign() != 0 ? c1_large : c0_large;
    ASSERT_EQ(x.lexicographically_largest(), want) << "c0 " << a0.hex() << " c1 " << a1.hex();
  }
  Mpz v;
  mpz_set(v, gf.half);
  EXPECT_FALSE(ff::lexicographically_largest(gf.element(v)));  // (p − 1)/2 itself is not
  mpz_add_ui(v, v, 1);
  EXPECT_TRUE(ff::lexicographically_largest(gf.element(v)));
}

TYPED_TEST(Fp2Test, RandomIsReduced) {
  using Fp = typename TypeParam::Base;
  for (size_t i = 0; i < kIters; ++i) {
    TypeParam x = TypeParam::random(this->g);
    ASSERT_TRUE(ff::less_than(x.c0.montgomery(), Fp::kModulus));
    ASSERT_TRUE(ff::less_than(x.c1.montgomery(), Fp::kModulus));
  }
}

}  // namespace
}  // namespace snarkd::test
