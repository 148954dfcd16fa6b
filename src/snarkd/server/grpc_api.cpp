#include "snarkd/server/grpc_api.hpp"

#include <spdlog/spdlog.h>

#include <climits>

namespace snarkd::server {

grpc::StatusCode to_grpc_code(Code c) {
  switch (c) {
    case Code::kInvalidArgument:
      return grpc::StatusCode::INVALID_ARGUMENT;
    case Code::kNotFound:
      return grpc::StatusCode::NOT_FOUND;
    case Code::kAlreadyExists:
      return grpc::StatusCode::ALREADY_EXISTS;
    case Code::kFailedPrecondition:
      return grpc::StatusCode::FAILED_PRECONDITION;
    case Code::kPermissionDenied:
      return grpc::StatusCode::PERMISSION_DENIED;
    case Code::kResourceExhausted:
      return grpc::StatusCode::RESOURCE_EXHAUSTED;
    case Code::kUnavailable:
      return grpc::StatusCode::UNAVAILABLE;
    case Code::kUnauthenticated:
      return grpc::StatusCode::UNAUTHENTICATED;
    case Code::kInternal:
      return grpc::StatusCode::INTERNAL;
  }
  return grpc::StatusCode::INTERNAL;
}

void GrpcApi::authenticate(grpc::ServerContext* ctx) const {
  if (!require_token_) return;
  const auto& md = ctx->client_metadata();
  const auto it = md.find("authorization");
  if (it == md.end()) throw ServiceError(Code::kUnauthenticated, "missing 'authorization: Bearer <token>' metadata");
  const std::string value(it->second.data(), it->second.size());
  constexpr std::string_view kBearer = "Bearer ";
  if (value.compare(0, kBearer.size(), kBearer) != 0 || !s_.token_matches(value.substr(kBearer.size())))
    throw ServiceError(Code::kUnauthenticated, "invalid bearer token");
}

template <class F>
grpc::Status GrpcApi::guard(grpc::ServerContext* ctx, const char* method, F&& body) {
  Code code;
  std::string msg;
  try {
    authenticate(ctx);
    body();
    s_.count_rpc(method, "OK");
    return grpc::Status::OK;
  } catch (const std::bad_alloc&) {
    code = Code::kResourceExhausted;
    msg = "out of memory while handling the request";
  } catch (const std::exception& e) {
    code = classify(e);
    msg = e.what();
  } catch (...) {
    code = Code::kInternal;
    msg = "unknown exception";
  }
  s_.count_rpc(method, code_name(code));
  if (code == Code::kInternal)
    spdlog::error("rpc_error method={} peer={} code={} error=\"{}\"", method, ctx->peer(), code_name(code), msg);
  else
    spdlog::info("rpc_refused method={} peer={} code={} error=\"{}\"", method, ctx->peer(), code_name(code), msg);
  return grpc::Status(to_grpc_code(code), msg);
}

namespace {

std::optional<std::chrono::milliseconds> timeout_of(bool has, uint64_t ms) {
  if (!has) return std::nullopt;
  return std::chrono::milliseconds(std::min<uint64_t>(ms, uint64_t(INT64_MAX / 2000000)));
}

}  // namespace

grpc::Status GrpcApi::Submit(grpc::ServerContext* ctx, const v1::SubmitRequest* req, v1::SubmitReply* out) {
  return guard(ctx, "Submit", [&] { *out = s_.submit(*req); });
}

grpc::Status GrpcApi::Await(grpc::ServerContext* ctx, const v1::AwaitRequest* req, v1::JobResult* out) {
  return guard(ctx, "Await", [&] {
    *out = s_.await(req->job_id(), timeout_of(req->has_timeout_ms(), req->timeout_ms()),
                    [ctx] { return ctx->IsCancelled(); });
  });
}

grpc::Status GrpcApi::Prove(grpc::ServerContext* ctx, const v1::ProveRequest* req, v1::JobResult* out) {
  return guard(ctx, "Prove", [&] { *out = s_.prove(*req, [ctx] { return ctx->IsCancelled(); }); });
}

grpc::Status GrpcApi::Cancel(grpc::ServerContext* ctx, const v1::CancelRequest* req, v1::JobResult* out) {
  return guard(ctx, "Cancel", [&] { *out = s_.cancel(req->job_id()); });
}

grpc::Status GrpcApi::Status(grpc::ServerContext* ctx, const v1::StatusRequest* req, v1::StatusReply* out) {
  return guard(ctx, "Status", [&] { *out = s_.status(req->recent_jobs()); });
}

grpc::Status GrpcApi::Metrics(grpc::ServerContext* ctx, const v1::MetricsRequest*, v1::MetricsReply* out) {
  return guard(ctx, "Metrics", [&] { out->set_text(s_.metrics_text()); });
}

grpc::Status GrpcApi::PreloadKey(grpc::ServerContext* ctx, const v1::PreloadKeyRequest* req, v1::KeyInfo* out) {
  return guard(ctx, "PreloadKey", [&] { *out = s_.preload(*req); });
}

grpc::Status GrpcApi::EvictKey(grpc::ServerContext* ctx, const v1::EvictKeyRequest* req, v1::EvictKeyReply*) {
  return guard(ctx, "EvictKey", [&] { s_.evict(req->circuit_id()); });
}

}  // namespace snarkd::server
