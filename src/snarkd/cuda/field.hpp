// Fp and Fr for host and device: one type name and one interface (snarkd::cuda::Fp, ::Fr).
//
// Layout contract (ff/field.hpp): the bytes of cuda::Fr are exactly those of ff::Fr — the
// Montgomery value x·2^256 mod r, fully reduced, as 8 little-endian 32-bit limbs (ff::Fr: 4
// little-endian 64-bit limbs); likewise cuda::Fp (12 limbs, R = 2^384) and ff::Fp, and the BN254
// fields cuda::bn254::Fr, Fp (8 limbs each, R = 2^256) and ff::bn254::Fr, Fp. Buffers of any of
// these types cross PCIe without conversion, and from_host / to_host are bit copies.
//
// On the device the arithmetic is PTX with 32-bit carry chains (mont32.cuh); on the host (host
// code compiled by nvcc or by the C++ compiler alike) every operation forwards to the ff type, so
// code written against cuda::Fr runs in both places and the host path is the reference.
//
// Constants are not pasted: the device reads the modulus, −p⁻¹ mod 2^32 and R from the host
// constexpr values (ff::Field::kModulus, kInv, kR) through __device__ constexpr copies that the
// compiler folds into instruction immediates.
#pragma once
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "snarkd/ff/bn254.hpp"
#include "snarkd/ff/fp.hpp"
#include "snarkd/ff/fr.hpp"

#if defined(__CUDACC__)
#define SNARKD_HD __host__ __device__ __forceinline__
#else
#define SNARKD_HD inline
#endif

#if defined(__CUDACC__)
#include "snarkd/cuda/mont32.cuh"
#endif

namespace snarkd::cuda {

// H is the host prime field (ff::Fp, ff::Fr, ff::bn254::Fp or ff::bn254::Fr).
template <class H>
struct alignas(16) Field {
  using Host = H;
  static constexpr size_t kWords = 2 * H::N;
  uint32_t w[kWords];

  // Bit copies to and from the host type (same bytes, see the layout contract).
  static Field from_host(const H& h) { return std::bit_cast<Field>(h); }
  H to_host() const { return std::bit_cast<H>(*this); }

  SNARKD_HD static Field zero() {
    Field r;
    for (size_t i = 0; i < kWords; ++i) r.w[i] = 0;
    return r;
  }
  SNARKD_HD static Field one() {
#if defined(__CUDA_ARCH__)
    Field r;
    for (size_t i = 0; i < kWords; ++i) r.w[i] = mont32::one<H>(i);
    return r;
#else
    return from_host(H::one());
#endif
  }

  SNARKD_HD bool is_zero() const {
    uint32_t acc = 0;
    for (size_t i = 0; i < kWords; ++i) acc |= w[i];
    return acc == 0;
  }
  SNARKD_HD bool operator==(const Field& o) const {
    uint32_t acc = 0;
    for (size_t i = 0; i < kWords; ++i) acc |= w[i] ^ o.w[i];
    return acc == 0;
  }
  SNARKD_HD bool operator!=(const Field& o) const { return !(*this == o); }

  SNARKD_HD Field operator+(const Field& b) const {
#if defined(__CUDA_ARCH__)
    Field r;
    mont32::add<H>(r.w, w, b.w);
    return r;
#else
    return from_host(to_host() + b.to_host());
#endif
  }
  SNARKD_HD Field operator-(const Field& b) const {
#if defined(__CUDA_ARCH__)
    Field r;
    mont32::sub<H>(r.w, w, b.w);
    return r;
#else
    return from_host(to_host() - b.to_host());
#endif
  }
  SNARKD_HD Field operator-() const { return zero() - *this; }
  SNARKD_HD Field operator*(const Field& b) const {
#if defined(__CUDA_ARCH__)
    Field r;
    mont32::mul<H>(r.w, w, b.w);
    return r;
#else
    return from_host(to_host() * b.to_host());
#endif
  }
  SNARKD_HD Field& operator+=(const Field& b) { return *this = *this + b; }
  SNARKD_HD Field& operator-=(const Field& b) { return *this = *this - b; }
  SNARKD_HD Field& operator*=(const Field& b) { return *this = *this * b; }
  SNARKD_HD Field dbl() const { return *this + *this; }
  // Squaring is a multiplication for now (a dedicated squaring saves ~25% of the products;
  // no kernel of this slice squares in its inner loop).
  SNARKD_HD Field sqr() const { return *this * *this; }

  // a^(p−2) (0 → 0), left-to-right over the constant exponent: ~kBits squarings and ~kBits/2
  // multiplications; meant for batch-inversion roots and tests, not inner loops.
  SNARKD_HD Field inverse() const {
#if defined(__CUDA_ARCH__)
    Field r = one();
    for (int i = int(H::kBits) - 1; i >= 0; --i) {
      r = r.sqr();
      if ((mont32::p_minus_2<H>(i / 32) >> (i % 32)) & 1) r = r * *this;
    }
    return r;
#else
    return from_host(to_host().inverse());
#endif
  }
};

// Whether F is one of the Field<H> (a prime field; Fp2 is not): G1 coordinates vs G2's.
template <class F>
inline constexpr bool kIsPrimeField = false;
template <class H>
inline constexpr bool kIsPrimeField<Field<H>> = true;

// BLS12-381.
using Fr = Field<ff::Fr>;
using Fp = Field<ff::Fp>;

// BN254 (alt_bn128): the same template over ff/bn254.hpp's fields.
namespace bn254 {
using Fr = Field<ff::bn254::Fr>;
using Fp = Field<ff::bn254::Fp>;
}  // namespace bn254

// F has the host type H's bytes: the same size (kBytes), both trivially copyable.
template <class F, class H, size_t kBytes>
inline constexpr bool kSameLayout = (sizeof(F) == sizeof(H)) && (sizeof(F) == kBytes) &&
                                    std::is_trivially_copyable_v<F> && std::is_standard_layout_v<F> &&
                                    std::is_trivially_copyable_v<H>;
static_assert(kSameLayout<Fr, ff::Fr, 32> && kSameLayout<Fp, ff::Fp, 48>);
static_assert(kSameLayout<bn254::Fr, ff::bn254::Fr, 32> && kSameLayout<bn254::Fp, ff::bn254::Fp, 32>);

}  // namespace snarkd::cuda
