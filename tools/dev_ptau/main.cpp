// snarkd_dev_ptau POWER OUT.ptau [--seed N] [--threads N] [--quiet]: an INSECURE, single-party,
// phase-2-ready BN254 powers-of-tau file for snarkjs (`snarkjs zkey new` / `groth16 setup`), for
// benchmarks and tests (ptau.hpp has the layout). Written to OUT.ptau.part, renamed when done.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <iostream>
#include <optional>
#include <string>

#include "ptau.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace {

constexpr const char* kDescription =
    "Writes a BN254 (circom's bn128) powers-of-tau file of 2^POWER that snarkjs 0.7.6 accepts as "
    "prepared for phase 2 (`snarkjs zkey new circuit.r1cs OUT.ptau key.zkey`).\n\n"
    "INSECURE: a single-party setup. tau, alpha and beta come from the OS RNG (or from --seed, "
    "and then anyone can recompute them); whoever runs this could keep them and forge proofs for "
    "every key made from the file. For benchmarks and tests only, never for keys that protect "
    "anything. The file says so in a section of its own (id 1000), and `snarkjs powersoftau "
    "verify` rejects it (it has no contribution record).";

std::string comment(uint32_t power, const std::optional<uint64_t>& seed) {
  return "snarkd_dev_ptau: INSECURE development powers of tau, BN254 (bn128), power " + std::to_string(power) +
         ". A single-party setup: tau, alpha and beta " +
         (seed ? "come from the public seed " + std::to_string(*seed) + ", so anyone can recompute them"
               : std::string("came from the OS RNG of whoever made this file, who could have kept them")) +
         ". For benchmarks and tests only; never use keys made from it to protect anything.\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app(kDescription, "snarkd_dev_ptau");
  uint32_t power = 0;
  std::string out;
  std::optional<uint64_t> seed;
  size_t threads = 0;
  bool quiet = false;
  app.add_option("POWER", power, "log2 of the largest domain (1..27); 2^(POWER+1) - 1 tau powers in G1")->required();
  app.add_option("OUT", out, "the ptau file to write (via OUT.part)")->required();
  app.add_option("--seed", seed, "derive tau, alpha, beta from this 64-bit seed (reproducible, public)");
  app.add_option("--threads", threads, "worker threads (default: every core)");
  app.add_flag("--quiet", quiet, "no progress lines");
  CLI11_PARSE(app, argc, argv);

  try {
    if (threads > 0) snarkd::ThreadPool::set_default_threads(threads);
    namespace dp = snarkd::dev_ptau;
    const dp::Secrets s = seed ? dp::secrets_from_seed(*seed) : dp::secrets_from_os();
    const auto sections = dp::plan(power, s, comment(power, seed));
    const auto t0 = std::chrono::steady_clock::now();
    const std::string part = out + ".part";
    dp::write_ptau(part, sections, quiet ? nullptr : &std::cerr);
    if (std::rename(part.c_str(), out.c_str()) != 0) throw std::runtime_error("cannot rename " + part + " to " + out);
    if (!quiet) {
      const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::fprintf(stderr, "wrote %s (2^%u, INSECURE development ptau) in %.2f s\n", out.c_str(), power, dt);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "snarkd_dev_ptau: error: %s\n", e.what());
    return 1;
  }
}
