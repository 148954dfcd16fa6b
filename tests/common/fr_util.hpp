// Independent references for NTT tests (CPU and GPU): random vectors, roots of unity computed
// without Fr::root_of_unity, and polynomial evaluation by Horner's rule.
#pragma once
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "snarkd/ff/fr.hpp"

namespace snarkd::test {

inline std::vector<ff::Fr> random_fr_vector(std::mt19937_64& g, size_t n) {
  std::vector<ff::Fr> v(n);
  for (ff::Fr& x : v) x = ff::Fr::random(g);
  return v;
}

// g^((r−1)/2^log_n), independently of Fr::root_of_unity.
inline ff::Fr expected_root(uint32_t log_n, uint64_t generator) {
  return ff::Fr::from_u64(generator).pow(ff::shr(ff::Fr::kModulusMinusOne, log_n));
}

// Σ_i c_i x^i by Horner.
inline ff::Fr evaluate(std::span<const ff::Fr> c, const ff::Fr& x) {
  ff::Fr acc = ff::Fr::zero();
  for (size_t i = c.size(); i-- > 0;) acc = acc * x + c[i];
  return acc;
}

}  // namespace snarkd::test
