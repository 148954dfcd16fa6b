#include "snarkd/server/errors.hpp"

#include <algorithm>
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

void check_id(const char* field, const std::string& value) {
  if (value.empty() || value.size() > kMaxIdBytes)
    throw ServiceError(Code::kInvalidArgument, std::string(field) + " must be 1 to " + std::to_string(kMaxIdBytes) +
                                                   " characters (got " + std::to_string(value.size()) + ")");
  for (unsigned char ch : value)
    if (ch < 0x21 || ch > 0x7e)
      throw ServiceError(Code::kInvalidArgument, std::string(field) + " must be printable ASCII without spaces");
}

void check_path(const char* field, const std::string& value) {
  if (value.size() > kMaxPathBytes)
    throw ServiceError(Code::kInvalidArgument, std::string(field) + " is longer than " + std::to_string(kMaxPathBytes) +
                                                   " bytes (" + std::to_string(value.size()) + ")");
  for (unsigned char ch : value)
    if (ch < 0x20 || ch == 0x7f)
      throw ServiceError(Code::kInvalidArgument, std::string(field) + " contains a control character");
}

std::string clip(std::string_view s, size_t max) {
  std::string out(s.substr(0, std::min(s.size(), max)));
  for (char& ch : out)
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = '?';
  if (s.size() > max) out += "...";
  return out;
}

}  // namespace snarkd::server
