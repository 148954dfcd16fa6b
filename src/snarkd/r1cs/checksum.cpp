#include "snarkd/r1cs/checksum.hpp"

#include <bit>
#include <cstring>

namespace snarkd::r1cs {

namespace {

constexpr uint64_t kK1 = 0x9E3779B97F4A7C15ull;  // 2^64/φ, odd
constexpr uint64_t kK2 = 0xD6E8FEB86659FD93ull;  // odd, balanced bits

static_assert(std::endian::native == std::endian::little, "words are read as little-endian");

uint64_t load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

void absorb_stripe(uint64_t lane[4], const uint8_t* p) {
  for (int k = 0; k < 4; ++k) lane[k] = std::rotl(lane[k] + load64(p + 8 * k) * kK1, 31) * kK2;
}

// splitmix64's output function: a bijection with full avalanche.
uint64_t finalize(uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

uint64_t checksum64(const void* data, size_t size) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  // Distinct lane seeds: equal words in different lanes must not give equal lane states.
  uint64_t lane[4] = {kK1, kK2, ~kK1, ~kK2};
  size_t i = 0;
  for (; i + 32 <= size; i += 32) absorb_stripe(lane, p + i);
  if (i < size) {
    uint8_t tail[32] = {};
    std::memcpy(tail, p + i, size - i);
    absorb_stripe(lane, tail);  // the length below tells "ab" from "ab\0"
  }
  uint64_t h = uint64_t(size);
  for (int k = 0; k < 4; ++k) h = finalize(h ^ lane[k]);
  return h;
}

}  // namespace snarkd::r1cs
