// The device Montgomery arithmetic (cuda/mont32.cuh) run on the CPU: the same source, with PTX's
// carry flag emulated, against ff (the host twin, bit for bit) and GMP (the double-width
// product). No GPU needed: this is what makes the device algorithms testable on CI. Inputs: every
// pair of edge values (0, 1, −1, the raw limb patterns 1 and p − 1, the all-ones low word, the
// largest values with one zero word) and 20,000 random pairs per field, for BLS12-381's Fr
// (8 words, the Solinas row) and Fp (12 words) and BN254's Fr and Fp (8 words, general rows).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "common/gmp_util.hpp"
#include "common/seed.hpp"
#include "snarkd/cuda/mont32.cuh"
#include "snarkd/ff/bn254_tower.hpp"
#include "snarkd/ff/fp.hpp"
#include "snarkd/ff/fp2.hpp"
#include "snarkd/ff/fr.hpp"

namespace snarkd::cuda {
namespace {

template <class H>
constexpr size_t kWords = 2 * H::N;

// The layout contract (cuda/field.hpp): a field element's bytes are its 32-bit words.
template <class H>
void words(const H& h, uint32_t* w) {
  std::memcpy(w, &h, sizeof(H));
}
template <class H>
H field(const uint32_t* w) {
  typename H::Repr r;
  std::memcpy(r.limb, w, sizeof(H));
  return H::from_montgomery(r);
}

template <class H>
std::vector<H> edge_values() {
  std::vector<H> e = {H::zero(), H::one(), -H::one(), H::from_montgomery(ff::BigInt<H::N>::from_u64(1)),
                      H::from_montgomery(H::kModulusMinusOne)};
  ff::BigInt<H::N> low_ones = ff::BigInt<H::N>::from_u64(0xffffffffull);
  e.push_back(H::from_montgomery(low_ones));
  // p − 1 with one 32-bit word cleared: long carry chains in every position.
  for (size_t k = 0; k < 2 * H::N; k += 3) {
    ff::BigInt<H::N> v = H::kModulusMinusOne;
    v.limb[k / 2] &= ~(uint64_t{0xffffffff} << (32 * (k % 2)));
    e.push_back(H::from_montgomery(v));
  }
  return e;
}

template <class H>
std::vector<std::pair<H, H>> input_pairs(const char* label) {
  auto g = snarkd::test::rng(label);
  std::vector<std::pair<H, H>> in;
  for (const H& a : edge_values<H>())
    for (const H& b : edge_values<H>()) in.push_back({a, b});
  for (int i = 0; i < 20000; ++i) in.push_back({H::random(g), H::random(g)});
  return in;
}

template <class H>
class Mont32Host : public ::testing::Test {};
using HostFields = ::testing::Types<ff::Fr, ff::Fp, ff::bn254::Fr, ff::bn254::Fp>;
TYPED_TEST_SUITE(Mont32Host, HostFields);

// The constants the device derives from the host ones (mont32.cuh), at compile time: −p⁻¹ mod 2^32
// times p is −1; the word copies are the host limbs; every modulus leaves the one spare top bit the
// routines need; only BLS12-381's r has the Solinas low words.
template <class H>
constexpr bool device_constants_ok() {
  bool ok = uint32_t(mont32::kInv<H> * uint32_t(H::kModulus.limb[0])) == 0xffffffffu && mont32::kSpareBit<H>;
  for (size_t j = 0; j < 2 * H::N; ++j) {
    const size_t shift = 32 * (j % 2);
    ok = ok && mont32::HostConstants<H>::modulus.w[j] == uint32_t(H::kModulus.limb[j / 2] >> shift) &&
         mont32::HostConstants<H>::one.w[j] == uint32_t(H::kR.limb[j / 2] >> shift) &&
         mont32::HostConstants<H>::r2.w[j] == uint32_t(H::kR2.limb[j / 2] >> shift);
  }
  return ok;
}
static_assert(device_constants_ok<ff::Fr>() && device_constants_ok<ff::Fp>());
static_assert(device_constants_ok<ff::bn254::Fr>() && device_constants_ok<ff::bn254::Fp>());
static_assert(mont32::kSolinasLow64<ff::Fr> && !mont32::kSolinasLow64<ff::Fp>);
static_assert(!mont32::kSolinasLow64<ff::bn254::Fr> && !mont32::kSolinasLow64<ff::bn254::Fp>);
// kSpareBit's boundary: a 255-bit modulus in 8 words has the spare bit, a 256-bit one not.
struct Width255 {
  static constexpr size_t N = 4, kBits = 255;
};
struct Width256 {
  static constexpr size_t N = 4, kBits = 256;
};
static_assert(mont32::kSpareBit<Width255> && !mont32::kSpareBit<Width256>);

TYPED_TEST(Mont32Host, MulAddSubEqualFf) {
  using H = TypeParam;
  size_t bad = 0;
  for (const auto& [a, b] : input_pairs<H>("mont32-mul")) {
    uint32_t x[kWords<H>], y[kWords<H>], r[kWords<H>];
    words(a, x), words(b, y);
    mont32::mul<H>(r, x, y);
    bad += field<H>(r) != a * b;
    mont32::add<H>(r, x, y);
    bad += field<H>(r) != a + b;
    mont32::sub<H>(r, x, y);
    bad += field<H>(r) != a - b;
  }
  EXPECT_EQ(bad, 0u);
}

// mul_wide is the plain integer product of the Montgomery words (GMP), also for unreduced
// inputs up to 2p (the Karatsuba sums); redc(mul_wide(a, b)) is the Montgomery product.
TYPED_TEST(Mont32Host, WideProductAndReduction) {
  using H = TypeParam;
  constexpr size_t n = kWords<H>;
  size_t bad = 0;
  for (const auto& [a, b] : input_pairs<H>("mont32-wide")) {
    uint32_t x[n], y[n], sx[n], t[2 * n], r[n];
    words(a, x), words(b, y);
    mont32::add_plain<H>(sx, x, y);  // a + b < 2p, unreduced
    for (int unreduced = 0; unreduced < 2; ++unreduced) {
      const uint32_t* lhs = unreduced ? sx : x;
      mont32::mul_wide<H>(t, lhs, y);
      snarkd::test::Mpz ma, mb, mt, want;
      mpz_import(ma, n, -1, 4, 0, 0, lhs);
      mpz_import(mb, n, -1, 4, 0, 0, y);
      mpz_import(mt, 2 * n, -1, 4, 0, 0, t);
      mpz_mul(want, ma, mb);
      bad += !(mt == want);
    }
    mont32::mul_wide<H>(t, x, y);
    mont32::redc<H>(r, t);
    bad += field<H>(r) != a * b;
  }
  EXPECT_EQ(bad, 0u);
}

// redc over its whole input range [0, p·R): values just below p·R and with the low half all
// ones, beside random ones, against GMP's t·R⁻¹ mod p.
TYPED_TEST(Mont32Host, ReductionRange) {
  using H = TypeParam;
  constexpr size_t n = kWords<H>;
  snarkd::test::Mpz p, R, Rinv, pR;
  mpz_import(p, H::N, -1, 8, 0, 0, H::kModulus.limb);
  mpz_ui_pow_ui(R, 2, 32 * n);
  mpz_invert(Rinv, R, p);
  mpz_mul(pR, p, R);
  auto g = snarkd::test::rng("mont32-redc");
  gmp_randstate_t st;
  gmp_randinit_default(st);
  gmp_randseed_ui(st, g());
  size_t bad = 0;
  for (int i = 0; i < 20000; ++i) {
    snarkd::test::Mpz t, want;
    if (i == 0) mpz_sub_ui(t, pR, 1);
    else if (i == 1) mpz_set_ui(t, 0);
    else if (i == 2) mpz_sub_ui(t, R, 1);  // low half all ones, high half 0
    else mpz_urandomm(t, st, pR);
    uint32_t tw[2 * n] = {}, r[n];
    mpz_export(tw, nullptr, -1, 4, 0, 0, t);
    mont32::redc<H>(r, tw);
    mpz_mul(want, t, Rinv);
    mpz_mod(want, want, p);
    snarkd::test::Mpz got;
    mpz_import(got, n, -1, 4, 0, 0, r);
    bad += !(got == want);
  }
  gmp_randclear(st);
  EXPECT_EQ(bad, 0u);
}

template <class H2>
class Mont32HostFp2 : public ::testing::Test {};
using HostFp2s = ::testing::Types<ff::Fp2, ff::bn254::Fp2>;
TYPED_TEST_SUITE(Mont32HostFp2, HostFp2s);

TYPED_TEST(Mont32HostFp2, LazyProductEqualsFf) {
  using H2 = TypeParam;
  using B = typename H2::Base;
  constexpr size_t n = kWords<B>;
  auto g = snarkd::test::rng("mont32-fp2");
  std::vector<B> e = edge_values<B>();
  std::vector<H2> in;
  for (const B& x : e)
    for (const B& y : e) in.push_back({x, y});
  for (int i = 0; i < 5000; ++i) in.push_back({B::random(g), B::random(g)});
  size_t bad = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const H2 a = in[i], b = in[(i * 7 + 3) % in.size()];
    uint32_t a0[n], a1[n], b0[n], b1[n], c0[n], c1[n];
    words(a.c0, a0), words(a.c1, a1), words(b.c0, b0), words(b.c1, b1);
    mont32::fp2_mul_lazy<B>(c0, c1, a0, a1, b0, b1);
    const H2 want = a * b;
    bad += field<B>(c0) != want.c0 || field<B>(c1) != want.c1;
  }
  EXPECT_EQ(bad, 0u);
}

}  // namespace
}  // namespace snarkd::cuda
