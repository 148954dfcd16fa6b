// The optimal ate pairings of BLS12-381 and BN254 in one typed suite: known answers from
// @noble/curves cross-checked with mcl when the files were generated (tests/vectors/pairing.json,
// bn254.json), bilinearity, order r, non-degeneracy, negation, infinity, the shared Miller loop of
// multi_pairing, and pairing_product_is_one.
#include <gtest/gtest.h>

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/seed.hpp"
#include "pairing/helpers.hpp"
#include "snarkd/pairing/bn254.hpp"
#include "snarkd/pairing/pairing.hpp"

namespace {

using Value = snarkd::test::Json;

// Each curve's tower, groups, vector file and public pairing functions.
struct Bls12381 {
  using Tower = snarkd::ff::Bls12381Tower;
  using G1 = snarkd::ec::G1Config;
  using G2 = snarkd::ec::G2Config;
  static constexpr const char* kVectors = "pairing.json";
  static constexpr auto pairing = &snarkd::pairing::pairing;
  static constexpr auto multi_pairing = &snarkd::pairing::multi_pairing;
  static constexpr auto miller_loop = &snarkd::pairing::miller_loop;
  static constexpr auto multi_miller_loop = &snarkd::pairing::multi_miller_loop;
  static constexpr auto final_exponentiation = &snarkd::pairing::final_exponentiation;
  static constexpr auto product_is_one = &snarkd::pairing::pairing_product_is_one;
};
namespace bn = snarkd::pairing::bn254;
struct Bn254 {
  using Tower = snarkd::ff::bn254::Tower;
  using G1 = snarkd::ec::bn254::G1Config;
  using G2 = snarkd::ec::bn254::G2Config;
  static constexpr const char* kVectors = "bn254.json";
  static constexpr auto pairing = &bn::pairing;
  static constexpr auto multi_pairing = &bn::multi_pairing;
  static constexpr auto miller_loop = &bn::miller_loop;
  static constexpr auto multi_miller_loop = &bn::multi_miller_loop;
  static constexpr auto final_exponentiation = &bn::final_exponentiation;
  static constexpr auto product_is_one = &bn::pairing_product_is_one;
};

// What the tests need of a curve, derived from its description.
template <class Curve>
struct Api : Curve {
  using Fp12 = snarkd::ff::Fp12T<typename Curve::Tower>;
  using GT = Fp12;
  using Fr = typename Curve::G1::Scalar;
  using G1Affine = snarkd::ec::Affine<typename Curve::G1>;
  using G2Affine = snarkd::ec::Affine<typename Curve::G2>;
  using Pairs = std::vector<std::pair<G1Affine, G2Affine>>;

  static const Value& vectors() {
    static const Value v = Value::load(std::string(SNARKD_VECTORS_DIR) + "/" + Curve::kVectors);
    return v;
  }
  static G1Affine g1_from_json(const Value& v) {
    using Fp = typename Curve::Tower::Base;
    return {snarkd::test::fp_from_hex<Fp>(v["x"].str()), snarkd::test::fp_from_hex<Fp>(v["y"].str())};
  }
  static G2Affine g2_from_json(const Value& v) {
    using Tower = typename Curve::Tower;
    return {snarkd::test::fp2_from_json<Tower>(v["x"]), snarkd::test::fp2_from_json<Tower>(v["y"])};
  }
  static GT gt_from_json(const Value& v) { return snarkd::test::fp12_from_json<typename Curve::Tower>(v); }
  static Fr fr_from_hex(const Value& v) {
    return Fr::from_repr_unchecked(snarkd::ff::BigInt<Fr::N>::from_hex(v.str().c_str()));
  }

  static G1Affine g1() { return snarkd::ec::generator<typename Curve::G1>(); }
  static G2Affine g2() { return snarkd::ec::generator<typename Curve::G2>(); }
  template <class C>
  static snarkd::ec::Affine<C> mul(const snarkd::ec::Affine<C>& p, const Fr& k) {
    return snarkd::ec::Jacobian<C>::from_affine(p).mul_scalar(k).to_affine();
  }
  static G1Affine g1_mul(const Fr& k) { return mul(g1(), k); }
  static G2Affine g2_mul(const Fr& k) { return mul(g2(), k); }
  // Exponentiation of GT elements by multiplications only, independent of Fp12::pow.
  static GT gt_pow(const GT& x, const Fr& k) { return snarkd::test::pow_by_mul(x, k.to_repr()); }
};

template <class T>
class Pairing : public ::testing::Test {
 protected:
  std::mt19937_64 g = snarkd::test::current_test_rng();
  typename T::Fr random_fr() { return T::Fr::random(g); }
};
using Curves = ::testing::Types<Api<Bls12381>, Api<Bn254>>;
TYPED_TEST_SUITE(Pairing, Curves);

TYPED_TEST(Pairing, KatGenerators) {
  using C = TypeParam;
  const Value& g = C::vectors()["generator_pairing"];
  ASSERT_EQ(C::g1_from_json(g["p"]), C::g1());
  ASSERT_EQ(C::g2_from_json(g["q"]), C::g2());
  EXPECT_EQ(C::pairing(C::g1(), C::g2()), C::gt_from_json(g["gt"]));
}

TYPED_TEST(Pairing, KatRandomScalars) {
  using C = TypeParam;
  const Value& cases = C::vectors()["cases"];
  ASSERT_GE(cases.size(), 5u);
  for (size_t i = 0; i < cases.size(); ++i) {
    const Value& c = cases[i];
    const auto p = C::g1_from_json(c["p"]);
    const auto q = C::g2_from_json(c["q"]);
    ASSERT_TRUE(p.is_on_curve() && q.is_on_curve()) << "case " << i;
    EXPECT_EQ(p, C::g1_mul(C::fr_from_hex(c["a"]))) << "case " << i;
    EXPECT_EQ(q, C::g2_mul(C::fr_from_hex(c["b"]))) << "case " << i;
    EXPECT_EQ(C::pairing(p, q), C::gt_from_json(c["gt"])) << "case " << i;
    EXPECT_EQ(C::miller_loop(p, q) * C::miller_loop(-p, q), C::multi_miller_loop(typename C::Pairs{{p, q}, {-p, q}}))
        << "case " << i;
  }
}

// Exercises the final exponentiation alone on elements that are not Miller-loop outputs.
TYPED_TEST(Pairing, KatFinalExponentiation) {
  using C = TypeParam;
  const Value& cases = C::vectors()["final_exponentiation"];
  ASSERT_GE(cases.size(), 1u);
  for (size_t i = 0; i < cases.size(); ++i)
    EXPECT_EQ(C::final_exponentiation(C::gt_from_json(cases[i]["f"])), C::gt_from_json(cases[i]["result"]))
        << "case " << i;
}

TYPED_TEST(Pairing, Bilinearity) {
  using C = TypeParam;
  const auto base = C::pairing(C::g1(), C::g2());
  for (int i = 0; i < 3; ++i) {
    const auto a = this->random_fr(), b = this->random_fr();
    const auto e = C::pairing(C::g1_mul(a), C::g2_mul(b));
    EXPECT_EQ(e, C::gt_pow(base, a * b));
    EXPECT_EQ(C::pairing(C::g1_mul(a * b), C::g2()), e);
    EXPECT_EQ(C::pairing(C::g1(), C::g2_mul(a * b)), e);
  }
}

TYPED_TEST(Pairing, OrderAndNonDegeneracy) {
  using C = TypeParam;
  const auto e = C::pairing(C::g1_mul(this->random_fr()), C::g2_mul(this->random_fr()));
  EXPECT_FALSE(e.is_one());
  EXPECT_TRUE(snarkd::test::pow_by_mul(e, C::Fr::kModulus).is_one());
  EXPECT_FALSE(C::pairing(C::g1(), C::g2()).is_one());
}

TYPED_TEST(Pairing, Negation) {
  using C = TypeParam;
  const auto p = C::g1_mul(this->random_fr());
  const auto q = C::g2_mul(this->random_fr());
  const auto e = C::pairing(p, q);
  const auto inv = e.inverse();
  EXPECT_EQ(C::pairing(-p, q), inv);
  EXPECT_EQ(C::pairing(p, -q), inv);
  EXPECT_EQ(C::pairing(-p, -q), e);
  EXPECT_EQ(e.conjugate(), inv);  // GT is unitary
}

TYPED_TEST(Pairing, InfinityGivesOne) {
  using C = TypeParam;
  const auto o1 = C::G1Affine::infinity();
  const auto o2 = C::G2Affine::infinity();
  EXPECT_TRUE(C::pairing(o1, C::g2()).is_one());
  EXPECT_TRUE(C::pairing(C::g1(), o2).is_one());
  EXPECT_TRUE(C::pairing(o1, o2).is_one());
  EXPECT_TRUE(C::multi_pairing({}).is_one());
  const typename C::Pairs pairs = {{o1, C::g2()}, {C::g1(), C::g2()}, {C::g1(), o2}};
  EXPECT_EQ(C::multi_pairing(pairs), C::pairing(C::g1(), C::g2()));
}

// With and without a leading pair at infinity, which the shared Miller loop leaves out.
TYPED_TEST(Pairing, MultiPairingIsProductOfPairings) {
  using C = TypeParam;
  for (bool with_infinity : {false, true}) {
    for (size_t n : {1, 2, 5}) {
      typename C::Pairs pairs;
      if (with_infinity) pairs.emplace_back(C::G1Affine::infinity(), C::g2());
      auto want = C::GT::one();
      for (size_t i = 0; i < n; ++i) {
        pairs.emplace_back(C::g1_mul(this->random_fr()), C::g2_mul(this->random_fr()));
        want = want * C::pairing(pairs.back().first, pairs.back().second);
      }
      EXPECT_EQ(C::multi_pairing(pairs), want) << "n=" << n << " with_infinity=" << with_infinity;
      EXPECT_EQ(C::final_exponentiation(C::multi_miller_loop(pairs)), want);
    }
  }
}

TYPED_TEST(Pairing, MillerLoopThenFinalExponentiation) {
  using C = TypeParam;
  const auto p = C::g1_mul(this->random_fr());
  const auto q = C::g2_mul(this->random_fr());
  EXPECT_EQ(C::final_exponentiation(C::miller_loop(p, q)), C::pairing(p, q));
}

// The Groth16-verifier shape: e(aP, Q)·e(−P, aQ) = 1, and a wrong sign fails.
TYPED_TEST(Pairing, ProductIsOne) {
  using C = TypeParam;
  const auto a = this->random_fr();
  const auto p = C::g1_mul(this->random_fr());
  const auto q = C::g2_mul(this->random_fr());
  const auto ap = C::mul(p, a);
  const auto aq = C::mul(q, a);
  EXPECT_TRUE(C::product_is_one(typename C::Pairs{{ap, q}, {-p, aq}}));
  EXPECT_FALSE(C::product_is_one(typename C::Pairs{{ap, q}, {p, aq}}));
}

}  // namespace
