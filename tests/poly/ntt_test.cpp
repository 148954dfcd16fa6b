// NTT tests over both scalar fields, one typed suite: BLS12-381's Fr on each kernel set (portable,
// AVX-512 IFMA) and BN254's Fr on the portable kernels (the only ones it has). Expected values come
// from naive evaluation (Horner at ω^j or shift·ω^j, ω computed here as g^((r−1)/n)), never from
// the transform under test, and inverse transforms must map those evaluations back; round trips
// and algebraic identities cover the sizes where naive evaluation is too slow. Small pass_log values force the multi-pass (column) schedules at small
// sizes.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/fr_util.hpp"
#include "common/seed.hpp"
#include "snarkd/ff/bn254.hpp"
#include "snarkd/ff/fr.hpp"
#include "snarkd/ff/fr_avx512.hpp"
#include "snarkd/poly/ntt.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::poly {
namespace {

using test::evaluate;
using test::expected_root;

// Quadratic non-residues mod r of both curves: snarkjs's domains (5) and bellperson's (7).
constexpr uint64_t kGenerators[] = {ff::kSnarkjsDomainGenerator, ff::kBellpersonDomainGenerator};

// Evaluations at shift·ω^j for all j (shift = 1: the plain DFT).
template <class F>
std::vector<F> naive_eval(std::type_identity_t<std::span<const F>> c, const F& omega, const F& shift) {
  std::vector<F> out(c.size());
  F x = shift;
  for (F& o : out) {
    o = evaluate(c, x);
    x = x * omega;
  }
  return out;
}

size_t index_reverse(size_t i, uint32_t bits) {
  size_t r = 0;
  for (uint32_t b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
  return r;
}

template <class F>
std::vector<F> reversed_copy(std::type_identity_t<std::span<const F>> v, uint32_t log_n) {
  std::vector<F> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[index_reverse(i, log_n)] = v[i];
  return out;
}

std::string label(uint32_t log_n, uint64_t gen, uint32_t pass_log) {
  return "log_n=" + std::to_string(log_n) + " generator=" + std::to_string(gen) +
         " pass_log=" + std::to_string(pass_log);
}

// The six transforms without a shift, by direction and order (natural or bit-reversed, in and out).
template <class F>
struct Transform {
  const char* name;
  void (*fn)(const DomainT<F>&, Data<F>);
  bool forward, reversed_in, reversed_out;
};
template <class F>
constexpr Transform<F> kTransforms[] = {
    {"ntt", ntt<F>, true, false, false},       {"intt", intt<F>, false, false, false},
    {"ntt_nr", ntt_nr<F>, true, false, true},  {"ntt_rn", ntt_rn<F>, true, true, false},
    {"intt_nr", intt_nr<F>, false, false, true}, {"intt_rn", intt_rn<F>, false, true, false}};

// A scalar field and the kernels its transforms run on. The AVX-512 setup is skipped with a
// message on CPUs without IFMA.
template <class F, NttKernels K>
struct Setup {
  using Field = F;
  static constexpr NttKernels kKernels = K;
};
using Setups = ::testing::Types<Setup<ff::Fr, NttKernels::kPortable>, Setup<ff::Fr, NttKernels::kAvx512Ifma>,
                                Setup<ff::bn254::Fr, NttKernels::kPortable>>;
template <class F>
const char* field_name() {
  return std::is_same_v<F, ff::Fr> ? "bls12_381" : "bn254";
}
struct SetupNames {
  template <class S>
  static std::string GetName(int) {
    return std::string(field_name<typename S::Field>()) +
           (S::kKernels == NttKernels::kPortable ? "_portable" : "_avx512");
  }
};

// Per test: its seeded stream and the field's domain type.
template <class F>
class FieldTest : public ::testing::Test {
 protected:
  using Dom = DomainT<F>;
  std::mt19937_64 g = test::current_test_rng();
  std::vector<F> random_vector(size_t n) { return test::random_vector<F>(g, n); }
  F random() { return F::random(g); }
};
struct FieldNames {
  template <class F>
  static std::string GetName(int) {
    return field_name<F>();
  }
};
using Fields = ::testing::Types<ff::Fr, ff::bn254::Fr>;

// What does not depend on the kernels, once per field.
template <class F>
class ScaleByPowers : public FieldTest<F> {};
TYPED_TEST_SUITE(ScaleByPowers, Fields, FieldNames);
template <class F>
class ArgumentChecks : public FieldTest<F> {};
TYPED_TEST_SUITE(ArgumentChecks, Fields, FieldNames);

// The transforms, once per setup: domains are built for the setup's kernels.
template <class S>
class KernelTest : public FieldTest<typename S::Field> {
 protected:
  using F = typename S::Field;
  using Dom = DomainT<F>;
  void SetUp() override {
    if (S::kKernels == NttKernels::kAvx512Ifma && !ff::avx512::ifma_supported())
      GTEST_SKIP() << "this CPU has no AVX-512 IFMA: the AVX-512 NTT kernels are not run";
  }
  Dom domain(uint32_t log_n, uint64_t gen, uint32_t pass_log = Dom::kDefaultPassLog) const {
    Dom d(log_n, gen, pass_log, S::kKernels);
    EXPECT_EQ(d.kernels(), S::kKernels);
    return d;
  }
};
#define SNARKD_KERNEL_SUITE(Suite)       \
  template <class S>                     \
  class Suite : public KernelTest<S> {}; \
  TYPED_TEST_SUITE(Suite, Setups, SetupNames)
SNARKD_KERNEL_SUITE(DomainKernels);
SNARKD_KERNEL_SUITE(Ntt);
SNARKD_KERNEL_SUITE(Coset);
SNARKD_KERNEL_SUITE(BitReversed);

// Every size up to 2^F::kTwoAdicity.
TYPED_TEST(DomainKernels, RootsHaveExactOrder) {
  using F = typename TestFixture::F;
  using Dom = typename TestFixture::Dom;
  for (uint64_t gen : kGenerators) {
    for (uint32_t log_n = 0; log_n <= Dom::kMaxLogSize; ++log_n) {
      const Dom d = this->domain(log_n, gen);
      SCOPED_TRACE(label(log_n, gen, Dom::kDefaultPassLog));
      EXPECT_EQ(d.size(), size_t{1} << log_n);
      EXPECT_EQ(d.omega(), expected_root<F>(log_n, gen));
      F w = d.omega();
      for (uint32_t i = 1; i < log_n; ++i) w = w.square();
      EXPECT_EQ(w, log_n == 0 ? F::one() : -F::one());  // ω^(n/2) = −1: order exactly n
      EXPECT_EQ(d.omega() * d.omega_inv(), F::one());
      EXPECT_EQ(d.size_inv() * F::from_u64(uint64_t{1} << log_n), F::one());
    }
  }
  // The two conventions give different roots (snarkjs and bellperson keys are not mixable).
  EXPECT_NE(Dom(10, 5).omega(), Dom(10, 7).omega());
}

// Every transform and order against the naive DFT: the forward ones map c to its naive
// evaluations, the inverse ones map those back to c. Each size to 2^12 with generator 5 and to
// 2^8 with 7, and pass schedules of one pass to twelve (pass_log 12, 3, 2, 1).
TYPED_TEST(Ntt, MatchesNaiveDft) {
  using F = typename TestFixture::F;
  using Dom = typename TestFixture::Dom;
  for (uint64_t gen : kGenerators) {
    for (uint32_t log_n = 0; log_n <= (gen == kGenerators[0] ? 12u : 8u); ++log_n) {
      const std::vector<F> c = this->random_vector(size_t{1} << log_n);
      F shift = this->random();
      if (shift.is_zero()) shift = F::one();
      const F omega = expected_root<F>(log_n, gen);
      const std::vector<F> evals = naive_eval<F>(c, omega, F::one()), coset_evals = naive_eval<F>(c, omega, shift);
      for (uint32_t pass_log : {Dom::kDefaultPassLog, 3u, 2u, 1u}) {
        SCOPED_TRACE(label(log_n, gen, pass_log));
        const Dom d = this->domain(log_n, gen, pass_log);
        for (const Transform<F>& t : kTransforms<F>) {
          std::vector<F> x = t.forward ? c : evals;
          if (t.reversed_in) x = reversed_copy<F>(x, log_n);
          t.fn(d, x);
          const std::vector<F>& want = t.forward ? evals : c;
          ASSERT_EQ(x, t.reversed_out ? reversed_copy<F>(want, log_n) : want) << t.name;
        }
        std::vector<F> x = c;
        coset_ntt(d, x, shift);
        ASSERT_EQ(x, coset_evals) << "coset_ntt";
        coset_intt(d, x, shift);
        ASSERT_EQ(x, c) << "coset_intt";
      }
    }
  }
}

// Large sizes, including the multi-pass schedules and 2^21, the first size whose column passes
// derive their twiddles instead of reading the full table: a few outputs of ntt and coset_ntt
// against Horner (O(n) each), and coset_intt back (RoundTrips has ntt's).
TYPED_TEST(Ntt, MatchesNaiveAtSampledOutputs) {
  using F = typename TestFixture::F;
  struct Case {
    uint32_t log_n, pass_log;
  };
  for (Case k : {Case{13, 12}, Case{16, 12}, Case{20, 12}, Case{21, 12}, Case{14, 4}, Case{15, 5}}) {
    const uint64_t gen = kGenerators[k.log_n % 2];
    SCOPED_TRACE(label(k.log_n, gen, k.pass_log));
    const auto d = this->domain(k.log_n, gen, k.pass_log);
    const std::vector<F> c = this->random_vector(d.size());
    const F shift = this->random();
    std::vector<F> a = c, b = c;
    ntt(d, a);
    coset_ntt(d, b, shift);
    const F omega = expected_root<F>(k.log_n, gen);
    auto& g = this->g;
    for (size_t j : {size_t{0}, size_t{1}, d.size() / 2 + 1, d.size() - 1, size_t(g() % d.size()),
                     size_t(g() % d.size())})
      EXPECT_EQ(a[j], evaluate(c, omega.pow(j))) << "j=" << j;
    for (size_t j : {size_t{0}, size_t{1}, d.size() - 1, size_t(g() % d.size())})
      EXPECT_EQ(b[j], evaluate(c, shift * omega.pow(j))) << "coset j=" << j;
    coset_intt(d, b, shift);
    EXPECT_TRUE(b == c) << "coset_intt(coset_ntt(x)) != x";
  }
}

// Every size to 2^18, then 2^20 and 2^22 (the largest dominate the run time).
TYPED_TEST(Ntt, RoundTrips) {
  using F = typename TestFixture::F;
  for (uint32_t log_n = 0; log_n <= 22; log_n += log_n < 18 ? 1 : 2) {
    const uint64_t gen = kGenerators[log_n % 2];
    SCOPED_TRACE(label(log_n, gen, TestFixture::Dom::kDefaultPassLog));
    const auto d = this->domain(log_n, gen);
    const std::vector<F> x = this->random_vector(d.size());
    std::vector<F> y = x;
    ntt(d, y);
    intt(d, y);
    EXPECT_TRUE(y == x) << "intt(ntt(x)) != x";
    intt(d, y);
    ntt(d, y);
    EXPECT_TRUE(y == x) << "ntt(intt(x)) != x";
  }
}

TYPED_TEST(Ntt, RoundTripsWithManyPasses) {
  using F = typename TestFixture::F;
  for (uint32_t log_n = 0; log_n <= 14; ++log_n) {
    const auto d = this->domain(log_n, 7, 3);
    const std::vector<F> x = this->random_vector(d.size());
    std::vector<F> y = x;
    ntt(d, y);
    intt(d, y);
    EXPECT_TRUE(y == x) << label(log_n, 7, 3);
  }
}

TYPED_TEST(Ntt, Linearity) {
  using F = typename TestFixture::F;
  for (uint32_t pass_log : {TestFixture::Dom::kDefaultPassLog, 3u}) {
    const auto d = this->domain(14, 5, pass_log);
    const std::vector<F> x = this->random_vector(d.size()), y = this->random_vector(d.size());
    const F s = this->random();
    std::vector<F> combo(d.size()), nx = x, ny = y;
    for (size_t i = 0; i < d.size(); ++i) combo[i] = s * x[i] + y[i];
    ntt(d, combo);
    ntt(d, nx);
    ntt(d, ny);
    for (size_t i = 0; i < d.size(); ++i) ASSERT_EQ(combo[i], s * nx[i] + ny[i]) << "i=" << i;
  }
}

TYPED_TEST(Ntt, DeltaAndConstant) {
  using F = typename TestFixture::F;
  for (uint32_t log_n = 0; log_n <= 16; ++log_n) {
    SCOPED_TRACE(label(log_n, 5, TestFixture::Dom::kDefaultPassLog));
    const auto d = this->domain(log_n, 5);
    const size_t n = d.size();
    std::vector<F> delta0(n, F::zero()), delta1(n, F::zero());
    delta0[0] = F::one();
    ntt(d, delta0);
    EXPECT_EQ(delta0, std::vector<F>(n, F::one()));  // δ_0 → all ones
    if (n > 1) {
      delta1[1] = F::one();
      ntt(d, delta1);  // δ_1 → ω^j
      F w = F::one();
      for (size_t j = 0; j < n; ++j, w = w * d.omega()) ASSERT_EQ(delta1[j], w) << "j=" << j;
    }
    const F c = this->random();
    std::vector<F> constant(n, c), expected(n, F::zero());
    expected[0] = c * F::from_u64(n);
    ntt(d, constant);  // constant → (n·c, 0, ..., 0)
    EXPECT_EQ(constant, expected);
  }
}

// Random shifts, Filecoin's (the generator 7) and snarkjs's (ω_{2n}, the 2n-th root).
TYPED_TEST(Coset, RoundTrips) {
  using F = typename TestFixture::F;
  for (uint32_t log_n : {0u, 1u, 5u, 8u, 12u, 13u, 16u}) {
    const auto d = this->domain(log_n, 5);
    for (const F& shift : {this->random(), F::from_u64(7), expected_root<F>(log_n + 1, 5)}) {
      const std::vector<F> x = this->random_vector(d.size());
      std::vector<F> y = x;
      coset_ntt(d, y, shift);
      coset_intt(d, y, shift);
      EXPECT_TRUE(y == x) << "log_n=" << log_n;
      coset_intt(d, y, shift);
      coset_ntt(d, y, shift);
      EXPECT_TRUE(y == x) << "log_n=" << log_n;
    }
  }
}

TYPED_TEST(BitReversed, PermutationMatchesIndexReversal) {
  using F = typename TestFixture::F;
  for (uint32_t log_n = 0; log_n <= 16; ++log_n) {
    const std::vector<F> x = this->random_vector(size_t{1} << log_n);
    std::vector<F> y = x;
    bit_reverse(y);
    EXPECT_TRUE(y == reversed_copy<F>(x, log_n)) << "log_n=" << log_n;
    bit_reverse(y);
    EXPECT_TRUE(y == x) << "log_n=" << log_n;
  }
}

TYPED_TEST(BitReversed, VariantsAgreeWithNaturalOrder) {
  using F = typename TestFixture::F;
  for (uint32_t pass_log : {TestFixture::Dom::kDefaultPassLog, 3u}) {
    for (uint32_t log_n = 0; log_n <= 14; ++log_n) {
      SCOPED_TRACE(label(log_n, 7, pass_log));
      const auto d = this->domain(log_n, 7, pass_log);
      const std::vector<F> x = this->random_vector(d.size());
      std::vector<F> fwd = x, inv = x;
      ntt(d, fwd);
      intt(d, inv);
      for (const Transform<F>& t : kTransforms<F>) {
        std::vector<F> y = t.reversed_in ? reversed_copy<F>(x, log_n) : x;
        t.fn(d, y);
        const std::vector<F>& want = t.forward ? fwd : inv;
        EXPECT_TRUE(y == (t.reversed_out ? reversed_copy<F>(want, log_n) : want)) << t.name;
      }
      // The documented bit-reversed coset forward: scale by powers, then ntt_nr.
      const F shift = this->random();
      std::vector<F> coset = x;
      coset_ntt(d, coset, shift);
      std::vector<F> y = x;
      scale_by_powers(y, F::one(), shift);
      ntt_nr(d, y);
      EXPECT_TRUE(y == reversed_copy<F>(coset, log_n)) << "coset via ntt_nr";
    }
  }
}

TYPED_TEST(ScaleByPowers, MatchesNaive) {
  using F = TypeParam;
  for (size_t n : {size_t{0}, size_t{1}, size_t{1000}, size_t{4099}}) {
    const std::vector<F> x = this->random_vector(n);
    const F c = this->random(), s = this->random();
    std::vector<F> y = x;
    scale_by_powers(y, c, s);
    F f = c;
    for (size_t i = 0; i < n; ++i, f = f * s) ASSERT_EQ(y[i], x[i] * f) << "n=" << n << " i=" << i;
  }
}

// The two kernel sets are twins: bit-identical outputs for every transform, on fresh random
// inputs and on inputs of extreme values (0, r − 1 and their mixtures, where lazy reductions
// would show), over the schedules the AVX-512 planner can produce (two to seven passes, odd and
// even pass sizes, pass_log 3 to the default) and generators 5 and 7.
TEST(Kernels, AvxAndPortableAgreeBitForBit) {
  if (!ff::avx512::ifma_supported()) GTEST_SKIP() << "this CPU has no AVX-512 IFMA";
  auto g = test::rng("Kernels.AvxAndPortableAgreeBitForBit");
  const Fr minus_one = -Fr::one();
  struct Case {
    uint32_t log_n, pass_log;
  };
  std::vector<Case> cases;
  for (uint32_t log_n = 5; log_n <= 14; ++log_n)
    for (uint32_t pass_log : {3u, 4u, 5u, Domain::kDefaultPassLog}) cases.push_back({log_n, pass_log});
  for (Case k : {Case{16, 12}, Case{17, 7}, Case{19, 12}, Case{20, 12}}) cases.push_back(k);
  for (Case k : cases) {
    const uint64_t gen = kGenerators[(k.log_n + k.pass_log) % 2];
    SCOPED_TRACE(label(k.log_n, gen, k.pass_log));
    const Domain p(k.log_n, gen, k.pass_log, NttKernels::kPortable);
    const Domain v(k.log_n, gen, k.pass_log, NttKernels::kAvx512Ifma);
    for (int pattern = 0; pattern < (k.log_n <= 14 ? 4 : 1); ++pattern) {  // large: random only
      std::vector<Fr> x = test::random_fr_vector(g, p.size());
      for (size_t i = 0; i < x.size(); ++i) {
        if (pattern == 1) x[i] = minus_one;
        if (pattern == 2) x[i] = i % 2 ? minus_one : Fr::zero();
        if (pattern == 3 && g() % 2) x[i] = g() % 2 ? minus_one : Fr::zero();
      }
      const Fr shift = pattern == 0 ? Fr::random(g) : Fr::from_u64(gen);
      for (const Transform<Fr>& t : kTransforms<Fr>) {
        std::vector<Fr> a = x, b = x;
        t.fn(p, a);
        t.fn(v, b);
        ASSERT_TRUE(a == b) << t.name << ", pattern " << pattern;
      }
      std::vector<Fr> a = x, b = x;
      coset_ntt(p, a, shift);
      coset_ntt(v, b, shift);
      ASSERT_TRUE(a == b) << "coset_ntt, pattern " << pattern;
      a = x, b = x;
      coset_intt(p, a, shift);
      coset_intt(v, b, shift);
      ASSERT_TRUE(a == b) << "coset_intt, pattern " << pattern;
    }
  }
}

TEST(Arguments, KernelChoice) {
  EXPECT_EQ(Domain(10, 5, Domain::kDefaultPassLog, NttKernels::kPortable).kernels(),
            NttKernels::kPortable);
  if (ff::avx512::ifma_supported())
    EXPECT_EQ(Domain(10, 5).kernels(), NttKernels::kAvx512Ifma);  // kAuto picks them
  else
    EXPECT_THROW(Domain(10, 5, Domain::kDefaultPassLog, NttKernels::kAvx512Ifma), InvalidArgument);
  // SNARKD_NTT_KERNELS steers kAuto and rejects unknown values (by name).
  ::setenv("SNARKD_NTT_KERNELS", "portable", 1);
  EXPECT_EQ(Domain(10, 5).kernels(), NttKernels::kPortable);
  ::setenv("SNARKD_NTT_KERNELS", "fast", 1);
  try {
    Domain(10, 5);
    ADD_FAILURE() << "SNARKD_NTT_KERNELS=fast accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("SNARKD_NTT_KERNELS=fast"), std::string::npos) << e.what();
  }
  ::unsetenv("SNARKD_NTT_KERNELS");
}

TYPED_TEST(ArgumentChecks, BadDomainsThrow) {
  using Dom = typename TestFixture::Dom;
  EXPECT_THROW(Dom(Dom::kMaxLogSize + 1, 5), InvalidArgument);
  EXPECT_THROW(Dom(4, 4), InvalidArgument);  // 4 is a square: ω would have order < 16
  EXPECT_THROW(Dom(1, 0), InvalidArgument);
  EXPECT_THROW(Dom(0, 0), InvalidArgument);
  EXPECT_THROW(Dom(4, 5, 0), InvalidArgument);
  EXPECT_THROW(Dom(4, 5, Dom::kMaxPassLog + 1), InvalidArgument);
  EXPECT_NO_THROW(Dom(0, 4));  // n = 1 needs only ω = 1
}

TYPED_TEST(ArgumentChecks, SizeMismatchThrows) {
  using F = TypeParam;
  const typename TestFixture::Dom d(4, 5);
  std::vector<F> wrong(15, F::one()), empty;
  for (std::vector<F>* v : {&wrong, &empty}) {
    std::span<F> s(*v);
    EXPECT_THROW(ntt(d, s), InvalidArgument);
    EXPECT_THROW(intt(d, s), InvalidArgument);
    EXPECT_THROW(coset_ntt(d, s, F::one()), InvalidArgument);
    EXPECT_THROW(coset_intt(d, s, F::one()), InvalidArgument);
    EXPECT_THROW(ntt_nr(d, s), InvalidArgument);
    EXPECT_THROW(ntt_rn(d, s), InvalidArgument);
    EXPECT_THROW(intt_nr(d, s), InvalidArgument);
    EXPECT_THROW(intt_rn(d, s), InvalidArgument);
  }
  std::vector<F> ok(16, F::one());
  EXPECT_THROW(coset_ntt(d, ok, F::zero()), InvalidArgument);
  EXPECT_THROW(coset_intt(d, ok, F::zero()), InvalidArgument);
  EXPECT_EQ(ok, std::vector<F>(16, F::one()));  // rejected calls leave the data alone
  EXPECT_THROW(bit_reverse(std::span<F>(wrong)), InvalidArgument);
  EXPECT_THROW(bit_reverse(std::span<F>(empty)), InvalidArgument);
}

}  // namespace
}  // namespace snarkd::poly
