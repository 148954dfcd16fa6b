// Variable-time field inversion by the binary extended GCD (Kaliski's almost Montgomery
// inverse, IEEE Trans. Computers 44(8), 1995), for host code whose operands are not secret or
// whose surrounding algorithm is variable-time anyway (Pippenger's batch-affine buckets, the
// pairing's final exponentiation). Field::inverse stays the constexpr Fermat power p − 2.
//
// Why: Fermat costs ≈ 381 squarings + 190 products for Fp (≈ 28 µs on the Zen 3 dev VM, 3 % of a
// G1 MSM of 2^20); the binary GCD needs ≈ 1.4·381 shift/subtract steps on 6 limbs.
//
// Phase 1 on the Montgomery limbs ã = a·R returns x = ã⁻¹·2^k mod p with bits(p) ≤ k ≤
// 2·bits(p); one Montgomery product with R³·2^(−k) (a table indexed by k) turns it into
// (a⁻¹)·R, the Montgomery form of a⁻¹.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "snarkd/ff/bigint.hpp"
#include "snarkd/ff/field.hpp"
#include "snarkd/ff/fp2.hpp"

namespace snarkd::ff {

namespace detail {

// Unrolled limb arithmetic for the loop below (BigInt's constexpr helpers compile to loops with
// data-dependent branches: the first version of this inversion, written with them, took 17 µs
// for Fp instead of the ≈ 10 µs measured now).
template <size_t N>
[[gnu::always_inline]] inline uint64_t add_n(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  unsigned __int128 c = 0;
#pragma GCC unroll 8
  for (size_t i = 0; i < N; ++i) {
    c += static_cast<unsigned __int128>(a[i]) + b[i];
    r[i] = static_cast<uint64_t>(c);
    c >>= 64;
  }
  return static_cast<uint64_t>(c);
}
// r = a − b; returns the borrow (1 when a < b).
template <size_t N>
[[gnu::always_inline]] inline uint64_t sub_n(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  uint64_t borrow = 0;
#pragma GCC unroll 8
  for (size_t i = 0; i < N; ++i) {
    const unsigned __int128 d = static_cast<unsigned __int128>(a[i]) - b[i] - borrow;
    r[i] = static_cast<uint64_t>(d);
    borrow = static_cast<uint64_t>(d >> 64) & 1;
  }
  return borrow;
}
// a >>= t, b <<= t for 0 < t < 64 (the binary GCD's paired shifts).
template <size_t N>
[[gnu::always_inline]] inline void shr_shl(uint64_t* a, uint64_t* b, unsigned t) {
#pragma GCC unroll 8
  for (size_t i = 0; i + 1 < N; ++i) a[i] = (a[i] >> t) | (a[i + 1] << (64 - t));
  a[N - 1] >>= t;
#pragma GCC unroll 8
  for (size_t j = 1; j < N; ++j) b[N - j] = (b[N - j] << t) | (b[N - j - 1] >> (64 - t));
  b[0] <<= t;
}
// Removes the trailing zeros of a (non-zero), doubling b as often; returns how many.
template <size_t N>
[[gnu::always_inline]] inline size_t strip_twos(uint64_t* a, uint64_t* b) {
  size_t total = 0;
  while (!(a[0] & 1)) {
    const unsigned t = a[0] ? unsigned(__builtin_ctzll(a[0])) : 63;
    shr_shl<N>(a, b, t);
    total += t;
  }
  return total;
}

// R³·2^(−k) mod p for k ≤ 2·64N, as raw limbs (the Montgomery product with them divides by R).
template <class F>
const std::vector<typename F::Repr>& almost_inverse_fixups() {
  static const std::vector<typename F::Repr> table = [] {
    using Repr = typename F::Repr;
    const F r2 = F::from_montgomery(F::kR2);
    Repr x = (r2 * r2).montgomery();  // R⁴·R⁻¹ = R³ mod p
    std::vector<Repr> t(2 * 64 * F::N + 1);
    for (Repr& e : t) {
      e = x;
      if (x.limb[0] & 1) add_carry(x, x, F::kModulus);  // x + p < 2p: no carry out
      x = shr(x, 1);                                     // x / 2 mod p
    }
    return t;
  }();
  return table;
}

}  // namespace detail

// a⁻¹ (0 ↦ 0, as Field::inverse), in time that depends on a.
template <class P>
Field<P> inverse_vartime(const Field<P>& a) {
  using F = Field<P>;
  constexpr size_t N = F::N;
  if (a.is_zero()) return F::zero();
  // Kaliski's phase 1 with the halvings of a step merged: p = u·s + v·r throughout, so
  // r, s ≤ 2p < 2^(64N); u, v odd at the top of the loop.
  const typename F::Repr am = a.montgomery();
  uint64_t u[N], v[N], r[N] = {}, s[N] = {1}, d[N];
  for (size_t i = 0; i < N; ++i) u[i] = F::kModulus.limb[i], v[i] = am.limb[i];
  size_t k = detail::strip_twos<N>(v, r);
  for (;;) {
    if (!detail::sub_n<N>(d, u, v)) {  // u ≥ v
      bool equal = true;
      for (size_t i = 0; i < N; ++i) equal &= d[i] == 0;
      if (equal) {  // u = v = 1: the last step sets v = 0 and doubles r (s is not used again)
        detail::add_n<N>(r, r, r);
        ++k;
        break;
      }
      for (size_t i = 0; i < N; ++i) u[i] = d[i];
      detail::add_n<N>(r, r, s);
      k += detail::strip_twos<N>(u, s);
    } else {
      detail::sub_n<N>(v, v, u);
      detail::add_n<N>(s, s, r);
      k += detail::strip_twos<N>(v, r);
    }
  }
  typename F::Repr x;
  for (size_t i = 0; i < N; ++i) x.limb[i] = r[i];
  if (!less_than(x, F::kModulus)) sub_borrow(x, x, F::kModulus);
  sub_borrow(x, F::kModulus, x);  // ã⁻¹·2^k
  return F::mont_mul(F::from_montgomery(x), F::from_montgomery(detail::almost_inverse_fixups<F>()[k]));
}

// Fp2::inverse with the binary-GCD inversion of the norm.
template <class Cfg>
Fp2T<Cfg> inverse_vartime(const Fp2T<Cfg>& a) {
  const typename Cfg::Base t = inverse_vartime(a.norm());
  return {a.c0 * t, -(a.c1 * t)};
}

}  // namespace snarkd::ff
