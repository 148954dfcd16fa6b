#include "snarkd/server/errors.hpp"

#include <new>

#include "snarkd/engine/host_budget.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::server {

const char* code_name(Code c) {
  switch (c) {
    case Code::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case Code::kNotFound:
      return "NOT_FOUND";
    case Code::kAlreadyExists:
      return "ALREADY_EXISTS";
    case Code::kFailedPrecondition:
      return "FAILED_PRECONDITION";
    case Code::kPermissionDenied:
      return "PERMISSION_DENIED";
    case Code::kResourceExhausted:
      return "RESOURCE_EXHAUSTED";
    case Code::kUnavailable:
      return "UNAVAILABLE";
    case Code::kUnauthenticated:
      return "UNAUTHENTICATED";
    case Code::kInternal:
      return "INTERNAL";
  }
  return "INTERNAL";
}

Code classify(const std::exception& e) {
  if (const auto* s = dynamic_cast<const ServiceError*>(&e)) return s->code();
  if (dynamic_cast<const snarkd::InvalidArgument*>(&e) || dynamic_cast<const snarkd::DecodeError*>(&e))
    return Code::kInvalidArgument;
  if (dynamic_cast<const engine::Busy*>(&e) || dynamic_cast<const std::bad_alloc*>(&e)) return Code::kResourceExhausted;
  return Code::kInternal;
}

}  // namespace snarkd::server
