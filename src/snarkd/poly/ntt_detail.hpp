// Internal to poly: the pass schedule shared by the portable and the AVX-512 NTT kernels.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "snarkd/poly/ntt.hpp"

namespace snarkd::poly::detail {

// Index bits [lo, hi) of one pass: the levels that act inside groups of 2^(hi − lo) elements.
struct Pass {
  uint32_t lo, hi;
};

// Passes from the bottom (lo = 0) up: `count` of them, sizes as equal as possible, the larger
// ones at the bottom where they are cheapest (no gather, no column twiddles).
std::vector<Pass> plan(uint32_t log_n, uint32_t count);

// Parallel split: a few parts per pool thread, slack for uneven cores.
size_t task_parts();

// The AVX-512 IFMA kernels need eight lanes in every pass: at least two passes, the bottom one
// of ≥ 3 bits (so every pass above has ≥ 8 columns) leaving ≥ 8 blocks. With passes of up to
// `most` ≥ 3 bits, max(2, ⌈log_n / most⌉) equal passes satisfy both from log_n = 6 on (for
// three or more passes log_n > 3·(count − 1), so the bottom one gets ⌈log_n / count⌉ ≥ 3).
// Smaller transforms, and pass_log < 3, use the portable kernels whatever the Domain's choice.
inline constexpr uint32_t kAvx512MinLog = 6;
inline constexpr uint32_t kAvx512MinPassLog = 3;
inline bool avx512_applies(uint32_t log_n, uint32_t leaf_log) {
  return log_n >= kAvx512MinLog && leaf_log >= kAvx512MinPassLog;
}
// Largest pass of the AVX-512 kernels: 2^10 rows × 8 lanes × 40 B = 320 KiB of data plus as
// much again of per-lane twiddles, inside a 1 MiB L2 (Zen 5; Sapphire Rapids has 2 MiB).
inline constexpr uint32_t kAvx512MaxPassLog = 10;

// Radix-2^52 copies of tw.leaf's first 2^levels − 1 twiddles, each pre-scaled by 16 (see
// ff/fr_avx512.hpp), five words per twiddle.
std::vector<uint64_t> avx512_leaf(const Twiddles& tw, uint32_t levels);

// Element k (natural index) times c·g^k: a coset's powers, applied by the AVX-512 top pass as
// it loads (DIF: on the input) or stores (DIT: on the output), two lane products per 8 values.
struct Geometric {
  Fr c, g;
};

// The whole DIF (dif = true) or DIT network on data with the AVX-512 kernels; scale (may be
// null) multiplies every output, geo (may be null) the input (DIF) or the output (DIT).
// Requires avx512_applies(log_n, tw.leaf_log) and an IFMA CPU.
void avx512_transform(const Twiddles& tw, std::span<Fr> data, uint32_t log_n, bool dif,
                      const Fr* scale, const Geometric* geo);

}  // namespace snarkd::poly::detail
