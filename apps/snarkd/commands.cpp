#include "commands.hpp"

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "args.hpp"
#include "file_kind.hpp"
#include "progress.hpp"
#include "snarkd/groth16/bellperson_io.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/groth16/snarkjs_json.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/groth16/zkey.hpp"
#include "snarkd/r1cs/circom.hpp"
#include "snarkd/r1cs/csr_file.hpp"
#include "snarkd/r1cs/synthetic.hpp"
#include "snarkd/util/json.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::cli {
namespace {

using groth16::Proof;
using groth16::VerifyingKey;
using ff::Fr;

// Options every verb takes.
std::vector<OptionSpec> with_common(std::vector<OptionSpec> spec) {
  spec.push_back({"threads", true});
  spec.push_back({"json", false});
  return spec;
}

Args parse(int argc, char** argv, std::vector<OptionSpec> spec) {
  Args a(argc, argv, 2, with_common(std::move(spec)));
  if (!a.positional().empty()) throw UsageError("unexpected argument '" + a.positional()[0] + "'");
  if (a.has("threads")) {
    const uint64_t t = a.get_u64("threads", 0);
    if (t == 0 || t > 1024) throw UsageError("--threads must be between 1 and 1024");
    ThreadPool::set_default_threads(t);
  }
  return a;
}

r1cs::Circuit load_circuit(const std::string& path) {
  switch (detect_file_kind(path)) {
    case FileKind::kCircomR1cs: return r1cs::read_circom_r1cs(path).circuit;
    case FileKind::kCsr: return r1cs::read_csr_file(path);
    default: throw DecodeError(path + ": not a circuit (expected a circom .r1cs or a snarkd CSR file)");
  }
}

std::vector<Fr> load_witness(const std::string& path, const r1cs::Circuit& circuit, const std::string& circuit_path) {
  if (detect_file_kind(path) != FileKind::kWtns) throw DecodeError(path + ": not a circom .wtns witness file");
  std::vector<Fr> w = r1cs::read_wtns(path);
  if (w.size() != circuit.num_vars())
    throw DecodeError(path + ": has " + std::to_string(w.size()) + " witness values, " + circuit_path + " has " +
                      std::to_string(circuit.num_vars()) + " variables");
  if (w[0] != Fr::one()) throw DecodeError(path + ": witness value 0 (the constant ONE) is not 1");
  return w;
}

// Points of keys read for proving are checked for canonical coordinates only unless --check-key:
// the subgroup checks would cost more than the proof, and every proof is verified before it is
// written, so a corrupt key cannot produce a wrong proof — only a refused one.
groth16::PointCheck key_check(const Args& a) {
  return a.has("check-key") ? groth16::PointCheck::kFull : groth16::PointCheck::kTrusted;
}

Json timings_json(const char* command, const groth16::ProveTimings& t) {
  Json steps = Json::object();
  const std::pair<const char*, double> rows[] = {{"qap", t.qap},     {"h", t.h},         {"msm_a", t.msm_a},
                                                 {"msm_b", t.msm_b}, {"msm_l", t.msm_l}, {"msm_h", t.msm_h},
                                                 {"check", t.check}, {"total", t.total}};
  for (auto [name, s] : rows) steps.set(name, Json::number_text(std::to_string(s)));
  Json split = Json::object();
  split.set("zeros", Json::number(t.a_split.zeros + t.l_split.zeros));
  split.set("ones", Json::number(t.a_split.ones + t.l_split.ones));
  split.set("others", Json::number(t.a_split.others + t.l_split.others));
  Json out = Json::object();
  out.set("command", Json::string(command));
  out.set("seconds", std::move(steps));
  out.set("witness_split_a_l", std::move(split));
  return out;
}

groth16::ProveTimings run_prover(const groth16::ProvingKey& pk, const r1cs::Circuit& circuit,
                                 const std::vector<Fr>& w, Proof& proof) {
  Progress progress("prove", groth16::kProveSteps);
  groth16::ProveOptions opt;
  opt.self_check = true;  // ~3 ms: no invalid proof ever leaves this command
  opt.on_step = [&progress](std::string_view s) { progress.step(s); };
  groth16::ProveTimings t;
  proof = groth16::prove(pk, circuit, w, groth16::random_proof_randomness(), opt, &t);
  return t;
}

// For zkey keys, which carry no C matrix: the circuit file names the failing constraint.
void check_satisfied(const r1cs::Circuit& circuit, const std::vector<Fr>& w, const std::string& path) {
  if (auto row = r1cs::first_unsatisfied(circuit, w))
    throw groth16::UnsatisfiedWitness(
        "the witness does not satisfy constraint " + std::to_string(*row) + " of " + path, *row);
}

int prove_zkey(const Args& a) {
  const std::string zkey_path = a.require("zkey");
  groth16::Zkey zk = groth16::read_zkey(zkey_path, key_check(a));
  const std::vector<Fr> w = load_witness(a.require("witness"), zk.circuit, zkey_path);
  if (auto r1cs_path = a.get("r1cs")) check_satisfied(load_circuit(*r1cs_path), w, *r1cs_path);
  groth16::bind_circuit(zk.pk, zk.circuit);
  Proof proof;
  const auto t = run_prover(zk.pk, zk.circuit, w, proof);
  groth16::write_snarkjs_proof(a.require("proof"), proof);
  groth16::write_snarkjs_public(a.require("public"), groth16::public_inputs(zk.circuit, w));
  if (a.has("json")) std::printf("%s\n", timings_json("prove", t).dump().c_str());
  return 0;
}

int prove_params(const Args& a) {
  const std::string r1cs_path = a.require("r1cs");
  const r1cs::Circuit circuit = load_circuit(r1cs_path);
  const std::vector<Fr> w = load_witness(a.require("witness"), circuit, r1cs_path);
  groth16::ProvingKey pk = groth16::read_params(a.require("params"), key_check(a));
  groth16::bind_circuit(pk, circuit);
  Proof proof;
  groth16::ProveTimings t;
  try {  // the prover checks every row while it evaluates the QAP: no second pass here
    t = run_prover(pk, circuit, w, proof);
  } catch (const groth16::UnsatisfiedWitness& e) {
    throw groth16::UnsatisfiedWitness(std::string(e.what()) + " of " + r1cs_path, e.row());
  }
  groth16::write_proofs(a.require("proof"), std::span<const Proof>(&proof, 1));
  if (auto pub = a.get("public")) groth16::write_snarkjs_public(*pub, groth16::public_inputs(circuit, w));
  if (a.has("json")) std::printf("%s\n", timings_json("prove", t).dump().c_str());
  return 0;
}

VerifyingKey load_vk(const std::string& path) {
  switch (detect_file_kind(path)) {
    case FileKind::kJson: return groth16::read_snarkjs_vk(path);
    case FileKind::kZkey: return groth16::read_zkey_vk(path);
    case FileKind::kBinary: return groth16::read_vk_or_params(path);
    default: throw DecodeError(path + ": not a verifying key (verification_key.json, .vk, .params or .zkey)");
  }
}

std::vector<Proof> load_proofs(const std::string& path) {
  if (detect_file_kind(path) == FileKind::kJson) return {groth16::read_snarkjs_proof(path)};
  return groth16::read_proofs(path);
}

// public.json: an array of decimal strings (one proof) or an array of such arrays (one per
// proof of a multi-partition file).
std::vector<std::vector<Fr>> load_publics(const std::string& path) {
  const Json j = Json::load(path);
  if (!j.is_array()) throw DecodeError(path + ": public inputs must be a JSON array");
  if (j.size() == 0 || !j[0].is_array()) return {groth16::public_from_snarkjs_json(j, path)};
  std::vector<std::vector<Fr>> out;
  for (size_t k = 0; k < j.size(); ++k)
    out.push_back(groth16::public_from_snarkjs_json(j[k], path + ": proof " + std::to_string(k)));
  return out;
}

}  // namespace

int cmd_setup(int argc, char** argv) {
  const Args a = parse(argc, argv, {{"r1cs", true}, {"params", true}, {"vk", true}, {"seed", true}});
  const std::string r1cs_path = a.require("r1cs"), params_path = a.require("params");
  const r1cs::Circuit circuit = load_circuit(r1cs_path);
  const bool seeded = a.has("seed");
  std::fprintf(stderr,
               "snarkd setup: INSECURE development setup: the toxic waste %s; never use these keys "
               "for anything of value\n",
               seeded ? "is derived from --seed and anyone can recompute it" : "was known to this process");
  const auto tw = seeded ? groth16::toxic_waste_from_seed(a.get_u64("seed", 0)) : groth16::toxic_waste_random();
  const groth16::ProvingKey pk = groth16::setup_insecure(circuit, tw);
  groth16::write_params(params_path, pk);
  if (auto vk = a.get("vk")) groth16::write_vk(*vk, pk.vk);
  return 0;
}

int cmd_prove(int argc, char** argv) {
  const Args a = parse(argc, argv, {{"zkey", true}, {"params", true}, {"r1cs", true}, {"witness", true},
                                    {"proof", true}, {"public", true}, {"check-key", false}});
  if (a.has("zkey") == a.has("params")) throw UsageError("give exactly one of --zkey and --params");
  return a.has("zkey") ? prove_zkey(a) : prove_params(a);
}

int cmd_verify(int argc, char** argv) {
  const Args a = parse(argc, argv, {{"vk", true}, {"proof", true}, {"public", true}});
  const std::string proof_path = a.require("proof"), public_path = a.require("public");
  const VerifyingKey vk = load_vk(a.require("vk"));
  const std::vector<Proof> proofs = load_proofs(proof_path);
  const auto publics = load_publics(public_path);
  if (publics.size() != proofs.size())
    throw DecodeError(public_path + ": has public inputs for " + std::to_string(publics.size()) + " proofs, " +
                      proof_path + " holds " + std::to_string(proofs.size()));
  for (size_t k = 0; k < publics.size(); ++k)
    if (publics[k].size() != vk.num_public())
      throw DecodeError(public_path + ": " + std::to_string(publics[k].size()) + " public inputs" +
                        (proofs.size() > 1 ? " for proof " + std::to_string(k) : "") +
                        ", the verifying key expects " + std::to_string(vk.num_public()));
  const bool ok = proofs.size() == 1 ? groth16::verify(vk, proofs[0], publics[0])
                                     : groth16::verify_batch(vk, proofs, publics);
  if (a.has("json")) std::printf("{\"valid\": %s, \"proofs\": %zu}\n", ok ? "true" : "false", proofs.size());
  else std::printf("%s\n", ok ? "valid" : "invalid");
  return ok ? 0 : 1;
}

int cmd_synth(int argc, char** argv) {
  const Args a = parse(argc, argv, {{"constraints", true}, {"inputs", true}, {"seed", true},
                                    {"circuit", true}, {"witness", true}});
  r1cs::SyntheticParams p;  // defaults: a Filecoin PoRep partition's shape (synthetic.hpp)
  p.num_constraints = a.get_u64("constraints", p.num_constraints);
  p.num_inputs = a.get_u64("inputs", p.num_inputs);
  p.seed = a.get_u64("seed", p.seed);
  const r1cs::SyntheticCircuit sc = r1cs::generate_synthetic(p);
  r1cs::write_csr_file(a.require("circuit"), sc.circuit);
  r1cs::write_wtns(a.require("witness"), sc.witness);
  return 0;
}

int cmd_export_vk(int argc, char** argv) {
  const Args a = parse(argc, argv, {{"zkey", true}, {"out", true}});
  groth16::write_snarkjs_vk(a.require("out"), groth16::read_zkey_vk(a.require("zkey")));
  return 0;
}

}  // namespace snarkd::cli
