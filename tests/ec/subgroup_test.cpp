// Subgroup membership, endomorphisms and cofactor clearing. All expected values come from GMP
// computations on the BLS parameter x and from the slow reference [r]P == O, never from the
// fast code under test.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "snarkd/ec/subgroup.hpp"
#include "snarkd/ff/fp.hpp"
#include "ec/ec_test_util.hpp"

namespace snarkd::test {
namespace {

// r, p and the cofactors from x: r = x⁴ − x² + 1, p = (x − 1)²r/3 + x, h1 = (x − 1)²/3,
// h2 = (x⁸ − 4x⁷ + 5x⁶ − 4x⁴ + 6x³ − 4x² − 4x + 13)/9, h_eff(G2) = 3(x² − 1)·h2 (RFC 9380 §8.8.2).
struct Params {
  Mpz x = bls_x(), r, p, h1, h2, h_eff2;
  Params() {
    Mpz t;
    mpz_pow_ui(r, x, 4);
    mpz_pow_ui(t, x, 2);
    mpz_sub(r, r, t);
    mpz_add_ui(r, r, 1);
    mpz_sub_ui(t, x, 1);
    mpz_mul(h1, t, t);
    mpz_divexact_ui(h1, h1, 3);
    mpz_mul(p, h1, r);
    mpz_add(p, p, x);
    static const long kCoeffs[9] = {13, -4, -4, 6, -4, 0, 5, -4, 1};  // h2·9 by power of x
    for (int i = 8; i >= 0; --i) {                                     // Horner
      mpz_mul(h2, h2, x);
      if (kCoeffs[i] >= 0) mpz_add_ui(h2, h2, kCoeffs[i]);
      else mpz_sub_ui(h2, h2, -kCoeffs[i]);
    }
    mpz_divexact_ui(h2, h2, 9);
    mpz_mul(t, x, x);
    mpz_sub_ui(t, t, 1);
    mpz_mul_ui(t, t, 3);
    mpz_mul(h_eff2, t, h2);
  }
};
const Params& params() {
  static const Params p;
  return p;
}

// The prime factorisation of h: trial division below 2^20, then the rest is a prime (G2) or the
// square of a prime (G1, 52437899²); both are confirmed with GMP's primality test.
std::vector<std::pair<Mpz, unsigned>> factor_cofactor(const Mpz& h) {
  std::vector<std::pair<Mpz, unsigned>> out;
  Mpz m = h;
  for (unsigned long l = 2; l < (1ul << 20); ++l) {
    unsigned e = 0;
    while (mpz_divisible_ui_p(m, l)) {
      mpz_divexact_ui(m, m, l);
      ++e;
    }
    if (e) {
      Mpz lm;
      mpz_set_ui(lm, l);
      out.push_back({lm, e});
    }
  }
  const bool square = mpz_perfect_square_p(m);
  if (square) mpz_sqrt(m, m);
  if (mpz_probab_prime_p(m, 30) == 0) throw std::runtime_error("cofactor remainder is not prime");
  out.push_back({m, square ? 2u : 1u});
  return out;
}

TEST(Subgroup, DerivedParametersMatchTheLibrary) {
  const Params& P = params();
  EXPECT_EQ(mpz_cmp(P.r, to_mpz(ff::Fr::kModulus)), 0);
  EXPECT_EQ(mpz_cmp(P.p, to_mpz(ff::Fp::kModulus)), 0);
  Mpz abs_x;
  mpz_abs(abs_x, P.x);
  EXPECT_EQ(mpz_get_ui(abs_x), ec::kBlsXAbs);
  EXPECT_EQ(mpz_cmp(P.h1, Mpz::from_hex("396c8c005555e1568c00aaab0000aaab")), 0);  // RFC 9380 §8.8.1 h
  // RFC 9380 §8.8.2: G2's cofactor h and h_eff.
  EXPECT_EQ(mpz_cmp(P.h2, Mpz::from_hex("5d543a95414e7f1091d50792876a202cd91de4547085abaa68a205b2e5a7ddfa628f1cb4d9e82ef2"
                                "1537e293a6691ae1616ec6e786f0c70cf1c38e31c7238e5")), 0);
  EXPECT_EQ(mpz_cmp(P.h_eff2, Mpz::from_hex("bc69f08f2ee75b3584c6a0ea91b352888e2a8e9145ad7689986ff031508ffe1329c2f178731db9"
                                    "56d82bf015d1212b02ec0ec69d7477c1ae954cbc06689f6a359894c0adebbf6b4e8020005aaa95551")), 0);
}

template <class C, class Fast>
void fast_matches_reference(const char* label, Fast fast) {
  auto g = rng(label);
  EXPECT_TRUE(fast(ec::Affine<C>::infinity()));
  for (int t = 0; t < 8; ++t) {
    ec::Affine<C> in = random_subgroup_point<C>(g);
    EXPECT_TRUE(ec::is_in_subgroup_reference(in));
    EXPECT_TRUE(fast(in));
    ec::Affine<C> out = random_curve_point<C>(g);
    EXPECT_FALSE(ec::is_in_subgroup_reference(out));
    EXPECT_FALSE(fast(out));
  }
}

TEST(Subgroup, G1FastMatchesReference) {
  fast_matches_reference<ec::G1Config>("subgroup-g1", [](const ec::G1Affine& p) { return ec::is_in_subgroup(p); });
}
TEST(Subgroup, G2FastMatchesReference) {
  fast_matches_reference<ec::G2Config>("subgroup-g2", [](const ec::G2Affine& p) { return ec::is_in_subgroup(p); });
}


// The hard cases for an endomorphism test: points whose order involves one prime ℓ of the
// cofactor, alone and added to a subgroup point. T = [r·h/ℓ^e]Q is the ℓ-primary part of a
// random Q (ℓ^e ∥ h); T, ℓT, … up to the first O cover every order ℓ^k that occurs (the ℓ-part
// need not be cyclic, so [r·h/ℓ]Q may already be O).
template <class C, size_t M>
void rejects_torsion(const char* label, const Mpz& h, size_t expected_primes) {
  using J = ec::Jacobian<C>;
  auto g = rng(label);
  auto factors = factor_cofactor(h);
  EXPECT_EQ(factors.size(), expected_primes);
  for (const auto& [l, e] : factors) {
    std::string name(mpz_sizeinbase(l, 10) + 2, '\0');
    mpz_get_str(name.data(), 10, l);
    name.resize(std::strlen(name.c_str()));
    Mpz s;
    mpz_mul(s, params().r, h);
    for (unsigned i = 0; i < e; ++i) mpz_divexact(s, s, l);
    J t = J::infinity();
    for (int tries = 0; tries < 8 && t.is_infinity(); ++tries)
      t = J::from_affine(random_curve_point<C>(g)).mul(to_bigint<M>(s));
    ASSERT_FALSE(t.is_infinity()) << "no point with " << name << "-torsion found";
    for (unsigned k = 0; k < e && !t.is_infinity(); ++k) {
      ec::Affine<C> ta = t.to_affine();
      ec::Affine<C> mixed = (t + J::from_affine(random_subgroup_point<C>(g))).to_affine();
      EXPECT_FALSE(ec::is_in_subgroup(ta)) << "l = " << name << ", k = " << k;
      EXPECT_FALSE(ec::is_in_subgroup(mixed)) << "l = " << name << ", k = " << k;
      EXPECT_FALSE(ec::is_in_subgroup_reference(mixed));
      t = t.mul(to_bigint<M>(l));
    }
    EXPECT_TRUE(t.is_infinity()) << "the order of T divides " << name << "^" << e;
  }
}

TEST(Subgroup, G1RejectsEveryTorsionPrime) {
  rejects_torsion<ec::G1Config, 6>("subgroup-g1-torsion", params().h1, 5);  // 3, 11, 10177, 859267, 52437899
}
TEST(Subgroup, G2RejectsEveryTorsionPrime) {
  rejects_torsion<ec::G2Config, 12>("subgroup-g2-torsion", params().h2, 6);  // 13, 23, 2713, 11953, 262069, q
}
TEST(Endomorphism, G1PhiActsAsMinusXSquared) {
  const ff::Fp& beta = ec::g1_beta();
  EXPECT_FALSE(beta.is_one());
  EXPECT_TRUE((beta.square() * beta).is_one());
  Mpz lambda;  // −x² mod r
  mpz_mul(lambda, params().x, params().x);
  mpz_neg(lambda, lambda);
  mpz_mod(lambda, lambda, params().r);
  auto g = rng("endo-phi");
  for (int t = 0; t < 4; ++t) {
    ec::G1Jacobian p = randomize(random_subgroup_point<ec::G1Config>(g), g);
    EXPECT_EQ(ec::phi(p), p.mul(to_bigint<4>(lambda)));
    ec::G1Affine q = random_curve_point<ec::G1Config>(g);
    EXPECT_TRUE(ec::phi(ec::G1Jacobian::from_affine(q)).to_affine().is_on_curve());
  }
}

TEST(Endomorphism, G2PsiActsAsP) {
  // Recompute ψ's coefficients: cx = (1+u)^(−(p−1)/3), cy = (1+u)^(−(p−1)/2).
  const Params& P = params();
  Mpz e3, e2;
  mpz_sub_ui(e3, P.p, 1);
  mpz_divexact_ui(e2, e3, 2);
  mpz_divexact_ui(e3, e3, 3);
  ff::Fp2 xi_inv = ff::Fp2{ff::Fp::one(), ff::Fp::one()}.inverse();
  const ec::PsiCoefficients& c = ec::psi_coefficients();
  EXPECT_EQ(c.cx, xi_inv.pow(to_bigint<6>(e3)));
  EXPECT_EQ(c.cy, xi_inv.pow(to_bigint<6>(e2)));
  Mpz p_mod_r;
  mpz_mod(p_mod_r, P.p, P.r);
  auto g = rng("endo-psi");
  for (int t = 0; t < 4; ++t) {
    ec::G2Jacobian p = randomize(random_subgroup_point<ec::G2Config>(g), g);
    EXPECT_EQ(ec::psi(p), p.mul(to_bigint<4>(p_mod_r)));
    ec::G2Jacobian q = randomize(random_curve_point<ec::G2Config>(g), g);
    EXPECT_TRUE(ec::psi(q).to_affine().is_on_curve());
    EXPECT_EQ(ec::psi2(q), ec::psi(ec::psi(q)));
    EXPECT_EQ(ec::psi(q).to_affine(), ec::psi(ec::G2Jacobian::from_affine(q.to_affine())).to_affine());
  }
}

template <class C>
void mul_by_x_matches(const char* label) {
  auto g = rng(label);
  ec::Affine<C> a = random_curve_point<C>(g);
  ec::Jacobian<C> expect = -ec::Jacobian<C>::from_affine(a).mul(ff::BigInt<1>::from_u64(ec::kBlsXAbs));
  EXPECT_EQ(ec::mul_by_x(a), expect);
  EXPECT_EQ(ec::mul_by_x(randomize(a, g)), expect);
  EXPECT_TRUE(ec::mul_by_x(ec::Jacobian<C>::infinity()).is_infinity());
}
TEST(Endomorphism, MulByX) {
  mul_by_x_matches<ec::G1Config>("mul-by-x-g1");
  mul_by_x_matches<ec::G2Config>("mul-by-x-g2");
}

template <class C, size_t M>
void clears_cofactor(const char* label, const Mpz& h_eff, const Mpz& h) {
  using J = ec::Jacobian<C>;
  auto g = rng(label);
  Mpz hr;
  mpz_mul(hr, h, params().r);
  for (int t = 0; t < 3; ++t) {
    J q = randomize(random_curve_point<C>(g), g);
    EXPECT_TRUE(q.mul(to_bigint<M>(hr)).is_infinity());  // #E = h·r
    J cleared = ec::clear_cofactor(q);
    EXPECT_EQ(cleared, q.mul(to_bigint<M>(h_eff)));
    EXPECT_TRUE(ec::is_in_subgroup_reference(cleared.to_affine()));
  }
  EXPECT_TRUE(ec::clear_cofactor(J::infinity()).is_infinity());
}
TEST(Cofactor, G1ClearingIsMultiplicationByHEff) {
  Mpz h_eff;  // 1 − x
  mpz_ui_sub(h_eff, 1, params().x);
  EXPECT_EQ(mpz_cmp(h_eff, Mpz::from_hex("d201000000010001")), 0);
  clears_cofactor<ec::G1Config, 6>("cofactor-g1", h_eff, params().h1);
}
TEST(Cofactor, G2ClearingIsMultiplicationByHEff) {
  clears_cofactor<ec::G2Config, 12>("cofactor-g2", params().h_eff2, params().h2);
}

}  // namespace
}  // namespace snarkd::test
