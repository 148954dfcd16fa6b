// poly/lagrange.hpp over both scalar fields: L_i(τ) is the inverse NTT of τ⁰..τ^(n−1) (the
// identity tools/dev_ptau relies on to skip snarkjs's EC inverse FFTs), blocks with an offset
// agree with the whole, the scale folds in, and a domain point for τ is refused.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

#include "common/seed.hpp"
#include "snarkd/ff/bn254.hpp"
#include "snarkd/ff/fr.hpp"
#include "snarkd/poly/lagrange.hpp"
#include "snarkd/poly/ntt.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::poly {
namespace {

template <class F>
F random_nonzero(std::mt19937_64& g) {
  for (;;)
    if (const F x = F::random(g); !x.is_zero()) return x;
}

template <class F>
std::vector<F> naive_powers(const F& first, const F& ratio, size_t n) {
  std::vector<F> v(n);
  F x = first;
  for (F& o : v) o = x, x *= ratio;
  return v;
}

template <class F>
void check_lagrange_is_intt(uint64_t generator, const char* label) {
  auto g = test::rng(label);
  const F tau = random_nonzero<F>(g);
  for (uint32_t log_n : {0u, 1u, 5u, 13u}) {  // 13: more than one kScalarBlock
    const size_t n = size_t{1} << log_n;
    std::vector<F> expect = naive_powers(F::one(), tau, n);
    intt(DomainT<F>(log_n, generator), std::span<F>(expect));
    std::vector<F> got(n);
    lagrange_into(std::span<F>(got), 0, log_n, tau, generator);
    EXPECT_EQ(got, expect) << "2^" << log_n;
  }
}

TEST(Lagrange, IsTheInverseNttOfPowersBn254Snarkjs) {
  check_lagrange_is_intt<ff::bn254::Fr>(ff::bn254::kSnarkjsDomainGenerator, "lagrange-bn254");
}
TEST(Lagrange, IsTheInverseNttOfPowersBls12381Bellperson) {
  check_lagrange_is_intt<ff::Fr>(ff::kBellpersonDomainGenerator, "lagrange-bls");
}

TEST(Lagrange, OffsetAndScale) {
  using F = ff::bn254::Fr;
  auto g = test::rng("lagrange-offset");
  const F tau = random_nonzero<F>(g), c = random_nonzero<F>(g);
  const uint32_t log_n = 14;
  std::vector<F> whole(size_t{1} << log_n);
  lagrange_into(std::span<F>(whole), 0, log_n, tau, 5);
  std::vector<F> part(5000);  // starts mid-block, ends past one
  const uint64_t first = 1234;
  lagrange_into(std::span<F>(part), first, log_n, tau, 5, c);
  for (size_t j = 0; j < part.size(); ++j) ASSERT_EQ(part[j], c * whole[first + j]) << j;
  F sum = F::zero();
  for (const F& v : whole) sum += v;
  EXPECT_EQ(sum, F::one());  // Σ L_i = 1
}

TEST(Lagrange, RefusesADomainPoint) {
  using F = ff::bn254::Fr;
  std::vector<F> out(8);
  const F omega = F::root_of_unity(3, 5);
  EXPECT_THROW(lagrange_into(std::span<F>(out), 0, 3, omega.pow(uint64_t{3}), 5), InvalidArgument);
}

TEST(Geometric, MatchesRepeatedProducts) {
  using F = ff::bn254::Fr;
  auto g = test::rng("geometric");
  const F first = random_nonzero<F>(g), ratio = random_nonzero<F>(g);
  for (size_t n : {0, 1, 4095, 4096, 10000}) {
    std::vector<F> got(n);
    geometric_into(std::span<F>(got), first, ratio);
    EXPECT_EQ(got, naive_powers(first, ratio, n)) << n;
  }
}

}  // namespace
}  // namespace snarkd::poly
