// Short Weierstrass curves y² = x³ + b (a = 0) in three forms, generic over the coordinate
// field: affine (storage, MSM bases), Jacobian (scalar multiplication, general use) and XYZZ
// (MSM buckets: its mixed addition is 8M + 2S and needs no doubling-case branch cost).
//
// Affine layout contract: exactly {x, y}, no flag; the point at infinity is (0, 0), which is
// never on the curve since b ≠ 0. This matches snarkjs LEM files and the device layout.
// Formulas: hyperelliptic.org EFD, "g1p/shortw/jacobian-0" (dbl-2009-l, add-2007-bl,
// madd-2007-bl) and "shortw/xyzz" (add-2008-s, madd-2008-s, dbl-2008-s-1, mdbl-2008-s-1).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "snarkd/ff/bigint.hpp"
#include "snarkd/ff/field.hpp"

namespace snarkd::ec {

// C provides: using Field; static Field b(). Each curve also specialises generator<C>() below.
template <class C>
struct Affine {
  using F = typename C::Field;
  F x, y;

  static constexpr Affine infinity() { return {}; }
  constexpr bool is_infinity() const { return x.is_zero() && y.is_zero(); }
  constexpr bool operator==(const Affine& o) const { return x == o.x && y == o.y; }
  constexpr bool operator!=(const Affine& o) const { return !(*this == o); }
  constexpr Affine operator-() const { return is_infinity() ? *this : Affine{x, -y}; }
  // y² = x³ + b (infinity counts as on the curve).
  constexpr bool is_on_curve() const {
    if (is_infinity()) return true;
    return y.square() == x.square() * x + C::b();
  }
};

// The group generator of curve C (specialised in g1.hpp / g2.hpp).
template <class C>
constexpr Affine<C> generator();

template <class C>
struct Jacobian {
  using F = typename C::Field;
  F X, Y, Z;  // x = X/Z², y = Y/Z³; Z = 0 is infinity

  static constexpr Jacobian infinity() { return {F::one(), F::one(), F::zero()}; }
  static constexpr Jacobian from_affine(const Affine<C>& p) {
    return p.is_infinity() ? infinity() : Jacobian{p.x, p.y, F::one()};
  }
  constexpr bool is_infinity() const { return Z.is_zero(); }

  Affine<C> to_affine() const {
    if (is_infinity()) return Affine<C>::infinity();
    F zi = Z.inverse(), zi2 = zi.square();
    return {X * zi2, Y * zi2 * zi};
  }
  // Projective equality: X1 Z2² = X2 Z1² and Y1 Z2³ = Y2 Z1³.
  bool operator==(const Jacobian& o) const {
    if (is_infinity() || o.is_infinity()) return is_infinity() == o.is_infinity();
    F z1 = Z.square(), z2 = o.Z.square();
    return X * z2 == o.X * z1 && Y * z2 * o.Z == o.Y * z1 * Z;
  }
  bool operator!=(const Jacobian& o) const { return !(*this == o); }
  Jacobian operator-() const { return {X, -Y, Z}; }

  // dbl-2009-l: 2M + 5S.
  Jacobian dbl() const {
    if (is_infinity()) return *this;
    F A = X.square(), B = Y.square(), Cc = B.square();
    F D = ((X + B).square() - A - Cc).dbl();
    F E = A.dbl() + A, Fq = E.square();
    F X3 = Fq - D.dbl();
    F Y3 = E * (D - X3) - Cc.dbl().dbl().dbl();
    return {X3, Y3, (Y * Z).dbl()};
  }
  // add-2007-bl: 11M + 5S; falls back to dbl() for equal inputs.
  Jacobian operator+(const Jacobian& q) const {
    if (is_infinity()) return q;
    if (q.is_infinity()) return *this;
    F Z1Z1 = Z.square(), Z2Z2 = q.Z.square();
    F U1 = X * Z2Z2, U2 = q.X * Z1Z1;
    F S1 = Y * q.Z * Z2Z2, S2 = q.Y * Z * Z1Z1;
    F H = U2 - U1, r = (S2 - S1).dbl();
    if (H.is_zero()) return r.is_zero() ? dbl() : infinity();
    F I = H.dbl().square(), J = H * I, V = U1 * I;
    F X3 = r.square() - J - V.dbl();
    F Y3 = r * (V - X3) - (S1 * J).dbl();
    F Z3 = ((Z + q.Z).square() - Z1Z1 - Z2Z2) * H;
    return {X3, Y3, Z3};
  }
  // madd-2007-bl: 7M + 4S.
  Jacobian add_mixed(const Affine<C>& q) const {
    if (q.is_infinity()) return *this;
    if (is_infinity()) return from_affine(q);
    F Z1Z1 = Z.square();
    F U2 = q.x * Z1Z1, S2 = q.y * Z * Z1Z1;
    F H = U2 - X, r = (S2 - Y).dbl();
    if (H.is_zero()) return r.is_zero() ? dbl() : infinity();
    F HH = H.square(), I = HH.dbl().dbl(), J = H * I, V = X * I;
    F X3 = r.square() - J - V.dbl();
    F Y3 = r * (V - X3) - (Y * J).dbl();
    F Z3 = (Z + H).square() - Z1Z1 - HH;
    return {X3, Y3, Z3};
  }
  Jacobian operator-(const Jacobian& q) const { return *this + (-q); }
  Jacobian& operator+=(const Jacobian& q) { return *this = *this + q; }

  // Scalar multiplication by a canonical integer (fixed 4-bit windows: 16-entry table,
  // ~bits doublings + bits/4 additions). Variable time: scalars here are public or per-proof
  // randomness handled by the prover's blinding, not long-term secrets.
  template <size_t M>
  Jacobian mul(const ff::BigInt<M>& k) const {
    Jacobian table[16];
    table[0] = infinity();
    for (size_t i = 1; i < 16; ++i) table[i] = table[i - 1] + *this;
    Jacobian r = infinity();
    size_t bits = k.bit_length();
    size_t top = (bits + 3) / 4;
    for (size_t w = top; w-- > 0;) {
      r = r.dbl().dbl().dbl().dbl();
      size_t d = (k.limb[(4 * w) / 64] >> ((4 * w) % 64)) & 15;
      if (d) r += table[d];
    }
    return r;
  }
  template <class S>  // S: a prime-field element (e.g. Fr); multiplies by its canonical value
  Jacobian mul_scalar(const S& s) const { return mul(s.to_repr()); }
};

template <class C>
struct Xyzz {
  using F = typename C::Field;
  F X, Y, ZZ, ZZZ;  // x = X/ZZ, y = Y/ZZZ, ZZ³ = ZZZ²; ZZ = 0 is infinity

  static constexpr Xyzz infinity() { return {F::one(), F::one(), F::zero(), F::zero()}; }
  static constexpr Xyzz from_affine(const Affine<C>& p) {
    return p.is_infinity() ? infinity() : Xyzz{p.x, p.y, F::one(), F::one()};
  }
  constexpr bool is_infinity() const { return ZZ.is_zero(); }
  // With t = ZZ·ZZZ: X_j = x·t² = X·ZZ·ZZZ², Y_j = y·t³ = Y·ZZ³·ZZZ², Z_j = t (no inversion).
  Jacobian<C> to_jacobian() const {
    if (is_infinity()) return Jacobian<C>::infinity();
    F zzz2 = ZZZ.square();
    return {X * ZZ * zzz2, Y * ZZ.square() * ZZ * zzz2, ZZ * ZZZ};
  }
  // One inversion of ZZ·ZZZ gives both 1/ZZ and 1/ZZZ.
  Affine<C> to_affine() const {
    if (is_infinity()) return Affine<C>::infinity();
    F inv = (ZZ * ZZZ).inverse();
    return {X * (inv * ZZZ), Y * (inv * ZZ)};
  }

  // dbl-2008-s-1: 6M + 3S (a = 0).
  Xyzz dbl() const {
    if (is_infinity()) return *this;
    F U = Y.dbl(), V = U.square(), W = U * V, S = X * V;
    F X2 = X.square(), M = X2.dbl() + X2;
    F X3 = M.square() - S.dbl();
    F Y3 = M * (S - X3) - W * Y;
    return {X3, Y3, V * ZZ, W * ZZZ};
  }
  // add-2008-s: 12M + 2S.
  Xyzz operator+(const Xyzz& q) const {
    if (is_infinity()) return q;
    if (q.is_infinity()) return *this;
    F U1 = X * q.ZZ, U2 = q.X * ZZ, S1 = Y * q.ZZZ, S2 = q.Y * ZZZ;
    F P = U2 - U1, R = S2 - S1;
    if (P.is_zero()) return R.is_zero() ? dbl() : infinity();
    F PP = P.square(), PPP = P * PP, Q = U1 * PP;
    F X3 = R.square() - PPP - Q.dbl();
    F Y3 = R * (Q - X3) - S1 * PPP;
    return {X3, Y3, ZZ * q.ZZ * PP, ZZZ * q.ZZZ * PPP};
  }
  // madd-2008-s: 8M + 2S; mdbl-2008-s-1 for the doubling case.
  Xyzz add_mixed(const Affine<C>& q) const {
    if (q.is_infinity()) return *this;
    if (is_infinity()) return from_affine(q);
    F U2 = q.x * ZZ, S2 = q.y * ZZZ;
    F P = U2 - X, R = S2 - Y;
    if (P.is_zero()) return R.is_zero() ? dbl_affine(q) : infinity();
    F PP = P.square(), PPP = P * PP, Q = X * PP;
    F X3 = R.square() - PPP - Q.dbl();
    F Y3 = R * (Q - X3) - Y * PPP;
    return {X3, Y3, ZZ * PP, ZZZ * PPP};
  }
  Xyzz sub_mixed(const Affine<C>& q) const { return add_mixed(-q); }
  Xyzz& operator+=(const Xyzz& q) { return *this = *this + q; }
  Xyzz operator-() const { return {X, -Y, ZZ, ZZZ}; }

  static Xyzz dbl_affine(const Affine<C>& q) {
    F U = q.y.dbl(), V = U.square(), W = U * V, S = q.x * V;
    F X2 = q.x.square(), M = X2.dbl() + X2;
    F X3 = M.square() - S.dbl();
    return {X3, M * (S - X3) - W * q.y, V, W};
  }
};

// Normalises many points with one inversion (Montgomery's trick).
template <class C>
std::vector<Affine<C>> batch_to_affine(std::span<const Jacobian<C>> pts) {
  using F = typename C::Field;
  std::vector<F> z(pts.size());
  for (size_t i = 0; i < pts.size(); ++i) z[i] = pts[i].Z;
  ff::batch_inverse(std::span<F>(z));
  std::vector<Affine<C>> out(pts.size());
  for (size_t i = 0; i < pts.size(); ++i) {
    if (pts[i].is_infinity()) continue;  // stays (0, 0)
    F zi2 = z[i].square();
    out[i] = {pts[i].X * zi2, pts[i].Y * zi2 * z[i]};
  }
  return out;
}

}  // namespace snarkd::ec
