// Partitions through the supraseal-c2 ABI the way cuzk drives it: a/b/c, assignments and
// densities synthesised bellperson's way from a `snarkd synth` circuit (PoRep-shaped), then
// generate_groth16_proofs_c (or the start/finalize split) from T caller threads sharing one
// gpu_mtx on one device. Prints s/partition (wall time / partitions, after one untimed warm-up
// call) and the a/b/c bytes each call hands over; every proof is verified. The library proves
// through its engine (GPUs when visible). scripts/gpu/ffi_porep.sh runs it on the GPU machine.
//
//   snarkd_ffi_porep_harness --circuit C.csr --witness W.wtns --params K.params
//       [--make-params cpu|gpu] [--threads 3] [--partitions 6] [--gpu-index 0] [--split]
//       [--json OUT.json]
// --make-params writes K.params first (INSECURE dev setup of the circuit) unless it exists.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "snarkd/groth16/bellperson_io.hpp"
#include "snarkd/groth16/prove_abc.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/r1cs/circom.hpp"
#include "snarkd/r1cs/csr_file.hpp"
#include "snarkd/supraseal_c2.h"
#ifdef SNARKD_HARNESS_CUDA
#include "snarkd/cuda/setup_gpu.hpp"
#endif

namespace {

using namespace snarkd;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "porep_harness: %s\nusage: snarkd_ffi_porep_harness --circuit C.csr --witness W.wtns --params K.params "
               "[--make-params cpu|gpu] [--threads T] [--partitions P] [--gpu-index G] [--split] [--json OUT.json]\n", why.c_str());
  std::exit(2);
}

std::map<std::string, std::string> parse(int argc, char** argv) {
  std::map<std::string, std::string> a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (k.rfind("--", 0) != 0) usage("unexpected argument " + k);
    k = k.substr(2);
    if (k == "split") {
      a[k].assign(1, '1');
    } else {
      if (i + 1 >= argc) usage(std::string(argv[i]).append(" needs a value"));
      a[k] = argv[++i];
    }
  }
  for (const char* need : {"circuit", "witness", "params"})
    if (!a.count(need)) usage(std::string("--") + need + " is required");
  return a;
}

void make_params(const std::string& path, const r1cs::Circuit& circuit, const std::string& where) {
  const auto t0 = Clock::now();
  const auto toxic = groth16::toxic_waste_from_seed(1);
  groth16::ProvingKey pk;
  if (where == "gpu") {
#ifdef SNARKD_HARNESS_CUDA
    pk = cuda::setup_insecure_gpu(0, circuit, toxic);
#else
    usage("--make-params gpu: this build has no CUDA backend");
#endif
  } else {
    pk = groth16::setup_insecure(circuit, toxic);
  }
  const double setup_s = since(t0);
  groth16::write_params(path, pk);
  std::printf("params: INSECURE %s setup %.1f s, written in %.1f s: %s\n", where.c_str(), setup_s, since(t0) - setup_s,
              path.c_str());
}

supraseal_assignment abi_view(const groth16::BellpersonSynthesis& s) {
  auto fr = [](const std::vector<ff::Fr>& v) { return reinterpret_cast<const supraseal_fr*>(v.data()); };
  return supraseal_assignment{s.a_aux_words.data(), s.aux.size(), s.a_aux_popcount,
                              s.b_inp_words.data(), s.inputs.size(), s.b_inp_popcount,
                              s.b_aux_words.data(), s.aux.size(), s.b_aux_popcount,
                              fr(s.a), fr(s.b), fr(s.c), s.a.size(),
                              fr(s.inputs), s.inputs.size(), fr(s.aux), s.aux.size()};
}

// One call (or start + finalize) for one partition; the error message on failure.
std::string prove_one(const supraseal_assignment& p, const ff::Fr& r, const ff::Fr& s, const supraseal_srs& srs,
                      void* mtx, int gpu, bool split, groth16::Proof& out) {
  supraseal_groth16_proof proof;
  const auto* rs = reinterpret_cast<const supraseal_fr*>(&r);
  const auto* ss = reinterpret_cast<const supraseal_fr*>(&s);
  supraseal_error e;
  if (split) {
    void* pending = nullptr;
    e = generate_groth16_proofs_start_c(&p, 1, rs, ss, &srs, mtx, gpu, &pending);
    if (e.code == 0) e = finalize_groth16_proof_c(pending, &proof);
  } else {
    e = generate_groth16_proofs_c(&p, 1, rs, ss, &proof, &srs, mtx, gpu);
  }
  std::string msg = e.code ? std::string(e.message ? e.message : "error") : "";
  std::free(e.message);
  std::memcpy(static_cast<void*>(&out), &proof, sizeof out);
  return msg;
}

}  // namespace

int main(int argc, char** argv) {
  const auto a = parse(argc, argv);
  const int threads = std::stoi(a.count("threads") ? a.at("threads") : "3");
  const int partitions = std::stoi(a.count("partitions") ? a.at("partitions") : "6");
  const int gpu = std::stoi(a.count("gpu-index") ? a.at("gpu-index") : "0");
  const bool split = a.count("split") > 0;
  if (threads < 1 || partitions < 1) usage("--threads and --partitions must be ≥ 1");
  try {
    auto t0 = Clock::now();
    const r1cs::Circuit circuit = r1cs::read_csr_file(a.at("circuit"));
    const std::vector<ff::Fr> witness = r1cs::read_wtns(a.at("witness"));
    std::printf("circuit: %llu constraints, %llu variables (read in %.1f s)\n", (unsigned long long)circuit.num_constraints(),
                (unsigned long long)circuit.num_vars(), since(t0));
    if (a.count("make-params") && !std::filesystem::exists(a.at("params"))) make_params(a.at("params"), circuit, a.at("make-params"));
    t0 = Clock::now();
    const groth16::BellpersonSynthesis syn = groth16::synthesize_bellperson(circuit, witness);
    const double abc_bytes = 3.0 * double(syn.a.size()) * sizeof(ff::Fr);
    std::printf("synthesis (a, b, c by SpMV + input rows, densities): %.1f s; a/b/c per call %.2f GiB\n", since(t0),
                abc_bytes / double(1ull << 30));
    t0 = Clock::now();
    supraseal_srs srs{nullptr};
    supraseal_error e = create_SRS(&srs, a.at("params").c_str(), true);
    if (e.code) {
      std::fprintf(stderr, "create_SRS: %s\n", e.message ? e.message : "error");
      return 1;
    }
    std::printf("create_SRS: %.1f s\n", since(t0));
    const groth16::VerifyingKey vk = groth16::read_vk_or_params(a.at("params"));
    const std::vector<ff::Fr> publics(syn.inputs.begin() + 1, syn.inputs.end());

    void* mtx = create_gpu_mutex();
    const supraseal_assignment view = abi_view(syn);
    std::vector<groth16::Proof> proofs(partitions);
    std::vector<double> call_s(partitions);
    std::vector<std::string> errors(partitions);
    std::atomic<int> next{0};
    // Warm-up, not timed: the first call starts the library's engine and places the key on the
    // device (snarkd bench loads its key before timing too).
    t0 = Clock::now();
    {
      groth16::Proof warm;
      const std::string err = prove_one(view, ff::Fr::one(), ff::Fr::one(), srs, mtx, gpu, split, warm);
      std::printf("warm-up call (engine start, key placed on the device): %.1f s%s%s\n", since(t0),
                  err.empty() ? "" : ", error: ", err.c_str());
    }
    t0 = Clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        std::mt19937_64 g(1000 + t);
        for (int k; (k = next.fetch_add(1)) < partitions;) {
          const auto c0 = Clock::now();
          errors[k] = prove_one(view, ff::Fr::random(g), ff::Fr::random(g), srs, mtx, gpu, split, proofs[k]);
          call_s[k] = since(c0);
        }
      });
    for (auto& t : pool) t.join();
    const double wall = since(t0);
    destroy_gpu_mutex(mtx);
    drop_SRS(&srs);

    int valid = 0;
    for (int k = 0; k < partitions; ++k) {
      if (!errors[k].empty()) std::fprintf(stderr, "partition %d: %s\n", k, errors[k].c_str());
      else if (groth16::verify(vk, proofs[k], publics)) ++valid;
    }
    std::vector<double> sorted = call_s;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted[sorted.size() / 2];
    std::printf("partitions %d, caller threads %d, %s, gpu_index %d: wall %.2f s, %.3f s/partition, median call %.2f s, "
                "valid %d/%d\n", partitions, threads, split ? "start/finalize" : "generate_groth16_proofs_c", gpu, wall,
                wall / partitions, median, valid, partitions);
    if (a.count("json")) {
      std::ofstream j(a.at("json"));
      j << "{\"constraints\": " << circuit.num_constraints() << ", \"partitions\": " << partitions
        << ", \"threads\": " << threads << ", \"split\": " << (split ? "true" : "false") << ", \"wall_s\": " << wall
        << ", \"s_per_partition\": " << wall / partitions << ", \"median_call_s\": " << median
        << ", \"abc_bytes_per_call\": " << abc_bytes << ", \"valid\": " << valid << "}\n";
    }
    return valid == partitions ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "porep_harness: %s\n", e.what());
    return 2;
  }
}
