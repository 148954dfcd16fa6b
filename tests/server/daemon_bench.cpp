// daemon_bench: the client side of the overhead measurement (tests/server/overhead.sh). Like
// `snarkd bench`'s submitter, one process submits JOBS jobs of PARTITIONS copies of one witness
// back to back over one channel (each Submit returns once the job is journaled), then awaits
// every job; prints the wall time from the first Submit to the last result and the median
// compute stage of the partitions (to tell the daemon's own cost from a change in proving
// speed), and exits 1 if any job did not finish done. Not a ctest test: a tool for measurements.
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
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(-1);
  args.SetMaxReceiveMessageSize(-1);
  auto stub = snarkd::v1::Prover::NewStub(
      grpc::CreateCustomChannel(std::string("unix:") + argv[1], grpc::InsecureChannelCredentials(), args));
  snarkd::v1::SubmitRequest req;
  req.set_circuit_id(argv[2]);
  for (int k = 0; k < parts; ++k) req.add_partitions()->set_data(bytes.str());
  const auto t0 = std::chrono::steady_clock::now();
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
  int bad = 0;
  std::vector<double> compute;
  for (uint64_t id : ids) {
    grpc::ClientContext ctx;
    snarkd::v1::AwaitRequest a;
    a.set_job_id(id);
    snarkd::v1::JobResult r;
    const grpc::Status s = stub->Await(&ctx, a, &r);
    bad += !s.ok() || r.state() != snarkd::v1::JOB_STATE_DONE;
    for (const auto& p : r.partitions()) compute.push_back(p.timings().compute_s());
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::sort(compute.begin(), compute.end());
  const size_t n = compute.size();
  const double median = n == 0 ? 0 : n % 2 ? compute[n / 2] : (compute[n / 2 - 1] + compute[n / 2]) / 2;
  std::printf("%.6f %.6f\n", wall, median);
  return bad ? 1 : 0;
}
