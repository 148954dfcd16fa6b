// What the groth16 tests need to run once per curve: the typed-test list, each curve's snarkjs
// fixtures (fixtures/ for BLS12-381, fixtures/bn128/ for BN254: see fixtures/README.md), random
// points, a small circuit written over any field, and the snarkjs-flavour key that snarkjs's
// `groth16 setup` would make for it, made by groth16::setup_snarkjs_insecure from known toxic
// waste (so the tests need no ptau file).
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
#include "snarkd/groth16/setup.hpp"
#include "snarkd/groth16/zkey.hpp"
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

// The library's (groth16/setup.hpp), under the name the tests have used (test::ToxicWasteT).
template <class F>
using ToxicWasteT = groth16::ToxicWasteT<F>;

// snarkjs's `groth16 setup` for circuit (with C) and toxic waste t: the zkey's key and circuit
// (groth16/setup.hpp; snarkjs_setup_test.cpp checks it against a plain construction).
template <class E>
ZkeyT<E> snarkjs_setup(const r1cs::CircuitT<typename E::Fr>& circuit, const ToxicWasteT<typename E::Fr>& t) {
  return setup_snarkjs_insecure<E>(circuit, t);
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
