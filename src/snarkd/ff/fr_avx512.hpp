// Eight Fr elements at a time with AVX-512 IFMA (vpmadd52luq / vpmadd52huq: the low or high 52
// bits of a 52 × 52-bit product added to a 64-bit lane), for the NTT's butterflies.
//
// Representation: lane values in radix 2^52, five limbs x_0..x_4 (< 2^52 each, "normalised"),
// limb k of all eight lanes in one register (Fr8::v[k]). A lane holds the same residue as
// Fr's Montgomery limbs (x·2^256 mod r), converted by splitting the 256 bits into 52-bit pieces;
// inside a computation values stay below 2r (lazy: no reduction to < r until stored).
//
// Products use R' = 2^260 (five rounds of 52 bits), so mul(a, b) = a·b·2^−260 mod r; an
// operand pre-multiplied by 2^4 (see scaled16) makes it the Fr product a·b·2^−256, bit for bit
// the residue Fr's operator* gives. Bounds (r < 2^254.86): with a < 16r and b < 2r the CIOS
// result (a·b + m·r)/2^260 < a·b/2^260 + r < 2r, so no conditional subtraction is needed.
//
// Cost of one product of eight lanes: 5 rounds × (10 + 1 + 10) IFMA + carries ≈ 130 vector
// instructions. Zen 5 issues two 512-bit IFMA per cycle: measured on the dev VM, 46–48 TSC
// ticks per eight-lane product in four independent chains (≈ 6 per lane; 68–71 in one dependent
// chain), against ≈ 34 ticks for one dependent scalar Fr product (16.2 ns). Sapphire Rapids
// gains less (one-thread NTT 2.3× against Zen 5's 5×; its 512-bit IFMA is reported at one per
// cycle); docs/PERFORMANCE.md has both machines' figures.
//
// Only for host code, and only where avx512_ifma_supported(): every function here carries the
// target attribute, so translation units that include this header are compiled for the common
// x86-64-v3 baseline and nothing but these functions uses AVX-512 (no shared inline function is
// ever emitted with AVX-512 instructions, which would break older CPUs through the linker's
// choice of one copy).
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#define SNARKD_HAVE_AVX512_IFMA_CODE 1
// GCC 12's AVX-512 intrinsics start masked operations from a self-initialised "undefined"
// register and warn about it where they are inlined (GCC bug 105593, fixed in GCC 13).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

#include <array>
#include <cstddef>
#include <cstdint>

#include "snarkd/ff/fr.hpp"

namespace snarkd::ff::avx512 {

// Runtime check: AVX-512 F, DQ, BW, VL and IFMA, with the OS saving the zmm state (the
// compiler's cpu-feature check includes XCR0). False on non-x86 builds.
bool ifma_supported();

inline constexpr size_t kLimbs52 = 5;
inline constexpr uint64_t kMask52 = (uint64_t{1} << 52) - 1;

// A 256-bit value (four 64-bit limbs) split into five 52-bit limbs.
constexpr std::array<uint64_t, kLimbs52> split52(const BigInt<4>& x) {
  std::array<uint64_t, kLimbs52> out{};
  for (size_t k = 0; k < kLimbs52; ++k) {
    const size_t bit = 52 * k, w = bit / 64, s = bit % 64;
    uint64_t v = x.limb[w] >> s;
    if (s > 12 && w + 1 < 4) v |= x.limb[w + 1] << (64 - s);
    out[k] = v & kMask52;
  }
  return out;
}

inline constexpr std::array<uint64_t, kLimbs52> kR52 = split52(Fr::kModulus);
inline constexpr std::array<uint64_t, kLimbs52> kTwoR52 = [] {
  BigInt<4> two_r;
  add_carry(two_r, Fr::kModulus, Fr::kModulus);  // 2r < 2^256: no carry out
  return split52(two_r);
}();
// −r⁻¹ mod 2^52 (the low 52 bits of −r⁻¹ mod 2^64).
inline constexpr uint64_t kNegInv52 = Fr::kInv & kMask52;
static_assert(((kNegInv52 * kR52[0]) & kMask52) == kMask52, "−r⁻¹·r ≡ −1 mod 2^52");

// x·2^4: the Montgomery-256 residue an operand of mul() needs to act as x in Fr's product.
inline Fr scaled16(const Fr& x) { return x * Fr::from_u64(16); }

#ifdef SNARKD_HAVE_AVX512_IFMA_CODE
#define SNARKD_AVX512_TARGET __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,avx512ifma")))
#define SNARKD_AVX512_INLINE SNARKD_AVX512_TARGET __attribute__((always_inline)) inline

// Eight lanes of one Fr value each; see the header comment for the representation.
struct alignas(64) Fr8 {
  __m512i v[kLimbs52];
};

SNARKD_AVX512_INLINE __m512i bcast(uint64_t x) { return _mm512_set1_epi64(static_cast<long long>(x)); }

// Unsigned carry chain: limbs < 2^63 → normalised limbs (the top one keeps the excess).
SNARKD_AVX512_INLINE void carry_unsigned(__m512i (&t)[kLimbs52]) {
  const __m512i m = bcast(kMask52);
  for (size_t k = 0; k + 1 < kLimbs52; ++k) {
    t[k + 1] = _mm512_add_epi64(t[k + 1], _mm512_srli_epi64(t[k], 52));
    t[k] = _mm512_and_si512(t[k], m);
  }
}
// Signed carry chain (limbs in (−2^62, 2^62)): the top limb ends negative iff the value is.
SNARKD_AVX512_INLINE void carry_signed(__m512i (&t)[kLimbs52]) {
  const __m512i m = bcast(kMask52);
  for (size_t k = 0; k + 1 < kLimbs52; ++k) {
    t[k + 1] = _mm512_add_epi64(t[k + 1], _mm512_srai_epi64(t[k], 52));
    t[k] = _mm512_and_si512(t[k], m);
  }
}
// t + c where the lane mask says so, then the unsigned chain (t normalised below the top, the
// top limb negative in the masked lanes; t + c ≥ 0 there).
SNARKD_AVX512_INLINE void add_where(__m512i (&t)[kLimbs52], __mmask8 where,
                                    const std::array<uint64_t, kLimbs52>& c) {
  for (size_t k = 0; k < kLimbs52; ++k) t[k] = _mm512_mask_add_epi64(t[k], where, t[k], bcast(c[k]));
  carry_unsigned(t);
}
// Lanes where the signed value in t (after carry_signed) is negative.
SNARKD_AVX512_INLINE __mmask8 negative(const __m512i (&t)[kLimbs52]) {
  return _mm512_movepi64_mask(t[kLimbs52 - 1]);
}
// t − c, keeping t where that is negative: for t < 2c, the result is < c.
SNARKD_AVX512_INLINE Fr8 reduce_below(const __m512i (&t)[kLimbs52],
                                      const std::array<uint64_t, kLimbs52>& c) {
  __m512i d[kLimbs52];
  for (size_t k = 0; k < kLimbs52; ++k) d[k] = _mm512_sub_epi64(t[k], bcast(c[k]));
  carry_signed(d);
  const __mmask8 keep = negative(d);
  Fr8 out;
  for (size_t k = 0; k < kLimbs52; ++k) out.v[k] = _mm512_mask_blend_epi64(keep, d[k], t[k]);
  return out;
}

// (a + b) mod 2r for a, b < 2r.
SNARKD_AVX512_INLINE Fr8 add(const Fr8& a, const Fr8& b) {
  __m512i s[kLimbs52];
  for (size_t k = 0; k < kLimbs52; ++k) s[k] = _mm512_add_epi64(a.v[k], b.v[k]);
  carry_unsigned(s);
  return reduce_below(s, kTwoR52);
}
// (a − b) mod 2r for a, b < 2r.
SNARKD_AVX512_INLINE Fr8 sub(const Fr8& a, const Fr8& b) {
  __m512i d[kLimbs52];
  for (size_t k = 0; k < kLimbs52; ++k) d[k] = _mm512_sub_epi64(a.v[k], b.v[k]);
  carry_signed(d);
  add_where(d, negative(d), kTwoR52);
  Fr8 out;
  for (size_t k = 0; k < kLimbs52; ++k) out.v[k] = d[k];
  return out;
}
// a + b < 4r, normalised but not reduced: only as a mul() operand (< 16r allowed).
SNARKD_AVX512_INLINE Fr8 add_lazy(const Fr8& a, const Fr8& b) {
  __m512i s[kLimbs52];
  for (size_t k = 0; k < kLimbs52; ++k) s[k] = _mm512_add_epi64(a.v[k], b.v[k]);
  carry_unsigned(s);
  Fr8 out;
  for (size_t k = 0; k < kLimbs52; ++k) out.v[k] = s[k];
  return out;
}
// a − b + 2r ∈ (0, 4r), normalised but not reduced: only as a mul() operand.
SNARKD_AVX512_INLINE Fr8 sub_lazy(const Fr8& a, const Fr8& b) {
  __m512i d[kLimbs52];
  for (size_t k = 0; k < kLimbs52; ++k)
    d[k] = _mm512_add_epi64(_mm512_sub_epi64(a.v[k], b.v[k]), bcast(kTwoR52[k]));
  carry_signed(d);
  Fr8 out;
  for (size_t k = 0; k < kLimbs52; ++k) out.v[k] = d[k];
  return out;
}

// a·b·2^−260 mod r, < 2r, for a < 16r and b < 2r (CIOS, one 52-bit round per limb of b). The
// accumulators t_k take ≤ 4 products' halves per round over ≤ 5 rounds: < 2^57, no overflow.
SNARKD_AVX512_INLINE Fr8 mul(const Fr8& a, const Fr8& b) {
  const __m512i zero = _mm512_setzero_si512(), ninv = bcast(kNegInv52);
  __m512i t[kLimbs52 + 1] = {zero, zero, zero, zero, zero, zero};
  for (size_t i = 0; i < kLimbs52; ++i) {
    const __m512i bi = b.v[i];
    for (size_t k = 0; k < kLimbs52; ++k) t[k] = _mm512_madd52lo_epu64(t[k], a.v[k], bi);
    for (size_t k = 0; k < kLimbs52; ++k) t[k + 1] = _mm512_madd52hi_epu64(t[k + 1], a.v[k], bi);
    const __m512i m = _mm512_madd52lo_epu64(zero, t[0], ninv);  // t_0 + m·r_0 ≡ 0 mod 2^52
    for (size_t k = 0; k < kLimbs52; ++k) t[k] = _mm512_madd52lo_epu64(t[k], m, bcast(kR52[k]));
    for (size_t k = 0; k < kLimbs52; ++k)
      t[k + 1] = _mm512_madd52hi_epu64(t[k + 1], m, bcast(kR52[k]));
    // Divide by 2^52: t_0's low half is zero, its high bits carry into t_1.
    t[1] = _mm512_add_epi64(t[1], _mm512_srli_epi64(t[0], 52));
    for (size_t k = 0; k < kLimbs52; ++k) t[k] = t[k + 1];
    t[kLimbs52] = zero;
  }
  __m512i r[kLimbs52] = {t[0], t[1], t[2], t[3], t[4]};
  carry_unsigned(r);
  Fr8 out;
  for (size_t k = 0; k < kLimbs52; ++k) out.v[k] = r[k];
  return out;
}

// x's limbs in every lane (pass scaled16(x) for a product operand).
SNARKD_AVX512_INLINE Fr8 broadcast(const Fr& x) {
  const auto s = split52(x.montgomery());
  Fr8 out;
  for (size_t k = 0; k < kLimbs52; ++k) out.v[k] = bcast(s[k]);
  return out;
}

// Eight elements' 64-bit limbs, two elements per register (z_i = elements 2i, 2i+1), into limb
// registers q_k = limb k of elements 0..7, and back: the same index pattern both ways.
SNARKD_AVX512_INLINE void transpose_4x8(__m512i (&z)[4]) {
  const __m512i even = _mm512_setr_epi64(0, 4, 8, 12, 1, 5, 9, 13);
  const __m512i odd = _mm512_setr_epi64(2, 6, 10, 14, 3, 7, 11, 15);
  const __m512i u0 = _mm512_permutex2var_epi64(z[0], even, z[1]);  // e0-3: limbs 0, 1
  const __m512i u1 = _mm512_permutex2var_epi64(z[0], odd, z[1]);   // e0-3: limbs 2, 3
  const __m512i u2 = _mm512_permutex2var_epi64(z[2], even, z[3]);  // e4-7: limbs 0, 1
  const __m512i u3 = _mm512_permutex2var_epi64(z[2], odd, z[3]);   // e4-7: limbs 2, 3
  z[0] = _mm512_shuffle_i64x2(u0, u2, 0x44);
  z[1] = _mm512_shuffle_i64x2(u0, u2, 0xEE);
  z[2] = _mm512_shuffle_i64x2(u1, u3, 0x44);
  z[3] = _mm512_shuffle_i64x2(u1, u3, 0xEE);
}
SNARKD_AVX512_INLINE void untranspose_4x8(__m512i (&q)[4]) {
  const __m512i even = _mm512_setr_epi64(0, 4, 8, 12, 1, 5, 9, 13);
  const __m512i odd = _mm512_setr_epi64(2, 6, 10, 14, 3, 7, 11, 15);
  const __m512i u0 = _mm512_shuffle_i64x2(q[0], q[1], 0x44);  // e0-3: limbs 0, 1
  const __m512i u2 = _mm512_shuffle_i64x2(q[0], q[1], 0xEE);  // e4-7: limbs 0, 1
  const __m512i u1 = _mm512_shuffle_i64x2(q[2], q[3], 0x44);  // e0-3: limbs 2, 3
  const __m512i u3 = _mm512_shuffle_i64x2(q[2], q[3], 0xEE);  // e4-7: limbs 2, 3
  q[0] = _mm512_permutex2var_epi64(u0, even, u1);
  q[1] = _mm512_permutex2var_epi64(u0, odd, u1);
  q[2] = _mm512_permutex2var_epi64(u2, even, u3);
  q[3] = _mm512_permutex2var_epi64(u2, odd, u3);
}

// Limb registers (4 × 64 bits, canonical) → 5 × 52 bits.
SNARKD_AVX512_INLINE Fr8 from_limbs64(const __m512i (&q)[4]) {
  const __m512i m = bcast(kMask52);
  Fr8 out;
  out.v[0] = _mm512_and_si512(q[0], m);
  out.v[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(q[0], 52), _mm512_slli_epi64(q[1], 12)), m);
  out.v[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(q[1], 40), _mm512_slli_epi64(q[2], 24)), m);
  out.v[3] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(q[2], 28), _mm512_slli_epi64(q[3], 36)), m);
  out.v[4] = _mm512_srli_epi64(q[3], 16);
  return out;
}
// a < 2r → canonical (< r) limb registers, 4 × 64 bits.
SNARKD_AVX512_INLINE void to_limbs64(const Fr8& a, __m512i (&q)[4]) {
  const Fr8 c = reduce_below(a.v, kR52);
  q[0] = _mm512_or_si512(c.v[0], _mm512_slli_epi64(c.v[1], 52));
  q[1] = _mm512_or_si512(_mm512_srli_epi64(c.v[1], 12), _mm512_slli_epi64(c.v[2], 40));
  q[2] = _mm512_or_si512(_mm512_srli_epi64(c.v[2], 24), _mm512_slli_epi64(c.v[3], 28));
  q[3] = _mm512_or_si512(_mm512_srli_epi64(c.v[3], 36), _mm512_slli_epi64(c.v[4], 16));
}

// Eight consecutive Fr (p[0..7], any alignment).
SNARKD_AVX512_INLINE Fr8 load_contiguous(const Fr* p) {
  const auto* b = reinterpret_cast<const uint8_t*>(p);
  __m512i z[4];
  for (size_t i = 0; i < 4; ++i) z[i] = _mm512_loadu_si512(b + 64 * i);
  transpose_4x8(z);
  return from_limbs64(z);
}
SNARKD_AVX512_INLINE void store_contiguous(Fr* p, const Fr8& a) {
  __m512i q[4];
  to_limbs64(a, q);
  untranspose_4x8(q);
  auto* b = reinterpret_cast<uint8_t*>(p);
  for (size_t i = 0; i < 4; ++i) _mm512_storeu_si512(b + 64 * i, q[i]);
}
// Eight Fr at p[0], p[stride], …, p[7·stride].
SNARKD_AVX512_INLINE Fr8 load_strided(const Fr* p, size_t stride) {
  __m512i z[4];
  for (size_t i = 0; i < 4; ++i) {
    const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 2 * i * stride));
    const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + (2 * i + 1) * stride));
    z[i] = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
  }
  transpose_4x8(z);
  return from_limbs64(z);
}
SNARKD_AVX512_INLINE void store_strided(Fr* p, size_t stride, const Fr8& a) {
  __m512i q[4];
  to_limbs64(a, q);
  untranspose_4x8(q);
  for (size_t i = 0; i < 4; ++i) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + 2 * i * stride), _mm512_castsi512_si256(q[i]));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + (2 * i + 1) * stride),
                        _mm512_extracti64x4_epi64(q[i], 1));
  }
}
#endif  // SNARKD_HAVE_AVX512_IFMA_CODE

}  // namespace snarkd::ff::avx512
