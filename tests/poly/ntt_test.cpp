// NTT tests. Expected values come from naive evaluation with ff::Fr arithmetic (Horner at
// ω^j or shift·ω^j, ω computed here as g^((r−1)/n)), never from the transform under test;
// round trips and algebraic identities cover the sizes where naive evaluation is too slow.
// Small pass_log values force the multi-pass (column) schedules at small sizes.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <utility>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "common/fr_util.hpp"
#include "common/seed.hpp"
#include "snarkd/ff/fr.hpp"
#include "snarkd/ff/fr_avx512.hpp"
#include "snarkd/poly/ntt.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::poly {
namespace {

using test::evaluate;
using test::expected_root;

constexpr uint64_t kGenerators[] = {ff::kSnarkjsDomainGenerator, ff::kBellpersonDomainGenerator};

// Evaluations at shift·ω^j for all j (shift = 1: the plain DFT).
std::vector<Fr> naive_eval(std::span<const Fr> c, const Fr& omega, const Fr& shift) {
  std::vector<Fr> out(c.size());
  Fr x = shift;
  for (Fr& o : out) {
    o = evaluate(c, x);
    x = x * omega;
  }
  return out;
}

// Inverse DFT: c_i = n⁻¹ shift^(−i) Σ_j a_j ω^(−ij).
std::vector<Fr> naive_inverse(std::span<const Fr> a, const Fr& omega, const Fr& shift) {
  std::vector<Fr> c = naive_eval(a, omega.inverse(), Fr::one());
  const Fr n_inv = Fr::from_u64(a.size()).inverse(), s_inv = shift.inverse();
  Fr f = n_inv;
  for (Fr& x : c) {
    x = x * f;
    f = f * s_inv;
  }
  return c;
}

size_t index_reverse(size_t i, uint32_t bits) {
  size_t r = 0;
  for (uint32_t b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
  return r;
}

std::vector<Fr> reversed_copy(std::span<const Fr> v, uint32_t log_n) {
  std::vector<Fr> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[index_reverse(i, log_n)] = v[i];
  return out;
}

std::string label(uint32_t log_n, uint64_t gen, uint32_t pass_log) {
  return "log_n=" + std::to_string(log_n) + " generator=" + std::to_string(gen) +
         " pass_log=" + std::to_string(pass_log);
}

// Every transform test runs once per kernel set (portable, AVX-512 IFMA); the latter is skipped
// with a message on CPUs without IFMA.
class KernelTest : public ::testing::TestWithParam<NttKernels> {
 protected:
  void SetUp() override {
    if (GetParam() == NttKernels::kAvx512Ifma && !ff::avx512::ifma_supported())
      GTEST_SKIP() << "this CPU has no AVX-512 IFMA: the AVX-512 NTT kernels are not run";
  }
  Domain domain(uint32_t log_n, uint64_t gen, uint32_t pass_log = Domain::kDefaultPassLog) const {
    Domain d(log_n, gen, pass_log, GetParam());
    EXPECT_EQ(d.kernels(), GetParam());
    return d;
  }
};
std::string kernel_name(const ::testing::TestParamInfo<NttKernels>& info) {
  return info.param == NttKernels::kPortable ? "portable" : "avx512";
}
#define SNARKD_KERNEL_SUITE(Suite)                                                          \
  class Suite : public KernelTest {};                                                        \
  INSTANTIATE_TEST_SUITE_P(Kernels, Suite,                                                  \
                           ::testing::Values(NttKernels::kPortable, NttKernels::kAvx512Ifma), \
                           kernel_name)
SNARKD_KERNEL_SUITE(DomainKernels);
SNARKD_KERNEL_SUITE(Ntt);
SNARKD_KERNEL_SUITE(Coset);
SNARKD_KERNEL_SUITE(BitReversed);

TEST_P(DomainKernels, RootsHaveExactOrder) {
  for (uint64_t gen : kGenerators) {
    for (uint32_t log_n : {0u, 1u, 2u, 10u, 20u, 27u, 31u, 32u}) {
      const Domain d = domain(log_n, gen);
      SCOPED_TRACE(label(log_n, gen, Domain::kDefaultPassLog));
      EXPECT_EQ(d.size(), size_t{1} << log_n);
      EXPECT_EQ(d.omega(), expected_root(log_n, gen));
      Fr w = d.omega();
      for (uint32_t i = 1; i < log_n; ++i) w = w.square();
      EXPECT_EQ(w, log_n == 0 ? Fr::one() : -Fr::one());  // ω^(n/2) = −1: order exactly n
      EXPECT_EQ(d.omega() * d.omega_inv(), Fr::one());
      EXPECT_EQ(d.size_inv() * Fr::from_u64(uint64_t{1} << log_n), Fr::one());
    }
  }
  // The two conventions give different roots (snarkjs and bellperson keys are not mixable).
  EXPECT_NE(Domain(10, 5).omega(), Domain(10, 7).omega());
}

TEST_P(Ntt, MatchesNaiveDft) {
  auto g = test::rng("Ntt.MatchesNaiveDft");
  for (uint64_t gen : kGenerators) {
    for (uint32_t pass_log : {Domain::kDefaultPassLog, 1u, 2u, 3u}) {
      for (uint32_t log_n = 0; log_n <= 8; ++log_n) {
        SCOPED_TRACE(label(log_n, gen, pass_log));
        const Domain d = domain(log_n, gen, pass_log);
        const std::vector<Fr> c = test::random_fr_vector(g, d.size());
        const Fr omega = expected_root(log_n, gen);
        std::vector<Fr> a = c;
        ntt(d, a);
        EXPECT_EQ(a, naive_eval(c, omega, Fr::one()));
        std::vector<Fr> back = c;
        intt(d, back);
        EXPECT_EQ(back, naive_inverse(c, omega, Fr::one()));
      }
    }
  }
}

// Large sizes: a few outputs against Horner (O(n) each), including the multi-pass schedules.
TEST_P(Ntt, MatchesNaiveAtSampledOutputs) {
  auto g = test::rng("Ntt.MatchesNaiveAtSampledOutputs");
  struct Case {
    uint32_t log_n, pass_log;
  };
  for (Case k : {Case{13, 12}, Case{16, 12}, Case{20, 12}, Case{14, 4}, Case{15, 5}}) {
    const uint64_t gen = kGenerators[k.log_n % 2];
    SCOPED_TRACE(label(k.log_n, gen, k.pass_log));
    const Domain d = domain(k.log_n, gen, k.pass_log);
    const std::vector<Fr> c = test::random_fr_vector(g, d.size());
    std::vector<Fr> a = c;
    ntt(d, a);
    const Fr omega = expected_root(k.log_n, gen);
    for (size_t j : {size_t{0}, size_t{1}, d.size() / 2 + 1, d.size() - 1, size_t(g() % d.size()),
                     size_t(g() % d.size())})
      EXPECT_EQ(a[j], evaluate(c, omega.pow(j))) << "j=" << j;
  }
}

// Every size to 2^18, then 2^20 and 2^22 (the largest dominate the run time).
TEST_P(Ntt, RoundTrips) {
  auto g = test::rng("Ntt.RoundTrips");
  for (uint32_t log_n = 0; log_n <= 22; log_n += log_n < 18 ? 1 : 2) {
    const uint64_t gen = kGenerators[log_n % 2];
    SCOPED_TRACE(label(log_n, gen, Domain::kDefaultPassLog));
    const Domain d = domain(log_n, gen);
    const std::vector<Fr> x = test::random_fr_vector(g, d.size());
    std::vector<Fr> y = x;
    ntt(d, y);
    intt(d, y);
    EXPECT_TRUE(y == x) << "intt(ntt(x)) != x";
    intt(d, y);
    ntt(d, y);
    EXPECT_TRUE(y == x) << "ntt(intt(x)) != x";
  }
}

TEST_P(Ntt, RoundTripsWithManyPasses) {
  auto g = test::rng("Ntt.RoundTripsWithManyPasses");
  for (uint32_t log_n = 0; log_n <= 14; ++log_n) {
    const Domain d = domain(log_n, 7, 3);
    const std::vector<Fr> x = test::random_fr_vector(g, d.size());
    std::vector<Fr> y = x;
    ntt(d, y);
    intt(d, y);
    EXPECT_TRUE(y == x) << label(log_n, 7, 3);
  }
}

TEST_P(Ntt, Linearity) {
  auto g = test::rng("Ntt.Linearity");
  for (uint32_t pass_log : {Domain::kDefaultPassLog, 3u}) {
    const Domain d = domain(14, 5, pass_log);
    const std::vector<Fr> x = test::random_fr_vector(g, d.size()), y = test::random_fr_vector(g, d.size());
    const Fr s = Fr::random(g);
    std::vector<Fr> combo(d.size()), nx = x, ny = y;
    for (size_t i = 0; i < d.size(); ++i) combo[i] = s * x[i] + y[i];
    ntt(d, combo);
    ntt(d, nx);
    ntt(d, ny);
    for (size_t i = 0; i < d.size(); ++i) ASSERT_EQ(combo[i], s * nx[i] + ny[i]) << "i=" << i;
  }
}

TEST_P(Ntt, DeltaAndConstant) {
  auto g = test::rng("Ntt.DeltaAndConstant");
  for (uint32_t log_n = 0; log_n <= 16; ++log_n) {
    SCOPED_TRACE(label(log_n, 5, Domain::kDefaultPassLog));
    const Domain d = domain(log_n, 5);
    const size_t n = d.size();
    std::vector<Fr> delta0(n, Fr::zero()), delta1(n, Fr::zero());
    delta0[0] = Fr::one();
    ntt(d, delta0);
    EXPECT_EQ(delta0, std::vector<Fr>(n, Fr::one()));  // δ_0 → all ones
    if (n > 1) {
      delta1[1] = Fr::one();
      ntt(d, delta1);  // δ_1 → ω^j
      Fr w = Fr::one();
      for (size_t j = 0; j < n; ++j, w = w * d.omega()) ASSERT_EQ(delta1[j], w) << "j=" << j;
    }
    const Fr c = Fr::random(g);
    std::vector<Fr> constant(n, c), expected(n, Fr::zero());
    expected[0] = c * Fr::from_u64(n);
    ntt(d, constant);  // constant → (n·c, 0, ..., 0)
    EXPECT_EQ(constant, expected);
  }
}

TEST_P(Coset, MatchesNaive) {
  auto g = test::rng("Coset.MatchesNaive");
  for (uint64_t gen : kGenerators) {
    for (uint32_t pass_log : {Domain::kDefaultPassLog, 2u}) {
      for (uint32_t log_n = 0; log_n <= 8; ++log_n) {  // 2^8: the tiled permutation
        SCOPED_TRACE(label(log_n, gen, pass_log));
        const Domain d = domain(log_n, gen, pass_log);
        const std::vector<Fr> c = test::random_fr_vector(g, d.size());
        const Fr shift = Fr::random(g);
        const Fr omega = expected_root(log_n, gen);
        std::vector<Fr> a = c;
        coset_ntt(d, a, shift);
        EXPECT_EQ(a, naive_eval(c, omega, shift));
        std::vector<Fr> back = c;
        coset_intt(d, back, shift);
        EXPECT_EQ(back, naive_inverse(c, omega, shift));
      }
    }
  }
}

TEST_P(Coset, MatchesNaiveAtSampledOutputs) {
  auto g = test::rng("Coset.MatchesNaiveAtSampledOutputs");
  const Domain d = domain(17, 7);
  const std::vector<Fr> c = test::random_fr_vector(g, d.size());
  const Fr shift = Fr::random(g);
  std::vector<Fr> a = c;
  coset_ntt(d, a, shift);
  const Fr omega = expected_root(17, 7);
  for (size_t j : {size_t{0}, size_t{1}, d.size() - 1, size_t(g() % d.size())})
    EXPECT_EQ(a[j], evaluate(c, shift * omega.pow(j))) << "j=" << j;
}

// Random shifts, Filecoin's (the generator 7) and snarkjs's (ω_{2n}, the 2n-th root).
TEST_P(Coset, RoundTrips) {
  auto g = test::rng("Coset.RoundTrips");
  for (uint32_t log_n : {0u, 1u, 5u, 8u, 12u, 13u, 16u}) {
    const Domain d = domain(log_n, 5);
    for (const Fr& shift : {Fr::random(g), Fr::from_u64(7), expected_root(log_n + 1, 5)}) {
      const std::vector<Fr> x = test::random_fr_vector(g, d.size());
      std::vector<Fr> y = x;
      coset_ntt(d, y, shift);
      coset_intt(d, y, shift);
      EXPECT_TRUE(y == x) << "log_n=" << log_n;
      coset_intt(d, y, shift);
      coset_ntt(d, y, shift);
      EXPECT_TRUE(y == x) << "log_n=" << log_n;
    }
  }
}

TEST_P(BitReversed, PermutationMatchesIndexReversal) {
  auto g = test::rng("BitReversed.PermutationMatchesIndexReversal");
  for (uint32_t log_n = 0; log_n <= 16; ++log_n) {
    const std::vector<Fr> x = test::random_fr_vector(g, size_t{1} << log_n);
    std::vector<Fr> y = x;
    bit_reverse(y);
    EXPECT_TRUE(y == reversed_copy(x, log_n)) << "log_n=" << log_n;
    bit_reverse(y);
    EXPECT_TRUE(y == x) << "log_n=" << log_n;
  }
}

TEST_P(BitReversed, VariantsAgreeWithNaturalOrder) {
  auto g = test::rng("BitReversed.VariantsAgreeWithNaturalOrder");
  for (uint32_t pass_log : {Domain::kDefaultPassLog, 3u}) {
    for (uint32_t log_n = 0; log_n <= 14; ++log_n) {
      SCOPED_TRACE(label(log_n, 7, pass_log));
      const Domain d = domain(log_n, 7, pass_log);
      const std::vector<Fr> x = test::random_fr_vector(g, d.size());
      const std::vector<Fr> xr = reversed_copy(x, log_n);
      std::vector<Fr> fwd = x, inv = x;
      ntt(d, fwd);
      intt(d, inv);
      std::vector<Fr> y = x;
      ntt_nr(d, y);
      EXPECT_TRUE(y == reversed_copy(fwd, log_n)) << "ntt_nr";
      y = xr;
      ntt_rn(d, y);
      EXPECT_TRUE(y == fwd) << "ntt_rn";
      y = x;
      intt_nr(d, y);
      EXPECT_TRUE(y == reversed_copy(inv, log_n)) << "intt_nr";
      y = xr;
      intt_rn(d, y);
      EXPECT_TRUE(y == inv) << "intt_rn";
      // The documented bit-reversed coset forward: scale by powers, then ntt_nr.
      const Fr shift = Fr::random(g);
      std::vector<Fr> coset = x;
      coset_ntt(d, coset, shift);
      y = x;
      scale_by_powers(y, Fr::one(), shift);
      ntt_nr(d, y);
      EXPECT_TRUE(y == reversed_copy(coset, log_n)) << "coset via ntt_nr";
    }
  }
}

TEST(ScaleByPowers, MatchesNaive) {
  auto g = test::rng("ScaleByPowers.MatchesNaive");
  for (size_t n : {size_t{0}, size_t{1}, size_t{1000}, size_t{4099}}) {
    const std::vector<Fr> x = test::random_fr_vector(g, n);
    const Fr c = Fr::random(g), s = Fr::random(g);
    std::vector<Fr> y = x;
    scale_by_powers(y, c, s);
    Fr f = c;
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
  using Fn = void (*)(const Domain&, std::span<Fr>);
  const std::pair<const char*, Fn> plain[] = {{"ntt", ntt},       {"intt", intt},
                                              {"ntt_nr", ntt_nr}, {"ntt_rn", ntt_rn},
                                              {"intt_nr", intt_nr}, {"intt_rn", intt_rn}};
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
      for (const auto& [name, fn] : plain) {
        std::vector<Fr> a = x, b = x;
        fn(p, a);
        fn(v, b);
        ASSERT_TRUE(a == b) << name << ", pattern " << pattern;
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

TEST(Arguments, BadDomainsThrow) {
  EXPECT_THROW(Domain(33, 5), InvalidArgument);
  EXPECT_THROW(Domain(4, 4), InvalidArgument);  // 4 is a square: ω would have order < 16
  EXPECT_THROW(Domain(1, 0), InvalidArgument);
  EXPECT_THROW(Domain(0, 0), InvalidArgument);
  EXPECT_THROW(Domain(4, 5, 0), InvalidArgument);
  EXPECT_THROW(Domain(4, 5, Domain::kMaxPassLog + 1), InvalidArgument);
  EXPECT_NO_THROW(Domain(0, 4));  // n = 1 needs only ω = 1
}

TEST(Arguments, SizeMismatchThrows) {
  const Domain d(4, 5);
  std::vector<Fr> wrong(15, Fr::one()), empty;
  for (std::vector<Fr>* v : {&wrong, &empty}) {
    std::span<Fr> s(*v);
    EXPECT_THROW(ntt(d, s), InvalidArgument);
    EXPECT_THROW(intt(d, s), InvalidArgument);
    EXPECT_THROW(coset_ntt(d, s, Fr::one()), InvalidArgument);
    EXPECT_THROW(coset_intt(d, s, Fr::one()), InvalidArgument);
    EXPECT_THROW(ntt_nr(d, s), InvalidArgument);
    EXPECT_THROW(ntt_rn(d, s), InvalidArgument);
    EXPECT_THROW(intt_nr(d, s), InvalidArgument);
    EXPECT_THROW(intt_rn(d, s), InvalidArgument);
  }
  std::vector<Fr> ok(16, Fr::one());
  EXPECT_THROW(coset_ntt(d, ok, Fr::zero()), InvalidArgument);
  EXPECT_THROW(coset_intt(d, ok, Fr::zero()), InvalidArgument);
  EXPECT_EQ(ok, std::vector<Fr>(16, Fr::one()));  // rejected calls leave the data alone
  EXPECT_THROW(bit_reverse(std::span<Fr>(wrong)), InvalidArgument);
  EXPECT_THROW(bit_reverse(std::span<Fr>(empty)), InvalidArgument);
}

}  // namespace
}  // namespace snarkd::poly
