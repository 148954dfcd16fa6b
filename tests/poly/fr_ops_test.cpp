// The NTT's own Fr add / sub / mul / pow (poly/fr_ops.hpp) must agree bit for bit with ff::Fr,
// which tests/ff checks against GMP: every pair of edge values plus random pairs.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/seed.hpp"
#include "snarkd/ff/fr.hpp"
#include "snarkd/poly/fr_ops.hpp"

namespace snarkd::poly {
namespace {

using ff::BigInt;
using ff::Fr;

// Montgomery words where carries and the final subtraction go wrong: 0, 1, r−1, r−2, (r±1)/2,
// words of all ones, the top bit of r's top word.
std::vector<Fr> edge_values() {
  const BigInt<4> r = Fr::kModulus;
  auto minus = [&](uint64_t k) {
    BigInt<4> v;
    ff::sub_borrow(v, r, BigInt<4>::from_u64(k));
    return v;
  };
  BigInt<4> half_up;  // (r + 1) / 2
  ff::add_carry(half_up, ff::shr(r, 1), BigInt<4>::from_u64(1));
  std::vector<BigInt<4>> raw = {BigInt<4>::from_u64(0), BigInt<4>::from_u64(1),
                                BigInt<4>::from_u64(2), minus(1), minus(2),
                                ff::shr(minus(1), 1), half_up};
  for (size_t words = 1; words <= 3; ++words) {
    BigInt<4> v;
    for (size_t i = 0; i < words; ++i) v.limb[i] = ~uint64_t{0};
    raw.push_back(v);
  }
  BigInt<4> top;
  top.limb[3] = uint64_t{1} << 62;
  raw.push_back(top);
  std::vector<Fr> out;
  for (const auto& v : raw) {
    EXPECT_TRUE(ff::less_than(v, r));
    out.push_back(Fr::from_montgomery(v));
  }
  return out;
}

void expect_same(const Fr& a, const Fr& b) {
  ASSERT_EQ(detail::add(a, b), a + b);
  ASSERT_EQ(detail::sub(a, b), a - b);
  ASSERT_EQ(detail::mul(a, b), a * b);
}

TEST(FrOps, EdgePairsMatchField) {
  const std::vector<Fr> edges = edge_values();
  for (const Fr& a : edges)
    for (const Fr& b : edges) expect_same(a, b);
}

TEST(FrOps, RandomPairsMatchField) {
  auto g = test::rng("FrOps.RandomPairsMatchField");
  const std::vector<Fr> edges = edge_values();
  for (int i = 0; i < 200000; ++i) {
    const Fr a = i % 5 == 0 ? edges[g() % edges.size()] : Fr::random(g);
    const Fr b = Fr::random(g);
    expect_same(a, b);
    expect_same(b, a);
  }
}

TEST(FrOps, PowMatchesField) {
  auto g = test::rng("FrOps.PowMatchesField");
  for (int i = 0; i < 200; ++i) {
    const Fr a = Fr::random(g);
    const uint64_t e = i < 3 ? uint64_t(i) : g() >> (g() % 64);
    ASSERT_EQ(detail::pow(a, e), a.pow(e)) << "e=" << e;
  }
}

}  // namespace
}  // namespace snarkd::poly
