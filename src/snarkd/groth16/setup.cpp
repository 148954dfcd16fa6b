#include "snarkd/groth16/setup.hpp"

#include <random>
#include <string>

#include "snarkd/ec/fixed_base.hpp"
#include "snarkd/groth16/qap.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/random.hpp"

namespace snarkd::groth16 {
namespace {

template <class G>
ToxicWaste draw(G& g) {
  auto nonzero = [&g] {
    for (;;) {
      Fr v = Fr::random(g);
      if (!v.is_zero()) return v;
    }
  };
  return {nonzero(), nonzero(), nonzero(), nonzero(), nonzero()};
}

// L_i(τ) for the first `rows` points of ⟨ω⟩ (n = 2^log_n): Z(τ)·ωⁱ / (n·(τ − ωⁱ)).
std::vector<Fr> lagrange_at(uint32_t log_n, uint64_t rows, const Fr& tau) {
  const uint64_t n = uint64_t{1} << log_n;
  const Fr omega = Fr::root_of_unity(log_n, ff::kBellpersonDomainGenerator);
  const Fr z = tau.pow(n) - Fr::one();
  if (z.is_zero()) throw InvalidArgument("setup: tau is a point of the evaluation domain");
  std::vector<Fr> den(rows), w(rows);
  Fr wi = Fr::one();
  const Fr nf = Fr::from_u64(n);
  for (uint64_t i = 0; i < rows; ++i, wi *= omega) {
    w[i] = wi;
    den[i] = nf * (tau - wi);
  }
  ff::batch_inverse(std::span<Fr>(den));
  for (uint64_t i = 0; i < rows; ++i) den[i] *= z * w[i];
  return den;
}

// Column polynomials at τ: out[j] += coeff·L_i(τ) for every non-zero (i, j) of m.
void accumulate_columns(const r1cs::Circuit& c, r1cs::Matrix which, const std::vector<Fr>& lag,
                        std::vector<Fr>& out) {
  const r1cs::CsrMatrix& m = c.matrix(which);
  for (uint64_t i = 0; i < m.num_rows(); ++i)
    for (uint64_t k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k)
      out[m.col[k]] += c.coeffs[m.coeff[k]] * lag[i];
}

}  // namespace

ToxicWaste toxic_waste_from_seed(uint64_t seed) {
  std::mt19937_64 g(seed);
  return draw(g);
}

ToxicWaste toxic_waste_random() {
  OsRandom g;
  return draw(g);
}

ProvingKey setup_insecure(const r1cs::Circuit& circuit, const ToxicWaste& t) {
  if (auto err = r1cs::find_structure_error(circuit)) throw InvalidArgument("setup: " + *err);
  ProvingKey pk;
  pk.flavour = KeyFlavour::kBellperson;
  pk.log_domain = qap_log_domain(circuit, pk.flavour);
  const uint64_t n = pk.domain_size(), m = circuit.num_constraints();
  const uint64_t nin = circuit.num_inputs, nvar = circuit.num_vars();
  const std::vector<Fr> lag = lagrange_at(pk.log_domain, qap_rows(circuit, pk.flavour), t.tau);

  std::vector<Fr> u(nvar), v(nvar), w(nvar);
  accumulate_columns(circuit, r1cs::Matrix::A, lag, u);
  accumulate_columns(circuit, r1cs::Matrix::B, lag, v);
  accumulate_columns(circuit, r1cs::Matrix::C, lag, w);
  for (uint64_t j = 0; j < nin; ++j) u[j] += lag[m + j];  // the input rows w_j · 0 = 0

  pk.a_density = bellperson_a_density(circuit);
  pk.b_density = r1cs::density(circuit, r1cs::Matrix::B);

  const Fr gamma_inv = t.gamma.inverse(), delta_inv = t.delta.inverse();
  std::vector<Fr> ic(nin), l(nvar - nin), h(n - 1);
  for (uint64_t j = 0; j < nvar; ++j) {
    const Fr k = t.beta * u[j] + t.alpha * v[j] + w[j];
    if (j < nin) ic[j] = k * gamma_inv;
    else l[j - nin] = k * delta_inv;
  }
  Fr hi = (t.tau.pow(n) - Fr::one()) * delta_inv;  // τⁱ·Z(τ)/δ
  for (uint64_t i = 0; i + 1 < n; ++i, hi *= t.tau) h[i] = hi;

  const ec::FixedBaseTable<ec::G1Config> g1(ec::generator<ec::G1Config>());
  const ec::FixedBaseTable<ec::G2Config> g2(ec::generator<ec::G2Config>());
  auto one_g1 = [&g1](const Fr& s) { return g1.mul(s).to_affine(); };
  auto one_g2 = [&g2](const Fr& s) { return g2.mul(s).to_affine(); };
  pk.vk = {one_g1(t.alpha), one_g1(t.beta), one_g1(t.delta),
           one_g2(t.beta),  one_g2(t.gamma), one_g2(t.delta), g1.mul_many(ic)};
  pk.a = g1.mul_many(gather_by_density(u, pk.a_density));
  const std::vector<Fr> vb = gather_by_density(v, pk.b_density);
  pk.b_g1 = g1.mul_many(vb);
  pk.b_g2 = g2.mul_many(vb);
  pk.l = g1.mul_many(l);
  pk.h = g1.mul_many(h);
  return pk;
}

}  // namespace snarkd::groth16
