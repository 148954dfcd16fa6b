// Values of either curve in one type, for the layers that hold keys, witnesses and proofs of
// both curves side by side (the engine's queue, the daemon's registry, its wire): a std::variant
// over the curve traits, alternatives in with_curve's order (BLS12-381 first, so a
// default-constructed value and every BLS12-381 value converts implicitly).
//
//   AnyScalars  a witness or the public inputs (Fr of the curve)
//   AnyProof    a proof;  AnyQuerySums  a proof's five sums before blinding
//   AnyRandomness  fixed blinding (tests, the supraseal ABI)
//   AnyBoundKey    a key bound to its circuit (shared)
//
// On the wire a proof is bytes (proof_bytes): BLS12-381's are bellperson's 192-byte compressed
// encoding (the form Filecoin verifiers take), BN254's snarkjs's uncompressed LEM points
// A ‖ B ‖ C (64 + 128 + 64 = 256 bytes; there is no compressed BN254 proof in the circom world).
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/groth16/curve.hpp"
#include "snarkd/groth16/keys.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::groth16 {

template <template <class> class T>
using PerCurve = std::variant<T<Bls12_381>, T<Bn254>>;

template <class E>
using ScalarVector = std::vector<typename E::Fr>;
template <class E>
using BoundKeyPtr = std::shared_ptr<const BoundKeyT<E>>;

using AnyScalars = PerCurve<ScalarVector>;
using AnyProof = PerCurve<ProofT>;
using AnyQuerySums = PerCurve<QuerySumsT>;
using AnyRandomness = PerCurve<ProofRandomnessT>;
using AnyBoundKey = PerCurve<BoundKeyPtr>;

// The curve a value is of (its alternative's index in with_curve's order).
template <class... T>
CurveId curve_of(const std::variant<T...>& v) {
  static_assert(sizeof...(T) == 2);
  return v.index() == 0 ? Bls12_381::kId : Bn254::kId;
}

// The value as curve E's, or InvalidArgument naming `what` and both curves.
template <class E>
inline constexpr size_t kCurveIndex = std::is_same_v<E, Bls12_381> ? 0 : 1;
template <class E, class... T>
const auto& as_curve(const std::variant<T...>& v, const std::string& what) {
  if (v.index() != kCurveIndex<E>)
    throw InvalidArgument(what + " is " + r1cs::curve_name(curve_of(v)) + "'s, expected " + E::kName + "'s");
  return std::get<kCurveIndex<E>>(v);
}
template <class E, class... T>
auto& as_curve(std::variant<T...>& v, const std::string& what) {
  return const_cast<std::variant_alternative_t<kCurveIndex<E>, std::variant<T...>>&>(as_curve<E>(std::as_const(v), what));
}

// Scalars of `curve`, all zero, `n` of them (a witness to fill).
AnyScalars zero_scalars(CurveId curve, uint64_t n);
inline uint64_t size_of(const AnyScalars& s) {
  return std::visit([](const auto& v) { return uint64_t(v.size()); }, s);
}

// Wire bytes of a proof (see the top of this file), and back: DecodeError naming `label` for a
// wrong length or a point that is not on the curve or not in its subgroup.
std::vector<uint8_t> proof_bytes(const AnyProof& proof);
size_t proof_bytes_size(CurveId curve);
AnyProof proof_from_bytes(CurveId curve, std::span<const uint8_t> bytes, const std::string& label);

}  // namespace snarkd::groth16
