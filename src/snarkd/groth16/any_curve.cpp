#include "snarkd/groth16/any_curve.hpp"

#include <cstring>

#include "snarkd/groth16/bellperson_io.hpp"

namespace snarkd::groth16 {

AnyScalars zero_scalars(CurveId curve, uint64_t n) {
  return with_curve(curve, [&](auto e) -> AnyScalars {
    using E = decltype(e);
    return ScalarVector<E>(n);
  });
}

size_t proof_bytes_size(CurveId curve) {
  if (curve == Bls12_381::kId) return kBellpersonProofSize;
  return 2 * Bn254::kG1LemSize + Bn254::kG2LemSize;
}

namespace {

std::vector<uint8_t> lem_proof_bytes(const ProofT<Bn254>& p) {
  std::vector<uint8_t> out;
  out.reserve(proof_bytes_size(Bn254::kId));
  const auto a = Bn254::encode_g1_lem(p.a);
  const auto b = Bn254::encode_g2_lem(p.b);
  const auto c = Bn254::encode_g1_lem(p.c);
  out.insert(out.end(), a.begin(), a.end());
  out.insert(out.end(), b.begin(), b.end());
  out.insert(out.end(), c.begin(), c.end());
  return out;
}

// A ‖ B ‖ C as LEM points, each checked (curve, subgroup); errors name the part.
ProofT<Bn254> lem_proof_from_bytes(std::span<const uint8_t> b, const std::string& label) {
  constexpr size_t g1 = Bn254::kG1LemSize, g2 = Bn254::kG2LemSize;
  auto part = [&](const char* name, auto decode, size_t at, size_t size) {
    try {
      return decode(b.subspan(at, size));
    } catch (const DecodeError& e) {
      throw DecodeError(label + ": " + name + ": " + e.what());
    }
  };
  ProofT<Bn254> p;
  p.a = part("A", Bn254::decode_g1_lem, 0, g1);
  p.b = part("B", Bn254::decode_g2_lem, g1, g2);
  p.c = part("C", Bn254::decode_g1_lem, g1 + g2, g1);
  return p;
}

}  // namespace

std::vector<uint8_t> proof_bytes(const AnyProof& proof) {
  if (const auto* p = std::get_if<ProofT<Bls12_381>>(&proof)) {
    const auto b = encode_proof(*p);
    return {b.begin(), b.end()};
  }
  return lem_proof_bytes(std::get<ProofT<Bn254>>(proof));
}

AnyProof proof_from_bytes(CurveId curve, std::span<const uint8_t> bytes, const std::string& label) {
  const size_t want = proof_bytes_size(curve);
  if (bytes.size() != want)
    throw DecodeError(label + ": " + std::to_string(bytes.size()) + " bytes, a " + r1cs::curve_name(curve) +
                      " proof has " + std::to_string(want));
  if (curve == Bls12_381::kId) {
    try {
      return decode_proof(bytes);
    } catch (const DecodeError& e) {
      throw DecodeError(label + ": " + e.what());
    }
  }
  return lem_proof_from_bytes(bytes, label);
}

}  // namespace snarkd::groth16
