// Bit-reversal permutation with an optional fused scaling, shared by the natural-order NTTs
// (internal to poly; the public entry points are bit_reverse and the transforms in ntt.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "snarkd/ff/fr.hpp"

namespace snarkd::poly::detail {

using ff::Fr;

// The low `bits` bits of v in reverse order.
inline uint64_t reverse_bits(uint64_t v, uint32_t bits) {
  v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
  v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
  v = ((v >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((v & 0x0F0F0F0F0F0F0F0FULL) << 4);
  v = __builtin_bswap64(v);
  return bits == 0 ? 0 : v >> (64 - bits);
}

// How permute() scales what it moves: value·c·g^k with k the destination index or the source
// index; kNone moves values unchanged, kConstant multiplies by c only.
struct Scaling {
  enum class Kind { kNone, kConstant, kByDestination, kBySource };
  Kind kind = Kind::kNone;
  Fr c = Fr::one();
  Fr g = Fr::one();
};

// data'[d] = data[bitrev(d)] · (scaling), for data.size() = 2^log_n.
void permute(std::span<Fr> data, uint32_t log_n, const Scaling& scaling);

}  // namespace snarkd::poly::detail
