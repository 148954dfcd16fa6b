// Integer tuning knobs from the environment (A/B runs, deployment overrides): one reader that
// refuses what is not a decimal integer in range, naming the variable, instead of strtoull's
// silent 0 for a typo.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <string>

#include "snarkd/util/error.hpp"

namespace snarkd {

// The value of environment variable `name`, `fallback` when it is unset or empty; InvalidArgument
// naming the variable for anything but a decimal integer in [lo, hi].
inline uint64_t env_u64(const char* name, uint64_t fallback, uint64_t lo = 0, uint64_t hi = UINT64_MAX) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const uint64_t x = std::strtoull(v, &end, 10);
  if (*v < '0' || *v > '9' || *end || x < lo || x > hi)
    throw InvalidArgument(std::string(name) + ": '" + v + "' is not an integer in [" + std::to_string(lo) + ", " +
                          std::to_string(hi) + "]");
  return x;
}

}  // namespace snarkd
