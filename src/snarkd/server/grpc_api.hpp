// The gRPC transport of the Service: one instance per listener. The unix-socket listener trusts
// its peers (the socket's file mode is the access control); the TCP listener requires the
// metadata "authorization: Bearer <token>" on every call. Every handler catches everything and
// answers with a status code and a message naming what is wrong (errors.hpp).
#pragma once
#include <grpcpp/grpcpp.h>

#include "snarkd/server/service.hpp"
#include "snarkd/v1/snarkd.grpc.pb.h"

namespace snarkd::server {

class GrpcApi final : public v1::Prover::Service {
 public:
  GrpcApi(server::Service& service, bool require_token) : s_(service), require_token_(require_token) {}

  grpc::Status Submit(grpc::ServerContext* ctx, const v1::SubmitRequest* req, v1::SubmitReply* out) override;
  grpc::Status Await(grpc::ServerContext* ctx, const v1::AwaitRequest* req, v1::JobResult* out) override;
  grpc::Status Prove(grpc::ServerContext* ctx, const v1::ProveRequest* req, v1::JobResult* out) override;
  grpc::Status Cancel(grpc::ServerContext* ctx, const v1::CancelRequest* req, v1::JobResult* out) override;
  grpc::Status Status(grpc::ServerContext* ctx, const v1::StatusRequest* req, v1::StatusReply* out) override;
  grpc::Status Metrics(grpc::ServerContext* ctx, const v1::MetricsRequest* req, v1::MetricsReply* out) override;
  grpc::Status PreloadKey(grpc::ServerContext* ctx, const v1::PreloadKeyRequest* req, v1::KeyInfo* out) override;
  grpc::Status EvictKey(grpc::ServerContext* ctx, const v1::EvictKeyRequest* req, v1::EvictKeyReply* out) override;

 private:
  template <class F>
  grpc::Status guard(grpc::ServerContext* ctx, const char* method, F&& body);
  void authenticate(grpc::ServerContext* ctx) const;

  server::Service& s_;  // qualified: inside this class "Service" names the generated base
  const bool require_token_;
};

grpc::StatusCode to_grpc_code(Code c);

}  // namespace snarkd::server
