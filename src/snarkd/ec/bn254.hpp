// BN254 (alt_bn128) groups, as EIP-196 and EIP-197 specify them.
//
// G1 = E(Fp): y² = x³ + 3, generator (1, 2). #E(Fp) = r, so every curve point is in G1.
// G2 ⊂ E'(Fp2): y² = x³ + 3/ξ, ξ = 9 + u, the D-type sextic twist (untwisted into E(Fp12) by
// (x, y) ↦ (x·w², y·w³)). #E'(Fp2) = r·(2p − r), so G2 needs a real membership test.
//
// Subgroup test for G2 (M. Scott, "A note on group membership tests for G1, G2 and GT on BLS
// pairing-friendly curves", eprint 2021/1130, and El Housni–Guillevic–Piellard, eprint
// 2022/352, for BN curves): Q ∈ G2 ⇔ ψ(Q) = [6u²]Q, where ψ is the untwist–Frobenius–twist
// endomorphism. On G2, ψ acts as [p] and p ≡ 6u² (mod r) since p − r = 6u². Conversely a point
// of order dividing h = 2p − r that passed would be killed by λ² − tλ + p with λ = 6u², t the
// trace, and gcd(λ² − tλ + p, h) = 1 (tests/ec recomputes that with GMP), so the test is exact.
#pragma once
#include <cstdint>

#include "snarkd/ec/curve.hpp"
#include "snarkd/ff/bn254_tower.hpp"

namespace snarkd::ec::bn254 {

using ff::bn254::Fp;
using ff::bn254::Fp2;
using ff::bn254::Fr;

struct G1Config {
  using Field = Fp;
  using Scalar = Fr;  // the group order's field: what an MSM multiplies by
  static constexpr Fp b() { return Fp::from_u64(3); }
};
struct G2Config {
  using Field = Fp2;
  using Scalar = Fr;
  // b' = 3/ξ (computed once at compile time).
  static constexpr Fp2 b() { return kB; }
  static constexpr Fp2 kB = Fp2{Fp::from_u64(3), Fp::zero()} * Fp2::nonresidue().inverse();
};
using G1Affine = Affine<G1Config>;
using G1Jacobian = Jacobian<G1Config>;
using G1Xyzz = Xyzz<G1Config>;
using G2Affine = Affine<G2Config>;
using G2Jacobian = Jacobian<G2Config>;
using G2Xyzz = Xyzz<G2Config>;

inline constexpr G1Affine kG1Generator = {Fp::from_u64(1), Fp::from_u64(2)};

// EIP-197's generator of G2 (its decimal values written in hex):
//   x = 0x1800deef…f6ed + 0x198e9393…12c2·u, y = 0x12c85ea5…7daa + 0x090689d0…975b·u.
inline constexpr G2Affine kG2Generator = {
    {Fp::from_repr_unchecked(ff::BigInt<4>::from_hex(
         "1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed")),
     Fp::from_repr_unchecked(ff::BigInt<4>::from_hex(
         "198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2"))},
    {Fp::from_repr_unchecked(ff::BigInt<4>::from_hex(
         "12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa")),
     Fp::from_repr_unchecked(ff::BigInt<4>::from_hex(
         "090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b"))}};

static_assert(kG1Generator.is_on_curve());
static_assert(kG2Generator.is_on_curve());

// 6u², the eigenvalue of ψ on G2 (127 bits).
inline constexpr ff::BigInt<2> kSixUSquared = [] {
  const ff::u128 u = ff::bn254::kCurveParameter;
  const ff::u128 v = 6 * u * u;  // < 2^128
  ff::BigInt<2> r;
  r.limb[0] = uint64_t(v);
  r.limb[1] = uint64_t(v >> 64);
  return r;
}();

// ψ(x, y) = (x̄·ξ^((p−1)/3), ȳ·ξ^((p−1)/2)) on E'(Fp2) (the bar is conjugation, the p-power
// Frobenius of Fp2). In Jacobian coordinates Frobenius commutes with the scaling, so Z is
// conjugated too: 2 Fp2 multiplications, no inversion.
G2Jacobian psi(const G2Jacobian& q);

// G1: on the curve (callers check that first; infinity counts as a member) ⇒ in G1.
bool is_in_subgroup(const G1Affine& p);
// G2: ψ(Q) == [6u²]Q, one 127-bit scalar multiplication; assumes Q is on the twist.
bool is_in_subgroup(const G2Affine& q);
// The slow reference [r]Q == O, valid for any point; tests check the fast test against it.
template <class C>
bool is_in_subgroup_reference(const Affine<C>& p) {
  return Jacobian<C>::from_affine(p).mul(Fr::kModulus).is_infinity();
}

}  // namespace snarkd::ec::bn254

namespace snarkd::ec {
template <>
constexpr bn254::G1Affine generator<bn254::G1Config>() {
  return bn254::kG1Generator;
}
template <>
constexpr bn254::G2Affine generator<bn254::G2Config>() {
  return bn254::kG2Generator;
}
}  // namespace snarkd::ec
