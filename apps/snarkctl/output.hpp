// How snarkctl shows replies: one human line (or a few) per reply, or --json (proto_json.hpp's
// form: snake_case fields, 64-bit numbers as numbers, proof bytes as hex), and the files a
// finished job writes over the job's curve (JobResult.curve): --proof the partitions' proofs
// concatenated in their wire form (BLS12-381: 192 bytes each, as `snarkd verify` reads them;
// BN254: 256), or snarkjs's proof.json when the path ends in .json (one partition); --public:
// public.json, one array per partition when there are several. A path with "{k}" in it gets one
// file per partition ("{k}" → 0, 1, …): proof{k}.json + public{k}.json are what snarkjs
// verifies for each partition of a job of several.
#pragma once
#include <chrono>
#include <string>

#include "snarkd/v1/snarkd.pb.h"

namespace snarkd::ctl {

bool is_finished(const v1::JobResult& r);  // done, failed or cancelled
std::string state_name(v1::JobState s);    // "done", ...

void print_result(const v1::JobResult& r, bool json);
void print_status(const v1::StatusReply& s, bool json);
void write_outputs(const v1::JobResult& r, const std::string& proof_path, const std::string& public_path);

// A progress line on stderr while waiting: redrawn in place on a terminal, one line per change
// otherwise (when enabled).
class ProgressLine {
 public:
  explicit ProgressLine(bool enabled);
  ~ProgressLine();
  void update(const v1::JobResult& r);

 private:
  bool enabled_, tty_;
  std::string last_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace snarkd::ctl
