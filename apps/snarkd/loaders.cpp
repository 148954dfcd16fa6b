#include "loaders.hpp"

#include <cstdio>

#include "file_kind.hpp"
#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/groth16/bellperson_io.hpp"
#include "snarkd/groth16/snarkjs_json.hpp"
#include "snarkd/groth16/zkey.hpp"
#include "snarkd/r1cs/circom.hpp"
#include "snarkd/r1cs/csr_file.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/json.hpp"

namespace snarkd::cli {
namespace {

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

}  // namespace

r1cs::Circuit load_circuit(const std::string& path) {
  switch (const FileKind k = detect_file_kind(path)) {
    case FileKind::kCircomR1cs: return r1cs::read_circom_r1cs(path).circuit;
    case FileKind::kCsr: return r1cs::read_csr_file(path);
    default: wrong_kind(path, k, "a circuit (a circom .r1cs or a snarkd CSR file)");
  }
}

std::vector<ff::Fr> load_witness(const std::string& path, const r1cs::Circuit& circuit,
                                 const std::string& circuit_path) {
  if (const FileKind k = detect_file_kind(path); k != FileKind::kWtns) wrong_kind(path, k, "a circom .wtns witness");
  std::vector<ff::Fr> w = r1cs::read_wtns(path);
  groth16::check_witness(w, circuit.num_vars(), path, circuit_path);  // the CLI's entry-point check
  return w;
}

groth16::VerifyingKey load_vk(const std::string& path) {
  constexpr const char* kWanted = "a verifying key (verification_key.json, .vk, .params or .zkey)";
  switch (const FileKind k = detect_file_kind(path)) {
    case FileKind::kJson: return groth16::vk_from_snarkjs_json(load_json(path, "vk", kWanted), path);
    case FileKind::kZkey:
      std::fprintf(stderr,
                   "note: %s: only its verifying key is read (the header and IC sections); the proving-key "
                   "sections are not checked\n",
                   path.c_str());
      return groth16::read_zkey_vk(path);
    case FileKind::kBellpersonVk: return groth16::read_vk(path);
    case FileKind::kBellpersonParams: return groth16::read_vk_or_params(path);
    default: wrong_kind(path, k, kWanted);
  }
}

std::vector<groth16::Proof> load_proofs(const std::string& path) {
  constexpr const char* kWanted = "a proof (proof.json or 192-byte bellperson proofs)";
  switch (const FileKind k = detect_file_kind(path)) {
    case FileKind::kJson: return {groth16::proof_from_snarkjs_json(load_json(path, "proof", kWanted), path)};
    case FileKind::kBellpersonProof: return groth16::read_proofs(path);
    default: wrong_kind(path, k, kWanted);
  }
}

std::vector<std::vector<ff::Fr>> load_publics(const std::string& path) {
  constexpr const char* kWanted = "public inputs (public.json)";
  if (const FileKind k = detect_file_kind(path); k != FileKind::kJson) wrong_kind(path, k, kWanted);
  return publics_from_json(load_json(path, "public", kWanted), path);
}

}  // namespace snarkd::cli
