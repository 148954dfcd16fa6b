// Field inversion for batch-affine additions: Pornin's optimised binary GCD ("Optimized Binary GCD
// for Modular Inversion", ePrint 2020/972) over the 32-bit words of any cuda::Field, in
// portable C++ that runs unchanged on the host (tests/cuda/inverse_host_test.cpp checks it against
// ff) and on the device.
//
// Why: Montgomery's trick shares one inversion among the M additions a GPU thread batches, so the
// inversion's cost divided by M is added to every addition. Fermat (x^(p−2)) is ~450 Fp products
// for Fp; this is ~25 outer steps of 31 binary-GCD steps on 64-bit approximations plus four
// 13-word linear combinations each — a few dozen products' worth of integer instructions, with no
// data-dependent branch (every lane of a warp runs the same instruction stream).
//
// Algorithm (invariants a·y ≡ u·x, b·y ≡ v·x mod p; start a = x, b = p, u = y, v = 0): each outer
// step takes ā, b̄ = the top 33 and low 31 bits of a, b at their common length, runs 31 binary-GCD
// steps on them recording the 2×2 matrix (f0 g0; f1 g1) with |f|+|g| ≤ 2^31, then applies it
// exactly: a ← (f0·a + g0·b)/2^31, b ← (f1·a + g1·b)/2^31 (negated with their row when the
// approximation let them go negative), u, v likewise with the division by 2^31 done mod p
// (a Montgomery step: add t·p, t = −S·p⁻¹ mod 2^31). 2·bits − 1 steps bring a to 0 and b to 1
// (Pornin's bound); one extra outer step is kept as margin, and the result is checked
// (v·x = y, one product) with Fermat as the fallback, so a wrong step can cost time, never a
// wrong value. With y = R² mod p and x in Montgomery form xR, v = R/x: the Montgomery form of 1/x.
#pragma once
#include <cstddef>
#include <cstdint>

#include "snarkd/cuda/field.hpp"
#include "snarkd/cuda/fp2.hpp"
#include "snarkd/cuda/mont32.cuh"
#include "snarkd/ff/bigint.hpp"

namespace snarkd::cuda::mont32 {

namespace gcd {

template <class H>
inline constexpr size_t kOuterSteps = (2 * H::kBits - 1 + 30) / 31 + 1;  // Pornin's bound + 1 margin

// The 64-bit window of the n-word value a starting at bit s (s ≤ 32n − 64), by selects over the
// words (no dynamic register indexing on the device).
template <size_t n>
SNARKD_HD uint64_t window64(const uint32_t* a, uint32_t s) {
  const uint32_t q = s / 32, r = s % 32;
  uint32_t w0 = 0, w1 = 0, w2 = 0;
  SNARKD_UNROLL
  for (uint32_t k = 0; k < n; ++k) {
    w0 = k == q ? a[k] : w0;
    w1 = k == q + 1 ? a[k] : w1;
    w2 = k == q + 2 ? a[k] : w2;
  }
  const uint64_t lo = (uint64_t(w1) << 32) | w0;
  return r == 0 ? lo : (lo >> r) | (uint64_t(w2) << (64 - r));
}

// Bit length of (a | b), branch-free.
template <size_t n>
SNARKD_HD uint32_t common_length(const uint32_t* a, const uint32_t* b) {
  uint32_t len = 0;
  SNARKD_UNROLL
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t w = a[k] | b[k];
    const uint32_t bits = w == 0 ? 0 : 32 * k + 32 - clz32(w);
    len = w == 0 ? len : bits;
  }
  return len;
}

// out (n+1 words, two's complement) = a·f + b·g for n-word unsigned a, b and |f|, |g| ≤ 2^31.
template <size_t n>
SNARKD_HD void lin_comb(uint32_t* out, const uint32_t* a, int64_t f, const uint32_t* b, int64_t g) {
  const uint64_t fm = uint64_t(f < 0 ? -f : f), gm = uint64_t(g < 0 ? -g : g);
  const uint32_t fs = f < 0 ? 0xffffffffu : 0, gs = g < 0 ? 0xffffffffu : 0;
  // a·|f| and b·|g| as (n+1)-word numbers, conditionally negated (x ^ s) + (s & 1), then summed.
  uint64_t ca = 0, cb = 0, na = fs & 1, nb = gs & 1, sum = 0;
  SNARKD_UNROLL
  for (uint32_t k = 0; k <= n; ++k) {
    uint32_t pa, pb;
    if (k < n) {
      const uint64_t ta = uint64_t(a[k]) * fm + ca, tb = uint64_t(b[k]) * gm + cb;
      pa = uint32_t(ta), pb = uint32_t(tb);
      ca = ta >> 32, cb = tb >> 32;
    } else {
      pa = uint32_t(ca), pb = uint32_t(cb);
    }
    na += uint64_t(pa ^ fs);
    nb += uint64_t(pb ^ gs);
    sum += uint64_t(uint32_t(na)) + uint32_t(nb);
    out[k] = uint32_t(sum);
    sum >>= 32;
    na >>= 32, nb >>= 32;
  }
}

// a = |v| >> 31 for the (n+1)-word two's complement v (whose low 31 bits are zero); returns
// whether v was negative.
template <size_t n>
SNARKD_HD bool abs_shift31(uint32_t* a, const uint32_t* v) {
  const uint32_t s = (v[n] >> 31) ? 0xffffffffu : 0;
  uint32_t m[n + 1];
  uint64_t c = s & 1;
  SNARKD_UNROLL
  for (uint32_t k = 0; k <= n; ++k) {
    c += uint64_t(v[k] ^ s);
    m[k] = uint32_t(c);
    c >>= 32;
  }
  SNARKD_UNROLL
  for (uint32_t k = 0; k < n; ++k) a[k] = (m[k] >> 31) | (m[k + 1] << 1);
  return s != 0;
}

// u = (S + t·p) / 2^31 normalised to [0, p), for S = u·f + v·g (two's complement, n+1 words,
// |S| < 2^31·p): t = −S·p⁻¹ mod 2^31 zeroes the low 31 bits; the quotient lies in (−p, 2p).
template <class H>
SNARKD_HD void mont_div31(uint32_t* u, const uint32_t* S) {
  constexpr size_t n = 2 * H::N;
  const uint32_t t = (S[0] * kInv<H>) & 0x7fffffffu;
  uint32_t w[n + 1];
  uint64_t c = 0;
  SNARKD_UNROLL
  for (uint32_t k = 0; k < n; ++k) {
    c += uint64_t(S[k]) + uint64_t(t) * p<H>(k);
    w[k] = uint32_t(c);
    c >>= 32;
  }
  w[n] = S[n] + uint32_t(c);  // two's complement top word (fits: |S + t·p| < 2^32·p ≤ 2^(32n+31), kSpareBit)
  uint32_t q[n];
  SNARKD_UNROLL
  for (uint32_t k = 0; k < n; ++k) q[k] = (w[k] >> 31) | (w[k + 1] << 1);
  const bool neg = (w[n] >> 31) != 0;  // q in (−p, 0): add p
  uint64_t c2 = 0;
  uint32_t r[n];
  SNARKD_UNROLL
  for (uint32_t k = 0; k < n; ++k) {
    c2 += uint64_t(q[k]) + (neg ? p<H>(k) : 0);
    r[k] = uint32_t(c2);
    c2 >>= 32;
  }
  // r in [0, 2p): subtract p unless that borrows.
  uint32_t d[n];
  uint64_t b = 0;
  SNARKD_UNROLL
  for (uint32_t k = 0; k < n; ++k) {
    const uint64_t x = uint64_t(r[k]) - p<H>(k) - b;
    d[k] = uint32_t(x);
    b = (x >> 63) & 1;
  }
  SNARKD_UNROLL
  for (uint32_t k = 0; k < n; ++k) u[k] = b ? r[k] : d[k];
}

// 31 binary-GCD steps on the approximations; returns the matrix (f0, g0, f1, g1) scaled by 2^31.
SNARKD_HD void inner_steps(uint64_t a, uint64_t b, int64_t& f0, int64_t& g0, int64_t& f1, int64_t& g1) {
  f0 = 1, g0 = 0, f1 = 0, g1 = 1;
  SNARKD_UNROLL
  for (int j = 0; j < 31; ++j) {
    const uint64_t odd = 0 - (a & 1);
    const uint64_t sw = odd & (0 - uint64_t(a < b));
    const uint64_t d = (a ^ b) & sw;
    a ^= d, b ^= d;
    const int64_t s = int64_t(sw);
    const int64_t df = (f0 ^ f1) & s, dg = (g0 ^ g1) & s;
    f0 ^= df, f1 ^= df, g0 ^= dg, g1 ^= dg;
    const int64_t o = int64_t(odd);
    a -= b & odd;
    f0 -= f1 & o, g0 -= g1 & o;
    a >>= 1;
    f1 *= 2, g1 *= 2;
  }
}

}  // namespace gcd

// r = y/x mod p for n-word values (x, y < p); r = 0 when x = 0. No check (see inverse_mont).
template <class H>
SNARKD_HD void div_bingcd(uint32_t* r, const uint32_t* y, const uint32_t* x) {
  static_assert(kSpareBit<H>, "the binary GCD needs p < 2^(32n−1)");
  constexpr size_t n = 2 * H::N;
  uint32_t a[n], b[n], u[n], v[n];
  SNARKD_UNROLL
  for (uint32_t k = 0; k < n; ++k) a[k] = x[k], b[k] = p<H>(k), u[k] = y[k], v[k] = 0;
  for (size_t it = 0; it < gcd::kOuterSteps<H>; ++it) {
    const uint32_t len = gcd::common_length<n>(a, b);
    const uint32_t s = len > 64 ? len - 64 : 0;
    const uint64_t wa = gcd::window64<n>(a, s), wb = gcd::window64<n>(b, s);
    const uint64_t low = 0x7fffffffull, high = ~low;
    const uint64_t ab = (wa & high) | (uint64_t(a[0]) & low), bb = (wb & high) | (uint64_t(b[0]) & low);
    int64_t f0, g0, f1, g1;
    gcd::inner_steps(ab, bb, f0, g0, f1, g1);
    uint32_t t[n + 1], na[n], nb[n];
    gcd::lin_comb<n>(t, a, f0, b, g0);
    if (gcd::abs_shift31<n>(na, t)) f0 = -f0, g0 = -g0;
    gcd::lin_comb<n>(t, a, f1, b, g1);
    if (gcd::abs_shift31<n>(nb, t)) f1 = -f1, g1 = -g1;
    uint32_t su[n + 1], sv[n + 1];
    gcd::lin_comb<n>(su, u, f0, v, g0);
    gcd::lin_comb<n>(sv, u, f1, v, g1);
    gcd::mont_div31<H>(u, su);
    gcd::mont_div31<H>(v, sv);
    SNARKD_UNROLL
    for (uint32_t k = 0; k < n; ++k) a[k] = na[k], b[k] = nb[k];
  }
  uint32_t nz = 0;
  SNARKD_UNROLL
  for (uint32_t k = 0; k < n; ++k) nz |= x[k];
  SNARKD_UNROLL
  for (uint32_t k = 0; k < n; ++k) r[k] = nz ? v[k] : 0;
}

// r = 1/x in Montgomery form (x = xR → R/x), 0 for x = 0: the binary GCD with y = R², then the
// check x·r = R (one product); on a mismatch (never seen in tests) Fermat decides.
template <class H>
SNARKD_HD void inverse_mont(uint32_t* r, const uint32_t* x) {
  constexpr size_t n = 2 * H::N;
  uint32_t y[n];
  SNARKD_UNROLL
  for (uint32_t k = 0; k < n; ++k) y[k] = r2<H>(k);
  div_bingcd<H>(r, y, x);
  uint32_t chk[n], acc = 0, nz = 0;
  mul<H>(chk, r, x);
  SNARKD_UNROLL
  for (uint32_t k = 0; k < n; ++k) {
    acc |= chk[k] ^ one<H>(k);
    nz |= x[k];
  }
  if (acc != 0 && nz != 0) {  // fallback: x^(p−2), left to right
    uint32_t z[n];
    SNARKD_UNROLL
    for (uint32_t k = 0; k < n; ++k) z[k] = one<H>(k);
    for (int i = int(H::kBits) - 1; i >= 0; --i) {
      mul<H>(z, z, z);
      if ((p_minus_2<H>(i / 32) >> (i % 32)) & 1) mul<H>(z, z, x);
    }
    SNARKD_UNROLL
    for (uint32_t k = 0; k < n; ++k) r[k] = z[k];
  }
}

}  // namespace snarkd::cuda::mont32

namespace snarkd::cuda {

// 1/x (0 → 0) by the binary GCD above, for the prime fields; Fp2 through the norm:
// 1/(a + b·u) = (a − b·u)/(a² + b²) (one Fp inversion).
template <class H>
SNARKD_HD Field<H> inverse_gcd(const Field<H>& x) {
  Field<H> r;
  mont32::inverse_mont<H>(r.w, x.w);
  return r;
}
template <class H>
SNARKD_HD Fp2T<H> inverse_gcd(const Fp2T<H>& x) {
  const typename Fp2T<H>::Base ni = inverse_gcd(x.c0.sqr() + x.c1.sqr());
  return {x.c0 * ni, -(x.c1 * ni)};
}

}  // namespace snarkd::cuda
