// What the groth16 tests need to run once per curve: the typed-test list, each curve's snarkjs
// fixtures (fixtures/ for BLS12-381, fixtures/bn128/ for BN254: see fixtures/README.md), random
// points, a small circuit written over any field, and the snarkjs-flavour key that snarkjs's
// `groth16 setup` would make for it, computed here from known toxic waste (so the tests need no
// ptau file and can check every point against its scalar).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "snarkd/groth16/curve.hpp"
#include "snarkd/groth16/keys.hpp"
#include "snarkd/groth16/qap.hpp"
#include "snarkd/groth16/zkey.hpp"
#include "snarkd/poly/lagrange.hpp"
#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::groth16::test {

using Curves = ::testing::Types<Bls12_381, Bn254>;

// Typed-test names: "Bls12_381", "Bn254".
struct CurveNames {
  template <class E>
  static std::string GetName(int) {
    return std::is_same_v<E, Bn254> ? "Bn254" : "Bls12_381";
  }
};

// The other curve (for files read as the wrong one).
template <class E>
using OtherCurve = std::conditional_t<std::is_same_v<E, Bn254>, Bls12_381, Bn254>;

// <fixtures>/<circuit>/<file> of E's snarkjs fixtures.
template <class E>
std::string fixture(const std::string& circuit, const std::string& file) {
  const std::string dir = std::string(SNARKD_GROTH16_FIXTURES) + (std::is_same_v<E, Bn254> ? "/bn128/" : "/");
  return dir + circuit + "/" + file;
}

template <class C, class R>
ec::Affine<C> random_point(R& rng) {
  using S = typename C::Scalar;
  return ec::Jacobian<C>::from_affine(ec::generator<C>()).mul_scalar(S::random(rng)).to_affine();
}

// A point of E's G2 twist outside the prime-order subgroup: the first x = k + u whose
// x³ + b is a square (both twists have a large cofactor, so it is outside with overwhelming
// probability; callers assert that).
template <class E>
typename E::G2Affine g2_point_outside_subgroup() {
  using Fp2 = typename E::Fp2;
  using Fp = typename E::Fp;
  for (uint64_t k = 1;; ++k) {
    const Fp2 x{Fp::from_u64(k), Fp::one()};
    Fp2 y;
    if ((x.square() * x + E::G2::b()).sqrt(y)) return {x, y};
  }
}

// A circuit from its rows, each row its A, B and C terms as (column, coefficient).
template <class F>
using Row = std::array<std::vector<std::pair<uint32_t, F>>, 3>;

// Each row's terms are stored sorted by column, as every reader leaves them.
template <class F>
r1cs::CircuitT<F> circuit_from_rows(uint64_t num_inputs, uint64_t num_aux, const std::vector<Row<F>>& rows) {
  r1cs::CircuitT<F> c;
  c.num_inputs = num_inputs;
  c.num_aux = num_aux;
  r1cs::CoeffDictionaryT<F> dict;
  for (const Row<F>& row : rows)
    for (size_t m = 0; m < 3; ++m) {
      r1cs::CsrMatrix& mat = c.matrix(r1cs::Matrix(m));
      auto terms = row[m];
      std::sort(terms.begin(), terms.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
      for (const auto& [col, v] : terms) {
        mat.col.push_back(col);
        mat.coeff.push_back(dict.intern(v));
      }
      mat.row_ptr.push_back(mat.col.size());
    }
  c.coeffs = std::move(dict).take();
  return c;
}

template <class F>
struct TestCircuit {
  r1cs::CircuitT<F> circuit;  // with C, as circom writes it
  std::vector<F> witness;
};

// x³ + x + 5 = y with y public; z = 3·3 public and only in C; one aux variable in no row.
// Columns: ONE, y, z, x, x², x³, unused.
template <class F>
TestCircuit<F> cubic(uint64_t x_value) {
  const F x = F::from_u64(x_value), one = F::one();
  const F y = x * x * x + x + F::from_u64(5);
  const std::vector<Row<F>> rows = {
      {{{{3, one}}, {{3, one}}, {{4, one}}}},
      {{{{4, one}}, {{3, one}}, {{5, one}}}},
      {{{{5, one}, {3, one}, {0, F::from_u64(5)}}, {{0, one}}, {{1, one}}}},
      {{{{0, F::from_u64(3)}}, {{0, F::from_u64(3)}}, {{2, one}}}},
  };
  return {circuit_from_rows<F>(3, 4, rows), {one, y, F::from_u64(9), x, x * x, x * x * x, F::from_u64(1234)}};
}

template <class F>
struct ToxicWasteT {
  F tau, alpha, beta, gamma, delta;
};

// Σ_i M_ij·L_i(τ) for every column j.
template <class F>
std::vector<F> column_sums(const r1cs::CircuitT<F>& c, const r1cs::CsrMatrix& m, const std::vector<F>& lag) {
  std::vector<F> out(c.num_vars());
  for (uint64_t i = 0; i < m.num_rows(); ++i)
    for (uint64_t k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k) out[m.col[k]] += c.coeffs[m.coeff[k]] * lag[i];
  return out;
}

// The circuit a zkey describes (zkey_new.js): circom's A and B, then one row "x_s · 0 = 0" per
// input s (A: x_s with coefficient 1), and no C.
template <class F>
r1cs::CircuitT<F> zkey_circuit(const r1cs::CircuitT<F>& c) {
  r1cs::CircuitT<F> z = c;
  for (uint64_t s = 0; s < c.num_inputs; ++s) {
    z.a.col.push_back(uint32_t(s));
    z.a.coeff.push_back(r1cs::kCoeffOne);
    z.a.row_ptr.push_back(z.a.col.size());
    z.b.row_ptr.push_back(z.b.col.size());
  }
  z.c = {};
  z.c.row_ptr.assign(z.a.num_rows() + 1, 0);
  return z;
}

// snarkjs's `groth16 setup` for circuit (with C) and toxic waste t: the zkey's key and circuit.
// u, v, w over the zkey's rows (C's rows are circom's, the input rows have none); H query
// h_i = L_{2i+1}(τ)/δ over the 2n-point domain (zkey.hpp).
template <class E>
ZkeyT<E> snarkjs_setup(const r1cs::CircuitT<typename E::Fr>& circuit, const ToxicWasteT<typename E::Fr>& t) {
  using F = typename E::Fr;
  ZkeyT<E> z{{}, zkey_circuit(circuit)};
  ProvingKeyT<E>& pk = z.pk;
  pk.flavour = KeyFlavour::kSnarkjs;
  pk.log_domain = qap_log_domain(z.circuit, KeyFlavour::kSnarkjs);
  const uint64_t n = pk.domain_size();
  std::vector<F> lag(n), lag2(2 * n);  // L_i(τ) over ⟨ωₙ⟩ and over ⟨ω₂ₙ⟩
  poly::lagrange_into<F>(lag, 0, pk.log_domain, t.tau, ff::kSnarkjsDomainGenerator);
  poly::lagrange_into<F>(lag2, 0, pk.log_domain + 1, t.tau, ff::kSnarkjsDomainGenerator);
  const auto u = column_sums(z.circuit, z.circuit.a, lag), v = column_sums(z.circuit, z.circuit.b, lag);
  const auto w = column_sums(circuit, circuit.c, lag);
  const auto g1 = [](const F& s) { return E::G1Jacobian::from_affine(ec::generator<typename E::G1>()).mul_scalar(s).to_affine(); };
  const auto g2 = [](const F& s) { return E::G2Jacobian::from_affine(ec::generator<typename E::G2>()).mul_scalar(s).to_affine(); };
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

// got has want's flavour, domain and points (densities are the binding's business, not a file's).
template <class E>
void expect_same_points(const ProvingKeyT<E>& got, const ProvingKeyT<E>& want) {
  EXPECT_EQ(got.flavour, want.flavour);
  EXPECT_EQ(got.vk, want.vk);
  EXPECT_EQ(got.log_domain, want.log_domain);
  EXPECT_EQ(got.h, want.h);
  EXPECT_EQ(got.l, want.l);
  EXPECT_EQ(got.a, want.a);
  EXPECT_EQ(got.b_g1, want.b_g1);
  EXPECT_EQ(got.b_g2, want.b_g2);
}

template <class F>
ToxicWasteT<F> fixed_toxic_waste() {
  return {F::from_u64(0x1234567), F::from_u64(11), F::from_u64(13), F::from_u64(17), F::from_u64(19)};
}

}  // namespace snarkd::groth16::test
