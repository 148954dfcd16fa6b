#include "snarkd/engine/key_parts.hpp"

#include <algorithm>
#include <string>

#include "snarkd/util/error.hpp"

namespace snarkd::engine {

const char* key_part_name(KeyPart p) {
  switch (p) {
    case KeyPart::kRows1: return "rows1";
    case KeyPart::kRows2: return "rows2";
    case KeyPart::kA: return "a";
    case KeyPart::kB1: return "b_g1";
    case KeyPart::kB2: return "b_g2";
    case KeyPart::kL: return "l";
    case KeyPart::kH: return "h";
  }
  return "?";
}

uint64_t query_chunk_bytes(const QueryShape& q, uint64_t count) {
  return align_segment(count * q.point_bytes) + (q.index ? align_segment(count * 4) : 0);
}

uint64_t rows_chunk_bytes(const r1cs::Circuit& circuit, const std::vector<r1cs::Matrix>& ms, bool short_form,
                          uint64_t first, uint64_t count) {
  uint64_t b = 0;
  const uint64_t groups = (count + r1cs::kRowGroup - 1) / r1cs::kRowGroup;
  for (r1cs::Matrix m : ms) {
    const r1cs::CsrMatrix& csr = circuit.matrix(m);
    const uint64_t nnz = csr.row_ptr[first + count] - csr.row_ptr[first];
    b += (short_form ? align_segment(groups * 8) + align_segment(count) : align_segment((count + 1) * 8)) +
         2 * align_segment(nnz * 4);
  }
  return b;
}

std::array<std::optional<r1cs::ShortRows>, 3> short_rows_of(const r1cs::Circuit& circuit) {
  std::array<std::optional<r1cs::ShortRows>, 3> out;
  for (r1cs::Matrix m : {r1cs::Matrix::A, r1cs::Matrix::B, r1cs::Matrix::C})
    out[size_t(m)] = r1cs::short_rows(circuit.matrix(m));
  return out;
}

CatalogueHost catalogue_host(const uint32_t* a_index, const uint32_t* b_index,
                             const std::array<std::optional<r1cs::ShortRows>, 3>& short_rows) {
  CatalogueHost h{a_index, b_index, {}};
  for (size_t m = 0; m < 3; ++m) h.short_rows[m] = short_rows[m] ? &*short_rows[m] : nullptr;
  return h;
}

namespace {

template <class T>
const std::byte* bytes_of(const std::vector<T>& v) {
  return reinterpret_cast<const std::byte*>(v.data());
}

std::vector<StreamChunk> query_chunks(KeyPart part, const QueryShape& q) {
  std::vector<StreamChunk> out;
  for (uint64_t first = 0; first < q.len; first += q.chunk_points) {
    StreamChunk c;
    c.part = part;
    c.index = uint32_t(out.size());
    c.first = first;
    c.count = std::min(q.chunk_points, q.len - first);
    c.segments.push_back({q.points + first * q.point_bytes, c.count * q.point_bytes, 0});
    if (q.index)
      c.segments.push_back({reinterpret_cast<const std::byte*>(q.index + first), c.count * 4,
                            align_segment(c.count * q.point_bytes)});
    c.bytes = query_chunk_bytes(q, c.count);
    out.push_back(std::move(c));
  }
  return out;
}

// Rows [first, first + count) of the matrices ms: per matrix row_ptr (or group_start and len, the
// short form; first is then a multiple of kRowGroup), col, coeff.
StreamChunk rows_chunk(KeyPart part, uint32_t index, const r1cs::Circuit& circuit, const std::vector<r1cs::Matrix>& ms,
                       const CatalogueHost& host, bool short_form, uint64_t first, uint64_t count) {
  StreamChunk c;
  c.part = part;
  c.index = index;
  c.first = first;
  c.count = count;
  uint64_t at = 0;
  auto put = [&](const std::byte* src, uint64_t bytes) {
    c.segments.push_back({src, bytes, at});
    at += align_segment(bytes);
    return c.segments.back().offset;
  };
  for (size_t i = 0; i < ms.size(); ++i) {
    const r1cs::CsrMatrix& csr = circuit.matrix(ms[i]);
    const uint64_t k0 = csr.row_ptr[first], nnz = csr.row_ptr[first + count] - k0;
    RowsAt& m = c.rows[i];
    m.short_form = short_form;
    if (short_form) {
      const r1cs::ShortRows& s = *host.short_rows[size_t(ms[i])];
      const uint64_t g0 = first / r1cs::kRowGroup, groups = (count + r1cs::kRowGroup - 1) / r1cs::kRowGroup;
      m.starts = put(bytes_of(s.group_start) + g0 * 8, groups * 8);
      m.len = put(bytes_of(s.len) + first, count);
    } else {
      m.starts = put(bytes_of(csr.row_ptr) + first * 8, (count + 1) * 8);
    }
    m.col = put(bytes_of(csr.col) + k0 * 4, nnz * 4);
    m.coeff = put(bytes_of(csr.coeff) + k0 * 4, nnz * 4);
  }
  c.bytes = at;
  return c;
}

// Greedy: each chunk takes the most rows that fit (binary search; the size grows with the rows),
// whole row groups in the short form but the last.
std::vector<StreamChunk> rows_chunks(KeyPart part, const r1cs::Circuit& circuit, const std::vector<r1cs::Matrix>& ms,
                                     const CatalogueHost& host, bool short_form, uint64_t slot_bytes) {
  std::vector<StreamChunk> out;
  const uint64_t rows = circuit.num_constraints();
  const uint64_t unit = short_form ? r1cs::kRowGroup : 1;
  for (uint64_t first = 0; first < rows;) {
    const uint64_t left = rows - first;
    uint64_t lo = 0, hi = (left + unit - 1) / unit;  // the most units in [lo, hi] that fit
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo + 1) / 2;
      if (rows_chunk_bytes(circuit, ms, short_form, first, std::min(mid * unit, left)) <= slot_bytes) lo = mid;
      else hi = mid - 1;
    }
    if (lo == 0)
      throw InvalidArgument("streaming slots of " + std::to_string(slot_bytes) + " bytes cannot hold row " +
                            std::to_string(first) + " of the circuit (" +
                            std::to_string(rows_chunk_bytes(circuit, ms, short_form, first, std::min(unit, left))) +
                            " bytes)");
    const uint64_t count = std::min(lo * unit, left);
    out.push_back(rows_chunk(part, uint32_t(out.size()), circuit, ms, host, short_form, first, count));
    first += count;
  }
  return out;
}

// The short form for a part: every matrix has one and each row group fits a slot (the largest
// group decides; a tiny slot keeps row_ptr and cuts chunks at any row).
bool part_short(const r1cs::Circuit& circuit, const std::vector<r1cs::Matrix>& ms, const CatalogueHost& host,
                uint64_t slot_bytes) {
  for (r1cs::Matrix m : ms)
    if (!host.short_rows[size_t(m)]) return false;
  const uint64_t rows = circuit.num_constraints();
  for (uint64_t first = 0; first < rows; first += r1cs::kRowGroup)
    if (rows_chunk_bytes(circuit, ms, true, first, std::min(r1cs::kRowGroup, rows - first)) > slot_bytes) return false;
  return true;
}

}  // namespace

std::vector<r1cs::Matrix> KeyCatalogue::matrices() const {
  std::vector<r1cs::Matrix> out;
  for (r1cs::Matrix m : {r1cs::Matrix::A, r1cs::Matrix::B, r1cs::Matrix::C})
    for (const auto& part : rows_matrices)
      if (std::find(part.begin(), part.end(), m) != part.end()) {
        out.push_back(m);
        break;
      }
  return out;
}

KeyCatalogue make_catalogue(const groth16::ProvingKey& pk, const r1cs::Circuit& circuit, const CatalogueHost& host,
                            uint64_t slot_bytes) {
  const uint32_t *a_index = host.a_index, *b_index = host.b_index;
  KeyCatalogue k;
  k.flavour = pk.flavour;
  k.slot_bytes = slot_bytes;
  const bool bellperson = pk.flavour == groth16::KeyFlavour::kBellperson;
  using r1cs::Matrix;
  k.rows_matrices[0] = {Matrix::A, Matrix::B};
  k.rows_matrices[1] = bellperson ? std::vector{Matrix::C} : std::vector{Matrix::A, Matrix::B};
  for (Matrix m : k.matrices()) {
    const r1cs::CsrMatrix& csr = circuit.matrix(m);
    k.matrices_bytes += align_segment(csr.row_ptr.size() * 8) + 2 * align_segment(csr.nnz() * 4);
  }
  if ((pk.a_density.num_bits && !pk.a.empty() && !a_index) || (pk.b_density.num_bits && !pk.b_g1.empty() && !b_index))
    throw InvalidArgument("make_catalogue: a density query needs its index list");
  auto shape = [&](const auto& v, const uint32_t* index) {
    QueryShape q;
    q.points = bytes_of(v);
    q.index = index;
    q.len = v.size();
    q.point_bytes = sizeof(v[0]);
    // The most points whose layout fits the slot (the two segments' padding included).
    const uint64_t usable = slot_bytes > 2 * kSegmentAlign ? slot_bytes - 2 * kSegmentAlign : 0;
    q.chunk_points = usable / q.bytes_per_point();
    while (q.chunk_points > 0 && query_chunk_bytes(q, q.chunk_points) > slot_bytes) --q.chunk_points;
    if (q.chunk_points == 0)
      throw InvalidArgument("streaming slots of " + std::to_string(slot_bytes) + " bytes cannot hold one key point");
    return q;
  };
  k.query[query_index(KeyPart::kA)] = shape(pk.a, pk.a_density.num_bits ? a_index : nullptr);
  k.query[query_index(KeyPart::kB1)] = shape(pk.b_g1, pk.b_density.num_bits ? b_index : nullptr);
  k.query[query_index(KeyPart::kB2)] = shape(pk.b_g2, pk.b_density.num_bits ? b_index : nullptr);
  k.query[query_index(KeyPart::kL)] = shape(pk.l, nullptr);
  k.query[query_index(KeyPart::kH)] = shape(pk.h, nullptr);
  for (KeyPart p : {KeyPart::kA, KeyPart::kB1, KeyPart::kB2, KeyPart::kL, KeyPart::kH})
    k.chunks[size_t(p)] = query_chunks(p, k.query[query_index(p)]);
  for (size_t i = 0; i < 2; ++i) {
    const KeyPart part = i == 0 ? KeyPart::kRows1 : KeyPart::kRows2;
    k.short_rows[i] = part_short(circuit, k.rows_matrices[i], host, slot_bytes);
    k.chunks[size_t(part)] = rows_chunks(part, circuit, k.rows_matrices[i], host, k.short_rows[i], slot_bytes);
  }
  return k;
}

}  // namespace snarkd::engine
