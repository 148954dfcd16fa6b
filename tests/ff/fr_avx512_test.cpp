// Differential tests of the eight-lane AVX-512 IFMA Fr arithmetic (ff/fr_avx512.hpp) against
// GMP: every operation on 100,000 × 8 lanes, one lane in eight drawn from edge values, inputs
// spread over each operation's whole allowed range (the lazy bounds < 2r, < 4r, < 16r), and the
// outputs checked for both value and bound. Skipped (with a message) where the CPU lacks IFMA.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/gmp_util.hpp"
#include "common/seed.hpp"
#include "snarkd/ff/fr.hpp"
#include "snarkd/ff/fr_avx512.hpp"

namespace snarkd::test {
namespace {

using ff::Fr;
namespace vx = ff::avx512;

constexpr size_t kIters = 100000;
constexpr size_t kLanes = 8;

// Lane values as GMP integers, limb k of lane j at limbs[k][j].
struct Lanes {
  uint64_t limbs[vx::kLimbs52][kLanes];
};

void to_mpz52(mpz_ptr out, const Lanes& x, size_t lane) {
  mpz_set_ui(out, 0);
  for (size_t k = vx::kLimbs52; k-- > 0;) {
    mpz_mul_2exp(out, out, 52);
    mpz_add_ui(out, out, x.limbs[k][lane]);
  }
}
// x < 2^260 split into normalised 52-bit limbs.
void from_mpz52(Lanes& out, size_t lane, mpz_srcptr x) {
  Mpz t, piece;
  mpz_set(t, x);
  for (size_t k = 0; k < vx::kLimbs52; ++k) {
    mpz_fdiv_r_2exp(piece, t, 52);
    out.limbs[k][lane] = mpz_get_ui(piece);
    mpz_fdiv_q_2exp(t, t, 52);
  }
  EXPECT_EQ(t.sign(), 0) << "value does not fit 260 bits";
}
bool normalised(const Lanes& x, size_t lane) {
  for (size_t k = 0; k + 1 < vx::kLimbs52; ++k)
    if (x.limbs[k][lane] > vx::kMask52) return false;
  return x.limbs[vx::kLimbs52 - 1][lane] <= vx::kMask52;
}

#ifdef SNARKD_HAVE_AVX512_IFMA_CODE
SNARKD_AVX512_TARGET vx::Fr8 load(const Lanes& x) {
  vx::Fr8 v;
  for (size_t k = 0; k < vx::kLimbs52; ++k) v.v[k] = _mm512_loadu_si512(x.limbs[k]);
  return v;
}
SNARKD_AVX512_TARGET Lanes save(const vx::Fr8& v) {
  Lanes x;
  for (size_t k = 0; k < vx::kLimbs52; ++k) _mm512_storeu_si512(x.limbs[k], v.v[k]);
  return x;
}
enum class Op { kMul, kAdd, kSub, kAddLazy, kSubLazy };
SNARKD_AVX512_TARGET Lanes apply(Op op, const Lanes& a, const Lanes& b) {
  const vx::Fr8 x = load(a), y = load(b);
  switch (op) {
    case Op::kMul: return save(vx::mul(x, y));
    case Op::kAdd: return save(vx::add(x, y));
    case Op::kSub: return save(vx::sub(x, y));
    case Op::kAddLazy: return save(vx::add_lazy(x, y));
    case Op::kSubLazy: return save(vx::sub_lazy(x, y));
  }
  return {};
}
SNARKD_AVX512_TARGET void copy_contiguous(const Fr* in, Fr* out) {
  vx::store_contiguous(out, vx::load_contiguous(in));
}
SNARKD_AVX512_TARGET void copy_strided(const Fr* in, size_t in_stride, Fr* out, size_t out_stride) {
  vx::store_strided(out, out_stride, vx::load_strided(in, in_stride));
}
// x < 2r (52-bit lanes) stored as Fr: reduced to < r on the way.
SNARKD_AVX512_TARGET void store_lanes(const Lanes& x, Fr* out) { vx::store_contiguous(out, load(x)); }
SNARKD_AVX512_TARGET Lanes load_lanes(const Fr* in) { return save(vx::load_contiguous(in)); }
// The NTT's use: Fr products a·b with b pre-scaled by 16, through the 64-bit layout.
SNARKD_AVX512_TARGET void fr_products(const Fr* a, const Fr* b16, Fr* out) {
  vx::store_contiguous(out, vx::mul(vx::load_contiguous(a), vx::load_contiguous(b16)));
}
#endif

class FrAvx512 : public ::testing::Test {
 protected:
  GmpField<Fr> gf;
  std::mt19937_64 g;
  Mpz two_r, four_r, sixteen_r, r_inv260, m52;
  std::vector<Mpz> edges;  // edge values of [0, r)

  void SetUp() override {
    if (!vx::ifma_supported()) GTEST_SKIP() << "this CPU has no AVX-512 IFMA: lane kernels not run";
    g = current_test_rng();
    mpz_mul_ui(two_r, gf.p, 2);
    mpz_mul_ui(four_r, gf.p, 4);
    mpz_mul_ui(sixteen_r, gf.p, 16);
    Mpz r260;
    mpz_setbit(r260, 260);
    mpz_invert(r_inv260, r260, gf.p);
    mpz_setbit(m52, 52);
    for (uint64_t s : {0, 1, 2}) mpz_set_ui(edges.emplace_back(), s);
    for (uint64_t s : {1, 2}) mpz_sub_ui(edges.emplace_back(), gf.p, s);
    for (size_t bit : {52, 104, 156, 208, 64, 128, 192, 254}) {  // radix and limb boundaries
      mpz_setbit(edges.emplace_back(), bit);
      Mpz& below = edges.emplace_back();
      mpz_setbit(below, bit);
      mpz_sub_ui(below, below, 1);
    }
  }
  // A value in [0, bound): 1 in 8 an edge value e or bound − 1 − e (kept if < bound),
  // otherwise uniform.
  void sample(mpz_ptr out, mpz_srcptr bound) {
    if (g() % 8 == 0) {
      mpz_set(out, edges[g() % edges.size()]);
      if (g() % 2) {
        mpz_sub(out, bound, out);
        mpz_sub_ui(out, out, 1);
      }
      if (mpz_sgn(out) >= 0 && mpz_cmp(out, bound) < 0) return;
    }
    // Uniform below bound from 320 random bits (bias < 2^−60).
    mpz_set_ui(out, 0);
    for (int i = 0; i < 5; ++i) {
      mpz_mul_2exp(out, out, 64);
      mpz_add_ui(out, out, g());
    }
    mpz_mod(out, out, bound);
  }
  // Runs op on random lanes a < bound_a, b < bound_b; checks each lane against want(a, b) mod r
  // and the result's bound and normalisation.
  template <class Want>
  void check(Op op, mpz_srcptr bound_a, mpz_srcptr bound_b, mpz_srcptr bound_out, Want want) {
#ifdef SNARKD_HAVE_AVX512_IFMA_CODE
    Mpz a[kLanes], b[kLanes], got, w;
    Lanes la, lb;
    for (size_t i = 0; i < kIters; ++i) {
      for (size_t j = 0; j < kLanes; ++j) {
        sample(a[j], bound_a);
        sample(b[j], bound_b);
        from_mpz52(la, j, a[j]);
        from_mpz52(lb, j, b[j]);
      }
      const Lanes out = apply(op, la, lb);
      for (size_t j = 0; j < kLanes; ++j) {
        to_mpz52(got, out, j);
        ASSERT_TRUE(normalised(out, j)) << "i=" << i << " lane " << j;
        ASSERT_LT(mpz_cmp(got, bound_out), 0) << "i=" << i << " lane " << j << ": " << got.hex();
        want(w, a[j], b[j]);
        mpz_sub(w, got, w);
        ASSERT_TRUE(mpz_divisible_p(w, gf.p))
            << "i=" << i << " lane " << j << ": a=" << a[j].hex() << " b=" << b[j].hex()
            << " got " << got.hex();
      }
    }
#else
    (void)op, (void)bound_a, (void)bound_b, (void)bound_out, (void)want;
#endif
  }
};

TEST_F(FrAvx512, ConstantsMatchGmp) {
  Mpz r, two, inv, t;
  Lanes x{};
  for (size_t k = 0; k < vx::kLimbs52; ++k) {
    x.limbs[k][0] = vx::kR52[k];
    x.limbs[k][1] = vx::kTwoR52[k];
  }
  to_mpz52(r, x, 0);
  to_mpz52(two, x, 1);
  EXPECT_TRUE(r == gf.p);
  EXPECT_TRUE(two == two_r);
  // kNegInv52 = −r⁻¹ mod 2^52.
  mpz_invert(inv, gf.p, m52);
  mpz_neg(inv, inv);
  mpz_mod(inv, inv, m52);
  EXPECT_EQ(mpz_get_ui(inv), vx::kNegInv52);
  // scaled16(x) is x·16 as an Fr value.
  mpz_set_ui(t, 16);
  const Fr y = Fr::random(g);
  Mpz v;
  gf.value(v, y);
  mpz_mul(v, v, t);
  EXPECT_TRUE(gf.has_value(vx::scaled16(y), v));
}

// Raw Montgomery product over its whole input range: a < 16r, b < 2r → a·b·2^−260, < 2r.
TEST_F(FrAvx512, MulLazyRange) {
  check(Op::kMul, sixteen_r, two_r, two_r, [&](mpz_ptr w, mpz_srcptr a, mpz_srcptr b) {
    mpz_mul(w, a, b);
    mpz_mul(w, w, r_inv260);
  });
}
TEST_F(FrAvx512, AddSubModTwoR) {
  check(Op::kAdd, two_r, two_r, two_r, [](mpz_ptr w, mpz_srcptr a, mpz_srcptr b) { mpz_add(w, a, b); });
  check(Op::kSub, two_r, two_r, two_r, [](mpz_ptr w, mpz_srcptr a, mpz_srcptr b) { mpz_sub(w, a, b); });
}
TEST_F(FrAvx512, LazyAddSubStayBelowFourR) {
  check(Op::kAddLazy, two_r, two_r, four_r,
        [](mpz_ptr w, mpz_srcptr a, mpz_srcptr b) { mpz_add(w, a, b); });
  check(Op::kSubLazy, two_r, two_r, four_r,
        [](mpz_ptr w, mpz_srcptr a, mpz_srcptr b) { mpz_sub(w, a, b); });
}

#ifdef SNARKD_HAVE_AVX512_IFMA_CODE
// Fr products through the 64-bit layout (load, transpose, product with a scaled16 operand,
// reduction to < r, store) equal GMP's, limbs fully reduced; outputs start poisoned.
TEST_F(FrAvx512, FrProductsThroughLayout) {
  std::vector<Fr> a(kLanes), b(kLanes), b16(kLanes), out(kLanes);
  Mpz va, vb, want;
  for (size_t i = 0; i < kIters; ++i) {
    for (size_t j = 0; j < kLanes; ++j) {
      sample(va, gf.p);
      sample(vb, gf.p);
      a[j] = gf.element(va);
      b[j] = gf.element(vb);
      b16[j] = vx::scaled16(b[j]);
    }
    std::memset(static_cast<void*>(out.data()), 0xA5, kLanes * sizeof(Fr));
    fr_products(a.data(), b16.data(), out.data());
    for (size_t j = 0; j < kLanes; ++j) {
      ASSERT_TRUE(gf.has_value(out[j], gf.value(a[j] * b[j]))) << "i=" << i << " lane " << j;
      ASSERT_EQ(out[j], a[j] * b[j]);
    }
  }
}

// Loads and stores: contiguous and strided copies are exact, touch nothing between strided
// elements, and a lane value in [r, 2r) is stored reduced.
TEST_F(FrAvx512, LoadStoreRoundTrips) {
  constexpr size_t kStride = 5;
  std::vector<Fr> in(kLanes * kStride), out(kLanes * kStride);
  Mpz v;
  Fr poison;
  std::memset(static_cast<void*>(&poison), 0xA5, sizeof poison);
  for (size_t i = 0; i < kIters / 8; ++i) {
    for (Fr& x : in) {
      sample(v, gf.p);
      x = gf.element(v);
    }
    std::fill(out.begin(), out.end(), poison);
    copy_contiguous(in.data(), out.data());
    for (size_t j = 0; j < kLanes; ++j) ASSERT_EQ(out[j], in[j]) << "contiguous, lane " << j;
    std::fill(out.begin(), out.end(), poison);
    copy_strided(in.data(), kStride, out.data(), kStride);
    for (size_t j = 0; j < in.size(); ++j) {
      if (j % kStride == 0)
        ASSERT_EQ(out[j], in[j]) << "strided, element " << j;
      else
        ASSERT_EQ(out[j], poison) << "strided store wrote element " << j;
    }
    // Lane limbs of the loaded values equal the 52-bit split of the Montgomery limbs.
    const Lanes l = load_lanes(in.data());
    for (size_t j = 0; j < kLanes; ++j) {
      const auto s = vx::split52(in[j].montgomery());
      for (size_t k = 0; k < vx::kLimbs52; ++k) ASSERT_EQ(l.limbs[k][j], s[k]);
    }
  }
  // [r, 2r) reduces on store.
  Lanes x;
  std::vector<Fr> want(kLanes);
  for (size_t j = 0; j < kLanes; ++j) {
    sample(v, gf.p);
    want[j] = Fr::from_montgomery(to_bigint<4>(v));
    mpz_add(v, v, gf.p);
    from_mpz52(x, j, v);
  }
  store_lanes(x, out.data());
  for (size_t j = 0; j < kLanes; ++j) EXPECT_EQ(out[j], want[j]) << "lane " << j;
}
#endif

}  // namespace
}  // namespace snarkd::test
