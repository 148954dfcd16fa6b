// Shared helpers for tests/pairing: a multiplication-only power routine that does not touch the
// code under test's square()/pow(), and hex decoding of the vector files' encoding (BLS12-381's
// pairing.json, BN254's bn254.json), generic over the tower.
#pragma once
#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "common/json.hpp"
#include "snarkd/ff/fp12.hpp"

namespace snarkd::test {

// x^e by right-to-left binary powering with operator* only.
template <class T, size_t M>
T pow_by_mul(T x, const ff::BigInt<M>& e) {
  T r = T::one();
  for (size_t i = 0, n = e.bit_length(); i < n; ++i) {
    if (e.bit(i)) r = r * x;
    x = x * x;
  }
  return r;
}

// A prime-field element as canonical big-endian hex of exactly 2·kBytes digits.
template <class Fp>
Fp fp_from_hex(const std::string& hex) {
  Fp r;
  if (hex.size() != 2 * Fp::kBytes || !Fp::from_repr(ff::BigInt<Fp::N>::from_hex(hex.c_str()), r))
    throw std::runtime_error("bad Fp hex: " + hex);
  return r;
}
// [c0, c1].
template <class Tower>
ff::Fp2T<Tower> fp2_from_json(const Json& v) {
  using Fp = typename Tower::Base;
  return {fp_from_hex<Fp>(v[0].str()), fp_from_hex<Fp>(v[1].str())};
}
// 12 Fp values in tower order c0.c0.c0, c0.c0.c1, c0.c1.c0, …, c1.c2.c1.
template <class Tower>
ff::Fp12T<Tower> fp12_from_json(const Json& v) {
  using Fp = typename Tower::Base;
  if (v.size() != 12) throw std::runtime_error("Fp12 needs 12 values");
  std::array<ff::Fp2T<Tower>, 6> c;
  for (size_t i = 0; i < 6; ++i) c[i] = {fp_from_hex<Fp>(v[2 * i].str()), fp_from_hex<Fp>(v[2 * i + 1].str())};
  return {{c[0], c[1], c[2]}, {c[3], c[4], c[5]}};
}

}  // namespace snarkd::test
