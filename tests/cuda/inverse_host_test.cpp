// The binary-GCD inversion of cuda/field_inverse.hpp (the batch-affine MSM's inversion) run on
// the CPU, against ff's inverse bit for bit: the unchecked algorithm (div_bingcd) must be right on
// its own — the checked entry point's Fermat fallback is a safety net that these inputs must never
// need — over edge values (0, 1, −1, 2, powers of two, p − 2^k, values sharing p's top 33 bits,
// Montgomery-form 1) and random elements, for BLS12-381's Fr and Fp and BN254's Fr and Fp.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "common/seed.hpp"
#include "snarkd/cuda/field_inverse.hpp"
#include "snarkd/ff/bn254.hpp"
#include "snarkd/ff/fp.hpp"
#include "snarkd/ff/fr.hpp"

namespace snarkd::cuda {
namespace {

template <class H>
class InverseHost : public ::testing::Test {};
using HostFields = ::testing::Types<ff::Fr, ff::Fp, ff::bn254::Fr, ff::bn254::Fp>;
TYPED_TEST_SUITE(InverseHost, HostFields);

template <class H>
H from_words(const uint32_t* w) {
  typename H::Repr r;
  std::memcpy(r.limb, w, sizeof(H));
  return H::from_montgomery(r);
}

template <class H>
std::vector<H> inputs(const char* label, size_t random_count) {
  using R = typename H::Repr;
  std::vector<H> v = {H::zero(), H::one(), -H::one(), H::from_u64(2), H::from_montgomery(R::from_u64(1)),
                      H::from_montgomery(R::from_u64(2)), H::from_montgomery(H::kModulusMinusOne)};
  for (size_t k = 0; k + 1 < H::kBits; k += 7) {
    R pow2{};
    pow2.limb[k / 64] = uint64_t{1} << (k % 64);
    v.push_back(H::from_montgomery(pow2));  // 2^k as raw words
    R near_p;
    ff::sub_borrow(near_p, H::kModulus, pow2);
    v.push_back(H::from_montgomery(near_p));  // p − 2^k: shares p's top bits
  }
  auto g = snarkd::test::rng(label);
  for (size_t i = 0; i < 64; ++i) {  // p's top 33 bits, random below: the approximations tie
    R r = H::random(g).montgomery();
    const size_t top = H::kBits - 33;
    for (size_t b = top; b < H::kBits; ++b) {
      const uint64_t bit = (H::kModulus.limb[b / 64] >> (b % 64)) & 1;
      r.limb[b / 64] = (r.limb[b / 64] & ~(uint64_t{1} << (b % 64))) | (bit << (b % 64));
    }
    if (ff::less_than(r, H::kModulus)) v.push_back(H::from_montgomery(r));
  }
  for (size_t i = 0; i < random_count; ++i) v.push_back(H::random(g));
  return v;
}

TYPED_TEST(InverseHost, BinaryGcdEqualsFfWithoutTheFallback) {
  using H = TypeParam;
  constexpr size_t n = 2 * H::N;
  size_t bad = 0, bad_checked = 0;
  for (const H& x : inputs<H>("cuda-inverse", 20000)) {
    uint32_t xw[n], yw[n], r[n];
    std::memcpy(xw, &x, sizeof(H));
    for (size_t k = 0; k < n; ++k) yw[k] = mont32::r2<H>(k);
    mont32::div_bingcd<H>(r, yw, xw);
    const H want = x.is_zero() ? H::zero() : x.inverse();
    if (from_words<H>(r) != want && bad++ < 3) ADD_FAILURE() << "binary GCD wrong at input " << bad;
    mont32::inverse_mont<H>(r, xw);
    bad_checked += from_words<H>(r) != want;
  }
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(bad_checked, 0u);
}

// y/x for random y as well (the general division the invariants promise).
TYPED_TEST(InverseHost, Division) {
  using H = TypeParam;
  constexpr size_t n = 2 * H::N;
  auto g = snarkd::test::rng("cuda-division");
  size_t bad = 0;
  for (int i = 0; i < 5000; ++i) {
    const H x = H::random(g), y = H::random(g);
    uint32_t xw[n], r[n];
    std::memcpy(xw, &x, sizeof(H));
    // raw values: r = y_raw / x_raw mod p; in Montgomery terms from_words(r)·R = yR / xR·R
    const typename H::Repr yr = y.montgomery();
    uint32_t yw[n];
    std::memcpy(yw, yr.limb, sizeof(H));
    mont32::div_bingcd<H>(r, yw, xw);
    // y_raw/x_raw = (yR)/(xR) = y/x; as a Montgomery form that is the element (y/x)/R.
    const H want = (y * x.inverse()) * H::from_montgomery(H::Repr::from_u64(1));
    bad += from_words<H>(r) != want;
  }
  EXPECT_EQ(bad, 0u);
}

}  // namespace
}  // namespace snarkd::cuda
