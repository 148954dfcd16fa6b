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
// per matrix of the part: [row_ptr (count + 1, absolute u64 offsets) | col | coeff], or in the
// short form (r1cs/short_rows.hpp; every matrix of the part has one, and chunks then start on a
// row group) [group_start (u64 per kRowGroup rows) | len (u8 per row) | col | coeff]. Every
// segment starts 256-aligned (kernels read them as typed arrays).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "snarkd/groth16/keys.hpp"
#include "snarkd/r1cs/r1cs.hpp"
#include "snarkd/r1cs/short_rows.hpp"

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

// Where one matrix of a rows chunk sits in the slot (byte offsets). starts: row_ptr, or in the
// short form group_start.
struct RowsAt {
  bool short_form = false;
  uint64_t starts = 0, len = 0, col = 0, coeff = 0;
};

struct StreamChunk {
  KeyPart part = KeyPart::kA;
  uint32_t index = 0;              // position within the part
  uint64_t first = 0, count = 0;   // points (query parts) or rows (kRows1/kRows2)
  std::vector<CopySegment> segments;
  uint64_t bytes = 0;              // slot bytes the chunk occupies (≤ the slot size)
  std::array<RowsAt, 3> rows{};    // rows chunks: the part's matrices, in rows_matrices order
};

// Host arrays a catalogue's chunks point into besides the key's points and the circuit, owned by
// the caller (a CUDA device pins them) and alive as long as the catalogue: the density index lists
// of the A and B queries (null for full queries) and the short row forms (null: that matrix has
// none, a row holds more than 255 non-zeros).
struct CatalogueHost {
  const uint32_t* a_index = nullptr;
  const uint32_t* b_index = nullptr;
  std::array<const r1cs::ShortRows*, 3> short_rows{};  // by r1cs::Matrix
};

// The short forms of A, B and C (r1cs::short_rows), for a caller to own beside its catalogue,
// and the CatalogueHost pointing at them.
std::array<std::optional<r1cs::ShortRows>, 3> short_rows_of(const r1cs::Circuit& circuit);
CatalogueHost catalogue_host(const uint32_t* a_index, const uint32_t* b_index,
                             const std::array<std::optional<r1cs::ShortRows>, 3>& short_rows);

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
  uint64_t matrices_bytes = 0;  // row_ptr + col + coeff of matrices() (resident matrices are never short)
  std::array<bool, 2> short_rows{};  // whether Rows1 / Rows2 stream in the short form
  // Every matrix the prover reads, in A, B, C order (what a resident key holds): both parts'.
  std::vector<r1cs::Matrix> matrices() const;
  std::array<std::vector<StreamChunk>, kKeyParts> chunks;

  const std::vector<StreamChunk>& of(KeyPart p) const { return chunks[size_t(p)]; }
};

// Cuts pk (bound to circuit) and the circuit into chunks of at most slot_bytes. A rows part
// streams in the short form when every matrix it reads has one in `host` and a row group of it
// fits a slot. Throws InvalidArgument when one point or one row does not fit a slot.
KeyCatalogue make_catalogue(const groth16::ProvingKey& pk, const r1cs::Circuit& circuit, const CatalogueHost& host,
                            uint64_t slot_bytes);

// Slot bytes of `count` points of q (one chunk's layout).
uint64_t query_chunk_bytes(const QueryShape& q, uint64_t count);
// Slot bytes of rows [first, first + count) of the given matrices (one chunk's layout), in the
// short form or with row_ptr.
uint64_t rows_chunk_bytes(const r1cs::Circuit& circuit, const std::vector<r1cs::Matrix>& ms, bool short_form,
                          uint64_t first, uint64_t count);

}  // namespace snarkd::engine
