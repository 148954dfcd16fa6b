// BN254 NTT tests: the generic transforms instantiated for ff::bn254::Fr (the portable kernels,
// the only ones for this field) against a naive O(n²) DFT computed here with a root of unity
// derived as 5^((r−1)/n), never from the code under test. Sizes past naive reach are checked by
// round trips and Horner evaluation at a few random points.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "common/seed.hpp"
#include "snarkd/ff/bn254.hpp"
#include "snarkd/poly/ntt.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::poly {
namespace {

using Fq = ff::bn254::Fr;
using Dom = bn254::Domain;
constexpr uint64_t kGen = ff::bn254::kSnarkjsDomainGenerator;

std::vector<Fq> random_vector(std::mt19937_64& g, size_t n) {
  std::vector<Fq> v(n);
  for (Fq& x : v) x = Fq::random(g);
  return v;
}

Fq random_nonzero(std::mt19937_64& g) {
  for (;;)
    if (const Fq x = Fq::random(g); !x.is_zero()) return x;
}

// g^((r−1)/2^log_n), without Field::root_of_unity.
Fq expected_root(uint32_t log_n) {
  return Fq::from_u64(kGen).pow(ff::shr(Fq::kModulusMinusOne, log_n));
}

Fq horner(std::span<const Fq> c, const Fq& x) {
  Fq acc = Fq::zero();
  for (size_t i = c.size(); i-- > 0;) acc = acc * x + c[i];
  return acc;
}

// Evaluations at shift·ω^j (shift = 1: the plain DFT).
std::vector<Fq> naive_eval(std::span<const Fq> c, const Fq& omega, const Fq& shift) {
  std::vector<Fq> out(c.size());
  Fq x = shift;
  for (Fq& o : out) {
    o = horner(c, x);
    x = x * omega;
  }
  return out;
}

// c_i = n⁻¹ shift^(−i) Σ_j a_j ω^(−ij).
std::vector<Fq> naive_inverse(std::span<const Fq> a, const Fq& omega, const Fq& shift) {
  std::vector<Fq> c = naive_eval(a, omega.inverse(), Fq::one());
  const Fq s_inv = shift.inverse();
  Fq f = Fq::from_u64(a.size()).inverse();
  for (Fq& x : c) {
    x = x * f;
    f = f * s_inv;
  }
  return c;
}

std::vector<Fq> reversed(std::span<const Fq> v, uint32_t log_n) {
  std::vector<Fq> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    size_t r = 0;
    for (uint32_t b = 0; b < log_n; ++b) r |= ((i >> b) & 1) << (log_n - 1 - b);
    out[r] = v[i];
  }
  return out;
}

TEST(NttBn254, DomainRootsAndLimits) {
  EXPECT_EQ(Dom::kMaxLogSize, 28u);
  for (uint32_t log_n = 0; log_n <= 28; ++log_n) {
    const Dom d(log_n, kGen);
    ASSERT_EQ(d.omega(), expected_root(log_n)) << "log_n=" << log_n;
    EXPECT_EQ(d.omega() * d.omega_inv(), Fq::one());
    EXPECT_EQ(d.size_inv() * Fq::from_u64(d.size()), Fq::one());
    EXPECT_EQ(d.kernels(), NttKernels::kPortable);  // no IFMA kernels for this field
  }
  EXPECT_EQ(Dom(28, kGen).omega(), ff::bn254::kRootOfUnity5);
  EXPECT_THROW(Dom(29, kGen), InvalidArgument);
  EXPECT_THROW(Dom(4, 4), InvalidArgument);  // a square: no root of full order
  EXPECT_THROW(Dom(10, kGen, Dom::kDefaultPassLog, NttKernels::kAvx512Ifma), InvalidArgument);
  EXPECT_NO_THROW(Dom(10, kGen, Dom::kDefaultPassLog, NttKernels::kPortable));
}

// Every transform and order against the naive DFT, for each size up to 2^12 and pass schedules
// of one to six passes (pass_log 12, 3, 2).
TEST(NttBn254, AgainstNaiveDft) {
  auto g = test::rng("NttBn254.AgainstNaiveDft");
  for (uint32_t log_n = 0; log_n <= 12; ++log_n) {
    const size_t n = size_t{1} << log_n;
    const std::vector<Fq> c = random_vector(g, n), a = random_vector(g, n);
    const Fq shift = random_nonzero(g), omega = expected_root(log_n);
    const std::vector<Fq> fwd = naive_eval(c, omega, Fq::one());
    const std::vector<Fq> cfwd = naive_eval(c, omega, shift);
    const std::vector<Fq> inv = naive_inverse(a, omega, Fq::one());
    const std::vector<Fq> cinv = naive_inverse(a, omega, shift);
    for (uint32_t pass_log : {12u, 3u, 2u}) {
      SCOPED_TRACE("log_n=" + std::to_string(log_n) + " pass_log=" + std::to_string(pass_log));
      const Dom d(log_n, kGen, pass_log);
      std::vector<Fq> x = c;
      ntt(d, x);
      ASSERT_EQ(x, fwd);
      x = c;
      coset_ntt(d, x, shift);
      ASSERT_EQ(x, cfwd);
      x = a;
      intt(d, x);
      ASSERT_EQ(x, inv);
      x = a;
      coset_intt(d, x, shift);
      ASSERT_EQ(x, cinv);
      x = c;
      ntt_nr(d, x);
      ASSERT_EQ(x, reversed(fwd, log_n));
      x = reversed(c, log_n);
      ntt_rn(d, x);
      ASSERT_EQ(x, fwd);
      x = a;
      intt_nr(d, x);
      ASSERT_EQ(x, reversed(inv, log_n));
      x = reversed(a, log_n);
      intt_rn(d, x);
      ASSERT_EQ(x, inv);
    }
  }
}

// Sizes past naive reach: round trips, and a few outputs against Horner. 2^21 is the first size
// whose column passes derive their twiddles instead of reading the full table.
TEST(NttBn254, LargeRoundTripsAndSpotChecks) {
  auto g = test::rng("NttBn254.LargeRoundTripsAndSpotChecks");
  for (uint32_t log_n : {13u, 16u, 21u}) {
    SCOPED_TRACE("log_n=" + std::to_string(log_n));
    const Dom d(log_n, kGen);
    const std::vector<Fq> c = random_vector(g, d.size());
    const Fq shift = random_nonzero(g);
    std::vector<Fq> x = c;
    ntt(d, x);
    std::vector<Fq> y = c;
    coset_ntt(d, y, shift);
    for (int k = 0; k < 3; ++k) {
      const size_t j = std::uniform_int_distribution<size_t>(0, d.size() - 1)(g);
      const Fq at = d.omega().pow(uint64_t{j});
      ASSERT_EQ(x[j], horner(c, at)) << "j=" << j;
      ASSERT_EQ(y[j], horner(c, shift * at)) << "coset j=" << j;
    }
    intt(d, x);
    ASSERT_EQ(x, c);
    coset_intt(d, y, shift);
    ASSERT_EQ(y, c);
  }
}

TEST(NttBn254, BitReverseAndScaleByPowers) {
  auto g = test::rng("NttBn254.BitReverseAndScaleByPowers");
  for (uint32_t log_n : {0u, 1u, 5u, 9u, 12u}) {
    const std::vector<Fq> v = random_vector(g, size_t{1} << log_n);
    std::vector<Fq> x = v;
    bit_reverse(x);
    ASSERT_EQ(x, reversed(v, log_n)) << "log_n=" << log_n;
    const Fq c = Fq::random(g), s = Fq::random(g);
    x = v;
    scale_by_powers(x, c, s);
    Fq f = c;
    for (size_t i = 0; i < v.size(); ++i, f = f * s) ASSERT_EQ(x[i], v[i] * f) << "i=" << i;
  }
  std::vector<Fq> three(3);
  EXPECT_THROW(bit_reverse(three), InvalidArgument);
}

TEST(NttBn254, ArgumentChecks) {
  const Dom d(4, kGen);
  std::vector<Fq> wrong(8), right(16);
  EXPECT_THROW(ntt(d, wrong), InvalidArgument);
  EXPECT_THROW(intt_rn(d, wrong), InvalidArgument);
  EXPECT_THROW(coset_ntt(d, right, Fq::zero()), InvalidArgument);
  EXPECT_THROW(coset_intt(d, right, Fq::zero()), InvalidArgument);
}

}  // namespace
}  // namespace snarkd::poly
