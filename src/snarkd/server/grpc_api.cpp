#include "snarkd/server/grpc_api.hpp"

#include <spdlog/spdlog.h>

#include <climits>
#include <mutex>

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

void GrpcApi::authenticate(grpc::ServerContextBase* ctx) const {
  if (!require_token_) return;
  const auto& md = ctx->client_metadata();
  const auto it = md.find("authorization");
  if (it == md.end()) throw ServiceError(Code::kUnauthenticated, "missing 'authorization: Bearer <token>' metadata");
  const std::string value(it->second.data(), it->second.size());
  constexpr std::string_view kBearer = "Bearer ";
  if (value.compare(0, kBearer.size(), kBearer) != 0 || !s_.token_matches(value.substr(kBearer.size())))
    throw ServiceError(Code::kUnauthenticated, "invalid bearer token");
}

grpc::Status GrpcApi::guarded(grpc::ServerContextBase* ctx, const char* method, const std::function<void()>& body,
                              bool count_ok) {
  Code code;
  std::string msg;
  try {
    authenticate(ctx);
    body();
    if (count_ok) s_.count_rpc(method, "OK");
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

std::string busy_message(const RpcPool& pool, const char* method) {
  return "all " + std::to_string(pool.threads()) + " threads for " + method +
         " calls are busy and their queue is full; retry later";
}

}  // namespace

template <class F>
GrpcApi::Reactor* GrpcApi::at_once(Ctx* ctx, const char* method, F&& body) {
  Reactor* r = ctx->DefaultReactor();
  r->Finish(guarded(ctx, method, body));
  return r;
}

GrpcApi::Reactor* GrpcApi::on_pool(RpcPool& pool, Ctx* ctx, const char* method, std::function<void()> body) {
  Reactor* r = ctx->DefaultReactor();
  const grpc::Status auth = guarded(ctx, method, [] {}, false);  // no pool slot for a caller without the token
  if (!auth.ok()) {
    r->Finish(auth);
    return r;
  }
  // ctx, the request and the reply live until Finish: the body may use them on the pool.
  if (!pool.try_post([this, r, ctx, method, body = std::move(body)] { r->Finish(guarded(ctx, method, body)); })) {
    s_.count_rpc(method, "RESOURCE_EXHAUSTED");
    r->Finish(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, busy_message(pool, method)));
  }
  return r;
}

// Await's and Prove's reactor, finished exactly once: by the service's answer, an error, or the
// client going away (OnCancel; its waiter is forgotten). The state lives apart from the reactor
// (the service's callback keeps it, not the reactor): only the one that marks it finished
// touches the reactor, and gRPC deletes the reactor (OnDone) only after that one's Finish.
// While Prove's submission runs on the pool, a cancel is only noted — the pool thread still
// reads the request — and answered when the submission returns.
class AwaitReactor final : public grpc::ServerUnaryReactor {
 public:
  AwaitReactor(GrpcApi& api, GrpcApi::Ctx* ctx, const char* method, v1::JobResult* out, bool submitting)
      : api_(api), ctx_(ctx), method_(method), out_(out), st_(std::make_shared<State>()) {
    st_->submitting = submitting;
  }

  // Registers with the service (gRPC's thread, or the pool thread after Prove's submission).
  void start(uint64_t job_id, std::optional<std::chrono::milliseconds> timeout) {
    const std::shared_ptr<State> st = st_;
    {
      std::lock_guard l(st->mu);
      st->submitting = false;
      if (st->cancelled) return finish_locked(*st, grpc::Status::CANCELLED, "CANCELLED");
    }
    uint64_t ticket = 0;
    const grpc::Status s = api_.guarded(
        ctx_, method_,
        [&] {
          ticket = api_.s_.await_async(job_id, timeout, [this, st](v1::JobResult r) {
            {
              std::lock_guard l(st->mu);
              if (st->finished) return;
              st->finished = true;
            }
            *out_ = std::move(r);
            api_.s_.count_rpc(method_, "OK");
            Finish(grpc::Status::OK);
          });
        },
        false);
    if (!s.ok()) return fail(s);
    std::lock_guard l(st->mu);
    st->ticket = ticket;
    if (st->finished && ticket != 0) api_.s_.forget_await(ticket);  // the client left meanwhile
  }
  // A local reference keeps the state (and its locked mutex) alive should Finish end in OnDone.
  void fail(const grpc::Status& s) {  // already counted and logged (guarded)
    const std::shared_ptr<State> st = st_;
    std::lock_guard l(st->mu);
    st->submitting = false;
    if (!st->finished) finish_locked(*st, s, nullptr);
  }
  void OnCancel() override {
    const std::shared_ptr<State> st = st_;
    std::lock_guard l(st->mu);
    if (st->finished) return;
    if (st->submitting) {
      st->cancelled = true;
      return;
    }
    if (st->ticket != 0) api_.s_.forget_await(st->ticket);
    finish_locked(*st, grpc::Status::CANCELLED, "CANCELLED");
  }
  void OnDone() override { delete this; }

 private:
  struct State {
    std::mutex mu;
    bool finished = false, submitting = false, cancelled = false;
    uint64_t ticket = 0;
  };
  // st.mu held; Finish does not call back into this reactor synchronously.
  void finish_locked(State& st, const grpc::Status& s, const char* count_as) {
    st.finished = true;
    if (count_as) api_.s_.count_rpc(method_, count_as);
    Finish(s);
  }

  GrpcApi& api_;
  GrpcApi::Ctx* ctx_;
  const char* method_;
  v1::JobResult* out_;
  std::shared_ptr<State> st_;
};

namespace {

std::optional<std::chrono::milliseconds> timeout_of(bool has, uint64_t ms) {
  if (!has) return std::nullopt;
  return std::chrono::milliseconds(std::min<uint64_t>(ms, uint64_t(INT64_MAX / 2000000)));
}

}  // namespace

GrpcApi::Reactor* GrpcApi::Submit(Ctx* ctx, const v1::SubmitRequest* req, v1::SubmitReply* out) {
  return on_pool(calls_, ctx, "Submit", [this, req, out] { *out = s_.submit(*req); });
}

GrpcApi::Reactor* GrpcApi::Await(Ctx* ctx, const v1::AwaitRequest* req, v1::JobResult* out) {
  auto* r = new AwaitReactor(*this, ctx, "Await", out, false);
  r->start(req->job_id(), timeout_of(req->has_timeout_ms(), req->timeout_ms()));
  return r;
}

GrpcApi::Reactor* GrpcApi::Prove(Ctx* ctx, const v1::ProveRequest* req, v1::JobResult* out) {
  auto* r = new AwaitReactor(*this, ctx, "Prove", out, true);
  const bool posted = calls_.try_post([this, r, ctx, req] {
    uint64_t job = 0;
    const grpc::Status st = guarded(ctx, "Prove", [&] { job = s_.submit(req->job()).job_id(); }, false);
    if (!st.ok()) return r->fail(st);
    r->start(job, timeout_of(req->has_timeout_ms(), req->timeout_ms()));
  });
  if (!posted) {
    s_.count_rpc("Prove", "RESOURCE_EXHAUSTED");
    r->fail(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, busy_message(calls_, "Prove")));
  }
  return r;
}

GrpcApi::Reactor* GrpcApi::Cancel(Ctx* ctx, const v1::CancelRequest* req, v1::JobResult* out) {
  return on_pool(calls_, ctx, "Cancel", [this, req, out] { *out = s_.cancel(req->job_id()); });
}

GrpcApi::Reactor* GrpcApi::Status(Ctx* ctx, const v1::StatusRequest* req, v1::StatusReply* out) {
  return at_once(ctx, "Status", [&] { *out = s_.status(req->recent_jobs()); });
}

GrpcApi::Reactor* GrpcApi::Metrics(Ctx* ctx, const v1::MetricsRequest*, v1::MetricsReply* out) {
  return at_once(ctx, "Metrics", [&] { out->set_text(s_.metrics_text()); });
}

GrpcApi::Reactor* GrpcApi::PreloadKey(Ctx* ctx, const v1::PreloadKeyRequest* req, v1::KeyInfo* out) {
  return on_pool(key_loads_, ctx, "PreloadKey", [this, req, out] { *out = s_.preload(*req); });
}

GrpcApi::Reactor* GrpcApi::EvictKey(Ctx* ctx, const v1::EvictKeyRequest* req, v1::EvictKeyReply*) {
  return on_pool(calls_, ctx, "EvictKey", [this, req] { s_.evict(req->circuit_id()); });
}

}  // namespace snarkd::server
