// XYZZ doubling and addition written as levels of independent field products, for chains of
// point operations that one thread would run at the latency of every product in turn: the
// Horner step of an MSM (Σ_w 2^(c·w)·S_w, c doublings a window) and the trees' C·S_R + S_C.
// The formulas are Xyzz::dbl (dbl-2008-s-1) and Xyzz::operator+ (add-2008-s) of curve.hpp, the
// same values in the same order; each level's products go to a `Mul` policy at once:
//   doubling: 2, 4, 3 products a level (6M + 3S);   addition: 6, 2, 3, 3 (12M + 2S).
// SerialMul computes them one by one (the host, and the tests that compare with curve.hpp); the
// device's WarpMul (msm_kernels.cuh) gives every base-field product of a level to a lane of one
// warp (an Fp2 product is 3 of them, Karatsuba), so a doubling costs 3 product latencies
// instead of about 24 (Fp2: 27 Fp products). G2's Horner in one thread took 7.6 ms of a 2^24 MSM
// (H100 ncu, 240 Jacobian doublings, ≈ 32 µs each).
#pragma once
#include <cstddef>

#include "snarkd/cuda/curve.hpp"

namespace snarkd::cuda {

struct SerialMul {
  template <class F, size_t N>
  SNARKD_HD void operator()(F (&r)[N], const F (&a)[N], const F (&b)[N]) const {
    for (size_t i = 0; i < N; ++i) r[i] = a[i] * b[i];
  }
};

template <class F, class Mul>
SNARKD_HD Xyzz<F> dbl_levels(const Xyzz<F>& p, const Mul& mul) {
  if (p.is_infinity()) return p;
  const F U = p.Y.dbl();
  F l1[2];
  mul(l1, {U, p.X}, {U, p.X});
  const F &V = l1[0], &X2 = l1[1], M = X2.dbl() + X2;
  F l2[4];
  mul(l2, {U, p.X, M, V}, {V, V, M, p.ZZ});
  const F &W = l2[0], &S = l2[1], X3 = l2[2] - S.dbl();
  F l3[3];
  mul(l3, {M, W, W}, {S - X3, p.Y, p.ZZZ});
  return {X3, l3[0] - l3[1], l2[3], l3[2]};
}

template <class F, class Mul>
SNARKD_HD Xyzz<F> add_levels(const Xyzz<F>& p, const Xyzz<F>& q, const Mul& mul) {
  if (p.is_infinity()) return q;
  if (q.is_infinity()) return p;
  F l1[6];
  mul(l1, {p.X, q.X, p.Y, q.Y, p.ZZ, p.ZZZ}, {q.ZZ, p.ZZ, q.ZZZ, p.ZZZ, q.ZZ, q.ZZZ});
  const F &U1 = l1[0], &S1 = l1[2], P = l1[1] - U1, R = l1[3] - S1;
  if (P.is_zero()) return R.is_zero() ? dbl_levels(p, mul) : Xyzz<F>::infinity();
  F l2[2];
  mul(l2, {P, R}, {P, R});
  const F& PP = l2[0];
  F l3[3];
  mul(l3, {P, U1, l1[4]}, {PP, PP, PP});
  const F &PPP = l3[0], &Q = l3[1], X3 = l2[1] - PPP - Q.dbl();
  F l4[3];
  mul(l4, {R, S1, l1[5]}, {Q - X3, PPP, PPP});
  return {X3, l4[0] - l4[1], l3[2], l4[2]};
}

// Σ_w 2^(c·w)·S_w by Horner over `windows` ≥ 1 window sums.
template <class F, class Mul>
SNARKD_HD Xyzz<F> horner_levels(const Xyzz<F>* sums, uint32_t windows, uint32_t c, const Mul& mul) {
  Xyzz<F> r = sums[windows - 1];
  SNARKD_NO_UNROLL
  for (uint32_t w = windows - 1; w-- > 0;) {
    SNARKD_NO_UNROLL
    for (uint32_t i = 0; i < c; ++i) r = dbl_levels(r, mul);
    r = add_levels(r, sums[w], mul);
  }
  return r;
}

}  // namespace snarkd::cuda
