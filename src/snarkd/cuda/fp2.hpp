// Fp2 = Fp[u]/(u² + 1) for host and device (G2 coordinates): one type name and interface, with
// the bytes of the host Fp2 (c0 then c1, each a cuda::Field with the host base field's layout).
// Fp2T<H> is generic over the host type H = ff::Fp2T<Tower>: cuda::Fp2 is BLS12-381's
// (ff::Fp2), cuda::bn254::Fp2 BN254's (ff::bn254::Fp2); both towers use u² = −1 (p ≡ 3 mod 4),
// so the formulas are the same and only the base field differs.
//
// Multiplication is Karatsuba: 3 Fp products + 5 additions instead of 4 + 2, each a full
// Montgomery product. SNARKD_CUDA_FP2_LAZY=1 keeps the three products double-width and shares
// two Montgomery reductions (mont32::fp2_mul_lazy: ~5n² multiply-adds instead of 6n²); on the
// H200 it measured slower (6.49 against 6.85 G Fp2 products/s; G2 MSM 2^24 649.7 ms against
// 514.7 ms with full products: the double-width products' registers), so it is off by default
// and kept for the A/B (BLS12-381 measurements; BN254's 8-word products were not measured).
// Squaring uses (a + b)(a − b) and 2ab: 2 products. On the host every operation forwards to
// the host Fp2.
#pragma once
#include "snarkd/cuda/field.hpp"
#include "snarkd/ff/bn254_tower.hpp"
#include "snarkd/ff/fp2.hpp"

#if !defined(SNARKD_CUDA_FP2_LAZY)
#define SNARKD_CUDA_FP2_LAZY 0
#endif

namespace snarkd::cuda {

template <class H>
struct alignas(16) Fp2T {
  using Host = H;
  using Base = Field<typename H::Base>;
  Base c0, c1;

  static Fp2T from_host(const H& h) { return std::bit_cast<Fp2T>(h); }
  H to_host() const { return std::bit_cast<H>(*this); }

  SNARKD_HD static Fp2T zero() { return {Base::zero(), Base::zero()}; }
  SNARKD_HD static Fp2T one() { return {Base::one(), Base::zero()}; }
  SNARKD_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  SNARKD_HD bool operator==(const Fp2T& o) const { return c0 == o.c0 && c1 == o.c1; }
  SNARKD_HD bool operator!=(const Fp2T& o) const { return !(*this == o); }

  SNARKD_HD Fp2T operator+(const Fp2T& b) const { return {c0 + b.c0, c1 + b.c1}; }
  SNARKD_HD Fp2T operator-(const Fp2T& b) const { return {c0 - b.c0, c1 - b.c1}; }
  SNARKD_HD Fp2T operator-() const { return {-c0, -c1}; }
  SNARKD_HD Fp2T operator*(const Fp2T& b) const {
#if defined(__CUDA_ARCH__) && SNARKD_CUDA_FP2_LAZY
    Fp2T r;
    mont32::fp2_mul_lazy<typename H::Base>(r.c0.w, r.c1.w, c0.w, c1.w, b.c0.w, b.c1.w);
    return r;
#elif defined(__CUDA_ARCH__)
    return mul_karatsuba(b);
#else
    return from_host(to_host() * b.to_host());
#endif
  }
  // Three full Montgomery products (the A/B reference for the lazy product).
  SNARKD_HD Fp2T mul_karatsuba(const Fp2T& b) const {
    const Base t0 = c0 * b.c0, t1 = c1 * b.c1;
    return {t0 - t1, (c0 + c1) * (b.c0 + b.c1) - t0 - t1};
  }
  SNARKD_HD Fp2T& operator+=(const Fp2T& b) { return *this = *this + b; }
  SNARKD_HD Fp2T& operator-=(const Fp2T& b) { return *this = *this - b; }
  SNARKD_HD Fp2T& operator*=(const Fp2T& b) { return *this = *this * b; }
  SNARKD_HD Fp2T dbl() const { return {c0.dbl(), c1.dbl()}; }
  SNARKD_HD Fp2T sqr() const {
#if defined(__CUDA_ARCH__)
    return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()};
#else
    return from_host(to_host().square());
#endif
  }
};

using Fp2 = Fp2T<ff::Fp2>;
namespace bn254 {
using Fp2 = Fp2T<ff::bn254::Fp2>;
}  // namespace bn254

static_assert(kSameLayout<Fp2, ff::Fp2, 96> && kSameLayout<bn254::Fp2, ff::bn254::Fp2, 64>);

// The device field of a host field: Field<H> for a prime field, Fp2T for an Fp2.
template <class H>
struct DeviceOf {
  using type = Field<H>;
};
template <class Tower>
struct DeviceOf<ff::Fp2T<Tower>> {
  using type = Fp2T<ff::Fp2T<Tower>>;
};
// The device coordinate field of a host curve config C (ec::G1Config → Fp, ec::bn254::G2Config →
// bn254::Fp2, ...).
template <class C>
using DeviceFieldOf = typename DeviceOf<typename C::Field>::type;

}  // namespace snarkd::cuda
