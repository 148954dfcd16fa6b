// Prime fields in Montgomery form, generic over the modulus.
//
// Layout contract (shared with the device code): `l` holds the Montgomery value x·R mod p as
// little-endian 64-bit limbs, fully reduced (< p), R = 2^(64·N). On a little-endian machine this
// is byte-for-byte the layout of 2N little-endian 32-bit limbs with the same R, so buffers move
// between host and GPU (and snarkjs "LEM" files) without conversion.
//
// Every constant (R, R², −p⁻¹ mod 2^64, 2-adicity, roots of unity) is derived here in constexpr
// from the modulus; tests/ff recomputes them with GMP.
#pragma once
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "snarkd/ff/bigint.hpp"
#include "snarkd/ff/field_x86_64.hpp"  // the assembly kernels (SNARKD_FF_X86, SNARKD_FF_ADX)

namespace snarkd::ff {

namespace detail {
// −m⁻¹ mod 2^64 by Newton iteration (each step doubles the correct low bits: 6 steps ≥ 64).
constexpr uint64_t neg_inv64(uint64_t m) {
  uint64_t inv = 1;
  for (int i = 0; i < 7; ++i) inv *= 2 - m * inv;
  return ~inv + 1;
}
// (a + a) mod m for a < m < 2^(64N−1).
template <size_t N>
constexpr BigInt<N> dbl_mod(const BigInt<N>& a, const BigInt<N>& m) {
  BigInt<N> r;
  add_carry(r, a, a);
  BigInt<N> s;
  if (!sub_borrow(s, r, m)) return s;
  return r;
}
// 2^k mod m, by k modular doublings of 1 (compile time only).
template <size_t N>
constexpr BigInt<N> pow2_mod(size_t k, const BigInt<N>& m) {
  BigInt<N> r = BigInt<N>::from_u64(1);
  for (size_t i = 0; i < k; ++i) r = dbl_mod(r, m);
  return r;
}
}  // namespace detail

// x^e by left-to-right square-and-multiply, for any field type of the tower (T provides one(),
// square() and *). Variable time in e, which is always public here: inversion, square roots,
// roots of unity, Frobenius constants.
template <class T, size_t M>
constexpr T pow_vartime(const T& x, const BigInt<M>& e) {
  T r = T::one();
  for (size_t i = e.bit_length(); i-- > 0;) {
    r = r.square();
    if (e.bit(i)) r = r * x;
  }
  return r;
}

// P provides: kLimbs, kModulus (BigInt<kLimbs>), and a name.
template <class P>
class Field {
 public:
  static constexpr size_t N = P::kLimbs;
  using Repr = BigInt<N>;
  static constexpr Repr kModulus = P::kModulus;
  static constexpr size_t kBits = kModulus.bit_length();
  static constexpr size_t kBytes = 8 * N;
  static constexpr uint64_t kInv = detail::neg_inv64(kModulus.limb[0]);
  static constexpr Repr kR = detail::pow2_mod(64 * N, kModulus);       // Montgomery one
  static constexpr Repr kR2 = detail::pow2_mod(128 * N, kModulus);     // converts into Montgomery
  static constexpr Repr kModulusMinusOne = [] {
    Repr r;
    sub_borrow(r, kModulus, Repr::from_u64(1));
    return r;
  }();
  // p − 1 = 2^kTwoAdicity · kOddPart
  static constexpr size_t kTwoAdicity = trailing_zeros(kModulusMinusOne);
  static constexpr Repr kOddPart = shr(kModulusMinusOne, kTwoAdicity);
  // The no-carry CIOS multiplication below needs a spare top bit (gnark's condition).
  static_assert(kModulus.limb[N - 1] < (~uint64_t(0) >> 1) - 1, "modulus needs a spare top bit");

  uint64_t l[N] = {};

  constexpr Field() = default;

  static constexpr Field zero() { return Field(); }
  static constexpr Field one() { return from_montgomery(kR); }
  // Wraps an already-Montgomery value; the caller guarantees it is < p (trusted sources only).
  static constexpr Field from_montgomery(const Repr& m) {
    Field f;
    for (size_t i = 0; i < N; ++i) f.l[i] = m.limb[i];
    return f;
  }
  // Canonical integer v (< p) into Montgomery form: v·R² ·R⁻¹.
  static constexpr Field from_repr_unchecked(const Repr& v) {
    return mont_mul(from_montgomery(v), from_montgomery(kR2));
  }
  // Returns false if v ≥ p.
  static constexpr bool from_repr(const Repr& v, Field& out) {
    if (!less_than(v, kModulus)) return false;
    out = from_repr_unchecked(v);
    return true;
  }
  static constexpr Field from_u64(uint64_t v) { return from_repr_unchecked(reduce_small(v)); }
  static constexpr Field from_i64(int64_t v) {
    return v < 0 ? -from_u64(uint64_t(0) - uint64_t(v)) : from_u64(uint64_t(v));
  }
  constexpr Repr montgomery() const {
    Repr r;
    for (size_t i = 0; i < N; ++i) r.limb[i] = l[i];
    return r;
  }
  // Canonical integer: x·R·R⁻¹.
  constexpr Repr to_repr() const { return mont_mul(*this, from_montgomery(Repr::from_u64(1))).montgomery(); }

  constexpr bool is_zero() const {
    uint64_t acc = 0;
    for (size_t i = 0; i < N; ++i) acc |= l[i];
    return acc == 0;
  }
  constexpr bool is_one() const { return *this == one(); }
  constexpr bool operator==(const Field& o) const {
    for (size_t i = 0; i < N; ++i)
      if (l[i] != o.l[i]) return false;
    return true;
  }
  constexpr bool operator!=(const Field& o) const { return !(*this == o); }

  [[gnu::always_inline]] constexpr Field operator+(const Field& b) const {
#ifdef SNARKD_FF_X86
    if constexpr (N == 4 || N == 6)
      if (!std::is_constant_evaluated()) return add_asm(*this, b);
#endif
    Repr s;
    add_carry(s, montgomery(), b.montgomery());  // < 2p < 2^(64N): no carry out
    Repr t;
    return from_montgomery(sub_borrow(t, s, kModulus) ? s : t);
  }
  [[gnu::always_inline]] constexpr Field operator-(const Field& b) const {
#ifdef SNARKD_FF_X86
    if constexpr (N == 4 || N == 6)
      if (!std::is_constant_evaluated()) return sub_asm(*this, b);
#endif
    Repr d;
    if (sub_borrow(d, montgomery(), b.montgomery())) add_carry(d, d, kModulus);
    return from_montgomery(d);
  }
  // The compound and derived operators are forced inline too: an MSM profile showed GCC
  // emitting out-of-line .isra clones of them, each call storing and reloading the operands.
  [[gnu::always_inline]] constexpr Field operator-() const {
    return is_zero() ? *this : zero() - *this;
  }
  [[gnu::always_inline]] constexpr Field operator*(const Field& b) const {
    return mont_mul(*this, b);
  }
  [[gnu::always_inline]] constexpr Field& operator+=(const Field& b) { return *this = *this + b; }
  [[gnu::always_inline]] constexpr Field& operator-=(const Field& b) { return *this = *this - b; }
  [[gnu::always_inline]] constexpr Field& operator*=(const Field& b) { return *this = *this * b; }
  [[gnu::always_inline]] constexpr Field dbl() const { return *this + *this; }
  [[gnu::always_inline]] constexpr Field square() const {
#ifdef SNARKD_FF_ADX
    if constexpr (N == 6)
      if (!std::is_constant_evaluated()) return sqr_asm(*this);
#endif
    return mont_mul(*this, *this);
  }

  // a^e for an exponent of any width (see pow_vartime).
  template <size_t M>
  constexpr Field pow(const BigInt<M>& e) const {
    return pow_vartime(*this, e);
  }
  constexpr Field pow(uint64_t e) const { return pow(BigInt<1>::from_u64(e)); }

  // a^(p−2); inverse of zero is zero (callers that care check is_zero first).
  constexpr Field inverse() const {
    Repr e;
    sub_borrow(e, kModulus, Repr::from_u64(2));
    return pow(e);
  }
  // Euler's criterion: 1 for a non-zero square, −1 for a non-square, 0 for zero.
  constexpr int legendre() const {
    if (is_zero()) return 0;
    Field t = pow(shr(kModulusMinusOne, 1));
    return t.is_one() ? 1 : -1;
  }
  // Square root; returns false when none exists. p ≡ 3 mod 4 uses a^((p+1)/4), otherwise
  // Tonelli–Shanks with the smallest non-residue (variable time: inputs are public).
  constexpr bool sqrt(Field& out) const;

  // Canonical bytes (kBytes of them). Little-endian is iden3's, big-endian ZCash's.
  void to_bytes_le(uint8_t* out) const;
  void to_bytes_be(uint8_t* out) const;
  // Return false (leaving out unchanged) for a value ≥ p: canonical decoding.
  static bool from_bytes_le(const uint8_t* in, Field& out);
  static bool from_bytes_be(const uint8_t* in, Field& out);
  // Raw Montgomery little-endian (snarkjs LEM); rejects values ≥ p.
  static bool from_montgomery_bytes_le(const uint8_t* in, Field& out);
  void to_montgomery_bytes_le(uint8_t* out) const;

  // Uniform in [0, p) by rejection sampling; G is a UniformRandomBitGenerator of 64-bit words.
  template <class G>
  static Field random(G& g) {
    const size_t top = kBits - 64 * (N - 1);
    const uint64_t mask = top == 64 ? ~uint64_t(0) : (uint64_t(1) << top) - 1;
    for (;;) {
      Repr v;
      for (size_t i = 0; i < N; ++i) v.limb[i] = uint64_t(g());
      v.limb[N - 1] &= mask;
      if (less_than(v, kModulus)) return from_montgomery(v);  // uniform either way
    }
  }
  // Uniform in [1, p): secrets that must be invertible (setup trapdoors).
  template <class G>
  static Field random_nonzero(G& g) {
    for (;;)
      if (const Field v = random(g); !v.is_zero()) return v;
  }

  // Root of unity of order 2^log_n from the multiplicative generator g: g^((p−1)/2^log_n).
  // The domain generator is a parameter: 5 for snarkjs keys, 7 for bellperson/Filecoin keys.
  static constexpr Field root_of_unity(size_t log_n, uint64_t g) {
    Field w = from_u64(g).pow(kOddPart);
    for (size_t i = log_n; i < kTwoAdicity; ++i) w = w.square();
    return w;
  }

  // Montgomery product a·b·R⁻¹ mod p: CIOS without the extra carry word, valid because the
  // modulus leaves the top bit free (2N² + N multiplications, one final conditional subtract).
  // At run time 4- and 6-limb fields use the mulx/adcx/adox kernel above (same algorithm).
  // Forced inline: the result then stays in registers; returned through memory it would be
  // stored as 8-byte words and reloaded as 16-byte vectors, a store-forwarding stall (~20%).
  [[gnu::always_inline]] static constexpr Field mont_mul(const Field& a, const Field& b) {
#ifdef SNARKD_FF_ADX
    if constexpr (N == 4 || N == 6)
      if (!std::is_constant_evaluated()) return mul_asm(a, b);
#endif
    uint64_t t[N] = {};
    for (size_t i = 0; i < N; ++i) {
      u128 x = u128(a.l[0]) * b.l[i] + t[0];
      uint64_t A = uint64_t(x >> 64);
      uint64_t m = uint64_t(x) * kInv;
      u128 y = u128(m) * kModulus.limb[0] + uint64_t(x);
      uint64_t C = uint64_t(y >> 64);
      for (size_t j = 1; j < N; ++j) {
        x = u128(a.l[j]) * b.l[i] + t[j] + A;
        A = uint64_t(x >> 64);
        y = u128(m) * kModulus.limb[j] + uint64_t(x) + C;
        C = uint64_t(y >> 64);
        t[j - 1] = uint64_t(y);
      }
      t[N - 1] = C + A;
    }
    Field r;
    for (size_t i = 0; i < N; ++i) r.l[i] = t[i];
    Repr s;
    if (!sub_borrow(s, r.montgomery(), kModulus)) return from_montgomery(s);
    return r;
  }

#ifdef SNARKD_FF_ADX
  // Lazy reduction (6 limbs, x86-64 ADX builds; Fp2 multiplication): mul_wide writes the
  // 2N-word product of two N-word integers (not necessarily < p, e.g. a sum of two elements),
  // redc maps w < p·R to w·R⁻¹ mod p. A sum of products then costs one reduction.
  [[gnu::always_inline]] static void mul_wide(uint64_t (&w)[2 * N], const uint64_t* a,
                                              const uint64_t* b)
    requires(N == 6)
  {
    detail::mul_wide6(w, a, b);
  }
  [[gnu::always_inline]] static Field redc(const uint64_t (&w)[2 * N])
    requires(N == 6)
  {
    uint64_t r[N];
    detail::redc6(r, w, &kAsmConstants);
    return Field(r, std::make_index_sequence<N>());
  }
#endif

 private:
#ifdef SNARKD_FF_X86
  // Operand block of the assembly kernels (4- and 6-limb fields only).
  static constexpr detail::AsmConstants<N> kAsmConstants = [] {
    detail::AsmConstants<N> c{};
    for (size_t i = 0; i < N; ++i) c.p[i] = kModulus.limb[i];
    c.inv = kInv;
    return c;
  }();
  [[gnu::always_inline]] static Field add_asm(const Field& a, const Field& b) {
    uint64_t r[N];
    if constexpr (N == 4)
      detail::mod_add4(r, a.l, b.l, &kAsmConstants);
    else
      detail::mod_add6(r, a.l, b.l, &kAsmConstants);
    return Field(r, std::make_index_sequence<N>());
  }
  [[gnu::always_inline]] static Field sub_asm(const Field& a, const Field& b) {
    uint64_t r[N];
    if constexpr (N == 4)
      detail::mod_sub4(r, a.l, b.l, &kAsmConstants);
    else
      detail::mod_sub6(r, a.l, b.l, &kAsmConstants);
    return Field(r, std::make_index_sequence<N>());
  }
  // Builds a Field from limbs without first zeroing it: the zeroing stores would keep the
  // result in memory, and its later vector copy would stall on store forwarding.
  template <size_t... I>
  [[gnu::always_inline]] constexpr Field(const uint64_t (&v)[N], std::index_sequence<I...>)
      : l{v[I]...} {}
#endif
#ifdef SNARKD_FF_ADX
  [[gnu::always_inline]] static Field mul_asm(const Field& a, const Field& b) {
    uint64_t r[N];
    if constexpr (N == 4)
      detail::mont_mul4(r, a.l, b.l, &kAsmConstants);
    else
      detail::mont_mul6(r, a.l, b.l, &kAsmConstants);
    return Field(r, std::make_index_sequence<N>());
  }
  [[gnu::always_inline]] static Field sqr_asm(const Field& a) {
    uint64_t r[N];
    detail::mont_sqr6(r, a.l, &kAsmConstants);
    return Field(r, std::make_index_sequence<N>());
  }
#endif
  // z^Q for the smallest quadratic non-residue z (Tonelli–Shanks' c); the run-time variant
  // computes it on first use.
  static constexpr Field sqrt_nonresidue_root() {
    uint64_t z = 2;
    while (from_u64(z).legendre() != -1) ++z;
    return from_u64(z).pow(kOddPart);
  }
  static Field sqrt_nonresidue_root_cached() {
    static const Field c = sqrt_nonresidue_root();
    return c;
  }
  static constexpr Repr reduce_small(uint64_t v) {
    Repr r = Repr::from_u64(v);
    while (!less_than(r, kModulus)) sub_borrow(r, r, kModulus);  // only for tiny moduli
    return r;
  }
};

template <class P>
constexpr bool Field<P>::sqrt(Field& out) const {
  if (is_zero()) {
    out = zero();
    return true;
  }
  if ((kModulus.limb[0] & 3) == 3) {
    Repr e;
    add_carry(e, kModulus, Repr::from_u64(1));
    Field r = pow(shr(e, 2));
    if (r.square() != *this) return false;
    out = r;
    return true;
  }
  // Tonelli–Shanks (p − 1 = 2^S·Q): c = z^Q for the smallest non-residue z (computed once),
  // w = a^((Q−1)/2), r = a·w = a^((Q+1)/2), t = r·w = a^Q: one exponentiation, where computing
  // the Legendre symbol, z, r and t separately took eight for Fr. A non-residue shows up as t of
  // order 2^S.
  Field c = std::is_constant_evaluated() ? sqrt_nonresidue_root() : sqrt_nonresidue_root_cached();
  Field w = pow(shr(kOddPart, 1));
  Field r = *this * w;
  Field t = r * w;
  size_t m = kTwoAdicity;
  while (!t.is_one()) {
    size_t i = 0;
    Field tt = t;
    while (!tt.is_one()) {
      tt = tt.square();
      if (++i == m) return false;
    }
    Field b = c;
    for (size_t j = 0; j + i + 1 < m; ++j) b = b.square();
    m = i;
    c = b.square();
    t = t * c;
    r = r * b;
  }
  out = r;
  return true;
}

template <class P>
void Field<P>::to_bytes_le(uint8_t* out) const {
  Repr v = to_repr();
  for (size_t i = 0; i < kBytes; ++i) out[i] = uint8_t(v.limb[i / 8] >> (8 * (i % 8)));
}
template <class P>
void Field<P>::to_bytes_be(uint8_t* out) const {
  Repr v = to_repr();
  for (size_t i = 0; i < kBytes; ++i) out[kBytes - 1 - i] = uint8_t(v.limb[i / 8] >> (8 * (i % 8)));
}
template <class P>
bool Field<P>::from_bytes_le(const uint8_t* in, Field& out) {
  Repr v;
  if constexpr (std::endian::native == std::endian::little && kBytes == sizeof(v.limb)) {
    std::memcpy(v.limb, in, kBytes);  // the limbs' own layout: 2 loads, not 32 shifts (−30 % per .wtns value)
  } else {
    for (size_t i = 0; i < kBytes; ++i) v.limb[i / 8] |= uint64_t(in[i]) << (8 * (i % 8));
  }
  return from_repr(v, out);
}
template <class P>
bool Field<P>::from_bytes_be(const uint8_t* in, Field& out) {
  Repr v;
  for (size_t i = 0; i < kBytes; ++i) v.limb[i / 8] |= uint64_t(in[kBytes - 1 - i]) << (8 * (i % 8));
  return from_repr(v, out);
}
template <class P>
bool Field<P>::from_montgomery_bytes_le(const uint8_t* in, Field& out) {
  Repr v;
  for (size_t i = 0; i < kBytes; ++i) v.limb[i / 8] |= uint64_t(in[i]) << (8 * (i % 8));
  if (!less_than(v, kModulus)) return false;
  out = from_montgomery(v);
  return true;
}
template <class P>
void Field<P>::to_montgomery_bytes_le(uint8_t* out) const {
  for (size_t i = 0; i < kBytes; ++i) out[i] = uint8_t(l[i / 8] >> (8 * (i % 8)));
}

// Inverts every non-zero element in place with one field inversion and 3(n−1) multiplications
// (Montgomery's trick); zeros stay zero.
template <class F>
void batch_inverse(std::span<F> v) {
  std::vector<F> prefix(v.size());
  F acc = F::one();
  for (size_t i = 0; i < v.size(); ++i) {
    prefix[i] = acc;
    if (!v[i].is_zero()) acc *= v[i];
  }
  F inv = acc.inverse();
  for (size_t i = v.size(); i-- > 0;) {
    if (v[i].is_zero()) continue;
    F x = v[i];
    v[i] = inv * prefix[i];
    inv *= x;
  }
}

}  // namespace snarkd::ff
