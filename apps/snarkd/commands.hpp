// The verbs of `snarkd` (contract in README.md). Each returns the process exit code: 0 done or
// valid, 1 proof invalid; bad input or usage throws (main turns it into exit code 2).
#pragma once

namespace snarkd::cli {

int cmd_setup(int argc, char** argv);
int cmd_prove(int argc, char** argv);
int cmd_verify(int argc, char** argv);
int cmd_export_vk(int argc, char** argv);
int cmd_info(int argc, char** argv);
int cmd_synth(int argc, char** argv);
int cmd_bench(int argc, char** argv);  // the engine end to end (bench_cmd.cpp)  // PoRep-shaped synthetic circuit + witness (benchmarks)
int cmd_serve(int argc, char** argv);  // the daemon (serve_cmd.cpp; only with SNARKD_BUILD_SERVER)

}  // namespace snarkd::cli
