// snarkd_zkey_bench: one snarkjs key (.zkey, BN254 or BLS12-381: the file says which) and witness
// (.wtns) proved over and over, on the GPU (cuda/prover_snarkjs.hpp: key resident, one proof at a
// time) and on the CPU (groth16::prove, every core), with medians. What a daemon that keeps the
// key loaded pays per proof; whole-process figures (key read, CUDA start-up) are the CLI's
// (`snarkd prove --device cuda:0`, timed from outside).
//
//   snarkd_zkey_bench ZKEY WTNS [--runs=N (7)] [--cpu-runs=N (3; 0 = skip)] [--device=N (0)]
//                     [--proof=P.json --public=PUB.json (the last GPU proof, for snarkjs verify)]
//
// Prints the load times, then per side the median seconds of a whole proof (witness in, proof
// verified out) and, for the GPU, each device phase's median (CUDA events). Every proof made is
// checked with snarkd's verifier; a failure ends the run with exit code 1.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "snarkd/cuda/prover_snarkjs.hpp"
#include "snarkd/cuda/runtime.hpp"
#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/groth16/snarkjs_json.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/groth16/zkey.hpp"
#include "snarkd/r1cs/circom.hpp"

namespace snarkd {
namespace {

struct Options {
  std::string zkey, wtns, proof, pub;
  uint32_t runs = 7, cpu_runs = 3;
  int device = 0;
};

[[noreturn]] void usage(const char* argv0) {
  std::fprintf(
      stderr, "usage: %s ZKEY WTNS [--runs=N] [--cpu-runs=N] [--device=N] [--proof=P.json --public=PUB.json]\n", argv0);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* key) { return a.substr(std::strlen(key)); };
    if (a.rfind("--runs=", 0) == 0)
      o.runs = std::max(1, std::atoi(value("--runs=").c_str()));
    else if (a.rfind("--cpu-runs=", 0) == 0)
      o.cpu_runs = uint32_t(std::max(0, std::atoi(value("--cpu-runs=").c_str())));
    else if (a.rfind("--device=", 0) == 0)
      o.device = std::atoi(value("--device=").c_str());
    else if (a.rfind("--proof=", 0) == 0)
      o.proof = value("--proof=");
    else if (a.rfind("--public=", 0) == 0)
      o.pub = value("--public=");
    else if (a.rfind("--", 0) == 0)
      usage(argv[0]);
    else
      files.push_back(a);
  }
  if (files.size() != 2 || o.proof.empty() != o.pub.empty()) usage(argv[0]);
  o.zkey = files[0], o.wtns = files[1];
  return o;
}

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class E>
void check(const groth16::BoundKeyT<E>& key, const groth16::ProofT<E>& proof, const std::vector<typename E::Fr>& w,
           const char* side) {
  if (!groth16::verify(key.pk().vk, proof, groth16::public_inputs(key.circuit(), w)))
    throw std::runtime_error(std::string(side) + " proof does not verify");
}

template <class E>
void run_gpu(const Options& o, const std::shared_ptr<const groth16::BoundKeyT<E>>& key,
             const std::vector<typename E::Fr>& w) {
  auto t = Clock::now();
  cuda::SnarkjsGpuProver<E> prover(o.device, key);
  std::printf("gpu: key on cuda:%d in %.3f s (%.1f MiB resident, workspace %.1f MiB)\n", o.device, since(t),
              prover.device_key().resident_bytes() / 1048576.0, prover.device_key().workspace_bytes() / 1048576.0);
  groth16::ProofT<E> proof;
  auto one = [&](std::array<double, cuda::kProverPhases>* ph) {
    const auto sums = prover.compute_sums(w, ph);
    proof = groth16::assemble(key->pk().vk, sums, groth16::random_proof_randomness<E>());
  };
  one(nullptr);  // warm-up: the MSM kernels' first launches
  check(*key, proof, w, "gpu");
  std::vector<double> total;
  std::array<std::vector<double>, cuda::kProverPhases> phases;
  for (uint32_t r = 0; r < o.runs; ++r) {
    std::array<double, cuda::kProverPhases> ph{};
    t = Clock::now();
    one(&ph);
    total.push_back(since(t));
    check(*key, proof, w, "gpu");
    for (size_t k = 0; k < ph.size(); ++k) phases[k].push_back(ph[k]);
  }
  std::printf("gpu: proof median %.4f s over %u runs (witness in, proof out; verified separately)\n", median(total),
              o.runs);
  for (size_t k = 0; k < phases.size(); ++k)
    std::printf("gpu:   %-7s %.4f s\n", cuda::kProverPhaseNames[k], median(phases[k]));
  if (!o.proof.empty()) {
    groth16::write_snarkjs_proof(o.proof, proof);
    groth16::write_snarkjs_public<E>(o.pub, groth16::public_inputs(key->circuit(), w));
  }
}

template <class E>
void run_cpu(const Options& o, const groth16::BoundKeyT<E>& key, const std::vector<typename E::Fr>& w) {
  std::vector<double> total;
  for (uint32_t r = 0; r < o.cpu_runs; ++r) {
    const auto t = Clock::now();
    const auto proof = groth16::prove(key, w, groth16::random_proof_randomness<E>());
    total.push_back(since(t));
    check(key, proof, w, "cpu");
  }
  std::printf("cpu: proof median %.4f s over %u runs (groth16::prove, every core; its self-check included)\n",
              median(total), o.cpu_runs);
}

template <class E>
int run(const Options& o) {
  auto t = Clock::now();
  groth16::ZkeyT<E> zk = groth16::read_zkey<E>(o.zkey, groth16::PointCheck::kTrusted);
  std::printf("%s zkey %s: read in %.3f s\n", E::kName, o.zkey.c_str(), since(t));
  t = Clock::now();
  const std::vector<typename E::Fr> w = r1cs::read_wtns<typename E::Fr>(o.wtns);
  const auto key = groth16::BoundKeyT<E>::bind(std::move(zk.pk), std::move(zk.circuit));
  std::printf("witness read and key bound in %.3f s: %llu rows, %llu variables, domain 2^%u\n", since(t),
              (unsigned long long)key->circuit().num_constraints(), (unsigned long long)key->num_vars(),
              key->pk().log_domain);
  key->check_witness(w, o.wtns);
  if (cuda::device_count() > 0)
    run_gpu<E>(o, key, w);
  else
    std::printf("gpu: no CUDA device, skipped\n");
  if (o.cpu_runs > 0) run_cpu<E>(o, *key, w);
  return 0;
}

}  // namespace
}  // namespace snarkd

int main(int argc, char** argv) {
  using namespace snarkd;
  const Options o = parse(argc, argv);
#ifdef SNARKD_CUDA_COMPILE_CHECK
  std::fprintf(stderr,
               "snarkd_zkey_bench: this build's device code is PTX at -O0 (SNARKD_CUDA_COMPILE_CHECK): "
               "rebuild without it to measure\n");
  return 2;
#endif
  try {
    return groth16::with_curve(groth16::zkey_curve(o.zkey), [&](auto e) { return run<decltype(e)>(o); });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
