#include "loaders.hpp"

#include <cstdio>
#include <type_traits>

#include "file_kind.hpp"
#include "snarkd/groth16/bellperson_io.hpp"
#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/groth16/snarkjs_json.hpp"
#include "snarkd/groth16/zkey.hpp"
#include "snarkd/r1cs/circom.hpp"
#include "snarkd/r1cs/csr_file.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/json.hpp"

namespace snarkd::cli {
namespace {

using groth16::Bls12_381;

[[noreturn]] void wrong_kind(const std::string& path, FileKind k, const char* wanted) {
  if (k == FileKind::kUnknown) throw_unknown_kind(path);
  throw DecodeError(path + ": is " + file_kind_name(k) + ", not " + wanted);
}

// The JSON document at path, which must be a snarkjs `want` ("proof", "vk", "public").
Json load_json(const std::string& path, const std::string& want, const char* wanted) {
  Json j = Json::load(path);
  const std::string kind = json_document_kind(j, path);
  if (kind != want) throw DecodeError(path + ": is a snarkjs " + kind + " file, not " + wanted);
  return j;
}

// Bellperson's formats exist only over BLS12-381: another curve's command names the file.
[[noreturn]] void bls_only(const std::string& path, FileKind k, const char* curve) {
  throw DecodeError(path + ": is " + file_kind_name(k) + ", which is BLS12-381 only, but the key is " + curve);
}

template <class E>
groth16::VerifyingKeyT<E> bellperson_vk(const std::string& path, FileKind k) {
  if constexpr (std::is_same_v<E, Bls12_381>)
    return k == FileKind::kBellpersonVk ? groth16::read_vk(path) : groth16::read_vk_or_params(path);
  else
    bls_only(path, k, E::kName);
}

template <class E>
std::vector<groth16::ProofT<E>> bellperson_proofs(const std::string& path, FileKind k) {
  if constexpr (std::is_same_v<E, Bls12_381>)
    return groth16::read_proofs(path);
  else
    bls_only(path, k, E::kName);
}

}  // namespace

template <class F>
r1cs::CircuitT<F> load_circuit(const std::string& path) {
  switch (const FileKind k = detect_file_kind(path)) {
    case FileKind::kCircomR1cs: return r1cs::read_circom_r1cs<F>(path).circuit;
    case FileKind::kCsr:
      if constexpr (std::is_same_v<F, Bls12_381::Fr>)
        return r1cs::read_csr_file(path);
      else
        bls_only(path, k, r1cs::curve_name(r1cs::FieldTraits<F>::kCurve));
    default: wrong_kind(path, k, "a circuit (a circom .r1cs or a snarkd CSR file)");
  }
}

template <class F>
std::vector<F> load_witness(const std::string& path, const r1cs::CircuitT<F>& circuit, const std::string& circuit_path) {
  if (const FileKind k = detect_file_kind(path); k != FileKind::kWtns) wrong_kind(path, k, "a circom .wtns witness");
  std::vector<F> w = r1cs::read_wtns<F>(path);
  groth16::check_witness<F>(w, circuit.num_vars(), path, circuit_path);  // the CLI's entry-point check
  return w;
}

groth16::CurveId key_curve(const std::string& path) {
  constexpr const char* kWanted = "a verifying key (verification_key.json, .vk, .params or .zkey)";
  switch (const FileKind k = detect_file_kind(path)) {
    case FileKind::kJson: return groth16::snarkjs_json_curve(load_json(path, "vk", kWanted), path);
    case FileKind::kZkey: return groth16::zkey_curve(path);
    case FileKind::kBellpersonVk:
    case FileKind::kBellpersonParams: return Bls12_381::kId;
    default: wrong_kind(path, k, kWanted);
  }
}

template <class E>
groth16::VerifyingKeyT<E> load_vk(const std::string& path) {
  constexpr const char* kWanted = "a verifying key (verification_key.json, .vk, .params or .zkey)";
  switch (const FileKind k = detect_file_kind(path)) {
    case FileKind::kJson: return groth16::vk_from_snarkjs_json<E>(load_json(path, "vk", kWanted), path);
    case FileKind::kZkey:
      std::fprintf(stderr,
                   "note: %s: only its verifying key is read (the header and IC sections); the proving-key "
                   "sections are not checked\n",
                   path.c_str());
      return groth16::read_zkey_vk<E>(path);
    case FileKind::kBellpersonVk:
    case FileKind::kBellpersonParams: return bellperson_vk<E>(path, k);
    default: wrong_kind(path, k, kWanted);
  }
}

template <class E>
std::vector<groth16::ProofT<E>> load_proofs(const std::string& path) {
  constexpr const char* kWanted = "a proof (proof.json or 192-byte bellperson proofs)";
  switch (const FileKind k = detect_file_kind(path)) {
    case FileKind::kJson:
      return {groth16::proof_from_snarkjs_json<E>(load_json(path, "proof", kWanted), path)};
    case FileKind::kBellpersonProof: return bellperson_proofs<E>(path, k);
    default: wrong_kind(path, k, kWanted);
  }
}

template <class E>
std::vector<std::vector<typename E::Fr>> load_publics(const std::string& path) {
  constexpr const char* kWanted = "public inputs (public.json)";
  if (const FileKind k = detect_file_kind(path); k != FileKind::kJson) wrong_kind(path, k, kWanted);
  return publics_from_json<E>(load_json(path, "public", kWanted), path);
}

#define SNARKD_CLI_LOADERS(E)                                                                              \
  template r1cs::CircuitT<E::Fr> load_circuit<E::Fr>(const std::string&);                                 \
  template std::vector<E::Fr> load_witness<E::Fr>(const std::string&, const r1cs::CircuitT<E::Fr>&,       \
                                                  const std::string&);                                    \
  template groth16::VerifyingKeyT<E> load_vk<E>(const std::string&);                                      \
  template std::vector<groth16::ProofT<E>> load_proofs<E>(const std::string&);                            \
  template std::vector<std::vector<E::Fr>> load_publics<E>(const std::string&);
SNARKD_CLI_LOADERS(groth16::Bls12_381)
SNARKD_CLI_LOADERS(groth16::Bn254)
#undef SNARKD_CLI_LOADERS

}  // namespace snarkd::cli
