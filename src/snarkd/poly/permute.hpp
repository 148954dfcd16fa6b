// Bit-reversal permutation with an optional fused scaling, shared by the natural-order NTTs
// (internal to poly; the public entry points are bit_reverse and the transforms in ntt.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "snarkd/ff/bn254.hpp"
#include "snarkd/ff/fr.hpp"

namespace snarkd::poly::detail {

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
enum class ScalingKind { kNone, kConstant, kByDestination, kBySource };
template <class F>
struct Scaling {
  using Kind = ScalingKind;
  Kind kind = Kind::kNone;
  F c = F::one();
  F g = F::one();
};

// data'[d] = data[bitrev(d)] · (scaling), for data.size() = 2^log_n. Instantiated in
// permute.cpp for BLS12-381's and BN254's Fr.
template <class F>
void permute(std::span<F> data, uint32_t log_n, const Scaling<F>& scaling);
extern template void permute<ff::Fr>(std::span<ff::Fr>, uint32_t, const Scaling<ff::Fr>&);
extern template void permute<ff::bn254::Fr>(std::span<ff::bn254::Fr>, uint32_t,
                                            const Scaling<ff::bn254::Fr>&);

}  // namespace snarkd::poly::detail
