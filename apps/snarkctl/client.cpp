#include "client.hpp"

#include <chrono>

namespace snarkd::ctl {

const char* status_code_name(grpc::StatusCode c) {
  switch (c) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::UNKNOWN:
      return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED:
      return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS:
      return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    default:
      return "UNKNOWN";
  }
}

Client::Client(const Endpoint& e) : token_(e.token) {
  grpc::ChannelArguments args;
  // The daemon decides what is too large (RESOURCE_EXHAUSTED names its limit), not the client.
  args.SetMaxSendMessageSize(-1);
  args.SetMaxReceiveMessageSize(-1);
  channel_ = grpc::CreateCustomChannel(e.target, grpc::InsecureChannelCredentials(), args);
  stub_ = v1::Prover::NewStub(channel_);
}

std::unique_ptr<grpc::ClientContext> Client::context(std::optional<double> deadline_s) const {
  auto ctx = std::make_unique<grpc::ClientContext>();
  if (!token_.empty()) ctx->AddMetadata("authorization", "Bearer " + token_);
  if (deadline_s)
    ctx->set_deadline(
        std::chrono::system_clock::now() +
        std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::duration<double>(*deadline_s)));
  return ctx;
}

void Client::check(const grpc::Status& s) {
  if (!s.ok()) throw RpcError(s.error_code(), s.error_message());
}

constexpr double kShortCall = 120;  // seconds: calls that do not wait for a proof

v1::SubmitReply Client::submit(const v1::SubmitRequest& req) {
  v1::SubmitReply out;
  check(stub_->Submit(context(kShortCall).get(), req, &out));
  return out;
}

v1::JobResult Client::await(uint64_t id, std::optional<uint64_t> timeout_ms, std::optional<double> deadline_s) {
  v1::AwaitRequest req;
  req.set_job_id(id);
  if (timeout_ms) req.set_timeout_ms(*timeout_ms);
  v1::JobResult out;
  check(stub_->Await(context(deadline_s).get(), req, &out));
  return out;
}

v1::JobResult Client::prove(const v1::ProveRequest& req, std::optional<double> deadline_s) {
  v1::JobResult out;
  check(stub_->Prove(context(deadline_s).get(), req, &out));
  return out;
}

v1::JobResult Client::cancel(uint64_t id) {
  v1::CancelRequest req;
  req.set_job_id(id);
  v1::JobResult out;
  check(stub_->Cancel(context(kShortCall).get(), req, &out));
  return out;
}

v1::StatusReply Client::status(uint32_t recent) {
  v1::StatusRequest req;
  req.set_recent_jobs(recent);
  v1::StatusReply out;
  check(stub_->Status(context(kShortCall).get(), req, &out));
  return out;
}

std::string Client::metrics() {
  v1::MetricsReply out;
  check(stub_->Metrics(context(kShortCall).get(), v1::MetricsRequest(), &out));
  return out.text();
}

v1::KeyInfo Client::preload(const v1::PreloadKeyRequest& req) {
  v1::KeyInfo out;
  check(stub_->PreloadKey(context(std::nullopt).get(), req, &out));  // big keys load for minutes
  return out;
}

void Client::evict(const std::string& id) {
  v1::EvictKeyRequest req;
  req.set_circuit_id(id);
  v1::EvictKeyReply out;
  check(stub_->EvictKey(context(kShortCall).get(), req, &out));
}

}  // namespace snarkd::ctl
