// GMP reference model for snarkd::ff fields, reusable by any test folder.
//
// The conversions here never call the field arithmetic under test: a Field's value is read from
// its raw Montgomery limbs (value = limbs·R⁻¹ mod p) and a Field is built from a value by writing
// value·R mod p into its limbs with Field::from_montgomery. R, R⁻¹ and p come from GMP, not from
// the constexpr constants in field.hpp, so a wrong constant or a wrong multiplication both show.
#pragma once
#include <gmp.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "snarkd/ff/bigint.hpp"

namespace snarkd::test {

// Owning mpz_t; converts implicitly to the mpz_ptr/mpz_srcptr arguments of mpz_* calls.
class Mpz {
 public:
  Mpz() { mpz_init(v_); }
  explicit Mpz(uint64_t x) { mpz_init_set_ui(v_, x); }
  static Mpz from_hex(const char* hex) {  // digits only, no "0x"
    Mpz m;
    mpz_set_str(m.v_, hex, 16);
    return m;
  }
  Mpz(const Mpz& o) { mpz_init_set(v_, o.v_); }
  Mpz& operator=(const Mpz& o) {
    mpz_set(v_, o.v_);
    return *this;
  }
  ~Mpz() { mpz_clear(v_); }
  operator mpz_ptr() { return v_; }
  operator mpz_srcptr() const { return v_; }
  bool operator==(const Mpz& o) const { return mpz_cmp(v_, o.v_) == 0; }
  int sign() const { return mpz_sgn(v_); }
  std::string hex() const {
    std::string s(mpz_sizeinbase(v_, 16) + 2, '\0');  // digits, sign, terminator
    mpz_get_str(s.data(), 16, v_);
    s.resize(std::char_traits<char>::length(s.c_str()));
    return "0x" + s;
  }

 private:
  mpz_t v_;
};

// Little-endian 64-bit limbs <-> mpz (mpz_import/export: no string round trips in hot loops).
inline void limbs_to_mpz(mpz_ptr out, const uint64_t* limbs, size_t n) {
  mpz_import(out, n, -1, sizeof(uint64_t), 0, 0, limbs);
}
// Requires 0 ≤ x < 2^(64n); fails the current test otherwise.
inline void mpz_to_limbs(uint64_t* limbs, size_t n, mpz_srcptr x) {
  for (size_t i = 0; i < n; ++i) limbs[i] = 0;
  EXPECT_GE(mpz_sgn(x), 0);
  EXPECT_LE(mpz_sizeinbase(x, 2), 64 * n);
  if (mpz_sgn(x) == 0 || mpz_sizeinbase(x, 2) > 64 * n) return;
  mpz_export(limbs, nullptr, -1, sizeof(uint64_t), 0, 0, x);
}
template <size_t N>
Mpz to_mpz(const ff::BigInt<N>& x) {
  Mpz r;
  limbs_to_mpz(r, x.limb, N);
  return r;
}
template <size_t N>
ff::BigInt<N> to_bigint(mpz_srcptr x) {
  ff::BigInt<N> r;
  mpz_to_limbs(r.limb, N, x);
  return r;
}
// Big-endian (be = true) or little-endian byte string of exactly `len` bytes.
inline void mpz_to_bytes(uint8_t* out, size_t len, mpz_srcptr x, bool be) {
  uint8_t tmp[256] = {};
  size_t count = 0;
  if (mpz_sgn(x) != 0) mpz_export(tmp, &count, -1, 1, 0, 0, x);  // little-endian bytes
  EXPECT_LE(count, len);
  for (size_t i = 0; i < len; ++i) out[be ? len - 1 - i : i] = i < count ? tmp[i] : 0;
}

// Reference model of one prime field F: its modulus and Montgomery radix, computed by GMP from
// the limbs of F::kModulus only.
template <class F>
class GmpField {
 public:
  Mpz p, r, r_inv, half;  // half = (p − 1)/2

  GmpField() {
    p = to_mpz(F::kModulus);
    mpz_setbit(r, 64 * F::N);
    mpz_mod(r, r, p);
    mpz_invert(r_inv, r, p);
    mpz_sub_ui(half, p, 1);
    mpz_fdiv_q_2exp(half, half, 1);
  }

  // out = value of x, in [0, p), read from its Montgomery limbs.
  void value(mpz_ptr out, const F& x) const {
    limbs_to_mpz(out, x.l, F::N);
    mpz_mul(out, out, r_inv);
    mpz_mod(out, out, p);
  }
  Mpz value(const F& x) const {
    Mpz v;
    value(v, x);
    return v;
  }
  // The field element with value v (any integer, reduced mod p first).
  F element(mpz_srcptr v) const {
    Mpz m;
    mpz_mod(m, v, p);
    mpz_mul(m, m, r);
    mpz_mod(m, m, p);
    return F::from_montgomery(to_bigint<F::N>(m));
  }
  // Gtest assertion: x has value `want` (mod p) and its limbs are fully reduced (< p, the layout
  // contract); prints both values in hex on failure.
  ::testing::AssertionResult has_value(const F& x, mpz_srcptr want) const {
    Mpz got, w;
    limbs_to_mpz(got, x.l, F::N);
    if (mpz_cmp(got, p) >= 0)
      return ::testing::AssertionFailure() << "Montgomery limbs " << got.hex() << " not below p";
    value(got, x);
    mpz_mod(w, want, p);
    if (got == w) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << got.hex() << ", want " << w.hex();
  }
};

}  // namespace snarkd::test
