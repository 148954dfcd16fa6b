// Fixed-width unsigned integers as little-endian 64-bit limbs, usable in constexpr.
// This is the canonical (non-Montgomery) representation of field elements and exponents.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

namespace snarkd::ff {

using u128 = unsigned __int128;

template <size_t N>
struct BigInt {
  static constexpr size_t kLimbs = N;
  uint64_t limb[N] = {};

  constexpr bool operator==(const BigInt&) const = default;

  constexpr bool is_zero() const {
    for (size_t i = 0; i < N; ++i)
      if (limb[i]) return false;
    return true;
  }
  constexpr bool bit(size_t i) const { return i < 64 * N && ((limb[i / 64] >> (i % 64)) & 1); }
  // Index of the highest set bit + 1 (0 for zero).
  constexpr size_t bit_length() const {
    for (size_t i = N; i-- > 0;)
      if (limb[i]) return 64 * i + 64 - static_cast<size_t>(__builtin_clzll(limb[i]));
    return 0;
  }
  static constexpr BigInt from_u64(uint64_t v) {
    BigInt r;
    r.limb[0] = v;
    return r;
  }
  // Parses "0x..." or plain hex; constexpr so moduli can be written as in specifications.
  static constexpr BigInt from_hex(const char* s) {
    BigInt r;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
    size_t len = 0;
    while (s[len]) ++len;
    for (size_t i = 0; i < len; ++i) {
      char c = s[len - 1 - i];
      uint64_t d = (c >= '0' && c <= '9') ? uint64_t(c - '0')
                   : (c >= 'a' && c <= 'f') ? uint64_t(c - 'a' + 10)
                                            : uint64_t(c - 'A' + 10);
      r.limb[i / 16] |= d << (4 * (i % 16));
    }
    return r;
  }
};

// a < b
template <size_t N>
constexpr bool less_than(const BigInt<N>& a, const BigInt<N>& b) {
  for (size_t i = N; i-- > 0;)
    if (a.limb[i] != b.limb[i]) return a.limb[i] < b.limb[i];
  return false;
}

// r = a + b, returns the carry out.
template <size_t N>
constexpr uint64_t add_carry(BigInt<N>& r, const BigInt<N>& a, const BigInt<N>& b) {
  uint64_t c = 0;
  for (size_t i = 0; i < N; ++i) {
    u128 t = u128(a.limb[i]) + b.limb[i] + c;
    r.limb[i] = uint64_t(t);
    c = uint64_t(t >> 64);
  }
  return c;
}

// r = a - b, returns the borrow out (1 when a < b).
template <size_t N>
constexpr uint64_t sub_borrow(BigInt<N>& r, const BigInt<N>& a, const BigInt<N>& b) {
  uint64_t br = 0;
  for (size_t i = 0; i < N; ++i) {
    u128 t = u128(a.limb[i]) - b.limb[i] - br;
    r.limb[i] = uint64_t(t);
    br = uint64_t(t >> 64) & 1;
  }
  return br;
}

template <size_t N>
constexpr BigInt<N> shr(const BigInt<N>& a, size_t s) {
  BigInt<N> r;
  size_t w = s / 64, b = s % 64;
  for (size_t i = 0; i + w < N; ++i) {
    r.limb[i] = a.limb[i + w] >> b;
    if (b && i + w + 1 < N) r.limb[i] |= a.limb[i + w + 1] << (64 - b);
  }
  return r;
}

// Number of trailing zero bits (0 for zero).
template <size_t N>
constexpr size_t trailing_zeros(const BigInt<N>& a) {
  for (size_t i = 0; i < N; ++i)
    if (a.limb[i]) return 64 * i + static_cast<size_t>(__builtin_ctzll(a.limb[i]));
  return 0;
}

}  // namespace snarkd::ff
