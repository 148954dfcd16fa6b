// Device Montgomery arithmetic on n = 2·H::N little-endian 32-bit words with PTX carry chains
// (use cuda::Fp / cuda::Fr / cuda::Fp2, not these functions). The same source also compiles as
// plain host C++ — the carry-chain primitives then emulate PTX's carry flag (CC.CF) in a
// thread-local word — so tests/cuda/mont32_host_test.cpp runs these exact algorithms on the CPU
// and compares them bit for bit with ff (the host twin) and GMP, without a GPU.
//
// Multiplication (CIOS, one 32-bit word of b per row). A 32×32 product has a low and a high
// word, so a row a·b_i touches each accumulator word twice; splitting a into its even and odd
// words makes each half a single carry chain — even j puts lo at j and hi at j+1, which tile
// positions 0..n−1 without overlap (mad.lo.cc, madc.hi.cc, madc.lo.cc, ...) — and the odd half
// goes to a second accumulator y aligned one word up, as plain 64-bit products (one IMAD.WIDE,
// half-rate, instead of IMAD + IMAD.HI). After the reduction row, x >> 32 and y are both aligned
// at word 0 and are merged with one add chain on the ALU pipe.
//
// What ptxas makes of it on sm_90 (SASS, H200 measurements in docs/PERFORMANCE.md):
// a carry-chained mad becomes IMAD.X / IMAD.HI.X / IMAD.WIDE.X plus IADD3.X for the carries,
// ~400 instructions per Fr product, shared between the multiplier and the ALU pipes; both are
// near their limits in the NTT, so ALU instructions count as much as multiplies. Measured Fr
// products/s: 46.4·10^9 for plain mad.lo/mad.hi pairs everywhere, 55.9·10^9 for this version
// (64-bit odd products, branch-free m·r₁ below); a product-scanning version (IMAD.WIDE + 64-bit
// column sums in C++) ran at 32·10^9, and one with all odd reduction products as IMAD.WIDE plus
// add chains at 49.8·10^9 but a slower NTT (more ALU work).
//
// Invariants: inputs fully reduced (< p); the accumulator stays < 2p < 2^(32n) after every row
// (T' = (T + a·b_i + m·p) / 2^32 < (2p + 2·(2^32 − 1)·p) / 2^32 < 2p), so one conditional
// subtraction gives a fully reduced result, and the odd accumulator never carries out.
//
// Spare bits: every routine here and in field_inverse.hpp needs exactly one, p < 2^(32n−1), so
// that 2p fits in n words — add's sum, mul's and redc's accumulator (< 2p), add_plain's a + b,
// fp2_mul_lazy's (a0+a1)(b0+b1) < 4p² < 2^(64n) and double-width values < p·2^(32n), and the
// binary GCD's signed (n+1)-word |S + t·p| < 2^32·p ≤ 2^(32n+31). None needs a second one
// (kSpareBit). BLS12-381: Fp 381 bits of 384, Fr 255 of 256 (the tight one); BN254: Fp and Fr
// 254 bits of 256, with n = 8 words for both.
//
// BLS12-381's Fr: r ≡ 1 − 2^32 (mod 2^64), so −r⁻¹ ≡ −1 (mod 2^32): m = −x₀, m·r₀ = m and
// m·r₁ = m·(2^32 − 1) have closed forms; five of the ~4n+1 multiplies per row become adds
// (kSolinasLow64). No other modulus here has that form (BN254's r ends in 0x…f0000001, its p in
// 0x…d87cfd47): they take the general row.
#pragma once
#include <cstddef>
#include <cstdint>

#include "snarkd/ff/bigint.hpp"

#if !defined(SNARKD_HD)
#if defined(__CUDACC__)
#define SNARKD_HD __host__ __device__ __forceinline__
#else
#define SNARKD_HD inline
#endif
#endif

// Full unrolling of the limb loops on the device; g++ (host tests) unrolls what it likes.
#if defined(__CUDACC__)
#define SNARKD_UNROLL _Pragma("unroll")
#else
#define SNARKD_UNROLL
#endif

namespace snarkd::cuda::mont32 {

template <size_t N>
struct Words {
  uint32_t w[N];
};

template <size_t N>
constexpr Words<2 * N> to_words(const ff::BigInt<N>& b) {
  Words<2 * N> r{};
  for (size_t i = 0; i < 2 * N; ++i) r.w[i] = uint32_t(b.limb[i / 2] >> (32 * (i % 2)));
  return r;
}

template <class H>
constexpr ff::BigInt<H::N> modulus_minus_two() {
  ff::BigInt<H::N> e;
  ff::sub_borrow(e, H::kModulus, ff::BigInt<H::N>::from_u64(2));
  return e;
}

// Device copies of the host constants (H = ff::Fp or ff::Fr); element reads with compile-time
// indices fold into instruction immediates. Host code reads the host copies; p<H>(j), one<H>(j),
// r2<H>(j) and p_minus_2<H>(j) pick the right one inside __host__ __device__ code.
#if defined(__CUDACC__)
template <class H>
__device__ constexpr Words<2 * H::N> kModulus = to_words(H::kModulus);
template <class H>
__device__ constexpr Words<2 * H::N> kOne = to_words(H::kR);
template <class H>
__device__ constexpr Words<2 * H::N> kR2 = to_words(H::kR2);
template <class H>
__device__ constexpr Words<2 * H::N> kModulusMinusTwo = to_words(modulus_minus_two<H>());
#endif
template <class H>
struct HostConstants {
  static constexpr Words<2 * H::N> modulus = to_words(H::kModulus), one = to_words(H::kR), r2 = to_words(H::kR2),
                                   modulus_minus_two = to_words(mont32::modulus_minus_two<H>());
};
template <class H>
inline constexpr uint32_t kInv = uint32_t(H::kInv);  // −p⁻¹ mod 2^32
template <class H>
inline constexpr bool kSolinasLow64 = H::kModulus.limb[0] == 0xffffffff00000001ull;
// p < 2^(32n−1): the one spare top bit every routine relies on (see the header comment).
template <class H>
inline constexpr bool kSpareBit = H::kBits < 64 * H::N;

#if defined(__CUDA_ARCH__)
#define SNARKD_MONT32_CONST(dev, host) return dev<H>.w[j]
#else
#define SNARKD_MONT32_CONST(dev, host) return HostConstants<H>::host.w[j]
#endif
template <class H>
SNARKD_HD constexpr uint32_t p(size_t j) {
  SNARKD_MONT32_CONST(kModulus, modulus);
}
template <class H>
SNARKD_HD constexpr uint32_t one(size_t j) {
  SNARKD_MONT32_CONST(kOne, one);
}
template <class H>
SNARKD_HD constexpr uint32_t r2(size_t j) {
  SNARKD_MONT32_CONST(kR2, r2);
}
template <class H>
SNARKD_HD constexpr uint32_t p_minus_2(size_t j) {
  SNARKD_MONT32_CONST(kModulusMinusTwo, modulus_minus_two);
}
#undef SNARKD_MONT32_CONST

// Leading zeros of a 32-bit word (32 for 0).
SNARKD_HD uint32_t clz32(uint32_t w) {
#if defined(__CUDA_ARCH__)
  return uint32_t(__clz(w));
#else
  return w == 0 ? 32 : uint32_t(__builtin_clz(w));
#endif
}

namespace ptx {
#if defined(__CUDA_ARCH__)
#define SNARKD_PTX2(name, op)                                           \
  __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b) {    \
    uint32_t r;                                                         \
    asm volatile(op " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));         \
    return r;                                                           \
  }
#define SNARKD_PTX3(name, op)                                                  \
  __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b, uint32_t c) { \
    uint32_t r;                                                                \
    asm volatile(op " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));     \
    return r;                                                                  \
  }
SNARKD_PTX2(add_cc, "add.cc.u32")
SNARKD_PTX2(addc_cc, "addc.cc.u32")
SNARKD_PTX2(addc, "addc.u32")
SNARKD_PTX2(sub_cc, "sub.cc.u32")
SNARKD_PTX2(subc_cc, "subc.cc.u32")
SNARKD_PTX2(subc, "subc.u32")
SNARKD_PTX3(mad_lo_cc, "mad.lo.cc.u32")
SNARKD_PTX3(madc_lo_cc, "madc.lo.cc.u32")
SNARKD_PTX3(madc_hi_cc, "madc.hi.cc.u32")
SNARKD_PTX3(madc_hi, "madc.hi.u32")
SNARKD_PTX3(mad_hi_cc, "mad.hi.cc.u32")
#undef SNARKD_PTX2
#undef SNARKD_PTX3
#else
// Host emulation of PTX's carry flag: the .cc forms write it (carry out of an addition, borrow
// out of a subtraction), the c forms read it; plain forms leave it alone, as PTX does.
inline thread_local uint32_t cf = 0;
inline uint32_t add_cc(uint32_t a, uint32_t b) {
  const uint64_t s = uint64_t(a) + b;
  cf = uint32_t(s >> 32);
  return uint32_t(s);
}
inline uint32_t addc_cc(uint32_t a, uint32_t b) {
  const uint64_t s = uint64_t(a) + b + cf;
  cf = uint32_t(s >> 32);
  return uint32_t(s);
}
inline uint32_t addc(uint32_t a, uint32_t b) { return a + b + cf; }
inline uint32_t sub_cc(uint32_t a, uint32_t b) {
  cf = a < b;
  return a - b;
}
inline uint32_t subc_cc(uint32_t a, uint32_t b) {
  const uint64_t d = uint64_t(a) - b - cf;
  cf = uint32_t(d >> 63);
  return uint32_t(d);
}
inline uint32_t subc(uint32_t a, uint32_t b) { return a - b - cf; }
inline uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return add_cc(a * b, c); }
inline uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return addc_cc(a * b, c); }
inline uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return add_cc(uint32_t((uint64_t(a) * b) >> 32), c); }
inline uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
  return addc_cc(uint32_t((uint64_t(a) * b) >> 32), c);
}
inline uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) { return addc(uint32_t((uint64_t(a) * b) >> 32), c); }
#endif
}  // namespace ptx

// r = a + b mod p. a + b < 2p < 2^(32n) never carries out; subtract p unless that borrows.
template <class H>
SNARKD_HD void add(uint32_t* r, const uint32_t* a, const uint32_t* b) {
  static_assert(kSpareBit<H>, "mont32 needs p < 2^(32n−1)");
  constexpr size_t n = 2 * H::N;
  uint32_t s[n];
  s[0] = ptx::add_cc(a[0], b[0]);
SNARKD_UNROLL
  for (size_t j = 1; j < n - 1; ++j) s[j] = ptx::addc_cc(a[j], b[j]);
  s[n - 1] = ptx::addc(a[n - 1], b[n - 1]);
  uint32_t d[n];
  d[0] = ptx::sub_cc(s[0], p<H>(0));
SNARKD_UNROLL
  for (size_t j = 1; j < n; ++j) d[j] = ptx::subc_cc(s[j], p<H>(j));
  const uint32_t borrow = ptx::subc(0, 0);  // all ones when s < p
SNARKD_UNROLL
  for (size_t j = 0; j < n; ++j) r[j] = borrow ? s[j] : d[j];
}

// r = a − b mod p: subtract, then add p masked by the borrow.
template <class H>
SNARKD_HD void sub(uint32_t* r, const uint32_t* a, const uint32_t* b) {
  constexpr size_t n = 2 * H::N;
  uint32_t d[n];
  d[0] = ptx::sub_cc(a[0], b[0]);
SNARKD_UNROLL
  for (size_t j = 1; j < n; ++j) d[j] = ptx::subc_cc(a[j], b[j]);
  const uint32_t mask = ptx::subc(0, 0);
  r[0] = ptx::add_cc(d[0], p<H>(0) & mask);
SNARKD_UNROLL
  for (size_t j = 1; j < n - 1; ++j) r[j] = ptx::addc_cc(d[j], p<H>(j) & mask);
  r[n - 1] = ptx::addc(d[n - 1], p<H>(n - 1) & mask);
}

// x[0..n] += even half of a·bi (x[n] receives the carry, 0 or 1).
template <class H>
SNARKD_HD void mad_even(uint32_t* x, const uint32_t* a, uint32_t bi) {
  constexpr size_t n = 2 * H::N;
  x[0] = ptx::mad_lo_cc(a[0], bi, x[0]);
  x[1] = ptx::madc_hi_cc(a[0], bi, x[1]);
SNARKD_UNROLL
  for (size_t j = 2; j < n; j += 2) {
    x[j] = ptx::madc_lo_cc(a[j], bi, x[j]);
    x[j + 1] = ptx::madc_hi_cc(a[j], bi, x[j + 1]);
  }
  x[n] = ptx::addc(0, 0);
}

// y[0..n) = odd half of a·bi, one word down (no additions: the products tile the words).
template <class H>
SNARKD_HD void mul_odd(uint32_t* y, const uint32_t* a, uint32_t bi) {
  constexpr size_t n = 2 * H::N;
SNARKD_UNROLL
  for (size_t j = 1; j < n; j += 2) {
    const uint64_t t = uint64_t(a[j]) * bi;
    y[j - 1] = uint32_t(t);
    y[j] = uint32_t(t >> 32);
  }
}

// The end of a reduction row: y += m·p_odd from odd word `j0` on (y[j0−1] is the first word it
// touches; the carry flag must be clear when j0 = 1, live otherwise), then the merge
// x[0..n) = (x >> 32) + y.
template <class H, size_t j0>
SNARKD_HD void odd_and_merge(uint32_t* x, uint32_t* y, uint32_t m) {
  constexpr size_t n = 2 * H::N;
  if constexpr (j0 == 1) {
    y[0] = ptx::mad_lo_cc(m, p<H>(1), y[0]);
  } else {
    y[j0 - 1] = ptx::madc_lo_cc(m, p<H>(j0), y[j0 - 1]);
  }
SNARKD_UNROLL
  for (size_t j = j0; j < n - 1; j += 2) {
    y[j] = ptx::madc_hi_cc(m, p<H>(j), y[j]);
    y[j + 1] = ptx::madc_lo_cc(m, p<H>(j + 2), y[j + 1]);
  }
  y[n - 1] = ptx::madc_hi(m, p<H>(n - 1), y[n - 1]);  // no carry out (see invariants)
  x[0] = ptx::add_cc(x[1], y[0]);
SNARKD_UNROLL
  for (size_t k = 1; k < n - 1; ++k) x[k] = ptx::addc_cc(x[k + 1], y[k]);
  x[n - 1] = ptx::addc(x[n], y[n - 1]);
}

// x[n] += carry after the even reduction products (x < 2^(32(n+1)), see invariants).
template <class H, size_t j0>
SNARKD_HD void even_tail(uint32_t* x, uint32_t m) {
  constexpr size_t n = 2 * H::N;
SNARKD_UNROLL
  for (size_t j = j0; j < n; j += 2) {
    x[j] = ptx::madc_lo_cc(m, p<H>(j), x[j]);
    x[j + 1] = ptx::madc_hi_cc(m, p<H>(j), x[j + 1]);
  }
  x[n] = ptx::addc(x[n], 0);
}

// One reduction row: m = x[0]·(−p⁻¹); x += m·p_even; y += m·p_odd; x[0..n) = (x >> 32) + y.
template <class H>
SNARKD_HD void reduce_row(uint32_t* x, uint32_t* y) {
  if constexpr (kSolinasLow64<H>) {
    // m = −x0; m·p0 = m cancels x0 (carry out = [x0 ≠ 0]); m·p1 = m·(2^32 − 1) has low word
    // x0 and high word m − [x0 ≠ 0], taken from the borrow of −x0 (a select here cost 7% of the
    // NTT's time).
    const uint32_t x0 = x[0];
    const uint32_t m = ptx::sub_cc(0, x0);    // borrow = [x0 ≠ 0]
    const uint32_t hi = ptx::subc(m, 0);      // m − [x0 ≠ 0]
    x[0] = ptx::add_cc(x0, m);
    x[1] = ptx::addc_cc(x[1], 0);
    even_tail<H, 2>(x, m);
    y[0] = ptx::add_cc(y[0], x0);
    y[1] = ptx::addc_cc(y[1], hi);
    odd_and_merge<H, 3>(x, y, m);
  } else {
    const uint32_t m = x[0] * kInv<H>;
    x[0] = ptx::mad_lo_cc(m, p<H>(0), x[0]);
    x[1] = ptx::madc_hi_cc(m, p<H>(0), x[1]);
    even_tail<H, 2>(x, m);
    odd_and_merge<H, 1>(x, y, m);
  }
}

// r = a·b·2^(−32n) mod p, fully reduced.
template <class H>
SNARKD_HD void mul(uint32_t* r, const uint32_t* a, const uint32_t* b) {
  static_assert(kSpareBit<H>, "mont32 needs p < 2^(32n−1)");
  constexpr size_t n = 2 * H::N;
  uint32_t x[n + 1], y[n];
SNARKD_UNROLL
  for (size_t j = 0; j < n; j += 2) {
    const uint64_t t = uint64_t(a[j]) * b[0];
    x[j] = uint32_t(t);
    x[j + 1] = uint32_t(t >> 32);
  }
  x[n] = 0;
  mul_odd<H>(y, a, b[0]);
  reduce_row<H>(x, y);
SNARKD_UNROLL
  for (size_t i = 1; i < n; ++i) {
    mad_even<H>(x, a, b[i]);
    mul_odd<H>(y, a, b[i]);
    reduce_row<H>(x, y);
  }
  // x < 2p: subtract p unless that borrows.
  uint32_t d[n];
  d[0] = ptx::sub_cc(x[0], p<H>(0));
SNARKD_UNROLL
  for (size_t j = 1; j < n; ++j) d[j] = ptx::subc_cc(x[j], p<H>(j));
  const uint32_t borrow = ptx::subc(0, 0);
SNARKD_UNROLL
  for (size_t j = 0; j < n; ++j) r[j] = borrow ? x[j] : d[j];
}

// ---- Separated product and reduction (lazy reduction for Fp2) ----
//
// A Karatsuba Fp2 product needs three Fp products but only two reductions when the products are
// kept double-width: c0 = redc(a0·b0 − a1·b1), c1 = redc((a0+a1)(b0+b1) − a0·b0 − a1·b1). A
// Montgomery product is ~n² multiply-adds for a·b and ~n² for m·p, so this is 5n² instead of 6n²
// (n = 12 words for Fp), for a few 2n-word additions on the ALU pipe.

// t[0..2n) = a·b, no reduction (a, b < 2^(32n) − any n-word values). Two accumulators make each
// row one carry chain: e takes the products a_j·b_i of even j (lo at i+j, hi at i+j+1: they tile
// [i, i+n)), o those of odd j ([i+1, i+n]); each row's carry lands in the first word no earlier
// row reached, and e + o is the product.
template <class H>
SNARKD_HD void mul_wide(uint32_t* t, const uint32_t* a, const uint32_t* b) {
  constexpr size_t n = 2 * H::N;
  uint32_t e[2 * n], o[2 * n];
SNARKD_UNROLL
  for (size_t j = 0; j < n; j += 2) {
    const uint64_t pe = uint64_t(a[j]) * b[0], po = uint64_t(a[j + 1]) * b[0];
    e[j] = uint32_t(pe), e[j + 1] = uint32_t(pe >> 32);
    o[j + 1] = uint32_t(po), o[j + 2] = uint32_t(po >> 32);
  }
  o[0] = 0;
SNARKD_UNROLL
  for (size_t k = n; k < 2 * n; ++k) e[k] = 0;
SNARKD_UNROLL
  for (size_t k = n + 1; k < 2 * n; ++k) o[k] = 0;
SNARKD_UNROLL
  for (size_t i = 1; i < n; ++i) {
    e[i] = ptx::mad_lo_cc(a[0], b[i], e[i]);
    e[i + 1] = ptx::madc_hi_cc(a[0], b[i], e[i + 1]);
SNARKD_UNROLL
    for (size_t j = 2; j < n; j += 2) {
      e[i + j] = ptx::madc_lo_cc(a[j], b[i], e[i + j]);
      e[i + j + 1] = ptx::madc_hi_cc(a[j], b[i], e[i + j + 1]);
    }
    e[i + n] = ptx::addc(0, 0);
    o[i + 1] = ptx::mad_lo_cc(a[1], b[i], o[i + 1]);
    o[i + 2] = ptx::madc_hi_cc(a[1], b[i], o[i + 2]);
SNARKD_UNROLL
    for (size_t j = 3; j < n; j += 2) {
      o[i + j] = ptx::madc_lo_cc(a[j], b[i], o[i + j]);
      o[i + j + 1] = ptx::madc_hi_cc(a[j], b[i], o[i + j + 1]);
    }
    if (i + n + 1 < 2 * n) o[i + n + 1] = ptx::addc(0, 0);  // the last row carries nothing out
  }
  t[0] = e[0];
  t[1] = ptx::add_cc(e[1], o[1]);
SNARKD_UNROLL
  for (size_t k = 2; k < 2 * n - 1; ++k) t[k] = ptx::addc_cc(e[k], o[k]);
  t[2 * n - 1] = ptx::addc(e[2 * n - 1], o[2 * n - 1]);
}

// r = t·2^(−32n) mod p, fully reduced, for a 2n-word t < p·2^(32n). The low half goes through n
// reduction rows: x = (t_low + M·p)/2^(32n) ≤ p (M < 2^(32n)); the high half t_high < p is then
// added, x + t_high < 2p, and one conditional subtraction finishes.
template <class H>
SNARKD_HD void redc(uint32_t* r, const uint32_t* t) {
  static_assert(kSpareBit<H>, "mont32 needs p < 2^(32n−1)");
  constexpr size_t n = 2 * H::N;
  uint32_t x[n + 1], y[n];
SNARKD_UNROLL
  for (size_t k = 0; k < n; ++k) x[k] = t[k];
SNARKD_UNROLL
  for (size_t i = 0; i < n; ++i) {
    x[n] = 0;
SNARKD_UNROLL
    for (size_t k = 0; k < n; ++k) y[k] = 0;
    reduce_row<H>(x, y);
  }
  uint32_t s[n];
  s[0] = ptx::add_cc(x[0], t[n]);
SNARKD_UNROLL
  for (size_t k = 1; k < n - 1; ++k) s[k] = ptx::addc_cc(x[k], t[n + k]);
  s[n - 1] = ptx::addc(x[n - 1], t[2 * n - 1]);
  uint32_t d[n];
  d[0] = ptx::sub_cc(s[0], p<H>(0));
SNARKD_UNROLL
  for (size_t j = 1; j < n; ++j) d[j] = ptx::subc_cc(s[j], p<H>(j));
  const uint32_t borrow = ptx::subc(0, 0);
SNARKD_UNROLL
  for (size_t j = 0; j < n; ++j) r[j] = borrow ? s[j] : d[j];
}

// r = a + b without reduction (a + b < 2^(32n): callers pass values < p, 2p < 2^(32n)).
template <class H>
SNARKD_HD void add_plain(uint32_t* r, const uint32_t* a, const uint32_t* b) {
  constexpr size_t n = 2 * H::N;
  r[0] = ptx::add_cc(a[0], b[0]);
SNARKD_UNROLL
  for (size_t j = 1; j < n - 1; ++j) r[j] = ptx::addc_cc(a[j], b[j]);
  r[n - 1] = ptx::addc(a[n - 1], b[n - 1]);
}

// d = a − b over 2n words; returns all ones when it borrowed (a < b), else 0.
template <class H>
SNARKD_HD uint32_t sub_wide(uint32_t* d, const uint32_t* a, const uint32_t* b) {
  constexpr size_t n = 2 * H::N;
  d[0] = ptx::sub_cc(a[0], b[0]);
SNARKD_UNROLL
  for (size_t k = 1; k < 2 * n; ++k) d[k] = ptx::subc_cc(a[k], b[k]);
  return ptx::subc(0, 0);
}

// d = a + b over 2n words (no carry out: callers' sums are < 2^(64n)).
template <class H>
SNARKD_HD void add_wide(uint32_t* d, const uint32_t* a, const uint32_t* b) {
  constexpr size_t n = 2 * H::N;
  d[0] = ptx::add_cc(a[0], b[0]);
SNARKD_UNROLL
  for (size_t k = 1; k < 2 * n - 1; ++k) d[k] = ptx::addc_cc(a[k], b[k]);
  d[2 * n - 1] = ptx::addc(a[2 * n - 1], b[2 * n - 1]);
}

// (c0, c1) = (a0 + a1·u)(b0 + b1·u) in Fp[u]/(u² + 1), Karatsuba with two reductions (above).
// Inputs fully reduced; outputs fully reduced. Bounds: a0·b0, a1·b1 < p²; (a0+a1)(b0+b1) < 4p²;
// c1's double-width value a0·b1 + a1·b0 < 2p² < p·2^(32n); c0's a0·b0 − a1·b1 gets p·2^(32n)
// added when negative, so it lies in [0, p·2^(32n)). Order: c0 is reduced before the third
// product so that only the 2n-word sum t0 + t1 stays live across it (≈ 36 registers fewer at
// the peak; the G2 kernels run at the 255-register limit).
template <class H>
SNARKD_HD void fp2_mul_lazy(uint32_t* c0, uint32_t* c1, const uint32_t* a0, const uint32_t* a1, const uint32_t* b0,
                            const uint32_t* b1) {
  constexpr size_t n = 2 * H::N;
  uint32_t sa[n], sb[n];
  add_plain<H>(sa, a0, a1);
  add_plain<H>(sb, b0, b1);
  uint32_t t0[2 * n], t1[2 * n], s01[2 * n];
  mul_wide<H>(t0, a0, b0);
  mul_wide<H>(t1, a1, b1);
  add_wide<H>(s01, t0, t1);
  const uint32_t neg = sub_wide<H>(t0, t0, t1);
  t0[n] = ptx::add_cc(t0[n], p<H>(0) & neg);
SNARKD_UNROLL
  for (size_t k = 1; k < n - 1; ++k) t0[n + k] = ptx::addc_cc(t0[n + k], p<H>(k) & neg);
  t0[2 * n - 1] = ptx::addc(t0[2 * n - 1], p<H>(n - 1) & neg);
  uint32_t r0[n];
  redc<H>(r0, t0);
  mul_wide<H>(t1, sa, sb);
  sub_wide<H>(t1, t1, s01);
  redc<H>(c1, t1);
SNARKD_UNROLL
  for (size_t k = 0; k < n; ++k) c0[k] = r0[k];
}

}  // namespace snarkd::cuda::mont32
