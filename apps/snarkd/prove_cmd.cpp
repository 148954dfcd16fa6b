// `snarkd prove`: snarkjs keys (--zkey, or ZKEY WTNS PROOF PUBLIC as snarkjs and rapidsnark take
// them) over BLS12-381 or BN254 (the zkey's q says which) and bellperson keys (--params with the
// circuit, BLS12-381). Every proof is verified before it is
// written; when that check fails on a key whose points were not checked at load, the key is
// checked and named before the witness is blamed.
#include <array>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "loaders.hpp"
#include "snarkd/groth16/bellperson_io.hpp"
#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/groth16/key_check.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/groth16/snarkjs_json.hpp"
#include "snarkd/groth16/zkey.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/util/json.hpp"
#ifdef SNARKD_ENGINE_CUDA
#include "snarkd/cuda/prover_snarkjs.hpp"
#include "snarkd/cuda/runtime.hpp"
#endif

namespace snarkd::cli {
namespace {

using ff::Fr;
using groth16::Proof;

// Points of keys read for proving are checked for canonical coordinates only unless --check-key:
// the subgroup checks would cost more than the proof, and every proof is verified before it is
// written, so a corrupt key cannot produce a wrong proof — only a refused one (explained below).
groth16::PointCheck key_check(const Options& a) {
  return a.has("check-key") ? groth16::PointCheck::kFull : groth16::PointCheck::kTrusted;
}

Json timings_json(const groth16::ProveTimings& t) {
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
  out.set("command", Json::string("prove"));
  out.set("seconds", std::move(steps));
  out.set("witness_split_a_l", std::move(split));
  return out;
}

// What the prover needs besides the key, and what to say when its proof does not verify.
struct ProveJob {
  const Options& args;
  std::string key_path;
  bool witness_checked;  // every constraint was checked against the witness (bellperson; zkey + --r1cs)
};

// The proof failed its self-check. With an unchecked key, a flipped byte in a query point (off
// the curve) is the likelier cause: check every point (subgroups too for small keys; ~100 µs a
// point) and name the key. Otherwise say what is known.
template <class E>
[[noreturn]] void explain_failed_check(const groth16::ProvingKeyT<E>& pk, const ProveJob& job, Progress& progress) {
  const bool checked_at_load = job.args.has("check-key");
  const uint64_t points = pk.a.size() + pk.b_g1.size() + pk.b_g2.size() + pk.l.size() + pk.h.size();
  const bool subgroups = points <= (uint64_t{1} << 16);
  if (!checked_at_load) {
    progress.step("check key");
    if (auto bad = groth16::find_invalid_key_point(pk, subgroups))
      throw DecodeError(job.key_path + ": corrupt proving key: " + *bad + " (the proof made with it did not verify)");
  }
  const std::string checked = checked_at_load || subgroups
                                  ? "its points are valid"
                                  : "its points are on the curve; --check-key also tests subgroups";
  if (job.witness_checked)
    throw DecodeError(job.key_path +
                      ": the proof does not verify although the witness satisfies every constraint: the key is "
                      "corrupt or was made for another circuit (" +
                      checked + ")");
  throw groth16::UnsatisfiedWitness("the witness does not satisfy the circuit of " + job.key_path +
                                        ", or the key is corrupt (" + checked +
                                        "); --r1cs C.r1cs names the failing constraint",
                                    UINT64_MAX);
}

template <class E>
groth16::ProveTimings run_prover(const groth16::BoundKeyT<E>& key, const std::vector<typename E::Fr>& w,
                                 const ProveJob& job, Progress& progress, groth16::ProofT<E>& proof) {
  groth16::ProveOptions opt;
  opt.self_check = true;  // ~3 ms: no invalid proof ever leaves this command
  opt.on_step = [&progress](std::string_view s) { progress.step(s); };
  groth16::ProveTimings t;
  try {
    proof = groth16::prove(key, w, groth16::random_proof_randomness<E>(), opt, &t);
  } catch (const groth16::UnsatisfiedWitness& e) {
    if (e.row() != UINT64_MAX) throw;  // a failing constraint: the witness it is
    explain_failed_check(key.pk(), job, progress);
  }
  return t;
}

// --device: "cpu" (default) or "cuda:N" (zkeys, builds with the CUDA backend); the GPU's index.
std::optional<int> gpu_device(const Options& a) {
  const std::string d = a.get("device").value_or("cpu");
  if (d == "cpu") return std::nullopt;
  if (d.rfind("cuda:", 0) == 0 && d.size() > 5 && d.find_first_not_of("0123456789", 5) == std::string::npos) {
#ifdef SNARKD_ENGINE_CUDA
    const int n = cuda::device_count(), gpu = d.size() > 9 ? n : std::stoi(d.substr(5));
    if (gpu >= n)
      throw UsageError("--device " + d + ": this machine has " + std::to_string(n) + " visible CUDA device" +
                       (n == 1 ? "" : "s"));
    return gpu;
#else
    throw UsageError("--device " + d + ": this snarkd was built without the CUDA backend");
#endif
  }
  throw UsageError("--device " + d + ": expected cpu or cuda:N");
}

#ifdef SNARKD_ENGINE_CUDA
// The GPU path for zkeys (cuda/prover_snarkjs.hpp): the five sums on device `gpu`, the blinding
// and the self-check on the host, as groth16::prove does for snarkjs keys.
template <class E>
groth16::ProveTimings run_gpu_prover(const std::shared_ptr<const groth16::BoundKeyT<E>>& key,
                                     const std::vector<typename E::Fr>& w, int gpu, const ProveJob& job,
                                     Progress& progress, groth16::ProofT<E>& proof) {
  const auto t0 = std::chrono::steady_clock::now();
  auto since = [](auto t) { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count(); };
  progress.step("upload key");
  cuda::SnarkjsGpuProver<E> prover(gpu, key);
  progress.step("prove on " + std::string("cuda:") + std::to_string(gpu));
  std::array<double, cuda::kProverPhases> ph{};
  const auto sums = prover.compute_sums(w, &ph);
  progress.step("check");
  const auto t1 = std::chrono::steady_clock::now();
  proof = groth16::assemble(key->pk().vk, sums, groth16::random_proof_randomness<E>());
  if (!groth16::verify(key->pk().vk, proof, groth16::public_inputs(key->circuit(), w)))
    explain_failed_check(key->pk(), job, progress);
  groth16::ProveTimings t;
  t.qap = ph[0], t.h = ph[1], t.msm_a = ph[2], t.msm_b = ph[3] + ph[4], t.msm_l = ph[5], t.msm_h = ph[6];
  t.check = since(t1);
  t.total = since(t0);
  return t;
}
#endif

// For zkey keys, which carry no C matrix: the circuit file names the failing constraint.
template <class F>
void check_satisfied(const r1cs::CircuitT<F>& circuit, const std::vector<F>& w, const std::string& path,
                     const std::string& zkey_path, uint64_t zkey_vars) {
  if (circuit.num_vars() != zkey_vars)
    throw DecodeError(path + ": has " + std::to_string(circuit.num_vars()) + " variables, " + zkey_path + " has " +
                      std::to_string(zkey_vars) + ": not the same circuit");
  if (auto row = r1cs::first_unsatisfied(circuit, w))
    throw groth16::UnsatisfiedWitness("the witness does not satisfy constraint " + std::to_string(*row) + " of " + path,
                                      *row);
}

// The zkey's curve E decides the witness's and the circuit's field (a file for the other curve
// is refused by its reader, naming both curves).
template <class E>
int prove_zkey(const Options& a, const std::vector<std::string>& f) {
  using F = typename E::Fr;
  const std::string &zkey_path = f[0], &witness_path = f[1], &proof_path = f[2], &public_path = f[3];
  const auto r1cs_path = a.get("r1cs");
  const std::optional<int> gpu = gpu_device(a);  // checked before anything is read
  Progress progress("prove", 4 + (r1cs_path ? 1 : 0) + (gpu ? 3 : groth16::kProveSteps), progress_mode(a));
  progress.step("read key");
  groth16::ZkeyT<E> zk = groth16::read_zkey<E>(zkey_path, key_check(a));
  progress.step("read witness");
  const std::vector<F> w = load_witness<F>(witness_path, zk.circuit, zkey_path);
  if (r1cs_path) {
    progress.step("check constraints");
    check_satisfied(load_circuit<F>(*r1cs_path), w, *r1cs_path, zkey_path, zk.circuit.num_vars());
  }
  progress.step("bind");
  const auto key = groth16::BoundKeyT<E>::bind(std::move(zk.pk), std::move(zk.circuit));
  groth16::ProofT<E> proof;
  const ProveJob job{a, zkey_path, r1cs_path.has_value()};
  groth16::ProveTimings t;
#ifdef SNARKD_ENGINE_CUDA
  if (gpu)
    t = run_gpu_prover<E>(key, w, *gpu, job, progress, proof);
  else
#endif
    t = run_prover(*key, w, job, progress, proof);
  progress.step("write");
  groth16::write_snarkjs_proof(proof_path, proof);
  groth16::write_snarkjs_public<E>(public_path, groth16::public_inputs(key->circuit(), w));
  if (a.has("json")) std::printf("%s\n", timings_json(t).dump().c_str());
  return 0;
}

int prove_zkey_file(const Options& a, const std::vector<std::string>& f) {
  return groth16::with_curve(groth16::zkey_curve(f[0]), [&](auto e) { return prove_zkey<decltype(e)>(a, f); });
}

int prove_params(const Options& a) {
  const std::string r1cs_path = a.require("r1cs"), params_path = a.require("params"), proof_path = a.require("proof");
  Progress progress("prove", 5 + groth16::kProveSteps, progress_mode(a));
  progress.step("read circuit");
  r1cs::Circuit circuit = load_circuit(r1cs_path);
  progress.step("read witness");
  const std::vector<Fr> w = load_witness(a.require("witness"), circuit, r1cs_path);
  progress.step("read key");
  groth16::ProvingKey pk = groth16::read_params(params_path, key_check(a));
  progress.step("bind");
  const auto key = groth16::BoundKey::bind(std::move(pk), std::move(circuit));
  Proof proof;
  groth16::ProveTimings t;
  try {  // the prover checks every row while it evaluates the QAP: no second pass here
    t = run_prover(*key, w, {a, params_path, true}, progress, proof);
  } catch (const groth16::UnsatisfiedWitness& e) {
    if (e.row() == UINT64_MAX) throw;
    throw groth16::UnsatisfiedWitness(std::string(e.what()) + " of " + r1cs_path, e.row());
  }
  progress.step("write");
  groth16::write_proofs(proof_path, std::span<const Proof>(&proof, 1));
  if (auto pub = a.get("public")) groth16::write_snarkjs_public(*pub, groth16::public_inputs(key->circuit(), w));
  if (a.has("json")) std::printf("%s\n", timings_json(t).dump().c_str());
  return 0;
}

}  // namespace

void declare_prove(Options& o) {
  o.positionals("FILES", "ZKEY WTNS PROOF PUBLIC: the order snarkjs and rapidsnark take (or the options)")
      .value("zkey", "snarkjs proving key, BLS12-381 or BN254 (bn128): the file says which", "K.zkey")
      .value("params", "bellperson proving key (with --r1cs)", "P.params")
      .value("r1cs", "the circuit: circom .r1cs or snarkd CSR (with --zkey: optional, names a failing constraint)",
             "C.r1cs")
      .value("witness", "circom witness", "W.wtns")
      .value("proof", "where to write the proof: proof.json (zkey) or 192 bytes (params)", "OUT")
      .value("public", "where to write public.json (optional with --params)", "public.json")
      .flag("check-key", "check every key point's subgroup at load (by default: canonical encodings only)")
      .value("device", "where a zkey's proof is computed: cpu (default) or cuda:N (the GPU; --params: cpu only)",
             "cpu|cuda:N");
  declare_common(o);
  o.app().footer(
      "Every proof is verified before it is written. exit codes: 0 done, 2 bad input (a witness that does\n"
      "not satisfy the circuit, a corrupt key: the message says which)");
}

int cmd_prove(const Options& a) {
  apply_common(a);
  if (!a.positional().empty()) {
    if (a.positional().size() != 4 || a.has("zkey") || a.has("params") || a.has("witness") || a.has("proof") ||
        a.has("public"))
      throw UsageError("give ZKEY WTNS PROOF PUBLIC (snarkjs's order) or the options, not both");
    return prove_zkey_file(a, a.positional());
  }
  if (a.has("zkey") == a.has("params")) throw UsageError("give exactly one of --zkey and --params");
  if (a.has("params") && gpu_device(a))
    throw UsageError("--device cuda:N proves zkeys; bellperson keys go through snarkd serve or snarkd bench");
  if (a.has("zkey"))
    return prove_zkey_file(a, {a.require("zkey"), a.require("witness"), a.require("proof"), a.require("public")});
  return prove_params(a);
}

}  // namespace snarkd::cli
