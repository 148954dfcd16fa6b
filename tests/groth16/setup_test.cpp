// The two-step development setup (setup_scalars + key_from_scalars) against the single serial
// pass it replaced, kept here as the reference: Lagrange values through one batch inversion of
// n·(τ − ωⁱ), column sums row by row, then ec::FixedBaseTable. Keys must agree byte for byte.
// Circuits: synthetic ones around power-of-two domain edges, density gaps, a heavy column,
// repeated columns within a row, and wide rows. The pool runs 7 threads so that the column
// ranges of setup_scalars have uneven boundaries (seed printed; SNARKD_TEST_SEED pins it).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/seed.hpp"
#include "snarkd/ec/fixed_base.hpp"
#include "snarkd/groth16/qap.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/r1cs/synthetic.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::groth16 {
namespace {

// Before main() and before anything touches the global pool.
[[maybe_unused]] const bool kSevenThreads = (ThreadPool::set_default_threads(7), true);

// The pre-refactor setup, serial, as the reference for the scalars.
SetupScalars reference_scalars(const r1cs::Circuit& c, const ToxicWaste& t) {
  SetupScalars s;
  s.log_domain = qap_log_domain(c, KeyFlavour::kBellperson);
  const uint64_t n = uint64_t{1} << s.log_domain, m = c.num_constraints();
  const uint64_t nin = c.num_inputs, nvar = c.num_vars(), rows = qap_rows(c, KeyFlavour::kBellperson);
  const Fr omega = Fr::root_of_unity(s.log_domain, ff::kBellpersonDomainGenerator);
  const Fr z = t.tau.pow(n) - Fr::one();
  std::vector<Fr> den(rows), wpow(rows);
  Fr wi = Fr::one();
  for (uint64_t i = 0; i < rows; ++i, wi *= omega) {
    wpow[i] = wi;
    den[i] = Fr::from_u64(n) * (t.tau - wi);
  }
  ff::batch_inverse(std::span<Fr>(den));
  for (uint64_t i = 0; i < rows; ++i) den[i] *= z * wpow[i];
  std::vector<Fr> u(nvar), v(nvar), w(nvar);
  for (auto [which, out] : {std::pair{r1cs::Matrix::A, &u}, {r1cs::Matrix::B, &v}, {r1cs::Matrix::C, &w}}) {
    const r1cs::CsrMatrix& mat = c.matrix(which);
    for (uint64_t i = 0; i < mat.num_rows(); ++i)
      for (uint64_t k = mat.row_ptr[i]; k < mat.row_ptr[i + 1]; ++k)
        (*out)[mat.col[k]] += c.coeffs[mat.coeff[k]] * den[i];
  }
  for (uint64_t j = 0; j < nin; ++j) u[j] += den[m + j];
  s.a_density = bellperson_a_density(c);
  s.b_density = r1cs::density(c, r1cs::Matrix::B);
  for (uint64_t j = 0; j < nvar; ++j) {
    const Fr k = t.beta * u[j] + t.alpha * v[j] + w[j];
    if (j < nin) s.ic.push_back(k * t.gamma.inverse());
    else s.l.push_back(k * t.delta.inverse());
  }
  Fr hi = z * t.delta.inverse();
  for (uint64_t i = 0; i + 1 < n; ++i, hi *= t.tau) s.h.push_back(hi);
  s.a = gather_by_density(u, s.a_density);
  s.b = gather_by_density(v, s.b_density);
  s.alpha = t.alpha;
  s.beta = t.beta;
  s.gamma = t.gamma;
  s.delta = t.delta;
  return s;
}

// Fixed-base multiplication as single scalar multiplications (no table): an independent backend.
FixedBaseBackend naive_backend() {
  auto many = [](auto tag, std::span<const Fr> s) {
    using C = decltype(tag);
    std::vector<ec::Affine<C>> out;
    for (const Fr& x : s) out.push_back(ec::Jacobian<C>::from_affine(ec::generator<C>()).mul_scalar(x).to_affine());
    return out;
  };
  return {[many](std::span<const Fr> s) { return many(ec::G1Config{}, s); },
          [many](std::span<const Fr> s) { return many(ec::G2Config{}, s); }};
}

void expect_same_scalars(const SetupScalars& got, const SetupScalars& want, const std::string& what) {
  EXPECT_EQ(got.log_domain, want.log_domain) << what;
  EXPECT_EQ(got.a_density.words, want.a_density.words) << what;
  EXPECT_EQ(got.a_density.num_bits, want.a_density.num_bits) << what;
  EXPECT_EQ(got.b_density.words, want.b_density.words) << what;
  EXPECT_EQ(got.b_density.num_bits, want.b_density.num_bits) << what;
  EXPECT_TRUE(got.alpha == want.alpha && got.beta == want.beta && got.gamma == want.gamma && got.delta == want.delta)
      << what;
  EXPECT_EQ(got.ic, want.ic) << what;
  EXPECT_EQ(got.a, want.a) << what;
  EXPECT_EQ(got.b, want.b) << what;
  EXPECT_EQ(got.l, want.l) << what;
  EXPECT_EQ(got.h, want.h) << what;
}

void expect_same_key(const ProvingKey& got, const ProvingKey& want, const std::string& what) {
  EXPECT_EQ(got.flavour, want.flavour) << what;
  EXPECT_EQ(got.log_domain, want.log_domain) << what;
  EXPECT_EQ(got.vk, want.vk) << what;
  EXPECT_EQ(got.a, want.a) << what;
  EXPECT_EQ(got.b_g1, want.b_g1) << what;
  EXPECT_EQ(got.b_g2, want.b_g2) << what;
  EXPECT_EQ(got.l, want.l) << what;
  EXPECT_EQ(got.h, want.h) << what;
  EXPECT_EQ(got.a_density.words, want.a_density.words) << what;
  EXPECT_EQ(got.a_density.num_bits, want.a_density.num_bits) << what;
  EXPECT_EQ(got.b_density.words, want.b_density.words) << what;
  EXPECT_EQ(got.b_density.num_bits, want.b_density.num_bits) << what;
}

r1cs::Circuit synthetic(uint64_t constraints, uint64_t inputs, uint64_t seed) {
  r1cs::SyntheticParams p;
  p.num_constraints = constraints;
  p.num_inputs = inputs;
  p.seed = seed;
  return r1cs::generate_synthetic(p).circuit;
}

// A random circuit with what the synthetic generator never makes: repeated columns in a row,
// one column (ONE) in most rows, wide rows, unused variables, arbitrary coefficients.
r1cs::Circuit odd_circuit(std::mt19937_64& g, uint64_t rows, uint64_t inputs, uint64_t aux) {
  r1cs::Circuit c;
  c.num_inputs = inputs;
  c.num_aux = aux;
  for (int i = 0; i < 5; ++i) c.coeffs.push_back(Fr::random(g));
  const uint64_t nvar = c.num_vars();
  for (r1cs::CsrMatrix* m : {&c.a, &c.b, &c.c}) {
    for (uint64_t i = 0; i < rows; ++i) {
      const uint64_t terms = g() % 8 == 0 ? 20 + g() % 40 : g() % 4;
      if (g() % 4 != 0) {
        m->col.push_back(0);
        m->coeff.push_back(uint32_t(g() % c.coeffs.size()));
      }
      for (uint64_t k = 0; k < terms; ++k) {
        const bool high = g() % 3 == 0 && nvar >= 3;  // the top 3 columns: repeats within rows
        m->col.push_back(uint32_t(high ? nvar - 1 - g() % 3 : g() % nvar));
        m->coeff.push_back(uint32_t(g() % c.coeffs.size()));
      }
      m->row_ptr.push_back(m->col.size());
    }
  }
  return c;
}

void check_circuit(const r1cs::Circuit& c, std::mt19937_64& g, const std::string& what) {
  const ToxicWaste t = toxic_waste_from_seed(g());
  const SetupScalars want = reference_scalars(c, t);
  expect_same_scalars(setup_scalars(c, t), want, what);
  const ProvingKey pk = setup_insecure(c, t);
  SetupScalars copy = want;
  const FixedBaseBackend cpu = cpu_fixed_base();
  expect_same_key(pk, key_from_scalars(std::move(copy), cpu), what + " (reference scalars)");
  EXPECT_EQ(pk.a.size(), want.a.size()) << what;
  EXPECT_EQ(pk.h.size(), (size_t{1} << pk.log_domain) - 1) << what;
}

TEST(Setup, ScalarsAndKeyMatchTheSerialReferenceOnSynthetic) {
  auto g = snarkd::test::rng("setup_synthetic");
  // (constraints, inputs): domain 2 (1 + 1 rows), exactly 64 rows, 65 rows, 1000, 4097.
  for (auto [m, nin] : {std::pair<uint64_t, uint64_t>{1, 1}, {2, 2}, {61, 3}, {62, 3}, {31, 1}, {1000, 17}, {4097, 5}})
    check_circuit(synthetic(m, nin, g()), g, "synthetic m=" + std::to_string(m) + " inputs=" + std::to_string(nin));
}

TEST(Setup, ScalarsAndKeyMatchTheSerialReferenceOnOddCircuits) {
  auto g = snarkd::test::rng("setup_odd");
  check_circuit(odd_circuit(g, 1, 1, 0), g, "one row, ONE only");
  check_circuit(odd_circuit(g, 3, 2, 1), g, "3 rows, 3 variables (fewer than threads)");
  check_circuit(odd_circuit(g, 100, 4, 200), g, "100 rows, 204 variables");
  check_circuit(odd_circuit(g, 700, 9, 64 * 7 + 1), g, "700 rows, 7·64 + 10 variables");
}

// 2^15 + 3 constraints: a 2^16 domain, 513 density words (several per gather range), and
// thousands of Lagrange / H blocks. Scalars only (the points would dominate the run time).
TEST(Setup, ScalarsMatchTheSerialReferenceOnALargerCircuit) {
  auto g = snarkd::test::rng("setup_larger");
  const r1cs::Circuit c = synthetic((1u << 15) + 3, 3, g());
  const ToxicWaste t = toxic_waste_from_seed(g());
  expect_same_scalars(setup_scalars(c, t), reference_scalars(c, t), "m=2^15+3");
}

TEST(Setup, KeyEqualsSingleScalarMultiplications) {
  auto g = snarkd::test::rng("setup_naive_backend");
  const r1cs::Circuit c = synthetic(40, 3, g());
  const ToxicWaste t = toxic_waste_from_seed(g());
  expect_same_key(setup_insecure(c, t), key_from_scalars(setup_scalars(c, t), naive_backend()), "naive backend");
}

TEST(Setup, RefusesBadInputs) {
  auto g = snarkd::test::rng("setup_errors");
  const r1cs::Circuit c = synthetic(20, 2, g());
  ToxicWaste t = toxic_waste_from_seed(g());
  const uint32_t k = qap_log_domain(c, KeyFlavour::kBellperson);
  ToxicWaste on_domain = t;
  on_domain.tau = Fr::root_of_unity(k, ff::kBellpersonDomainGenerator).pow(3);
  EXPECT_THROW(setup_scalars(c, on_domain), InvalidArgument);
  ToxicWaste zero_gamma = t, zero_delta = t;
  zero_gamma.gamma = Fr::zero();
  zero_delta.delta = Fr::zero();
  EXPECT_THROW(setup_scalars(c, zero_gamma), InvalidArgument);
  EXPECT_THROW(setup_insecure(c, zero_delta), InvalidArgument);
  r1cs::Circuit bad = c;
  bad.b.col[0] = uint32_t(c.num_vars());  // column out of range
  EXPECT_THROW(setup_scalars(bad, t), InvalidArgument);

  FixedBaseBackend short_g2 = cpu_fixed_base();
  short_g2.g2 = [inner = short_g2.g2](std::span<const Fr> s) {
    auto v = inner(s);
    v.pop_back();
    return v;
  };
  try {
    key_from_scalars(setup_scalars(c, t), short_g2);
    ADD_FAILURE() << "a backend returning too few points was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("vk G2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace snarkd::groth16
