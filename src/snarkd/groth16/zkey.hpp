// snarkjs Groth16 proving keys (.zkey, snarkjs 0.7.6) over BLS12-381 and BN254 (snarkjs's
// "bls12381" and "bn128": curves.js getCurveFromQ picks the curve from q, and so do we).
//
// Layout, learned from snarkjs 0.7.6 src/zkey_utils.js (writeHeader, readHeaderGroth16,
// writeZKey), src/zkey_new.js (processConstraints, writeHs) and src/groth16_prove.js
// (buildABC1, joinABC). iden3 binfile container: magic "zkey", u32 version 1, u32 nSections,
// then sections (u32 type, u64 size, payload) in any order, little-endian. Points are "LEM"
// (little-endian Montgomery, which is our Fp layout: ec/encoding.hpp for BLS12-381, R = 2^384,
// n8q = 48; ec/bn254_encoding.hpp for BN254, R = 2^256, n8q = 32); infinity is all zeros.
//   1  header           u32 protocol = 1 (Groth16)
//   2  Groth16 header   u32 n8q, q (n8q B), u32 n8r = 32, r (32 B), u32 nVars,
//                       u32 nPublic (ONE excluded), u32 domainSize, α₁ β₁ (G1) β₂ γ₂ (G2)
//                       δ₁ (G1) δ₂ (G2): exactly 964 bytes (BLS12-381) or 660 (BN254)
//   3  IC               nPublic + 1 G1                     → vk.ic
//   4  coeffs           u32 nCoef, nCoef × (u32 matrix (0 = A, 1 = B), u32 constraint,
//                       u32 signal, 32-byte value)         → circuit.a, circuit.b
//   5  A                nVars G1                           → pk.a      (u_j(τ)·G1)
//   6  B1               nVars G1                           → pk.b_g1
//   7  B2               nVars G2                           → pk.b_g2
//   8  C                nVars − nPublic − 1 G1             → pk.l      (aux variables only)
//   9  H                domainSize G1                      → pk.h
//  10  contributions    (MPC transcript; not read)
//
// Coefficient encoding (zkey_new.js writeCoef, zkey_utils.js writeZKey/writeFr2): the stored
// 32 bytes are the CANONICAL little-endian integer c = v·R² mod r, R = 2^256, for the R1CS
// coefficient v. groth16_prove.js buildABC1 multiplies those raw bytes with the raw (canonical)
// .wtns value w by a Montgomery multiplication, c·w·R⁻¹ = v·w·R, i.e. the Montgomery form of
// v·w, so every later step works on Montgomery values of the true A·w and B·w. Our Fr holds
// Montgomery limbs, so the reader recovers v = c·R⁻² mod r (c read as Montgomery limbs, then one
// more Montgomery reduction) and the circuit's dictionary holds the plain coefficients v: our
// prover computes A·w and B·w with ordinary Fr arithmetic on a .wtns witness read by
// r1cs::read_wtns. c must be < r (snarkjs always writes reduced values).
//
// The circuit described by a zkey (what our prover must use):
//   - num_inputs = nPublic + 1, num_aux = nVars − nPublic − 1 (circom's wire order, see
//     r1cs/circom.hpp), rows = 1 + the largest constraint index in section 4 (≤ domainSize).
//   - zkey_new.js appends one row "x_s · 0 = 0" per input s = 0..nPublic after the circom
//     constraints (A gets x_s with coefficient 1 at row nConstraints + s, B nothing): they are
//     already part of A here, so nothing must be appended (unlike bellperson).
//   - C is NOT stored: snarkjs's prover sets c = a∘b row by row (buildABC1), which equals C·w
//     for a satisfying witness. Our circuit.c therefore has the same rows and no non-zeros; the
//     prover must take c = (A·w)∘(B·w) over the first `rows` entries and 0 for the rest of the
//     domain, NOT C·w (which is 0 here). a∘b − c is then 0 on the domain, and only its coset
//     evaluations matter, computed from the interpolated A, B, C polynomials.
//   - Terms of one row on the same signal are summed; zero sums are dropped.
//
// H query semantics (zkey_new.js writeHs, groth16_prove.js): h[i] = L_{2i+1}(τ)/δ · G1, the
// odd-indexed Lagrange basis polynomials of the domain of size 2n (n = domainSize), generator
// ω₂ₙ from Fr's 2-adic root of unity built on the generator 5. Since (A·B − C)(X) has degree
// ≤ 2n − 2 and vanishes on ⟨ωₙ⟩ (the even points of ⟨ω₂ₙ⟩), (A·B − C)(τ) =
// Σᵢ (A·B − C)(ω₂ₙ^{2i+1})·L_{2i+1}(τ). So the prover: iNTT a, b, c over ⟨ωₙ⟩ (natural order),
// multiply coefficient k by ω₂ₙ^k (coset shift ω₂ₙ), NTT again, and the H scalars are
// dᵢ = aᵢ·bᵢ − cᵢ at the point ω₂ₙ·ωₙ^i, in natural order i = 0..n−1, with no division by
// Z (Z(ω₂ₙ·ωₙ^i) = −2 is folded into the points) and no final interpolation. Scalars are
// canonical (joinABC ends with frm_batchFromMontgomery before the multiexp).
//   A = α + Σ w_j·a[j] + r·δ, B = β + Σ w_j·b_g2[j] + s·δ (B1 likewise with β₁, δ₁ for C),
//   C = Σ_{j aux} w_j·l[j] + Σ dᵢ·h[i] + s·A + r·B1 − r·s·δ₁ (groth16_prove.js).
//
// Validation: q and r must be the curve's (read_zkey<E>; zkey_curve tells which curve a file is
// for), n8q = 48 or 32, n8r = 32, nPublic + 1 ≤ nVars ≤ 2^32,
// domainSize a power of two ≥ 2, every section present once (except 10, optional) with its exact
// size, matrix ∈ {0, 1}, constraint < domainSize, signal < nVars, value < r, and every point
// checked (PointCheck::kFull: on the curve and in the subgroup; kTrusted: canonical coordinates
// only, for A, B1, B2, C, H; the header and IC points are always fully checked). Errors are
// DecodeError naming the file, the section and the index:
//   "<path>: section 4 (coeffs): coefficient 17 has matrix 2, expected 0 (A) or 1 (B)"
#pragma once
#include <string>

#include "snarkd/groth16/bellperson_io.hpp"  // PointCheck
#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/groth16/keys.hpp"
#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::groth16 {

template <class E>
struct ZkeyT {
  ProvingKeyT<E> pk;                          // flavour kSnarkjs; densities empty (every variable has a point)
  r1cs::CircuitT<typename E::Fr> circuit;     // A, B from section 4; C with the same rows and no non-zeros
};
using Zkey = ZkeyT<Bls12_381>;

template <class E = Bls12_381>
ZkeyT<E> read_zkey(const std::string& path, PointCheck check = PointCheck::kFull);

// Sections 1–3 only (header, Groth16 header, IC); beta_g1 and delta_g1 are filled too. The
// other sections are not read, but the container is walked, so a truncated file is still an error.
template <class E = Bls12_381>
VerifyingKeyT<E> read_zkey_vk(const std::string& path);

// The curve of a .zkey from its Groth16 header's q (and r, which must be the same curve's), as
// snarkjs's getCurveFromQ: DecodeError naming the file and the field for any other curve.
CurveId zkey_curve(const std::string& path);

// Writes sections 1–9 as snarkjs's zkey_utils.js writeZKey does (order 1, 2, 4, 3, 5–9; no
// contributions section, which snarkjs's prover does not read): coefficients of A then B row by
// row, stored as v·R² mod r. The key's binding (bound_key.hpp) vouches for the query lengths
// and the circuit's shape; InvalidArgument unless it is a snarkjs-flavour key whose circuit has
// no C non-zeros (a zkey carries no C; the input·0 rows must already be rows of the circuit)
// and whose counts fit u32. read_zkey gives back the same key and circuit when every row's
// terms are sorted by column with no repeats (as every reader here leaves them).
template <class E>
void write_zkey(const std::string& path, const BoundKeyT<E>& key);

#define SNARKD_ZKEY_DECLARE(E)                                                         \
  extern template ZkeyT<E> read_zkey<E>(const std::string&, PointCheck);             \
  extern template VerifyingKeyT<E> read_zkey_vk<E>(const std::string&);              \
  extern template void write_zkey<E>(const std::string&, const BoundKeyT<E>&);
SNARKD_ZKEY_DECLARE(Bls12_381)
SNARKD_ZKEY_DECLARE(Bn254)
#undef SNARKD_ZKEY_DECLARE

}  // namespace snarkd::groth16
