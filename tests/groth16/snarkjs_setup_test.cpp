// groth16::setup_snarkjs_insecure (both curves) against the plain construction it replaced in
// curves.hpp, kept here as the reference: Lagrange values over ⟨ωₙ⟩ and the whole 2n domain
// (the H query reads its odd entries, where the library works on the n-point basis at τ/ω₂ₙ),
// serial column sums, one double-and-add scalar multiplication per point (no tables, no batch
// inversion). Circuits: the cubic test circuit, and small synthetic ones of circom's Poseidon
// shape (random constants, linear rows, squares) and of the PoRep shape (bits, long C rows).
// The pool runs 3 threads so that the column ranges and point chunks split unevenly.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/seed.hpp"
#include "curves.hpp"
#include "snarkd/groth16/qap.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/poly/lagrange.hpp"
#include "snarkd/r1cs/synthetic.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::groth16 {
namespace {

[[maybe_unused]] const bool kThreeThreads = (ThreadPool::set_default_threads(3), true);

// Σ_i M_ij·L_i(τ) for every column j, serially.
template <class F>
std::vector<F> plain_column_sums(const r1cs::CircuitT<F>& c, const r1cs::CsrMatrix& m, const std::vector<F>& lag) {
  std::vector<F> out(c.num_vars());
  for (uint64_t i = 0; i < m.num_rows(); ++i)
    for (uint64_t k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k) out[m.col[k]] += c.coeffs[m.coeff[k]] * lag[i];
  return out;
}

template <class E>
ZkeyT<E> reference_setup(const r1cs::CircuitT<typename E::Fr>& circuit, const ToxicWasteT<typename E::Fr>& t) {
  using F = typename E::Fr;
  ZkeyT<E> z{{}, snarkjs_zkey_circuit(circuit)};
  ProvingKeyT<E>& pk = z.pk;
  pk.flavour = KeyFlavour::kSnarkjs;
  pk.log_domain = qap_log_domain(z.circuit, KeyFlavour::kSnarkjs);
  const uint64_t n = pk.domain_size();
  std::vector<F> lag(n), lag2(2 * n);  // L_i(τ) over ⟨ωₙ⟩ and over ⟨ω₂ₙ⟩
  poly::lagrange_into<F>(lag, 0, pk.log_domain, t.tau, ff::kSnarkjsDomainGenerator);
  poly::lagrange_into<F>(lag2, 0, pk.log_domain + 1, t.tau, ff::kSnarkjsDomainGenerator);
  const auto u = plain_column_sums(z.circuit, z.circuit.a, lag), v = plain_column_sums(z.circuit, z.circuit.b, lag);
  const auto w = plain_column_sums(circuit, circuit.c, lag);
  const auto g1 = [](const F& s) {
    return E::G1Jacobian::from_affine(ec::generator<typename E::G1>()).mul_scalar(s).to_affine();
  };
  const auto g2 = [](const F& s) {
    return E::G2Jacobian::from_affine(ec::generator<typename E::G2>()).mul_scalar(s).to_affine();
  };
  pk.vk = {g1(t.alpha), g1(t.beta), g1(t.delta), g2(t.beta), g2(t.gamma), g2(t.delta), {}};
  const F gamma_inv = t.gamma.inverse(), delta_inv = t.delta.inverse();
  for (uint64_t j = 0; j < circuit.num_vars(); ++j) {
    const F k = t.beta * u[j] + t.alpha * v[j] + w[j];
    if (j < circuit.num_inputs)
      pk.vk.ic.push_back(g1(k * gamma_inv));
    else
      pk.l.push_back(g1(k * delta_inv));
    pk.a.push_back(g1(u[j]));
    pk.b_g1.push_back(g1(v[j]));
    pk.b_g2.push_back(g2(v[j]));
  }
  for (uint64_t i = 0; i < n; ++i) pk.h.push_back(g1(lag2[2 * i + 1] * delta_inv));
  return z;
}

template <class F>
void expect_same_circuit(const r1cs::CircuitT<F>& got, const r1cs::CircuitT<F>& want) {
  EXPECT_EQ(got.num_inputs, want.num_inputs);
  EXPECT_EQ(got.num_aux, want.num_aux);
  EXPECT_EQ(got.coeffs, want.coeffs);
  for (r1cs::Matrix m : {r1cs::Matrix::A, r1cs::Matrix::B, r1cs::Matrix::C}) {
    EXPECT_EQ(got.matrix(m).row_ptr, want.matrix(m).row_ptr) << r1cs::matrix_name(m);
    EXPECT_EQ(got.matrix(m).col, want.matrix(m).col) << r1cs::matrix_name(m);
    EXPECT_EQ(got.matrix(m).coeff, want.matrix(m).coeff) << r1cs::matrix_name(m);
  }
}

template <class E>
void expect_matches_reference(const r1cs::CircuitT<typename E::Fr>& circuit, const ToxicWasteT<typename E::Fr>& t) {
  std::vector<std::string> steps;
  const ZkeyT<E> got = setup_snarkjs_insecure<E>(circuit, t, [&](const char* step, double) { steps.push_back(step); });
  const ZkeyT<E> want = reference_setup<E>(circuit, t);
  test::expect_same_points(got.pk, want.pk);
  expect_same_circuit(got.circuit, want.circuit);
  EXPECT_TRUE(got.pk.a_density.words.empty() && got.pk.b_density.words.empty());
  EXPECT_EQ(steps, (std::vector<std::string>{"scalars", "vk+IC", "A", "B1", "B2", "C", "H"}));
}

template <class E>
class SnarkjsSetupTest : public ::testing::Test {};
TYPED_TEST_SUITE(SnarkjsSetupTest, test::Curves, test::CurveNames);

TYPED_TEST(SnarkjsSetupTest, CubicMatchesReference) {
  using F = typename TypeParam::Fr;
  expect_matches_reference<TypeParam>(test::cubic<F>(3).circuit, test::fixed_toxic_waste<F>());
}

TYPED_TEST(SnarkjsSetupTest, SyntheticCircuitsMatchReference) {
  using F = typename TypeParam::Fr;
  auto g = snarkd::test::rng("groth16.snarkjs_setup.synthetic");
  // 251 + 5 = 256 rows fill a 2^8 domain exactly; 300 + 2 need 2^9.
  r1cs::SyntheticParams porep;
  porep.num_constraints = 300;
  porep.num_inputs = 2;
  porep.seed = g();
  for (const r1cs::SyntheticParams& p : {r1cs::circom_poseidon_shape(251, 5, g()), porep}) {
    SCOPED_TRACE("seed " + std::to_string(p.seed));
    const auto sc = r1cs::generate_synthetic<F>(p);
    expect_matches_reference<TypeParam>(sc.circuit, toxic_waste_from_seed<F>(g()));
  }
}

TYPED_TEST(SnarkjsSetupTest, RefusesTauOnTheDomainsAndZeroGammaDelta) {
  using F = typename TypeParam::Fr;
  const auto circuit = test::cubic<F>(3).circuit;  // 4 + 3 rows: n = 8
  const ToxicWasteT<F> t = test::fixed_toxic_waste<F>();
  const F omega_16 = F::root_of_unity(4, ff::kSnarkjsDomainGenerator);
  for (uint64_t k : {0, 3, 2 * 5}) {  // points of ⟨ω₈⟩ (τⁿ = 1)
    ToxicWasteT<F> bad = t;
    bad.tau = omega_16.pow(k);
    EXPECT_THROW(setup_snarkjs_insecure<TypeParam>(circuit, bad), InvalidArgument) << k;
  }
  for (uint64_t k : {1, 7}) {  // odd points of ⟨ω₁₆⟩ (τⁿ = −1), where the H query divides by 0
    ToxicWasteT<F> bad = t;
    bad.tau = omega_16.pow(k);
    EXPECT_THROW(setup_snarkjs_insecure<TypeParam>(circuit, bad), InvalidArgument) << k;
  }
  ToxicWasteT<F> zero_gamma = t, zero_delta = t;
  zero_gamma.gamma = F::zero();
  zero_delta.delta = F::zero();
  EXPECT_THROW(setup_snarkjs_insecure<TypeParam>(circuit, zero_gamma), InvalidArgument);
  EXPECT_THROW(setup_snarkjs_insecure<TypeParam>(circuit, zero_delta), InvalidArgument);
  auto broken = circuit;
  broken.a.col[0] = uint32_t(broken.num_vars());
  EXPECT_THROW(setup_snarkjs_insecure<TypeParam>(broken, t), InvalidArgument);
}

TYPED_TEST(SnarkjsSetupTest, SeededToxicWasteIsReproducibleAndNonZero) {
  using F = typename TypeParam::Fr;
  const ToxicWasteT<F> a = toxic_waste_from_seed<F>(5), b = toxic_waste_from_seed<F>(5);
  EXPECT_EQ(a.tau, b.tau);
  EXPECT_EQ(a.delta, b.delta);
  EXPECT_NE(toxic_waste_from_seed<F>(6).tau, a.tau);
  const ToxicWasteT<F> r = toxic_waste_random<F>();
  for (const F& x : {r.tau, r.alpha, r.beta, r.gamma, r.delta}) EXPECT_FALSE(x.is_zero());
}

}  // namespace
}  // namespace snarkd::groth16
