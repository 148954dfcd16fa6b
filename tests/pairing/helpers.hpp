// Shared helpers for tests/pairing: GMP ↔ BigInt, a multiplication-only power routine that does
// not touch the code under test's square()/pow(), hex decoding of the vector file's encoding.
#pragma once
#include <gmp.h>

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "common/gmp_util.hpp"
#include "common/json.hpp"
#include "snarkd/ff/fp12.hpp"
#include "snarkd/ff/fr.hpp"

namespace snarkd::test {

// p as an mpz, from the library's modulus (the modulus itself is checked in tests/ff).
inline void modulus_p(mpz_t out) { limbs_to_mpz(out, ff::Fp::kModulus.limb, 6); }
inline void modulus_r(mpz_t out) { limbs_to_mpz(out, ff::Fr::kModulus.limb, 4); }

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

inline ff::Fp fp_from_hex(const std::string& hex) {
  ff::Fp r;
  if (hex.size() != 96 || !ff::Fp::from_repr(ff::BigInt<6>::from_hex(hex.c_str()), r))
    throw std::runtime_error("bad Fp hex: " + hex);
  return r;
}
inline ff::Fp2 fp2_from_json(const Json& v) {
  return {fp_from_hex(v[0].str()), fp_from_hex(v[1].str())};
}
// 12 Fp values in tower order c0.c0.c0, c0.c0.c1, c0.c1.c0, …, c1.c2.c1.
inline ff::Fp12 fp12_from_json(const Json& v) {
  if (v.size() != 12) throw std::runtime_error("Fp12 needs 12 values");
  std::array<ff::Fp2, 6> c;
  for (size_t i = 0; i < 6; ++i)
    c[i] = {fp_from_hex(v[2 * i].str()), fp_from_hex(v[2 * i + 1].str())};
  return {{c[0], c[1], c[2]}, {c[3], c[4], c[5]}};
}

}  // namespace snarkd::test
