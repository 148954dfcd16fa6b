// `snarkd info FILE`: what a file is and its sizes, for every format snarkd reads.
#include <cstdio>
#include <string>

#include "args.hpp"
#include "commands.hpp"
#include "file_kind.hpp"
#include "snarkd/groth16/bellperson_io.hpp"
#include "snarkd/groth16/snarkjs_json.hpp"
#include "snarkd/groth16/zkey.hpp"
#include "snarkd/r1cs/circom.hpp"
#include "snarkd/r1cs/csr_file.hpp"
#include "snarkd/util/json.hpp"

namespace snarkd::cli {
namespace {

Json circuit_json(const r1cs::Circuit& c) {
  Json j = Json::object();
  j.set("constraints", Json::number(c.num_constraints()));
  j.set("inputs_with_one", Json::number(c.num_inputs));
  j.set("aux", Json::number(c.num_aux));
  j.set("nnz_a", Json::number(c.a.nnz()));
  j.set("nnz_b", Json::number(c.b.nnz()));
  j.set("nnz_c", Json::number(c.c.nnz()));
  j.set("coefficients", Json::number(c.coeffs.size()));
  return j;
}

Json key_json(const groth16::ProvingKey& pk) {
  Json j = Json::object();
  j.set("flavour", Json::string(groth16::flavour_name(pk.flavour)));
  j.set("domain_size", Json::number(pk.domain_size()));
  j.set("public_inputs", Json::number(pk.vk.num_public()));
  j.set("ic", Json::number(pk.vk.ic.size()));
  j.set("a", Json::number(pk.a.size()));
  j.set("b_g1", Json::number(pk.b_g1.size()));
  j.set("b_g2", Json::number(pk.b_g2.size()));
  j.set("l", Json::number(pk.l.size()));
  j.set("h", Json::number(pk.h.size()));
  return j;
}

Json binary_json(const std::string& path) {
  Json j = Json::object();
  try {
    j.set("proofs", Json::number(groth16::read_proofs(path).size()));
    j.set("kind", Json::string("bellperson proof"));
    return j;
  } catch (const DecodeError&) {
  }
  try {
    j.set("public_inputs", Json::number(groth16::read_vk(path).num_public()));
    j.set("kind", Json::string("bellperson verifying key"));
    return j;
  } catch (const DecodeError&) {
  }
  j = key_json(groth16::read_params(path, groth16::PointCheck::kTrusted));
  j.set("kind", Json::string("bellperson params"));
  return j;
}

Json describe(const std::string& path) {
  Json j;
  switch (detect_file_kind(path)) {
    case FileKind::kZkey:
      j = key_json(groth16::read_zkey(path, groth16::PointCheck::kTrusted).pk);
      j.set("kind", Json::string("snarkjs zkey"));
      return j;
    case FileKind::kCircomR1cs:
      j = circuit_json(r1cs::read_circom_r1cs(path).circuit);
      j.set("kind", Json::string("circom r1cs"));
      return j;
    case FileKind::kCsr:
      j = circuit_json(r1cs::read_csr_file(path));
      j.set("kind", Json::string("snarkd csr circuit"));
      return j;
    case FileKind::kWtns:
      j = Json::object();
      j.set("kind", Json::string("circom wtns"));
      j.set("values", Json::number(r1cs::read_wtns(path).size()));
      return j;
    case FileKind::kJson: {
      const std::string doc = json_document_kind(path);
      j = Json::object();
      j.set("kind", Json::string("snarkjs " + doc + " json"));
      if (doc == "vk") j.set("public_inputs", Json::number(groth16::read_snarkjs_vk(path).num_public()));
      if (doc == "proof") groth16::read_snarkjs_proof(path);  // validates
      if (doc == "public") j.set("values", Json::number(groth16::read_snarkjs_public(path).size()));
      return j;
    }
    case FileKind::kBinary: return binary_json(path);
  }
  return j;
}

}  // namespace

int cmd_info(int argc, char** argv) {
  const Args a(argc, argv, 2, {{"json", false}});
  if (a.positional().size() != 1) throw UsageError("info takes exactly one FILE");
  const std::string path = a.positional()[0];
  const Json j = describe(path);
  if (a.has("json")) {
    std::printf("%s\n", j.dump().c_str());
    return 0;
  }
  std::printf("%s: %s\n", path.c_str(), j["kind"].str().c_str());
  for (const auto& m : j.members())
    if (m.first != "kind") std::printf("  %-16s %s\n", m.first.c_str(), m.second.is_string() ? m.second.str().c_str() : m.second.dump().c_str());
  return 0;
}

}  // namespace snarkd::cli
