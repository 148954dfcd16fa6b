// The streamable pieces of a circuit's key and matrices, cut into chunks that fit one streaming
// slot. Shared by the simulated and the CUDA device: the chunk boundaries and the byte layout of
// a chunk inside a slot are decided here once, and both devices' consumers read them from the
// StreamChunk (a CUDA kernel gets pointers built from slot base + segment offsets).
//
// Parts, in the order a partition meets them (see residency.hpp for the steps):
//   kRows1   QAP pass 1, rows of A, B
//   kRows2   QAP pass 2, rows of C (bellperson) or of A, B again (snarkjs: c = a∘b)
//   kA, kB1, kB2, kL, kH   the query points (A, B and their density index lists travel together)
// Slot layout of a query chunk: [points | index (u32, density queries only)]; of a rows chunk,
// per matrix of the part: [row_ptr (count + 1, absolute u64 offsets) | col | coeff]. Every
// segment starts 256-aligned (kernels read them as typed arrays).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "snarkd/groth16/keys.hpp"
#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::engine {

enum class KeyPart : uint8_t { kRows1, kRows2, kA, kB1, kB2, kL, kH };
inline constexpr size_t kKeyParts = 7;
inline constexpr size_t kQueryParts = 5;  // kA .. kH
const char* key_part_name(KeyPart p);     // "rows1", "rows2", "a", "b_g1", "b_g2", "l", "h"
inline bool is_query(KeyPart p) { return p >= KeyPart::kA; }
inline size_t query_index(KeyPart p) { return size_t(p) - size_t(KeyPart::kA); }

inline constexpr uint64_t kSegmentAlign = 256;
inline uint64_t align_segment(uint64_t b) { return (b + kSegmentAlign - 1) / kSegmentAlign * kSegmentAlign; }

// One contiguous host range copied into a slot at `offset`.
struct CopySegment {
  const std::byte* host = nullptr;
  uint64_t bytes = 0;
  uint64_t offset = 0;
};

struct StreamChunk {
  KeyPart part = KeyPart::kA;
  uint32_t index = 0;              // position within the part
  uint64_t first = 0, count = 0;   // points (query parts) or rows (kRows1/kRows2)
  std::vector<CopySegment> segments;
  uint64_t bytes = 0;              // slot bytes the chunk occupies (≤ the slot size)
};

// A query as stored on the host: `len` points of `point_bytes`, with the density index list
// (index[k] = the variable of point k) or none (full query; kL's scalars start at num_inputs).
struct QueryShape {
  const std::byte* points = nullptr;
  const uint32_t* index = nullptr;
  uint64_t len = 0, point_bytes = 0;
  uint64_t chunk_points = 0;  // points per chunk (the last one may hold fewer)
  uint64_t bytes_per_point() const { return point_bytes + (index ? 4 : 0); }
};

struct KeyCatalogue {
  groth16::KeyFlavour flavour = groth16::KeyFlavour::kBellperson;
  uint64_t slot_bytes = 0;
  std::array<QueryShape, kQueryParts> query;
  // The matrices a rows part reads (A, B, C as r1cs::Matrix values): Rows1 then Rows2.
  std::vector<r1cs::Matrix> rows_matrices[2];
  uint64_t matrices_bytes = 0;  // row_ptr + col + coeff of matrices()
  // Every matrix the prover reads, in A, B, C order (what a resident key holds): both parts'.
  std::vector<r1cs::Matrix> matrices() const;
  std::array<std::vector<StreamChunk>, kKeyParts> chunks;

  const std::vector<StreamChunk>& of(KeyPart p) const { return chunks[size_t(p)]; }
};

// Cuts pk (bound to circuit) and the circuit into chunks of at most slot_bytes. a_index and
// b_index are the density index lists of the A and B queries (null for full queries), owned by
// the caller (a CUDA device keeps them in pinned memory) and alive as long as the catalogue.
// Throws InvalidArgument when one point or one row does not fit a slot.
KeyCatalogue make_catalogue(const groth16::ProvingKey& pk, const r1cs::Circuit& circuit, const uint32_t* a_index,
                            const uint32_t* b_index, uint64_t slot_bytes);

// Slot bytes of `count` points of q (one chunk's layout).
uint64_t query_chunk_bytes(const QueryShape& q, uint64_t count);
// Slot bytes of rows [first, first + count) of the given matrices (one chunk's layout).
uint64_t rows_chunk_bytes(const r1cs::Circuit& circuit, const std::vector<r1cs::Matrix>& ms, uint64_t first,
                          uint64_t count);

}  // namespace snarkd::engine
