// A CSR matrix's row offsets in the narrow form the streamed prover copies over PCIe: one byte
// per row (its non-zeros) and one absolute offset per group of kRowGroup rows, instead of an
// 8-byte offset per row. PoRep rows hold 1–3 non-zeros, so a pass-1 chunk of A and B shrinks from
// 2 × 8 + 3.37 × 8 ≈ 43 to 2 × 1 + 3.37 × 8 ≈ 29 bytes a row (pass 1 is PCIe-bound when the
// matrices stream: 5.6 → 3.8 GB a 2^27 partition). A reader recovers a row's offset as
// group_start[g] plus the lengths before it in its group (a prefix sum of at most 255 terms).
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::r1cs {

inline constexpr uint64_t kRowGroup = 256;   // rows per group_start entry (one CUDA block scans a group)
inline constexpr uint64_t kShortRowMax = 255;  // the most non-zeros a row may hold in the short form

struct ShortRows {
  std::vector<uint8_t> len;           // non-zeros of each row
  std::vector<uint64_t> group_start;  // row_ptr[g · kRowGroup] for each group g (⌈rows / kRowGroup⌉)
};

// The short form of m, or nullopt when a row holds more than kShortRowMax non-zeros.
std::optional<ShortRows> short_rows(const CsrMatrix& m);

// Row offsets (count + 1, the first 0) relative to the first non-zero of rows [first, first + count),
// first a multiple of kRowGroup, from the short form as a chunk holds it: group_start from group
// first / kRowGroup, len from row first. The sequential twin of the GPU's block scan.
std::vector<uint64_t> expand_short_rows(const uint64_t* group_start, const uint8_t* len, uint64_t count);

}  // namespace snarkd::r1cs
