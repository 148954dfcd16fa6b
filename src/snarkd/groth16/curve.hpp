// The pairing-friendly curves Groth16 runs over, each as one traits type E: what the groth16
// layer needs of a curve — its scalar field Fr (witnesses, QAP, MSM scalars), base field and
// tower (file headers, JSON coordinates, GT), G1/G2 in affine and Jacobian form, the subgroup
// tests, the pairing, and the snarkjs LEM point codecs of its .zkey files. Keys, proofs, the
// prover, the verifier and the snarkjs readers and writers are templates over E
// (VerifyingKeyT<E>, ProofT<E>, read_zkey<E>, ...), instantiated for the two curves below; the
// curve-free names (VerifyingKey, Proof, read_zkey with no argument, ...) are BLS12-381's, the
// curve of bellperson/Filecoin and of the GPU prover, so code written before BN254 reads the same.
//
// Curve = data: nothing in this layer tests which curve it runs on; whatever differs between
// the curves is a member here. What exists only for BLS12-381 (bellperson .params and proofs,
// the dev setup, the a/b/c prover of the supraseal ABI) takes the BLS12-381 names directly.
//
// with_curve turns a CurveId read from a file (zkey_curve, snarkjs_json_curve, circom_curve)
// into a call of a generic lambda with the matching traits type, so a command is written once.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>

#include "snarkd/ec/bn254.hpp"
#include "snarkd/ec/g1.hpp"
#include "snarkd/ec/g2.hpp"
#include "snarkd/ff/bn254_tower.hpp"
#include "snarkd/ff/fp12.hpp"
#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::groth16 {

using r1cs::CurveId;

// The members every curve has. The operations are defined in curve.cpp on top of ec/ and
// pairing/, so this header (which keys.hpp, and through it the CUDA layer, includes) needs only
// the field and group types.
#define SNARKD_GROTH16_CURVE_OPERATIONS                                                      \
  /* snarkjs LEM (little-endian Montgomery): x‖y, G2 as x.c0‖x.c1‖y.c0‖y.c1; zeros = ∞. */ \
  static constexpr size_t kG1LemSize = 2 * Fp::kBytes;                                      \
  static constexpr size_t kG2LemSize = 4 * Fp::kBytes;                                      \
  static std::array<uint8_t, kG1LemSize> encode_g1_lem(const G1Affine& p);                   \
  static std::array<uint8_t, kG2LemSize> encode_g2_lem(const G2Affine& p);                   \
  static G1Affine decode_g1_lem(std::span<const uint8_t> in);                                \
  static G2Affine decode_g2_lem(std::span<const uint8_t> in);                                \
  /* Canonical coordinates only: no curve or subgroup test (trusted key files). */           \
  static G1Affine decode_g1_lem_unchecked(std::span<const uint8_t> in);                      \
  static G2Affine decode_g2_lem_unchecked(std::span<const uint8_t> in);                      \
  /* Prime-order subgroup membership of a point on the curve. */                             \
  static bool in_subgroup(const G1Affine& p);                                                \
  static bool in_subgroup(const G2Affine& q);                                                \
  /* The pairing e(p, q), and whether ∏ e(pᵢ, qᵢ) = 1 (one final exponentiation). */         \
  static GT pair(const G1Affine& p, const G2Affine& q);                                      \
  static bool product_is_one(std::span<const G1G2Pair> pairs);

struct Bls12_381 {
  static constexpr CurveId kId = CurveId::kBls12_381;
  static constexpr const char* kName = "BLS12-381";
  static constexpr const char* kSnarkjsName = "bls12381";  // snarkjs's curve.name, the JSON "curve"
  // The names snarkjs's getCurveFromName takes for it, letters and digits only, lower case.
  static constexpr const char* kSnarkjsAliases[] = {"bls12381"};

  using Fp = ff::Fp;
  using Fp2 = ff::Fp2;
  using Fp6 = ff::Fp6;
  using Fp12 = ff::Fp12;
  using Fr = ff::Fr;
  using G1 = ec::G1Config;
  using G2 = ec::G2Config;
  using G1Affine = ec::G1Affine;
  using G2Affine = ec::G2Affine;
  using G1Jacobian = ec::G1Jacobian;
  using G2Jacobian = ec::G2Jacobian;
  using GT = Fp12;
  using G1G2Pair = std::pair<G1Affine, G2Affine>;
  SNARKD_GROTH16_CURVE_OPERATIONS
};

struct Bn254 {
  static constexpr CurveId kId = CurveId::kBn254;
  static constexpr const char* kName = "BN254";
  static constexpr const char* kSnarkjsName = "bn128";
  static constexpr const char* kSnarkjsAliases[] = {"bn128", "bn254", "altbn128"};

  using Fp = ff::bn254::Fp;
  using Fp2 = ff::bn254::Fp2;
  using Fp6 = ff::bn254::Fp6;
  using Fp12 = ff::bn254::Fp12;
  using Fr = ff::bn254::Fr;
  using G1 = ec::bn254::G1Config;
  using G2 = ec::bn254::G2Config;
  using G1Affine = ec::bn254::G1Affine;
  using G2Affine = ec::bn254::G2Affine;
  using G1Jacobian = ec::bn254::G1Jacobian;
  using G2Jacobian = ec::bn254::G2Jacobian;
  using GT = Fp12;
  using G1G2Pair = std::pair<G1Affine, G2Affine>;
  SNARKD_GROTH16_CURVE_OPERATIONS
};
#undef SNARKD_GROTH16_CURVE_OPERATIONS

// The traits' scalar fields are the ones the r1cs layer knows the curve of.
static_assert(r1cs::FieldTraits<Bls12_381::Fr>::kCurve == Bls12_381::kId);
static_assert(r1cs::FieldTraits<Bn254::Fr>::kCurve == Bn254::kId);

// The first curve E for which pred(E{}) holds, if any: file formats name their curve by a prime
// or a string, and this asks each curve in turn whether it is the one.
template <class Pred>
std::optional<CurveId> find_curve(Pred&& pred) {
  if (pred(Bls12_381{})) return Bls12_381::kId;
  if (pred(Bn254{})) return Bn254::kId;
  return std::nullopt;
}

// fn(Bls12_381{}) or fn(Bn254{}): a generic lambda `[&](auto e) { using E = decltype(e); ... }`
// runs once per curve, chosen at run time.
template <class Fn>
decltype(auto) with_curve(CurveId id, Fn&& fn) {
  if (id == CurveId::kBn254) return fn(Bn254{});
  return fn(Bls12_381{});
}

}  // namespace snarkd::groth16
