// Differential tests of ff::Field (BLS12-381 and BN254 Fp and Fr) against GMP: every operation on
// ≥ 100,000 inputs, a fixed share of them drawn from edge values where carries and reductions go wrong.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "common/seed.hpp"
#include "common/gmp_util.hpp"
#include "snarkd/ff/bn254.hpp"
#include "snarkd/ff/fp.hpp"
#include "snarkd/ff/fr.hpp"
#include "snarkd/ff/inverse.hpp"

namespace snarkd::test {
namespace {

constexpr size_t kIters = 100000;

template <class F>
class FieldDiff : public ::testing::Test {
 protected:
  GmpField<F> gf;
  std::mt19937_64 g;
  std::vector<Mpz> edges;

  FieldDiff() {
    g = current_test_rng();
    auto next = [this]() -> Mpz& { return edges.emplace_back(); };
    for (uint64_t s : {0, 1, 2, 3}) mpz_set_ui(next(), s);
    for (uint64_t s : {1, 2}) mpz_sub_ui(next(), gf.p, s);  // p − 1, p − 2
    mpz_set(next(), gf.half);                                // (p − 1)/2
    mpz_add_ui(next(), gf.half, 1);                          // (p + 1)/2
    for (size_t k = 1; k < F::N; ++k) {                      // limb boundaries 2^(64k) − 1, 2^(64k)
      mpz_setbit(next(), 64 * k);
      Mpz& below = next();
      mpz_setbit(below, 64 * k);
      mpz_sub_ui(below, below, 1);
    }
    mpz_setbit(next(), F::kBits - 1);
    mpz_set(next(), gf.r);                // R mod p
    mpz_set(next(), gf.r_inv);            // Montgomery limbs 1
    mpz_sub(next(), gf.p, gf.r_inv);      // Montgomery limbs p − 1
  }

  // A field element and its value: 1 in 8 from the edge list, otherwise uniform.
  F sample(mpz_ptr v) {
    if (g() % 8 == 0) {
      mpz_set(v, edges[g() % edges.size()]);
      return gf.element(v);
    }
    F x = F::random(g);  // raw Montgomery limbs, no arithmetic involved
    gf.value(v, x);
    return x;
  }
  // Random exponent of random bit length up to 64·M.
  template <size_t M>
  ff::BigInt<M> random_exponent() {
    ff::BigInt<M> e;
    for (size_t i = 0; i < M; ++i) e.limb[i] = g();
    return ff::shr(e, g() % (64 * M + 1));
  }
};

using Fields = ::testing::Types<ff::Fp, ff::Fr, ff::bn254::Fp, ff::bn254::Fr>;
TYPED_TEST_SUITE(FieldDiff, Fields);

TYPED_TEST(FieldDiff, AddSubNegDbl) {
  auto& gf = this->gf;
  Mpz a, b, want;
  for (size_t i = 0; i < kIters; ++i) {
    TypeParam x = this->sample(a), y = this->sample(b);
    mpz_add(want, a, b);
    ASSERT_TRUE(gf.has_value(x + y, want)) << "add, i=" << i;
    mpz_sub(want, a, b);
    ASSERT_TRUE(gf.has_value(x - y, want)) << "sub, i=" << i;
    mpz_neg(want, a);
    ASSERT_TRUE(gf.has_value(-x, want)) << "neg, i=" << i;
    mpz_mul_2exp(want, a, 1);
    ASSERT_TRUE(gf.has_value(x.dbl(), want)) << "dbl, i=" << i;
    TypeParam z = x;
    z += z;  // aliased compound assignment
    ASSERT_TRUE(gf.has_value(z, want)) << "+= self, i=" << i;
    z -= y;
    mpz_sub(want, want, b);
    ASSERT_TRUE(gf.has_value(z, want)) << "-=, i=" << i;
  }
}

TYPED_TEST(FieldDiff, MulSquare) {
  auto& gf = this->gf;
  Mpz a, b, want;
  for (size_t i = 0; i < kIters; ++i) {
    TypeParam x = this->sample(a), y = this->sample(b);
    mpz_mul(want, a, b);
    ASSERT_TRUE(gf.has_value(x * y, want)) << "mul, i=" << i;
    ASSERT_TRUE(gf.has_value(TypeParam::mont_mul(y, x), want)) << "mont_mul, i=" << i;
    mpz_mul(want, a, a);
    ASSERT_TRUE(gf.has_value(x.square(), want)) << "square, i=" << i;
    x *= x;
    ASSERT_TRUE(gf.has_value(x, want)) << "*= self, i=" << i;
  }
}

// Every pair of edge values, both operand orders, and every edge squared: the 6-limb kernel takes
// a in registers and b from memory, and squares through a separate entry point (mont_sqr6).
TYPED_TEST(FieldDiff, MulSquareEdgePairs) {
  auto& gf = this->gf;
  Mpz want;
  for (size_t i = 0; i < this->edges.size(); ++i) {
    const TypeParam x = gf.element(this->edges[i]);
    mpz_mul(want, this->edges[i], this->edges[i]);
    ASSERT_TRUE(gf.has_value(x.square(), want)) << "square, edge " << i;
    for (size_t j = 0; j < this->edges.size(); ++j) {
      const TypeParam y = gf.element(this->edges[j]);
      mpz_mul(want, this->edges[i], this->edges[j]);
      ASSERT_TRUE(gf.has_value(x * y, want)) << "mul, edges " << i << ", " << j;
    }
  }
}

// Montgomery limbs built limb by limb from carry-prone patterns (0, 1, 2^63 − 1, 2^63, 2^64 − 1,
// the modulus' own limbs and their neighbours, random words), kept when below p. The 6-limb
// square doubles limbs with shifts (a_j << 1, the top bit of a_{j−1} moved into the next limb),
// so every limb's top bit being set or clear, alone and next to all-ones limbs, is exercised;
// products of such values stress the carry chains of the multiplication too.
TYPED_TEST(FieldDiff, MulSquareLimbPatterns) {
  using Repr = typename TypeParam::Repr;
  auto& gf = this->gf;
  auto& g = this->g;
  auto pattern = [&](size_t k) -> uint64_t {
    const uint64_t pk = TypeParam::kModulus.limb[k];
    switch (g() % 9) {
      case 0: return 0;
      case 1: return 1;
      case 2: return (uint64_t(1) << 63) - 1;
      case 3: return uint64_t(1) << 63;
      case 4: return ~uint64_t(0);
      case 5: return pk;
      case 6: return pk - 1;
      case 7: return pk + 1;
      default: return k + 1 == TypeParam::N ? g() % pk : g();  // top limb: mostly below p's
    }
  };
  Mpz a, b, want;
  size_t done = 0;
  while (done < kIters) {
    Repr v, u;
    for (size_t k = 0; k < TypeParam::N; ++k) v.limb[k] = pattern(k), u.limb[k] = pattern(k);
    if (!ff::less_than(v, TypeParam::kModulus) || !ff::less_than(u, TypeParam::kModulus)) continue;
    const TypeParam x = TypeParam::from_montgomery(v), y = TypeParam::from_montgomery(u);
    gf.value(a, x);
    gf.value(b, y);
    mpz_mul(want, a, a);
    ASSERT_TRUE(gf.has_value(x.square(), want)) << "square, case " << done;
    mpz_mul(want, a, b);
    ASSERT_TRUE(gf.has_value(x * y, want)) << "mul, case " << done;
    if (a.sign() == 0)
      mpz_set_ui(want, 0);
    else
      mpz_invert(want, a, gf.p);
    ASSERT_TRUE(gf.has_value(ff::inverse_vartime(x), want)) << "binary GCD, case " << done;
    ++done;
  }
}

#ifdef SNARKD_FF_ADX
// The lazy-reduction kernels of Fp (Fp2 multiplication): mul_wide is the exact 768-bit product of
// any two 384-bit integers, redc(w) = w·R⁻¹ mod p for every w < p·R, fully reduced, including
// w = 0 and w = p·R − 1, the ends of its input range.
TEST(FpLazyReduction, WideProductAndRedcMatchGmp) {
  GmpField<ff::Fp> gf;
  auto g = rng("FpLazyReduction");
  Mpz a, b, w, bound, want, got;
  mpz_mul_2exp(bound, gf.p, 384);  // p·R
  uint64_t al[6], bl[6], wl[12];
  for (size_t i = 0; i < kIters; ++i) {
    for (size_t k = 0; k < 6; ++k) al[k] = g(), bl[k] = g();
    if (i % 4 == 1) std::fill(al, al + 6, ~uint64_t(0));  // 2^384 − 1
    ff::Fp::mul_wide(wl, al, bl);
    limbs_to_mpz(a, al, 6);
    limbs_to_mpz(b, bl, 6);
    mpz_mul(want, a, b);
    limbs_to_mpz(got, wl, 12);
    ASSERT_EQ(mpz_cmp(got, want), 0) << "mul_wide, i=" << i;

    switch (i % 8) {
      case 0: mpz_set_ui(w, 0); break;
      case 1: mpz_sub_ui(w, bound, 1); break;  // p·R − 1
      case 2:  // (p − 1)², the largest product of two elements
        mpz_sub_ui(w, gf.p, 1);
        mpz_mul(w, w, w);
        break;
      default:
        for (size_t k = 0; k < 12; ++k) wl[k] = g();
        limbs_to_mpz(w, wl, 12);
        mpz_mod(w, w, bound);
    }
    mpz_to_limbs(wl, 12, w);
    const ff::Fp r = ff::Fp::redc(wl);
    mpz_mul(want, w, gf.r_inv);  // the Montgomery limbs of the result are w·R⁻¹ mod p
    mpz_mod(want, want, gf.p);
    limbs_to_mpz(got, r.l, 6);
    ASSERT_EQ(mpz_cmp(got, want), 0) << "redc, i=" << i << " w=" << w.hex();
  }
}
#endif

TYPED_TEST(FieldDiff, Inverse) {
  auto& gf = this->gf;
  Mpz a, want;
  for (size_t i = 0; i < kIters; ++i) {
    TypeParam x = this->sample(a);
    if (a.sign() == 0)
      mpz_set_ui(want, 0);  // documented: inverse(0) = 0
    else
      ASSERT_NE(mpz_invert(want, a, gf.p), 0);
    ASSERT_TRUE(gf.has_value(x.inverse(), want)) << "i=" << i;
    ASSERT_TRUE(gf.has_value(ff::inverse_vartime(x), want)) << "binary GCD, i=" << i;
  }
}

TYPED_TEST(FieldDiff, Pow) {
  auto& gf = this->gf;
  constexpr size_t N = TypeParam::N;
  Mpz a, want;
  for (size_t i = 0; i < kIters; ++i) {
    TypeParam x = this->sample(a);
    switch (i % 3) {
      case 0: {  // u64 overload
        uint64_t e = this->g() >> (this->g() % 64);
        mpz_powm_ui(want, a, e, gf.p);
        ASSERT_TRUE(gf.has_value(x.pow(e), want)) << "u64 e=" << e << ", i=" << i;
        break;
      }
      case 1: {  // exponents up to the modulus width
        auto e = this->template random_exponent<N>();
        mpz_powm(want, a, to_mpz(e), gf.p);
        ASSERT_TRUE(gf.has_value(x.pow(e), want)) << "i=" << i;
        break;
      }
      default: {  // exponents wider than p (reduction of the exponent is not assumed)
        auto e = this->template random_exponent<N + 2>();
        mpz_powm(want, a, to_mpz(e), gf.p);
        ASSERT_TRUE(gf.has_value(x.pow(e), want)) << "i=" << i;
      }
    }
  }
}

TYPED_TEST(FieldDiff, Legendre) {
  Mpz a;
  int seen[3] = {};
  for (size_t i = 0; i < kIters; ++i) {
    TypeParam x = this->sample(a);
    const int want = mpz_legendre(a, this->gf.p);
    ASSERT_EQ(x.legendre(), want) << "value " << a.hex();
    ++seen[want + 1];
  }
  EXPECT_GT(seen[0], 0);  // both residues and non-residues were exercised
  EXPECT_GT(seen[2], 0);
}

TYPED_TEST(FieldDiff, Sqrt) {
  auto& gf = this->gf;
  Mpz a, root_sq;
  const TypeParam sentinel = TypeParam::from_montgomery(ff::BigInt<TypeParam::N>::from_u64(12345));
  size_t found = 0;
  for (size_t i = 0; i < kIters; ++i) {
    TypeParam x = this->sample(a);
    if (i % 2) {  // every other input is a square by construction
      mpz_mul(a, a, a);
      mpz_mod(a, a, gf.p);
      x = gf.element(a);
    }
    TypeParam root = sentinel;
    const bool ok = x.sqrt(root);
    ASSERT_EQ(ok, mpz_legendre(a, gf.p) != -1) << "value " << a.hex();
    if (!ok) {
      ASSERT_TRUE(root == sentinel) << "failed sqrt wrote its output";
      continue;
    }
    ++found;
    gf.value(root_sq, root);
    mpz_mul(root_sq, root_sq, root_sq);
    ASSERT_TRUE(gf.has_value(gf.element(root_sq), a)) << "root² ≠ x, i=" << i;
  }
  EXPECT_GT(found, kIters / 2);
}

TYPED_TEST(FieldDiff, FromIntegers) {
  auto& gf = this->gf;
  const uint64_t u_edges[] = {0, 1, 2, std::numeric_limits<uint64_t>::max(),
                              uint64_t(1) << 63, (uint64_t(1) << 63) - 1};
  const int64_t i_edges[] = {0, 1, -1, -2, std::numeric_limits<int64_t>::min(),
                             std::numeric_limits<int64_t>::max()};
  Mpz want;
  for (size_t i = 0; i < kIters; ++i) {
    const uint64_t u = i < 6 ? u_edges[i] : this->g() >> (this->g() % 64);
    const int64_t s = i < 6 ? i_edges[i] : int64_t(this->g()) >> (this->g() % 64);
    limbs_to_mpz(want, &u, 1);
    ASSERT_TRUE(gf.has_value(TypeParam::from_u64(u), want)) << "from_u64(" << u << ")";
    const uint64_t mag = s < 0 ? uint64_t(0) - uint64_t(s) : uint64_t(s);
    limbs_to_mpz(want, &mag, 1);
    if (s < 0) mpz_neg(want, want);
    ASSERT_TRUE(gf.has_value(TypeParam::from_i64(s), want)) << "from_i64(" << s << ")";
  }
  EXPECT_TRUE(TypeParam::from_u64(0).is_zero());
  EXPECT_TRUE(TypeParam::from_u64(1).is_one());
  EXPECT_TRUE(gf.has_value(TypeParam::one(), Mpz(1)));
  EXPECT_TRUE(gf.has_value(TypeParam::zero(), Mpz(0)));
}

TYPED_TEST(FieldDiff, ReprRoundTrip) {
  using F = TypeParam;
  auto& gf = this->gf;
  Mpz a, mont;
  for (size_t i = 0; i < kIters; ++i) {
    F x = this->sample(a);
    const auto repr = to_bigint<F::N>(a);
    ASSERT_EQ(x.to_repr(), repr) << "to_repr, i=" << i;
    F y;
    ASSERT_TRUE(F::from_repr(repr, y));
    ASSERT_TRUE(y == x) << "from_repr, i=" << i;
    ASSERT_TRUE(F::from_repr_unchecked(repr) == x) << "from_repr_unchecked, i=" << i;
    mpz_mul(mont, a, gf.r);
    mpz_mod(mont, mont, gf.p);
    ASSERT_EQ(x.montgomery(), to_bigint<F::N>(mont)) << "montgomery, i=" << i;
  }
}

// Canonical encodings: bytes must equal GMP's export of the value; decoding random byte strings
// must accept exactly those below p.
TYPED_TEST(FieldDiff, CanonicalBytes) {
  using F = TypeParam;
  constexpr size_t kB = F::kBytes;
  auto& gf = this->gf;
  Mpz a, v;
  uint8_t got[kB], want[kB];
  for (size_t i = 0; i < kIters; ++i) {
    F x = this->sample(a);
    for (bool be : {false, true}) {
      mpz_to_bytes(want, kB, a, be);
      be ? x.to_bytes_be(got) : x.to_bytes_le(got);
      ASSERT_EQ(std::memcmp(got, want, kB), 0)
          << (be ? "to_bytes_be" : "to_bytes_le") << ", i=" << i;
      F y;
      ASSERT_TRUE(be ? F::from_bytes_be(want, y) : F::from_bytes_le(want, y));
      ASSERT_TRUE(y == x) << "from_bytes, be=" << be << ", i=" << i;
      // Random strings: the top byte is masked to kBits so about half fall below p.
      for (size_t k = 0; k < kB; ++k) got[k] = uint8_t(this->g());
      got[be ? 0 : kB - 1] &= uint8_t((1u << (F::kBits - 8 * (kB - 1))) - 1);
      mpz_import(v, kB, be ? 1 : -1, 1, 0, 0, got);
      const F before = x;
      y = x;
      const bool ok = be ? F::from_bytes_be(got, y) : F::from_bytes_le(got, y);
      ASSERT_EQ(ok, mpz_cmp(v, gf.p) < 0) << "value " << v.hex();
      ASSERT_TRUE(ok ? gf.has_value(y, v) : ::testing::AssertionResult(y == before))
          << "random decode, be=" << be << ", i=" << i;
    }
  }
}

// Montgomery encoding: bytes are value·2^(64N) mod p, little-endian.
TYPED_TEST(FieldDiff, MontgomeryBytes) {
  using F = TypeParam;
  constexpr size_t kB = F::kBytes;
  auto& gf = this->gf;
  Mpz a, mont, v;
  uint8_t got[kB], want[kB];
  for (size_t i = 0; i < kIters; ++i) {
    F x = this->sample(a);
    mpz_mul(mont, a, gf.r);
    mpz_mod(mont, mont, gf.p);
    mpz_to_bytes(want, kB, mont, false);
    x.to_montgomery_bytes_le(got);
    ASSERT_EQ(std::memcmp(got, want, kB), 0) << "to_montgomery_bytes_le, i=" << i;
    F y;
    ASSERT_TRUE(F::from_montgomery_bytes_le(want, y));
    ASSERT_TRUE(gf.has_value(y, a)) << "from_montgomery_bytes_le, i=" << i;
    for (size_t k = 0; k < kB; ++k) got[k] = uint8_t(this->g());
    got[kB - 1] &= uint8_t((1u << (F::kBits - 8 * (kB - 1))) - 1);
    mpz_import(v, kB, -1, 1, 0, 0, got);
    y = x;
    const bool ok = F::from_montgomery_bytes_le(got, y);
    ASSERT_EQ(ok, mpz_cmp(v, gf.p) < 0) << "value " << v.hex();
    if (!ok) {
      ASSERT_TRUE(y == x) << "rejected decode wrote its output";
      continue;
    }
    mpz_mul(v, v, gf.r_inv);
    ASSERT_TRUE(gf.has_value(y, v)) << "random montgomery decode, i=" << i;
  }
}

// p, p + 1 and 2^(8·kBytes) − 1 are rejected by every decoder; p − 1 is accepted.
TYPED_TEST(FieldDiff, DecodersRejectOutOfRange) {
  using F = TypeParam;
  constexpr size_t kB = F::kBytes;
  auto& gf = this->gf;
  Mpz p1, all_ones, pm1;
  mpz_add_ui(p1, gf.p, 1);
  mpz_setbit(all_ones, 8 * kB);
  mpz_sub_ui(all_ones, all_ones, 1);
  mpz_sub_ui(pm1, gf.p, 1);
  const F marker = F::from_u64(77);
  uint8_t buf[kB];
  for (mpz_srcptr bad : {static_cast<mpz_srcptr>(gf.p), static_cast<mpz_srcptr>(p1),
                         static_cast<mpz_srcptr>(all_ones)}) {
    F y = marker;
    mpz_to_bytes(buf, kB, bad, false);
    EXPECT_FALSE(F::from_bytes_le(buf, y));
    EXPECT_FALSE(F::from_montgomery_bytes_le(buf, y));
    EXPECT_FALSE(F::from_repr(to_bigint<F::N>(bad), y));
    mpz_to_bytes(buf, kB, bad, true);
    EXPECT_FALSE(F::from_bytes_be(buf, y));
    EXPECT_TRUE(y == marker) << "a rejecting decoder wrote its output";
  }
  F y;
  mpz_to_bytes(buf, kB, pm1, false);
  ASSERT_TRUE(F::from_bytes_le(buf, y));
  EXPECT_TRUE(gf.has_value(y, pm1));
  ASSERT_TRUE(F::from_montgomery_bytes_le(buf, y));
  EXPECT_TRUE(y.montgomery() == to_bigint<F::N>(pm1));
  mpz_to_bytes(buf, kB, pm1, true);
  ASSERT_TRUE(F::from_bytes_be(buf, y));
  EXPECT_TRUE(gf.has_value(y, pm1));
}

// Vectors of many lengths (≥ 100,000 elements in all), about 1 in 10 entries zero.
TYPED_TEST(FieldDiff, BatchInverse) {
  using F = TypeParam;
  auto& gf = this->gf;
  size_t total = 0;
  Mpz want;
  std::vector<Mpz> vals;
  std::vector<F> v;
  for (size_t round = 0; total < kIters; ++round) {
    const size_t n = round < 4 ? round : 1 + this->g() % 2000;
    const bool all_zero = round == 4;
    vals.resize(n);
    v.resize(n);
    for (size_t i = 0; i < n; ++i) {
      v[i] = this->sample(vals[i]);
      if (all_zero || this->g() % 10 == 0) {
        mpz_set_ui(vals[i], 0);
        v[i] = F::zero();
      }
    }
    ff::batch_inverse(std::span<F>(v));
    for (size_t i = 0; i < n; ++i) {
      if (vals[i].sign() == 0)
        mpz_set_ui(want, 0);
      else
        mpz_invert(want, vals[i], gf.p);
      ASSERT_TRUE(gf.has_value(v[i], want)) << "round " << round << ", n=" << n << ", i=" << i;
    }
    total += n;
  }
}

// random() must produce reduced Montgomery limbs covering the top bit range.
TYPED_TEST(FieldDiff, RandomIsReduced) {
  using F = TypeParam;
  bool top_bit_seen = false;
  for (size_t i = 0; i < kIters; ++i) {
    F x = F::random(this->g);
    ASSERT_TRUE(ff::less_than(x.montgomery(), F::kModulus));
    top_bit_seen |= x.montgomery().bit(F::kBits - 1);
  }
  EXPECT_TRUE(top_bit_seen);
}

}  // namespace
}  // namespace snarkd::test
