// The operating system's CSPRNG (getrandom(2)) as a UniformRandomBitGenerator of 64-bit words,
// for proof randomness (r, s), batch-verification weights and insecure development setups.
#pragma once
#include <cstdint>
#include <limits>

namespace snarkd {

// Fills buf with n bytes from getrandom(2); throws std::runtime_error if the kernel refuses.
void os_random_bytes(void* buf, uint64_t n);

struct OsRandom {
  using result_type = uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<uint64_t>::max(); }
  result_type operator()() {
    uint64_t v;
    os_random_bytes(&v, sizeof v);
    return v;
  }
};

}  // namespace snarkd
