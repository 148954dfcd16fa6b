// snarkctl's connection to the daemon: one channel (unix socket or TCP with the bearer token),
// one method per RPC, errors as RpcError carrying the gRPC code and the daemon's message.
#pragma once
#include <grpcpp/grpcpp.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "snarkd/v1/snarkd.grpc.pb.h"

namespace snarkd::ctl {

class RpcError : public std::runtime_error {
 public:
  RpcError(grpc::StatusCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  grpc::StatusCode code() const { return code_; }

 private:
  grpc::StatusCode code_;
};

const char* status_code_name(grpc::StatusCode c);  // "NOT_FOUND", ...

struct Endpoint {
  std::string target;  // "unix:/run/snarkd/snarkd.sock" or "host:port"
  std::string token;   // sent as "authorization: Bearer <token>" when not empty
};

class Client {
 public:
  explicit Client(const Endpoint& e);

  v1::SubmitReply submit(const v1::SubmitRequest& req);
  // deadline_s: the call's own deadline (none: wait as long as the daemon does).
  v1::JobResult await(uint64_t job_id, std::optional<uint64_t> timeout_ms, std::optional<double> deadline_s);
  v1::JobResult prove(const v1::ProveRequest& req, std::optional<double> deadline_s);
  v1::JobResult cancel(uint64_t job_id);
  v1::StatusReply status(uint32_t recent_jobs);
  std::string metrics();
  v1::KeyInfo preload(const v1::PreloadKeyRequest& req);
  void evict(const std::string& circuit_id);

 private:
  std::unique_ptr<grpc::ClientContext> context(std::optional<double> deadline_s) const;
  static void check(const grpc::Status& s);

  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Prover::Stub> stub_;
  std::string token_;
};

}  // namespace snarkd::ctl
