// Errors of the daemon layer, each with the API's status code (proto/snarkd/v1/snarkd.proto lists
// them). The service throws them; the gRPC layer turns them, and every other exception, into a
// gRPC status with the message, so no request can take the daemon down.
//
// Lower layers' exceptions map as: snarkd::InvalidArgument, snarkd::DecodeError →
// kInvalidArgument; engine::Busy → kResourceExhausted; anything else → kInternal.
#pragma once
#include <stdexcept>
#include <string>

namespace snarkd::server {

enum class Code {
  kInvalidArgument,
  kNotFound,
  kAlreadyExists,
  kFailedPrecondition,
  kPermissionDenied,
  kResourceExhausted,
  kUnavailable,
  kUnauthenticated,
  kInternal,
};

const char* code_name(Code c);  // "INVALID_ARGUMENT", ...

class ServiceError : public std::runtime_error {
 public:
  ServiceError(Code code, const std::string& what) : std::runtime_error(what), code_(code) {}
  Code code() const { return code_; }

 private:
  Code code_;
};

// The code for any exception (ServiceError's own, the mapping above for the rest).
Code classify(const std::exception& e);

}  // namespace snarkd::server
