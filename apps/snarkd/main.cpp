// snarkd: Groth16 over BLS12-381 from the command line (the verbs a snarkjs user expects).
// Exit codes: 0 done / proof valid, 1 proof invalid, 2 bad input or usage (stderr names the
// file and what is wrong). Every exception stops here: no input makes the tool abort.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "args.hpp"
#include "commands.hpp"

namespace {

constexpr const char* kUsage =
    "usage:\n"
    "  snarkd setup --r1cs C.r1cs --params OUT.params [--vk OUT.vk] [--seed N]   (INSECURE, development)\n"
    "  snarkd prove --zkey K.zkey --witness W.wtns --proof proof.json --public public.json [--r1cs C.r1cs]\n"
    "  snarkd prove --params P.params --r1cs C.r1cs --witness W.wtns --proof proof.bin [--public public.json]\n"
    "  snarkd verify --vk verification_key.json|P.vk|P.params --proof proof.json|proof.bin --public public.json\n"
    "  snarkd export-vk --zkey K.zkey --out verification_key.json\n"
    "  snarkd info FILE\n"
    "  snarkd synth --constraints N [--inputs K] [--seed S] --circuit OUT.csr --witness OUT.wtns\n"
    "        (a random satisfiable circuit shaped like a Filecoin PoRep partition, for benchmarks)\n"
    "  snarkd bench --device sim|sim:K|cuda:N|cuda:N,M|cuda:all --circuit porep-shaped|C.csr [--witness W.wtns]\n"
    "        [--constraints N] [--params P.params] --jobs J --partitions-per-job P --workers W[,W2..] [--vram-gib G[,G2..]]\n"
    "        [--host-gib H] [--json OUT.json] [--timeline OUT.svg] [--sim-upload-ms U] [--sim-compute-ms C]\n"
    "        [--sim-copy-gbps B]  (--vram-gib: the device's whole memory for the engine, fractions allowed)\n"
    "        [--runs CAP:W[,CAP:W..]]  (these (GiB cap, workers) pairs instead of every cap × every W)\n"
    "        [--setup cpu|gpu]  (dev key: on the GPU by default for cuda devices)\n"
    "        [--device-counts 1,2]  (one run on the first k devices of --device for each k: scaling)\n"
    "        (the proving engine end to end; exit 1 if any proof is invalid or a job failed)\n"
    "  snarkd serve --config snarkd.toml [--check]   (the daemon: gRPC, journal, /metrics; snarkctl talks to it)\n"
    "options: --threads N, --json (machine-readable output), --check-key (prove: full subgroup checks of\n"
    "every key point; by default only canonical encodings are checked and the proof is verified before\n"
    "it is written)\n"
    "exit codes: 0 done/valid, 1 proof invalid, 2 bad input or usage\n";

int dispatch(const std::string& verb, int argc, char** argv) {
  using namespace snarkd::cli;
  if (verb == "setup") return cmd_setup(argc, argv);
  if (verb == "prove") return cmd_prove(argc, argv);
  if (verb == "verify") return cmd_verify(argc, argv);
  if (verb == "export-vk") return cmd_export_vk(argc, argv);
  if (verb == "info") return cmd_info(argc, argv);
  if (verb == "synth") return cmd_synth(argc, argv);
  if (verb == "bench") return cmd_bench(argc, argv);
#ifdef SNARKD_WITH_SERVER
  if (verb == "serve") return cmd_serve(argc, argv);
#else
  if (verb == "serve")
    throw UsageError("this snarkd was built without the daemon (SNARKD_BUILD_SERVER: gRPC, protobuf, SQLite, toml++ and "
                     "spdlog were not found at build time; scripts/install-deps.sh installs them)");
#endif
  throw UsageError("unknown command '" + verb + "'");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  try {
    return dispatch(argv[1], argc, argv);
  } catch (const snarkd::cli::UsageError& e) {
    std::fprintf(stderr, "snarkd %s: %s\n%s", argv[1], e.what(), kUsage);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "snarkd %s: out of memory\n", argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "snarkd %s: error: %s\n", argv[1], e.what());
  } catch (...) {
    std::fprintf(stderr, "snarkd %s: error: unknown exception\n", argv[1]);
  }
  return 2;
}
