// The verbs of `snarkd` (contract in README.md): each declares its options (declare_*) and runs
// (cmd_*), returning the exit code: 0 done or valid, 1 proof invalid; bad input or usage throws
// (main turns it into exit code 2).
#pragma once
#include "common/options.hpp"
#include "progress.hpp"

namespace snarkd::cli {

void declare_setup(Options& o);
int cmd_setup(const Options& a);
void declare_prove(Options& o);
int cmd_prove(const Options& a);
void declare_verify(Options& o);
int cmd_verify(const Options& a);
void declare_export_vk(Options& o);
int cmd_export_vk(const Options& a);
void declare_convert_proof(Options& o);
int cmd_convert_proof(const Options& a);
void declare_info(Options& o);  // info.cpp
int cmd_info(const Options& a);
void declare_synth(Options& o);
int cmd_synth(const Options& a);
void declare_bench(Options& o);  // bench_cmd.cpp: the engine end to end
int cmd_bench(const Options& a);
void declare_serve(Options& o);  // serve_cmd.cpp: the daemon (SNARKD_BUILD_SERVER; else main.cpp says so)
int cmd_serve(const Options& a);

// The options every verb but bench and serve takes: --threads N, --json, --progress,
// --no-progress; apply_common sets the thread count.
void declare_common(Options& o);
void apply_common(const Options& a);
Progress::Mode progress_mode(const Options& a);

}  // namespace snarkd::cli
