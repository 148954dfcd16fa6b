// Fp and Fr for host and device: one type name and one interface (snarkd::cuda::Fp, ::Fr).
//
// Layout contract (ff/field.hpp): the bytes of cuda::Fr are exactly those of ff::Fr — the
// Montgomery value x·2^256 mod r, fully reduced, as 8 little-endian 32-bit limbs (ff::Fr: 4
// little-endian 64-bit limbs); likewise cuda::Fp (12 limbs, R = 2^384) and ff::Fp. Buffers of
// either type cross PCIe without conversion, and from_host / to_host are bit copies.
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

// H is the host field (ff::Fp or ff::Fr).
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

using Fr = Field<ff::Fr>;
using Fp = Field<ff::Fp>;

static_assert(sizeof(Fr) == sizeof(ff::Fr) && sizeof(Fr) == 32);
static_assert(sizeof(Fp) == sizeof(ff::Fp) && sizeof(Fp) == 48);
static_assert(std::is_trivially_copyable_v<Fr> && std::is_standard_layout_v<Fr>);
static_assert(std::is_trivially_copyable_v<Fp> && std::is_standard_layout_v<Fp>);
static_assert(std::is_trivially_copyable_v<ff::Fr> && std::is_trivially_copyable_v<ff::Fp>);

}  // namespace snarkd::cuda
