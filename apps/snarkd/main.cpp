// snarkd: Groth16 over BLS12-381 from the command line (the verbs a snarkjs user expects).
// Exit codes: 0 done / proof valid, 1 proof invalid, 2 bad input or usage (stderr names the
// file and what is wrong). Every exception stops here: no input makes the tool abort.
#include <cstdio>
#include <cstring>
#include <string>

#include "commands.hpp"

#ifndef SNARKD_WITH_SERVER
namespace snarkd::cli {

// Without the daemon layer the verb stays listed and says why it cannot run.
void declare_serve(Options& o) { o.positionals("ARGS", "(this build has no daemon)"); }

int cmd_serve(const Options&) {
  throw UsageError(
      "this snarkd was built without the daemon (SNARKD_BUILD_SERVER: gRPC, protobuf, SQLite, toml++ and spdlog "
      "were not found at build time; scripts/install-deps.sh installs them)");
}

}  // namespace snarkd::cli
#endif

int main(int argc, char** argv) {
  using namespace snarkd::cli;
  if (argc == 2 && !std::strcmp(argv[1], "help")) argv[1] = const_cast<char*>("--help");
  CLI::App app("snarkd: Groth16 proofs over BLS12-381 for circom/snarkjs and Filecoin/bellperson keys", "snarkd");
  app.set_version_flag("--version", "snarkd " SNARKD_VERSION);
  app.footer(
      "snarkd VERB --help shows a verb's options. Files are recognised by their content, not their names.\n"
      "exit codes: 0 done/valid, 1 proof invalid, 2 bad input or usage");
  const std::vector<Verb> verbs = {
      {"setup", "INSECURE development setup: bellperson .params/.vk for a circuit", declare_setup, cmd_setup},
      {"prove", "prove with a snarkjs .zkey (ZKEY WTNS PROOF PUBLIC) or bellperson .params + circuit", declare_prove,
       cmd_prove},
      {"verify", "verify proofs (VK PUBLIC PROOF): snarkjs JSON or bellperson files, batches too", declare_verify,
       cmd_verify},
      {"export-vk", "write a .zkey's verification_key.json (ZKEY OUT)", declare_export_vk, cmd_export_vk},
      {"convert-proof", "192-byte bellperson proof <-> snarkjs proof.json (IN OUT)", declare_convert_proof,
       cmd_convert_proof},
      {"info", "what a file is and its sizes (FILE)", declare_info, cmd_info},
      {"synth", "a random PoRep-shaped circuit and witness, for benchmarks", declare_synth, cmd_synth},
      {"bench", "the proving engine end to end on simulated, CPU or CUDA devices", declare_bench, cmd_bench},
      {"serve", "the daemon: gRPC, journal, /metrics (snarkd serve --config F [--check])", declare_serve, cmd_serve},
  };
  return run_verbs(app, "snarkd", verbs, argc, argv, report_exception);
}
