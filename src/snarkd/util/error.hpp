// Errors thrown inside the library. Entry points (C ABI, RPC, CLI) catch them and turn them
// into codes + messages; inside we use exceptions so callers cannot forget to check.
#pragma once
#include <stdexcept>
#include <string>

namespace snarkd {

// Malformed or non-canonical input (bytes, files, sizes). The message names what is wrong.
class DecodeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A precondition of an API call was violated (sizes disagree, parameter out of range).
class InvalidArgument : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace snarkd
