// `snarkd info FILE`: what a file is and its sizes, for every format snarkd reads.
#include <cstdio>
#include <string>

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

template <class F>
Json circuit_json(const r1cs::CircuitT<F>& c) {
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

template <class E>
Json key_json(const groth16::ProvingKeyT<E>& pk) {
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

Json with_kind(Json j, const std::string& kind) {
  j.set("kind", Json::string(kind));
  return j;
}

// The curve, as snarkjs names it in its files (what the "curve" fields of our JSON say).
Json curve_json(groth16::CurveId id) {
  return Json::string(groth16::with_curve(id, [](auto e) { return decltype(e)::kSnarkjsName; }));
}

// A vk or proof JSON: its "curve" picks the reader that validates it. A proof without one (it
// is optional) is read as BLS12-381's, snarkd's first curve.
void describe_curve_json(const Json& doc, const std::string& path, const std::string& kind, Json& j) {
  const groth16::CurveId id = kind == "proof" && !doc.find("curve") ? groth16::CurveId::kBls12_381
                                                                   : groth16::snarkjs_json_curve(doc, path);
  j.set("curve", curve_json(id));
  groth16::with_curve(id, [&](auto e) {
    using E = decltype(e);
    if (kind == "vk") j.set("public_inputs", Json::number(groth16::vk_from_snarkjs_json<E>(doc, path).num_public()));
    if (kind == "proof") groth16::proof_from_snarkjs_json<E>(doc, path);  // validates
  });
}

Json json_file(const std::string& path) {
  const Json doc = Json::load(path);
  const std::string kind = json_document_kind(doc, path);
  Json j = Json::object();
  j.set("kind", Json::string("snarkjs " + kind + " json"));
  if (kind == "vk" || kind == "proof") describe_curve_json(doc, path, kind, j);
  if (kind == "public") {
    const auto publics = publics_from_json(doc, path);
    if (publics.size() > 1) j.set("proofs", Json::number(publics.size()));
    j.set("values", Json::number(publics[0].size()));
  }
  return j;
}

// The circom and snarkjs binaries, read over the curve their header names.
Json describe_by_curve(const std::string& path, FileKind k) {
  const groth16::CurveId id = k == FileKind::kZkey ? groth16::zkey_curve(path) : r1cs::circom_curve(path);
  Json j = groth16::with_curve(id, [&](auto e) {
    using E = decltype(e);
    if (k == FileKind::kZkey)
      return with_kind(key_json(groth16::read_zkey<E>(path, groth16::PointCheck::kTrusted).pk), "snarkjs zkey");
    if (k == FileKind::kCircomR1cs)
      return with_kind(circuit_json(r1cs::read_circom_r1cs<typename E::Fr>(path).circuit), "circom r1cs");
    Json w = Json::object();
    w.set("values", Json::number(r1cs::read_wtns<typename E::Fr>(path).size()));
    return with_kind(std::move(w), "circom wtns");
  });
  j.set("curve", curve_json(id));
  return j;
}

Json describe(const std::string& path) {
  switch (const FileKind k = detect_file_kind(path)) {
    case FileKind::kZkey:
    case FileKind::kCircomR1cs:
    case FileKind::kWtns: return describe_by_curve(path, k);
    case FileKind::kCsr: return with_kind(circuit_json(r1cs::read_csr_file(path)), "snarkd csr circuit");
    case FileKind::kJson: return json_file(path);
    case FileKind::kBellpersonProof: {
      Json j = Json::object();
      j.set("proofs", Json::number(groth16::read_proofs(path).size()));
      return with_kind(std::move(j), "bellperson proof");
    }
    case FileKind::kBellpersonVk: {
      Json j = Json::object();
      j.set("public_inputs", Json::number(groth16::read_vk(path).num_public()));
      return with_kind(std::move(j), "bellperson verifying key");
    }
    case FileKind::kBellpersonParams:
      return with_kind(key_json(groth16::read_params(path, groth16::PointCheck::kTrusted)), "bellperson params");
    case FileKind::kUnknown: throw_unknown_kind(path);
  }
  throw_unknown_kind(path);
}

}  // namespace

void declare_info(Options& o) {
  o.positionals("FILE", "any file snarkd reads: keys, circuits, witnesses, proofs, public inputs");
  declare_common(o);
}

int cmd_info(const Options& a) {
  apply_common(a);
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
