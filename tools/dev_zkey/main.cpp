// snarkd_dev_zkey (--log K | --constraints N) --zkey K.zkey --wtns W.wtns [...]: an INSECURE,
// single-party snarkjs .zkey and its witness for a synthetic circuit, made on the machine that
// benchmarks them (dev_zkey.hpp). `--measure R1CS [WTNS]` prints a circom circuit's shape instead.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "dev_zkey.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/random.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace {

namespace dz = snarkd::dev_zkey;

constexpr const char* kDescription =
    "Writes a snarkjs 0.7.6 Groth16 .zkey and the matching .wtns for a random satisfiable circuit over "
    "BN254 (circom's bn128) or BLS12-381, shaped like circom's Poseidon circuits (or a Filecoin PoRep "
    "partition), for benchmarking provers (snarkjs, rapidsnark, snarkd) where circom and snarkjs are not "
    "available.\n\n"
    "INSECURE: a single-party setup. tau, alpha, beta, gamma and delta come from the OS RNG (or from "
    "--seed, and then anyone can recompute them); whoever runs this could keep them and forge proofs. For "
    "benchmarks and tests only, never for keys that protect anything.";

// The shape overrides: flag, help, the parameter it sets.
struct Override {
  const char* flag;
  const char* help;
  double snarkd::r1cs::SyntheticParams::*field;
};
constexpr Override kOverrides[] = {
    {"--nnz-a", "mean A terms per non-linear row", &snarkd::r1cs::SyntheticParams::nnz_a},
    {"--nnz-b", "mean B terms per non-linear row", &snarkd::r1cs::SyntheticParams::nnz_b},
    {"--nnz-c", "mean C terms per non-linear row (the defined variable included)",
     &snarkd::r1cs::SyntheticParams::nnz_c},
    {"--nnz-c-linear", "mean C terms per linear row", &snarkd::r1cs::SyntheticParams::nnz_c_linear},
    {"--linear-fraction", "rows with A = B = 0", &snarkd::r1cs::SyntheticParams::linear_fraction},
    {"--square-fraction", "non-linear rows with B = A", &snarkd::r1cs::SyntheticParams::square_fraction},
    {"--chain-fraction", "rows whose first A term is the previous row's variable",
     &snarkd::r1cs::SyntheticParams::chain_fraction},
    {"--b-squared-fraction", "other non-linear rows whose first B term is a squared variable",
     &snarkd::r1cs::SyntheticParams::b_squared_fraction},
    {"--const-fraction", "C terms with a random constant coefficient", &snarkd::r1cs::SyntheticParams::const_fraction},
    {"--bit-fraction", "witness values in {0, 1}", &snarkd::r1cs::SyntheticParams::bit_fraction},
    {"--zero-fraction", "witness values 0 (within --bit-fraction)", &snarkd::r1cs::SyntheticParams::zero_fraction},
};

struct Args {
  std::string curve = "bn254", shape = "circom";
  std::optional<uint64_t> constraints, seed;
  std::optional<uint32_t> log, num_consts;
  uint64_t inputs = 2;
  std::optional<double> overrides[std::size(kOverrides)];
  dz::Outputs out;
  std::vector<std::string> measure;
  size_t threads = 0;
  bool quiet = false;
};

void declare(CLI::App& app, Args& a) {
  app.add_option("--curve", a.curve, "bn254 (default) or bls12-381")->check(CLI::IsMember({"bn254", "bls12-381"}));
  auto* log = app.add_option("--log", a.log, "domain 2^K exactly: 2^K - inputs - 1 constraints");
  app.add_option("--constraints", a.constraints, "number of constraints")->excludes(log);
  app.add_option("--inputs", a.inputs, "public inputs, ONE not counted (default 2, as bench/circom's circuits)");
  app.add_option("--shape", a.shape, "circom (default: circom's Poseidon circuits) or porep");
  for (size_t i = 0; i < std::size(kOverrides); ++i)
    app.add_option(kOverrides[i].flag, a.overrides[i], std::string("shape override: ") + kOverrides[i].help);
  app.add_option("--num-consts", a.num_consts, "shape override: distinct random constants");
  app.add_option("--seed", a.seed, "circuit and toxic waste from this 64-bit seed (reproducible, public)");
  app.add_option("--zkey", a.out.zkey, "the .zkey to write");
  app.add_option("--wtns", a.out.wtns, "the witness .wtns to write");
  app.add_option("--vk", a.out.vk, "also write verification_key.json");
  app.add_option("--public", a.out.public_json, "also write public.json");
  app.add_option("--proof", a.out.proof, "also prove with snarkd's CPU prover, verify, write proof.json");
  app.add_option("--r1cs", a.out.r1cs, "also write the circuit as a circom .r1cs");
  app.add_option("--measure", a.measure, "print the shape of a circom R1CS [and WTNS] and exit")->expected(1, 2);
  app.add_option("--threads", a.threads, "worker threads (default: every core)");
  app.add_flag("--quiet", a.quiet, "no progress lines");
}

// The generator's checks, with the flag that set the parameter named in front:
// "--linear-fraction: synthetic circuit: linear_fraction must be in [0, 1]".
void check_shape(const snarkd::r1cs::SyntheticParams& p) {
  try {
    snarkd::r1cs::check_synthetic_params(p);
  } catch (const snarkd::InvalidArgument& e) {
    const std::string what = e.what();
    std::vector<std::string> flags = {"--num-consts", "--constraints", "--inputs"};
    for (const Override& o : kOverrides) flags.push_back(o.flag);
    std::string best;  // the longest name found: nnz_c_linear, not nnz_c
    for (const std::string& flag : flags) {
      std::string param = flag.substr(2);
      std::replace(param.begin(), param.end(), '-', '_');
      if (what.find(param) != std::string::npos && flag.size() > best.size()) best = flag;
    }
    if (best.empty()) throw;
    throw snarkd::InvalidArgument(best + ": " + what);
  }
}

dz::Options options(const Args& a) {
  dz::Options o;
  o.curve = a.curve == "bls12-381" ? snarkd::r1cs::CurveId::kBls12_381 : snarkd::r1cs::CurveId::kBn254;
  o.circuit = dz::shape_params(a.shape);
  for (size_t i = 0; i < std::size(kOverrides); ++i)
    if (a.overrides[i]) o.circuit.*kOverrides[i].field = *a.overrides[i];
  if (a.num_consts) o.circuit.num_consts = *a.num_consts;
  o.circuit.num_inputs = a.inputs + 1;
  if (a.log) {
    const uint32_t max = dz::max_log_domain(o.curve);
    if (*a.log > max || (uint64_t{1} << *a.log) <= o.circuit.num_inputs)
      throw snarkd::InvalidArgument("--log " + std::to_string(*a.log) + ": must leave room for the " +
                                    std::to_string(o.circuit.num_inputs) + " input rows and be at most " +
                                    std::to_string(max) + " for " + a.curve);
    o.circuit.num_constraints = (uint64_t{1} << *a.log) - o.circuit.num_inputs;
  } else if (a.constraints) {
    o.circuit.num_constraints = *a.constraints;
  } else {
    throw snarkd::InvalidArgument("give --log K or --constraints N");
  }
  check_shape(o.circuit);
  snarkd::OsRandom rng;
  o.circuit.seed = a.seed ? *a.seed : rng();
  o.seed = a.seed;
  o.out = a.out;
  return o;
}

int measure(const Args& a) {
  const std::string wtns = a.measure.size() > 1 ? a.measure[1] : "";
  const snarkd::r1cs::CircuitShape shape = dz::measure_files(a.measure[0], wtns);
  std::cout << a.measure[0] << ": " << dz::describe_shape(shape, !wtns.empty());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app(kDescription, "snarkd_dev_zkey");
  Args a;
  declare(app, a);
  CLI11_PARSE(app, argc, argv);
  try {
    if (a.threads > 0) snarkd::ThreadPool::set_default_threads(a.threads);
    if (!a.measure.empty()) return measure(a);
    const dz::Options o = options(a);
    if (!a.quiet)
      std::fprintf(stderr, "snarkd_dev_zkey: INSECURE development key (%s): %s\n", a.curve.c_str(),
                   a.seed ? "the secrets come from the public --seed, anyone can recompute them"
                          : "the secrets came from this machine's OS RNG and were not kept");
    const auto t0 = std::chrono::steady_clock::now();
    const dz::Made m = dz::make(o, a.quiet ? nullptr : &std::cerr);
    if (!a.quiet) {
      const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::fprintf(stderr,
                   "wrote %s: %llu constraints, %llu public inputs, %llu variables, domain 2^%u, %.1f MiB, "
                   "in %.2f s (%zu threads)\n",
                   o.out.zkey.c_str(), (unsigned long long)m.constraints, (unsigned long long)(m.num_inputs - 1),
                   (unsigned long long)m.num_vars, m.log_domain, double(m.zkey_bytes) / (1 << 20), dt,
                   snarkd::ThreadPool::global().size());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "snarkd_dev_zkey: error: %s\n", e.what());
    return 1;
  }
}
