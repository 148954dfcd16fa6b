// daemon_bench: the client side of the overhead measurement (tests/server/overhead.sh). Like
// `snarkd bench`'s submitter, one process submits JOBS jobs of PARTITIONS copies of one witness
// back to back over one channel (each Submit returns once the job is journaled), then awaits
// every job. Prints one line: the wall time from the first Submit (on a connected channel) to
// the last result; the median compute stage of the partitions (to tell the daemon's own cost
// from a change in proving speed); when the last Submit returned; when the first and the last
// job finished, as seconds after the first Submit (the daemon's journaled finished_unix_s: Await
// returns in submit order only after every Submit, so its return times would date the first jobs
// late; their difference is the steady-state throughput, free of the fixed latencies at both
// ends); and the sum over partitions of upload + compute + finalize (the workers' busy time:
// more of it means proving itself got slower). Exits 1 if any job did not finish done. Not a
// ctest test: a tool for measurements.
//   daemon_bench SOCKET CIRCUIT_ID WITNESS.wtns JOBS PARTITIONS
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "snarkd/v1/snarkd.grpc.pb.h"

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: daemon_bench SOCKET CIRCUIT_ID WITNESS.wtns JOBS PARTITIONS\n");
    return 2;
  }
  std::ifstream f(argv[3], std::ios::binary);
  std::ostringstream bytes;
  bytes << f.rdbuf();
  const int jobs = std::atoi(argv[4]), parts = std::atoi(argv[5]);
  if (jobs < 1 || parts < 1) {
    std::fprintf(stderr, "daemon_bench: JOBS and PARTITIONS must be ≥ 1\n");
    return 2;
  }
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(-1);
  args.SetMaxReceiveMessageSize(-1);
  const auto channel =
      grpc::CreateCustomChannel(std::string("unix:") + argv[1], grpc::InsecureChannelCredentials(), args);
  // Connected before the clock starts, as `snarkd bench` starts its clock after building its
  // engine: a long-lived client (Curio) keeps its channel, so its setup is no per-job cost.
  if (!channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(10))) {
    std::fprintf(stderr, "daemon_bench: cannot connect to %s\n", argv[1]);
    return 1;
  }
  auto stub = snarkd::v1::Prover::NewStub(channel);
  snarkd::v1::SubmitRequest req;
  req.set_circuit_id(argv[2]);
  for (int k = 0; k < parts; ++k) req.add_partitions()->set_data(bytes.str());
  const auto t0 = std::chrono::steady_clock::now();
  const double t0_unix = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::vector<uint64_t> ids;
  for (int j = 0; j < jobs; ++j) {
    grpc::ClientContext ctx;
    snarkd::v1::SubmitReply r;
    const grpc::Status s = stub->Submit(&ctx, req, &r);
    if (!s.ok()) {
      std::fprintf(stderr, "submit: %s\n", s.error_message().c_str());
      return 1;
    }
    ids.push_back(r.job_id());
  }
  const auto since = [&t0] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  const double submitted = since();
  int bad = 0;
  std::vector<double> compute, done;
  double busy = 0;
  for (uint64_t id : ids) {
    grpc::ClientContext ctx;
    snarkd::v1::AwaitRequest a;
    a.set_job_id(id);
    snarkd::v1::JobResult r;
    const grpc::Status s = stub->Await(&ctx, a, &r);
    bad += !s.ok() || r.state() != snarkd::v1::JOB_STATE_DONE;
    done.push_back(r.finished_unix_s() - t0_unix);
    for (const auto& p : r.partitions()) {
      compute.push_back(p.timings().compute_s());
      busy += p.timings().upload_s() + p.timings().compute_s() + p.timings().finalize_s();
    }
  }
  const double wall = since();
  std::sort(compute.begin(), compute.end());
  const size_t n = compute.size();
  const double median = n == 0 ? 0 : n % 2 ? compute[n / 2] : (compute[n / 2 - 1] + compute[n / 2]) / 2;
  std::sort(done.begin(), done.end());
  std::printf("%.6f %.6f %.6f %.6f %.6f %.6f\n", wall, median, submitted, done.front(), done.back(), busy);
  return bad ? 1 : 0;
}
