// Errors of the daemon layer, each with the API's status code (proto/snarkd/v1/snarkd.proto lists
// them). The service throws them; the gRPC layer turns them, and every other exception, into a
// gRPC status with the message, so no request can take the daemon down.
//
// Lower layers' exceptions map as: snarkd::InvalidArgument, snarkd::DecodeError →
// kInvalidArgument; engine::Busy → kResourceExhausted; anything else → kInternal.
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>

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

// Limits on the strings a request carries, checked before anything else looks at them (an
// 8,000-byte circuit id once broke the reply's metadata; a huge one would land in the log).
inline constexpr size_t kMaxIdBytes = 128;     // circuit_id, request_id
inline constexpr size_t kMaxPathBytes = 4095;  // witness and key paths (PATH_MAX − 1)

// INVALID_ARGUMENT unless `value` is 1 to kMaxIdBytes printable ASCII characters without
// spaces (ids appear in key=value log lines and in messages); `field` names it.
void check_id(const char* field, const std::string& value);
// INVALID_ARGUMENT unless `value` is at most kMaxPathBytes bytes without NUL or control bytes.
void check_path(const char* field, const std::string& value);
// A client's string for a message or a log line: control bytes as '?', at most `max` bytes
// (a longer one is cut and ends in "...").
std::string clip(std::string_view s, size_t max = 160);

}  // namespace snarkd::server
