#include "snarkd/r1cs/short_rows.hpp"

namespace snarkd::r1cs {

std::optional<ShortRows> short_rows(const CsrMatrix& m) {
  const uint64_t rows = m.num_rows();
  ShortRows s;
  s.len.resize(rows);
  s.group_start.reserve((rows + kRowGroup - 1) / kRowGroup);
  for (uint64_t r = 0; r < rows; ++r) {
    const uint64_t n = m.row_ptr[r + 1] - m.row_ptr[r];
    if (n > kShortRowMax) return std::nullopt;
    s.len[r] = uint8_t(n);
    if (r % kRowGroup == 0) s.group_start.push_back(m.row_ptr[r]);
  }
  return s;
}

std::vector<uint64_t> expand_short_rows(const uint64_t* group_start, const uint8_t* len, uint64_t count) {
  std::vector<uint64_t> out(count + 1);
  for (uint64_t r = 0; r < count; ++r) {
    const uint64_t at = r % kRowGroup == 0 ? group_start[r / kRowGroup] - group_start[0] : out[r];
    out[r + 1] = at + len[r];
    out[r] = at;
  }
  return out;
}

}  // namespace snarkd::r1cs
