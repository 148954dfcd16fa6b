// G1 and G2 points for host and device, over cuda::Fp (G1) or cuda::Fp2 (G2) — BLS12-381 — or
// cuda::bn254::Fp / bn254::Fp2 — BN254 — with the bytes of the host types: Affine<F> = ec::Affine
// (x, y; infinity = (0, 0)), Xyzz<F> = ec::Xyzz (X, Y, ZZ, ZZZ; infinity ZZ = 0), so bases upload
// and results download as bit copies.
//
// XYZZ coordinates (x = X/ZZ, y = Y/ZZZ, ZZ³ = ZZZ²) are the cheapest for accumulating affine
// points: a mixed addition is 8M + 2S (madd-2008-s) against 7M + 4S plus more additions for
// Jacobian, and it needs no doubling branch in the common case. Formulas: the Explicit-Formulas
// Database, "xyzz" for short Weierstrass curves with a = 0 — the same as ec/curve.hpp, which is
// the reference these are tested against.
#pragma once
#include "snarkd/cuda/field.hpp"
#include "snarkd/cuda/fp2.hpp"
#include "snarkd/ec/bn254.hpp"
#include "snarkd/ec/curve.hpp"
#include "snarkd/ec/g1.hpp"
#include "snarkd/ec/g2.hpp"

// The full XYZZ addition is not inlined on the device: it runs in the bucket reductions, trees and
// fix-ups (≈ 2 % of an MSM's additions; the hot loops use add_mixed), and as a call it keeps those
// kernels small — inlined, the G2 reduction kernels (12 Fp2 products per addition, each ~2,000
// instructions) made ptxas take minutes per kernel.
#if defined(__CUDACC__)
#define SNARKD_HD_CALL __host__ __device__ __noinline__
#else
#define SNARKD_HD_CALL inline
#endif

// A loop whose body is whole field operations (a chain of doublings, batch-affine lanes) stays a
// loop on the device: unrolled, each iteration would be a copy of several thousand instructions.
#if defined(__CUDACC__)
#define SNARKD_NO_UNROLL _Pragma("unroll 1")
#else
#define SNARKD_NO_UNROLL
#endif

namespace snarkd::cuda {

template <class F>
struct Affine {
  F x, y;
  SNARKD_HD static Affine infinity() { return {F::zero(), F::zero()}; }
  SNARKD_HD bool is_infinity() const { return x.is_zero() && y.is_zero(); }
  SNARKD_HD Affine operator-() const { return is_infinity() ? *this : Affine{x, -y}; }
};

template <class F>
struct Xyzz {
  F X, Y, ZZ, ZZZ;

  SNARKD_HD static Xyzz infinity() { return {F::one(), F::one(), F::zero(), F::zero()}; }
  SNARKD_HD bool is_infinity() const { return ZZ.is_zero(); }
  SNARKD_HD static Xyzz from_affine(const Affine<F>& p) {
    return p.is_infinity() ? infinity() : Xyzz{p.x, p.y, F::one(), F::one()};
  }
  SNARKD_HD Xyzz operator-() const { return {X, -Y, ZZ, ZZZ}; }

  // dbl-2008-s-1: 6M + 3S.
  SNARKD_HD Xyzz dbl() const {
    if (is_infinity()) return *this;
    const F U = Y.dbl(), V = U.sqr(), W = U * V, S = X * V;
    const F X2 = X.sqr(), M = X2.dbl() + X2;
    const F X3 = M.sqr() - S.dbl();
    return {X3, M * (S - X3) - W * Y, V * ZZ, W * ZZZ};
  }
  // 2^k·P by k doublings in Jacobian coordinates (X·ZZ, Y·ZZZ, ZZ) — dbl-2009-l with a = 0, 2M + 5S
  // against XYZZ's 6M + 3S (Fp2: 16 Fp products against 24) — and back (ZZ = Z², ZZZ = Z³): the
  // Horner chain of an MSM, one thread's c doublings a window, is latency alone.
  SNARKD_HD Xyzz dbl_n(uint32_t k) const {
    if (is_infinity() || k == 0) return *this;
    F x = X * ZZ, y = Y * ZZZ, z = ZZ;
    SNARKD_NO_UNROLL
    for (uint32_t i = 0; i < k; ++i) {
      const F A = x.sqr(), B = y.sqr(), C = B.sqr();
      const F D = ((x + B).sqr() - A - C).dbl(), E = A.dbl() + A;
      const F X3 = E.sqr() - D.dbl();
      z = (y * z).dbl();
      y = E * (D - X3) - C.dbl().dbl().dbl();
      x = X3;
    }
    const F zz = z.sqr();
    return {x, y, zz, zz * z};
  }
  // mdbl-2008-s-1: the doubling of an affine point.
  SNARKD_HD static Xyzz dbl_affine(const Affine<F>& q) {
    const F U = q.y.dbl(), V = U.sqr(), W = U * V, S = q.x * V;
    const F X2 = q.x.sqr(), M = X2.dbl() + X2;
    const F X3 = M.sqr() - S.dbl();
    return {X3, M * (S - X3) - W * q.y, V, W};
  }
  // add-2008-s: 12M + 2S.
  SNARKD_HD_CALL Xyzz operator+(const Xyzz& q) const {
    if (is_infinity()) return q;
    if (q.is_infinity()) return *this;
    const F U1 = X * q.ZZ, U2 = q.X * ZZ, S1 = Y * q.ZZZ, S2 = q.Y * ZZZ;
    const F P = U2 - U1, R = S2 - S1;
    if (P.is_zero()) return R.is_zero() ? dbl() : infinity();
    const F PP = P.sqr(), PPP = P * PP, Q = U1 * PP;
    const F X3 = R.sqr() - PPP - Q.dbl();
    return {X3, R * (Q - X3) - S1 * PPP, ZZ * q.ZZ * PP, ZZZ * q.ZZZ * PPP};
  }
  // madd-2008-s: 8M + 2S.
  SNARKD_HD Xyzz add_mixed(const Affine<F>& q) const {
    if (q.is_infinity()) return *this;
    if (is_infinity()) return from_affine(q);
    const F U2 = q.x * ZZ, S2 = q.y * ZZZ;
    const F P = U2 - X, R = S2 - Y;
    if (P.is_zero()) return R.is_zero() ? dbl_affine(q) : infinity();
    const F PP = P.sqr(), PPP = P * PP, Q = X * PP;
    const F X3 = R.sqr() - PPP - Q.dbl();
    return {X3, R * (Q - X3) - Y * PPP, ZZ * PP, ZZZ * PPP};
  }
  SNARKD_HD Xyzz& operator+=(const Xyzz& q) { return *this = *this + q; }
};

using G1Affine = Affine<Fp>;
using G2Affine = Affine<Fp2>;
using G1Xyzz = Xyzz<Fp>;
using G2Xyzz = Xyzz<Fp2>;
namespace bn254 {
using G1Affine = Affine<Fp>;
using G2Affine = Affine<Fp2>;
using G1Xyzz = Xyzz<Fp>;
using G2Xyzz = Xyzz<Fp2>;
}  // namespace bn254

// The host curve config whose points share a device point's bytes (the inverse of
// DeviceFieldOf, fp2.hpp).
template <class F>
struct HostCurve;
template <>
struct HostCurve<Fp> {
  using type = ec::G1Config;
};
template <>
struct HostCurve<Fp2> {
  using type = ec::G2Config;
};
template <>
struct HostCurve<bn254::Fp> {
  using type = ec::bn254::G1Config;
};
template <>
struct HostCurve<bn254::Fp2> {
  using type = ec::bn254::G2Config;
};

// The device scalar field of the group over F: what an MSM over F's points multiplies by
// (cuda::Fr for both BLS12-381 groups, cuda::bn254::Fr for both BN254 groups).
template <class F>
using ScalarOf = Field<typename HostCurve<F>::type::Scalar>;

// Device and host points are bit copies of each other.
template <class F>
inline constexpr bool kSamePointLayout = sizeof(Affine<F>) == sizeof(ec::Affine<typename HostCurve<F>::type>) &&
                                         sizeof(Xyzz<F>) == sizeof(ec::Xyzz<typename HostCurve<F>::type>) &&
                                         std::is_same_v<DeviceFieldOf<typename HostCurve<F>::type>, F>;
static_assert(kSamePointLayout<Fp> && kSamePointLayout<Fp2>);
static_assert(kSamePointLayout<bn254::Fp> && kSamePointLayout<bn254::Fp2>);

}  // namespace snarkd::cuda
