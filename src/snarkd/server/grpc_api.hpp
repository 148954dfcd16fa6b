// The gRPC transport of the Service: one instance per listener. The unix-socket listener trusts
// its peers (the socket's file mode is the access control); the TCP listener requires the
// metadata "authorization: Bearer <token>" on every call. Every call catches everything and
// answers with a status code and a message naming what is wrong (errors.hpp).
//
// gRPC's callback API: no call holds a thread while it waits. Status and Metrics answer at once
// on gRPC's own thread; Await (and Prove once its job is submitted) registers with the service
// and is finished by the service's answer (service.hpp: await_async), a client that goes away
// is forgotten (OnCancel); the blocking bodies — Submit, Cancel, EvictKey, Prove's submission —
// run on the `calls` pool, PreloadKey on the `key_loads` pool (rpc_pool.hpp), each bounded:
// when one is full the call gets RESOURCE_EXHAUSTED at once, and Status still answers.
#pragma once
#include <grpcpp/grpcpp.h>

#include "snarkd/server/rpc_pool.hpp"
#include "snarkd/server/service.hpp"
#include "snarkd/v1/snarkd.grpc.pb.h"

namespace snarkd::server {

class AwaitReactor;

class GrpcApi final : public v1::Prover::CallbackService {
 public:
  GrpcApi(server::Service& service, bool require_token, RpcPool& calls, RpcPool& key_loads)
      : s_(service), require_token_(require_token), calls_(calls), key_loads_(key_loads) {}

  using Reactor = grpc::ServerUnaryReactor;
  using Ctx = grpc::CallbackServerContext;
  Reactor* Submit(Ctx* ctx, const v1::SubmitRequest* req, v1::SubmitReply* out) override;
  Reactor* Await(Ctx* ctx, const v1::AwaitRequest* req, v1::JobResult* out) override;
  Reactor* Prove(Ctx* ctx, const v1::ProveRequest* req, v1::JobResult* out) override;
  Reactor* Cancel(Ctx* ctx, const v1::CancelRequest* req, v1::JobResult* out) override;
  Reactor* Status(Ctx* ctx, const v1::StatusRequest* req, v1::StatusReply* out) override;
  Reactor* Metrics(Ctx* ctx, const v1::MetricsRequest* req, v1::MetricsReply* out) override;
  Reactor* PreloadKey(Ctx* ctx, const v1::PreloadKeyRequest* req, v1::KeyInfo* out) override;
  Reactor* EvictKey(Ctx* ctx, const v1::EvictKeyRequest* req, v1::EvictKeyReply* out) override;

  // Runs body after the token check; a refusal is counted and logged, success counted when
  // count_ok. The status to answer.
  grpc::Status guarded(grpc::ServerContextBase* ctx, const char* method, const std::function<void()>& body,
                       bool count_ok = true);

 private:
  template <class F>
  Reactor* at_once(Ctx* ctx, const char* method, F&& body);
  Reactor* on_pool(RpcPool& pool, Ctx* ctx, const char* method, std::function<void()> body);
  void authenticate(grpc::ServerContextBase* ctx) const;

  friend class AwaitReactor;
  server::Service& s_;  // qualified: inside this class "Service" names the generated base
  const bool require_token_;
  RpcPool& calls_;
  RpcPool& key_loads_;
};

grpc::StatusCode to_grpc_code(Code c);

}  // namespace snarkd::server
