// Independent references for NTT tests (CPU and GPU): random vectors, roots of unity computed
// without Field::root_of_unity, and polynomial evaluation by Horner's rule. Generic over the
// scalar field F (BLS12-381's ff::Fr unless told).
#pragma once
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <type_traits>
#include <vector>

#include "snarkd/ff/fr.hpp"

namespace snarkd::test {

template <class F = ff::Fr>
std::vector<F> random_vector(std::mt19937_64& g, size_t n) {
  std::vector<F> v(n);
  for (F& x : v) x = F::random(g);
  return v;
}
inline std::vector<ff::Fr> random_fr_vector(std::mt19937_64& g, size_t n) { return random_vector<ff::Fr>(g, n); }

// n values: 0 with probability p0, 1 with p1, else a random non-zero element (a witness of the
// PoRep kind at p0 + p1 ≈ 0.95).
template <class F = ff::Fr>
std::vector<F> random_bit_heavy(std::mt19937_64& g, uint64_t n, double p0, double p1) {
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<F> w(n);
  for (F& x : w) {
    const double t = u(g);
    x = t < p0 ? F::zero() : t < p0 + p1 ? F::one() : F::random_nonzero(g);
  }
  return w;
}

// g^((r−1)/2^log_n), independently of F::root_of_unity.
template <class F = ff::Fr>
F expected_root(uint32_t log_n, uint64_t generator) {
  return F::from_u64(generator).pow(ff::shr(F::kModulusMinusOne, log_n));
}

// Σ_i c_i x^i by Horner (F from x, so vectors convert).
template <class F>
F evaluate(std::type_identity_t<std::span<const F>> c, const F& x) {
  F acc = F::zero();
  for (size_t i = c.size(); i-- > 0;) acc = acc * x + c[i];
  return acc;
}

}  // namespace snarkd::test
