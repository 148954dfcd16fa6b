// setup, verify, export-vk, convert-proof, synth and the options they share (prove: prove_cmd.cpp,
// info: info.cpp, bench: bench_cmd.cpp).
#include "commands.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "file_kind.hpp"
#include "loaders.hpp"
#include "snarkd/groth16/bellperson_io.hpp"
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

void declare_common(Options& o) {
  o.value("threads", "threads for the parallel steps (default: one per core)", "N")
      .flag("json", "machine-readable output on stdout")
      .flag("progress", "progress lines on stderr also when it is not a terminal")
      .flag("no-progress", "no progress display");
}

void apply_common(const Options& a) {
  if (!a.has("threads")) return;
  const uint64_t t = a.get_u64("threads", 0);
  if (t == 0 || t > 1024) throw UsageError("--threads must be between 1 and 1024");
  ThreadPool::set_default_threads(t);
}

Progress::Mode progress_mode(const Options& a) {
  if (a.has("no-progress")) return Progress::Mode::kOff;
  return a.has("progress") ? Progress::Mode::kLines : Progress::Mode::kAuto;
}

namespace {

using groth16::Proof;
using groth16::VerifyingKey;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Positional files in the order snarkjs takes them, or the named options; not both.
std::vector<std::string> files(const Options& a, const std::vector<const char*>& names) {
  const auto& pos = a.positional();
  bool any_named = false;
  for (const char* n : names) any_named = any_named || a.has(n);
  if (pos.empty()) {
    std::vector<std::string> out;
    for (const char* n : names) out.push_back(a.require(n));
    return out;
  }
  std::string order;
  for (const char* n : names) order += std::string(order.empty() ? "" : " ") + n;
  if (any_named || pos.size() != names.size())
    throw UsageError("give the files either in the order " + order + " or as --options, not both");
  return pos;
}

uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : UINT64_MAX;
}

std::string gib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(uint64_t{1} << 30));
  return buf;
}

// A circuit file may claim far more variables than it could use (a 100-byte .r1cs can claim
// 2^32): compare what setup would need with the limit before allocating anything.
void check_setup_memory(const r1cs::Circuit& c, const std::string& path, const Options& a) {
  uint64_t limit = physical_memory_bytes();
  if (auto g = a.get("max-memory-gib")) {
    char* end = nullptr;
    const double v = std::strtod(g->c_str(), &end);
    if (end == g->c_str() || *end || !(v > 0) || v > 1e9)
      throw UsageError("--max-memory-gib expects a positive number");
    limit = uint64_t(v * double(uint64_t{1} << 30));
  }
  const uint64_t need = groth16::setup_peak_bytes(c);
  if (need > limit)
    throw DecodeError(
        path + ": a key for " + std::to_string(c.num_vars()) + " variables and " + std::to_string(c.num_constraints()) +
        " constraints needs up to " + gib(need) + " during setup, more than the " + gib(limit) +
        (a.has("max-memory-gib") ? " allowed" : " this machine has") + " (--max-memory-gib sets the limit)");
}

// The CPU fixed-base backend with a progress step per batch of points (key_from_scalars makes
// eight batches: the vk's G1 and G2 points, then IC, H, L, A, B in G1 and B in G2).
constexpr size_t kSetupPointBatches = 8;
groth16::FixedBaseBackend with_progress(groth16::FixedBaseBackend b, Progress& p) {
  return {[g1 = b.g1, &p](std::span<const ff::Fr> s) {
            p.step("G1 points (" + std::to_string(s.size()) + ")");
            return g1(s);
          },
          [g2 = b.g2, &p](std::span<const ff::Fr> s) {
            p.step("G2 points (" + std::to_string(s.size()) + ")");
            return g2(s);
          }};
}

}  // namespace

void declare_setup(Options& o) {
  o.value("r1cs", "the circuit: circom .r1cs or snarkd CSR", "C.r1cs")
      .value("params", "where to write the bellperson proving key", "OUT.params")
      .value("vk", "where to write the bellperson verifying key (optional)", "OUT.vk")
      .value("seed", "derive the toxic waste from N (reproducible; anyone can recompute it)", "N")
      .value("max-memory-gib", "refuse a circuit whose setup would need more (default: the machine's memory)", "G");
  declare_common(o);
  o.app().footer(
      "INSECURE development setup: the toxic waste is known to this process (or to anyone, with --seed);\n"
      "never use these keys for anything of value.");
}

int cmd_setup(const Options& a) {
  apply_common(a);
  const std::string r1cs_path = a.require("r1cs"), params_path = a.require("params");
  const auto t0 = Clock::now();
  const bool seeded = a.has("seed");
  const auto tw = seeded ? groth16::toxic_waste_from_seed(a.get_u64("seed", 0)) : groth16::toxic_waste_random();
  Progress progress("setup", 3 + kSetupPointBatches + (a.has("vk") ? 1 : 0), progress_mode(a));
  progress.step("read circuit");
  const r1cs::Circuit circuit = load_circuit(r1cs_path);
  check_setup_memory(circuit, r1cs_path, a);
  std::fprintf(stderr,
               "snarkd setup: INSECURE development setup: the toxic waste %s; never use these keys "
               "for anything of value\n",
               seeded ? "is derived from --seed and anyone can recompute it" : "was known to this process");
  progress.step("scalars");
  groth16::SetupScalars scalars = groth16::setup_scalars(circuit, tw);
  const uint32_t log_domain = scalars.log_domain;
  const groth16::ProvingKey pk =
      groth16::key_from_scalars(std::move(scalars), with_progress(groth16::cpu_fixed_base(), progress));
  progress.step("write " + params_path);
  try {
    groth16::write_params(params_path, pk);
  } catch (const InvalidArgument& e) {  // a point at infinity: bellperson cannot read such a key
    throw DecodeError(r1cs_path + ": no bellperson key for this circuit (" + e.what() +
                      "): every variable must occur in a constraint");
  }
  if (auto vk = a.get("vk")) {
    progress.step("write " + *vk);
    groth16::write_vk(*vk, pk.vk);
  }
  if (a.has("json")) {
    Json j = Json::object();
    j.set("command", Json::string("setup"));
    j.set("params", Json::string(params_path));
    if (auto vk = a.get("vk")) j.set("vk", Json::string(*vk));
    j.set("constraints", Json::number(circuit.num_constraints()));
    j.set("variables", Json::number(circuit.num_vars()));
    j.set("log_domain", Json::number(log_domain));
    j.set("seconds", Json::number_text(std::to_string(seconds_since(t0))));
    std::printf("%s\n", j.dump().c_str());
  }
  return 0;
}

void declare_verify(Options& o) {
  o.positionals("FILES", "VK PUBLIC PROOF: snarkjs's order (or the options)")
      .value("vk",
             "verification_key.json, a bellperson .vk or .params, or a .zkey (only its vk is read); its curve "
             "(BLS12-381 or BN254) is the proof's",
             "VK")
      .value("proof", "proof.json or a file of 192-byte bellperson proofs (several verify as a batch)", "PROOF")
      .value("public", "public.json: one array, or one array per proof", "public.json");
  declare_common(o);
  o.app().footer("exit codes: 0 valid, 1 invalid, 2 bad input");
}

namespace {

// verify over the curve E of the key: the proof and public inputs must be E's too.
template <class E>
bool verify_files(const std::string& vk_path, const std::string& public_path, const std::string& proof_path,
                  size_t& n_proofs) {
  const groth16::VerifyingKeyT<E> vk = load_vk<E>(vk_path);
  const std::vector<groth16::ProofT<E>> proofs = load_proofs<E>(proof_path);
  const auto publics = load_publics<E>(public_path);
  n_proofs = proofs.size();
  if (publics.size() != proofs.size())
    throw DecodeError(public_path + ": has public inputs for " + std::to_string(publics.size()) + " proofs, " +
                      proof_path + " holds " + std::to_string(proofs.size()));
  for (size_t k = 0; k < publics.size(); ++k)
    if (publics[k].size() != vk.num_public())
      throw DecodeError(public_path + ": " + std::to_string(publics[k].size()) + " public inputs" +
                        (proofs.size() > 1 ? " for proof " + std::to_string(k) : "") + ", the verifying key expects " +
                        std::to_string(vk.num_public()));
  return proofs.size() == 1 ? groth16::verify(vk, proofs[0], publics[0]) : groth16::verify_batch(vk, proofs, publics);
}

}  // namespace

int cmd_verify(const Options& a) {
  apply_common(a);
  const auto f = files(a, {"vk", "public", "proof"});
  const std::string &vk_path = f[0], &public_path = f[1], &proof_path = f[2];
  size_t n_proofs = 0;
  const bool ok = groth16::with_curve(key_curve(vk_path), [&](auto e) {
    return verify_files<decltype(e)>(vk_path, public_path, proof_path, n_proofs);
  });
  if (a.has("json"))
    std::printf("{\"valid\": %s, \"proofs\": %zu}\n", ok ? "true" : "false", n_proofs);
  else
    std::printf("%s\n", ok ? "valid" : "invalid");
  return ok ? 0 : 1;
}

void declare_export_vk(Options& o) {
  o.positionals("FILES", "ZKEY OUT: snarkjs's order (or the options)")
      .value("zkey", "the snarkjs proving key (BLS12-381 or BN254, from the file)", "K.zkey")
      .value("out", "where to write verification_key.json", "OUT.json");
  declare_common(o);
}

int cmd_export_vk(const Options& a) {
  apply_common(a);
  const auto f = files(a, {"zkey", "out"});
  const uint64_t n_public = groth16::with_curve(groth16::zkey_curve(f[0]), [&](auto e) {
    const auto vk = groth16::read_zkey_vk<decltype(e)>(f[0]);
    groth16::write_snarkjs_vk(f[1], vk);
    return vk.num_public();
  });
  if (a.has("json"))
    std::printf("{\"command\": \"export-vk\", \"out\": %s, \"public_inputs\": %llu}\n",
                Json::string(f[1]).dump().c_str(), (unsigned long long)n_public);
  return 0;
}

void declare_convert_proof(Options& o) {
  o.positionals("FILES", "IN OUT: a 192-byte bellperson proof becomes snarkjs's proof.json, and back")
      .value("partition", "which proof of a multi-proof file to convert (default: the only one)", "K");
  declare_common(o);
  o.app().footer("The same three points either way: snarkjs verifies the JSON form with its verification_key.json.");
}

int cmd_convert_proof(const Options& a) {
  apply_common(a);
  if (a.positional().size() != 2) throw UsageError("give IN and OUT");
  const std::string &in = a.positional()[0], &out = a.positional()[1];
  const bool from_json = detect_file_kind(in) == FileKind::kJson;
  const std::vector<Proof> proofs = load_proofs(in);
  if (from_json) {
    groth16::write_proofs(out, proofs);
  } else {
    if (proofs.size() > 1 && !a.has("partition"))
      throw UsageError(in + " holds " + std::to_string(proofs.size()) +
                       " proofs and a proof.json one: --partition K picks it");
    const uint64_t k = a.get_u64("partition", 0);
    if (k >= proofs.size())
      throw UsageError("--partition " + std::to_string(k) + ": " + in + " holds " + std::to_string(proofs.size()));
    groth16::write_snarkjs_proof(out, proofs[k]);
  }
  if (a.has("json"))
    std::printf("{\"command\": \"convert-proof\", \"to\": \"%s\", \"out\": %s}\n", from_json ? "bellperson" : "snarkjs",
                Json::string(out).dump().c_str());
  return 0;
}

void declare_synth(Options& o) {
  o.value("constraints", "number of constraints (default: a PoRep partition's)", "N")
      .value("inputs", "number of public inputs", "K")
      .value("seed", "random seed", "S")
      .value("circuit", "where to write the snarkd CSR circuit", "OUT.csr")
      .value("witness", "where to write the witness", "OUT.wtns");
  declare_common(o);
  o.app().footer("A random satisfiable circuit shaped like a Filecoin PoRep partition, for benchmarks.");
}

int cmd_synth(const Options& a) {
  apply_common(a);
  r1cs::SyntheticParams p;  // defaults: a Filecoin PoRep partition's shape (synthetic.hpp)
  p.num_constraints = a.get_u64("constraints", p.num_constraints);
  p.num_inputs = a.get_u64("inputs", p.num_inputs);
  p.seed = a.get_u64("seed", p.seed);
  const std::string circuit_path = a.require("circuit"), witness_path = a.require("witness");
  Progress progress("synth", 3, progress_mode(a));
  progress.step("generate");
  const r1cs::SyntheticCircuit sc = r1cs::generate_synthetic(p);
  progress.step("write " + circuit_path);
  r1cs::write_csr_file(circuit_path, sc.circuit);
  progress.step("write " + witness_path);
  r1cs::write_wtns(witness_path, sc.witness);
  if (a.has("json"))
    std::printf("{\"command\": \"synth\", \"constraints\": %llu, \"variables\": %llu}\n",
                (unsigned long long)sc.circuit.num_constraints(), (unsigned long long)sc.circuit.num_vars());
  return 0;
}

}  // namespace snarkd::cli
