// Partitions through the supraseal-c2 ABI the way cuzk drives it: a/b/c, assignments and
// densities synthesised bellperson's way from a `snarkd synth` circuit (PoRep-shaped), then
// generate_groth16_proofs_c (or the start/finalize split) from T caller threads sharing one
// gpu_mtx on one device. Prints s/partition (wall time / partitions, after one untimed warm-up
// call) and the a/b/c bytes each call hands over; every proof is verified. The library proves
// through its engine (GPUs when visible). scripts/gpu/ffi_porep.sh runs it on the GPU machine.
//
//   snarkd_ffi_porep_harness --circuit C.csr --witness W.wtns --params K.params
//       [--make-params cpu|gpu] [--params-pipe] [--threads 3] [--partitions 6] [--gpu-index 0]
//       [--split] [--json OUT.json]
// --make-params writes K.params first (INSECURE dev setup of the circuit) unless it exists.
// --params-pipe (with --make-params): K.params becomes a named pipe that a writer thread fills
// while create_SRS reads it, each chunk's memory given back once written, so a key larger than
// the disk (a 2^27 PoRep key's file is 72.6 GB; the GPU host has 64 GiB of disk) is held about
// once.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fifo_writer.hpp"
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

// The process's peak resident set (the 2^27 key must fit the GPU host's ~125 GiB about once).
double peak_rss_gib() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / double(1 << 20);  // ru_maxrss is in KiB on Linux
}

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "porep_harness: %s\nusage: snarkd_ffi_porep_harness --circuit C.csr --witness W.wtns --params K.params "
               "[--make-params cpu|gpu] [--params-pipe] [--threads T] [--partitions P] [--gpu-index G] [--split] [--json OUT.json]\n", why.c_str());
  std::exit(2);
}

std::map<std::string, std::string> parse(int argc, char** argv) {
  std::map<std::string, std::string> a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (k.rfind("--", 0) != 0) usage("unexpected argument " + k);
    k = k.substr(2);
    if (k == "split" || k == "params-pipe") {
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

// The INSECURE dev setup of the circuit (seed 1, as `snarkd bench` without --params).
groth16::ProvingKey dev_setup(const r1cs::Circuit& circuit, const std::string& where) {
  const auto t0 = Clock::now();
  const auto toxic = groth16::toxic_waste_from_seed(1);
  groth16::ProvingKey pk;
  if (where == "gpu") {
#ifdef SNARKD_HARNESS_CUDA
    pk = cuda::setup_insecure_gpu(0, circuit, toxic);
#else
    usage("--make-params gpu: this build has no CUDA backend");
#endif
  } else if (where == "cpu") {
    pk = groth16::setup_insecure(circuit, toxic);
  } else {
    usage("--make-params must be cpu or gpu");
  }
  std::printf("params: INSECURE %s setup %.1f s\n", where.c_str(), since(t0));
  return pk;
}

void make_params(const std::string& path, const r1cs::Circuit& circuit, const std::string& where) {
  groth16::ProvingKey pk = dev_setup(circuit, where);
  const auto t0 = Clock::now();
  groth16::write_params(path, std::move(pk));
  std::printf("params: written in %.1f s: %s\n", since(t0), path.c_str());
}

// create_SRS over a named pipe at `path` that a writer thread fills from a fresh dev setup; the
// key's verifying key goes to *vk. Returns create_SRS's error (the writer's, if it failed first).
supraseal_error create_srs_through_pipe(const std::string& path, const r1cs::Circuit& circuit, const std::string& where,
                                        supraseal_srs* srs, groth16::VerifyingKey* vk) {
  groth16::ProvingKey pk = dev_setup(circuit, where);
  *vk = pk.vk;
  std::filesystem::remove(path);
  if (::mkfifo(path.c_str(), 0600) != 0) throw std::runtime_error(path + ": mkfifo: " + std::strerror(errno));
  std::string writer_error;
  std::atomic<bool> written{false};
  const auto t0 = Clock::now();
  std::thread writer([&] {
    try {
      groth16::write_params(path, std::move(pk));
    } catch (const std::exception& e) {
      writer_error = e.what();
    }
    written = true;
  });
  supraseal_error e = create_SRS(srs, path.c_str(), false);
  if (e.code) test::release_fifo_writer(path, written);  // it may wait for a reader that is gone
  writer.join();
  std::filesystem::remove(path);
  std::printf("params: streamed through a pipe into create_SRS in %.1f s%s%s\n", since(t0),
              writer_error.empty() ? "" : ", writer: ", writer_error.c_str());
  return e;
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

struct Calls {
  std::vector<groth16::Proof> proofs;
  std::vector<double> call_s;
  std::vector<std::string> errors;  // empty where the call succeeded
  double wall = 0;                  // the timed calls, after the warm-up
};

// One untimed warm-up call (it starts the library's engine and places the key on the device, as
// snarkd bench loads its key before timing), then `partitions` calls from `threads` threads
// sharing one gpu_mtx.
Calls prove_partitions(const supraseal_assignment& view, const supraseal_srs& srs, int threads, int partitions, int gpu,
                       bool split) {
  void* mtx = create_gpu_mutex();
  Calls out{std::vector<groth16::Proof>(partitions), std::vector<double>(partitions),
            std::vector<std::string>(partitions), 0};
  auto t0 = Clock::now();
  {
    groth16::Proof warm;
    const std::string err = prove_one(view, ff::Fr::one(), ff::Fr::one(), srs, mtx, gpu, split, warm);
    std::printf("warm-up call (engine start, key placed on the device): %.1f s%s%s\n", since(t0),
                err.empty() ? "" : ", error: ", err.c_str());
  }
  t0 = Clock::now();
  std::atomic<int> next{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      std::mt19937_64 g(1000 + t);
      for (int k; (k = next.fetch_add(1)) < partitions;) {
        const auto c0 = Clock::now();
        out.errors[k] = prove_one(view, ff::Fr::random(g), ff::Fr::random(g), srs, mtx, gpu, split, out.proofs[k]);
        out.call_s[k] = since(c0);
      }
    });
  for (auto& t : pool) t.join();
  out.wall = since(t0);
  destroy_gpu_mutex(mtx);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const auto a = parse(argc, argv);
  const int threads = std::stoi(a.count("threads") ? a.at("threads") : "3");
  const int partitions = std::stoi(a.count("partitions") ? a.at("partitions") : "6");
  const int gpu = std::stoi(a.count("gpu-index") ? a.at("gpu-index") : "0");
  const bool split = a.count("split") > 0;
  if (threads < 1 || partitions < 1) usage("--threads and --partitions must be ≥ 1");
  std::signal(SIGPIPE, SIG_IGN);  // a pipe's reader gone: the writer's error, not a dead process
  try {
    auto t0 = Clock::now();
    const r1cs::Circuit circuit = r1cs::read_csr_file(a.at("circuit"));
    const std::vector<ff::Fr> witness = r1cs::read_wtns(a.at("witness"));
    std::printf("circuit: %llu constraints, %llu variables (read in %.1f s)\n", (unsigned long long)circuit.num_constraints(),
                (unsigned long long)circuit.num_vars(), since(t0));
    const std::string params = a.at("params");
    const bool pipe = a.count("params-pipe") > 0;
    if (pipe && !a.count("make-params")) usage("--params-pipe needs --make-params cpu|gpu (the key the pipe carries)");
    if (!pipe && a.count("make-params") && !std::filesystem::exists(params)) make_params(params, circuit, a.at("make-params"));
    // The key before the synthesis: its file (or pipe) is read while the least else is in memory.
    t0 = Clock::now();
    supraseal_srs srs{nullptr};
    groth16::VerifyingKey vk;
    supraseal_error e = pipe ? create_srs_through_pipe(params, circuit, a.at("make-params"), &srs, &vk)
                             : create_SRS(&srs, params.c_str(), true);
    if (e.code) {
      std::fprintf(stderr, "create_SRS: %s\n", e.message ? e.message : "error");
      return 1;
    }
    std::printf("create_SRS: %.1f s%s; peak host memory so far %.1f GiB\n", since(t0),
                pipe ? " (setup and pipe included)" : "", peak_rss_gib());
    if (!pipe) vk = groth16::read_vk_or_params(params);
    t0 = Clock::now();
    const groth16::BellpersonSynthesis syn = groth16::synthesize_bellperson(circuit, witness);
    const double abc_bytes = 3.0 * double(syn.a.size()) * sizeof(ff::Fr);
    std::printf("synthesis (a, b, c by SpMV + input rows, densities): %.1f s; a/b/c per call %.2f GiB\n", since(t0),
                abc_bytes / double(1ull << 30));
    const std::vector<ff::Fr> publics(syn.inputs.begin() + 1, syn.inputs.end());

    const Calls calls = prove_partitions(abi_view(syn), srs, threads, partitions, gpu, split);
    drop_SRS(&srs);
    const auto& [proofs, call_s, errors, wall] = calls;

    int valid = 0;
    for (int k = 0; k < partitions; ++k) {
      if (!errors[k].empty()) std::fprintf(stderr, "partition %d: %s\n", k, errors[k].c_str());
      else if (groth16::verify(vk, proofs[k], publics)) ++valid;
    }
    std::vector<double> sorted = call_s;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted[sorted.size() / 2];
    std::printf("partitions %d, caller threads %d, %s, gpu_index %d: wall %.2f s, %.3f s/partition, median call %.2f s, "
                "valid %d/%d; peak host memory %.1f GiB\n", partitions, threads,
                split ? "start/finalize" : "generate_groth16_proofs_c", gpu, wall, wall / partitions, median, valid,
                partitions, peak_rss_gib());
    if (a.count("json")) {
      std::ofstream j(a.at("json"));
      j << "{\"constraints\": " << circuit.num_constraints() << ", \"partitions\": " << partitions
        << ", \"threads\": " << threads << ", \"split\": " << (split ? "true" : "false") << ", \"wall_s\": " << wall
        << ", \"s_per_partition\": " << wall / partitions << ", \"median_call_s\": " << median
        << ", \"abc_bytes_per_call\": " << abc_bytes << ", \"valid\": " << valid
        << ", \"peak_host_gib\": " << peak_rss_gib() << "}\n";
    }
    return valid == partitions ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "porep_harness: %s\n", e.what());
    return 2;
  }
}
