// Fp2 = Fp[u]/(u² + 1) for host and device (G2 coordinates): one type name and interface, with
// the bytes of ff::Fp2 (c0 then c1, each a cuda::Fp with ff::Fp's layout).
//
// Multiplication is Karatsuba: 3 Fp products + 5 additions instead of 4 + 2, each a full
// Montgomery product. SNARKD_CUDA_FP2_LAZY=1 keeps the three products double-width and shares
// two Montgomery reductions (mont32::fp2_mul_lazy: ~5n² multiply-adds instead of 6n²); on the
// H200 it measured slower (6.49 against 6.85 G Fp2 products/s; G2 MSM 2^24 649.7 ms against
// 514.7 ms with full products: the double-width products' registers), so it is off by default
// and kept for the A/B.
// Squaring uses (a + b)(a − b) and 2ab: 2 products. On the host every operation forwards to
// ff::Fp2.
#pragma once
#include "snarkd/cuda/field.hpp"
#include "snarkd/ff/fp2.hpp"

#if !defined(SNARKD_CUDA_FP2_LAZY)
#define SNARKD_CUDA_FP2_LAZY 0
#endif

namespace snarkd::cuda {

struct alignas(16) Fp2 {
  using Host = ff::Fp2;
  Fp c0, c1;

  static Fp2 from_host(const ff::Fp2& h) { return std::bit_cast<Fp2>(h); }
  ff::Fp2 to_host() const { return std::bit_cast<ff::Fp2>(*this); }

  SNARKD_HD static Fp2 zero() { return {Fp::zero(), Fp::zero()}; }
  SNARKD_HD static Fp2 one() { return {Fp::one(), Fp::zero()}; }
  SNARKD_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  SNARKD_HD bool operator==(const Fp2& o) const { return c0 == o.c0 && c1 == o.c1; }
  SNARKD_HD bool operator!=(const Fp2& o) const { return !(*this == o); }

  SNARKD_HD Fp2 operator+(const Fp2& b) const { return {c0 + b.c0, c1 + b.c1}; }
  SNARKD_HD Fp2 operator-(const Fp2& b) const { return {c0 - b.c0, c1 - b.c1}; }
  SNARKD_HD Fp2 operator-() const { return {-c0, -c1}; }
  SNARKD_HD Fp2 operator*(const Fp2& b) const {
#if defined(__CUDA_ARCH__) && SNARKD_CUDA_FP2_LAZY
    Fp2 r;
    mont32::fp2_mul_lazy<ff::Fp>(r.c0.w, r.c1.w, c0.w, c1.w, b.c0.w, b.c1.w);
    return r;
#elif defined(__CUDA_ARCH__)
    return mul_karatsuba(b);
#else
    return from_host(to_host() * b.to_host());
#endif
  }
  // Three full Montgomery products (the A/B reference for the lazy product).
  SNARKD_HD Fp2 mul_karatsuba(const Fp2& b) const {
    const Fp t0 = c0 * b.c0, t1 = c1 * b.c1;
    return {t0 - t1, (c0 + c1) * (b.c0 + b.c1) - t0 - t1};
  }
  SNARKD_HD Fp2& operator+=(const Fp2& b) { return *this = *this + b; }
  SNARKD_HD Fp2& operator-=(const Fp2& b) { return *this = *this - b; }
  SNARKD_HD Fp2& operator*=(const Fp2& b) { return *this = *this * b; }
  SNARKD_HD Fp2 dbl() const { return {c0.dbl(), c1.dbl()}; }
  SNARKD_HD Fp2 sqr() const {
#if defined(__CUDA_ARCH__)
    return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()};
#else
    return from_host(to_host().square());
#endif
  }
};

static_assert(sizeof(Fp2) == sizeof(ff::Fp2) && sizeof(Fp2) == 96);
static_assert(std::is_trivially_copyable_v<Fp2> && std::is_trivially_copyable_v<ff::Fp2>);

}  // namespace snarkd::cuda
