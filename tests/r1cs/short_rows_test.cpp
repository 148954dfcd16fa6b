// The short row form (r1cs/short_rows.hpp) against the row_ptr it replaces: lengths and group
// starts, chunks decoded at any row-group boundary, rows of 0 and 255 non-zeros, the refusal of a
// row of 256.
#include <gtest/gtest.h>

#include <random>

#include "common/seed.hpp"
#include "snarkd/r1cs/short_rows.hpp"

namespace snarkd::r1cs {
namespace {

// row_ptr of `rows` rows with random lengths ≤ max_len (every 97th row empty, every 89th full).
CsrMatrix random_rows(std::mt19937_64& g, uint64_t rows, uint64_t max_len) {
  CsrMatrix m;
  for (uint64_t r = 0; r < rows; ++r) {
    const uint64_t n = r % 97 == 5 ? 0 : r % 89 == 3 ? max_len : g() % (max_len + 1);
    for (uint64_t k = 0; k < n; ++k) {
      m.col.push_back(uint32_t(g()));
      m.coeff.push_back(uint32_t(g() % 7));
    }
    m.row_ptr.push_back(m.col.size());
  }
  return m;
}

TEST(ShortRows, LengthsGroupStartsAndChunksMatchRowPtr) {
  auto g = snarkd::test::rng("r1cs.short_rows");
  for (uint64_t rows : {uint64_t(0), uint64_t(1), uint64_t(255), uint64_t(256), uint64_t(257), 1000 + g() % 3000}) {
    for (uint64_t max_len : {uint64_t(3), kShortRowMax}) {
      const CsrMatrix m = random_rows(g, rows, max_len);
      const std::optional<ShortRows> s = short_rows(m);
      ASSERT_TRUE(s) << rows << " rows";
      ASSERT_EQ(s->len.size(), rows);
      ASSERT_EQ(s->group_start.size(), (rows + kRowGroup - 1) / kRowGroup);
      for (uint64_t r = 0; r < rows; ++r) ASSERT_EQ(s->len[r], m.row_ptr[r + 1] - m.row_ptr[r]);
      for (uint64_t j = 0; j < s->group_start.size(); ++j) ASSERT_EQ(s->group_start[j], m.row_ptr[j * kRowGroup]);
      // Chunks from every group boundary, of whole groups or a ragged length, as a slot holds them.
      for (uint64_t first = 0; first < rows; first += kRowGroup)
        for (uint64_t count : {uint64_t(1), kRowGroup - 1, kRowGroup, kRowGroup + 1 + g() % 600, rows - first}) {
          count = std::min(count, rows - first);
          const std::vector<uint64_t> got =
              expand_short_rows(s->group_start.data() + first / kRowGroup, s->len.data() + first, count);
          ASSERT_EQ(got.size(), count + 1);
          for (uint64_t r = 0; r <= count; ++r)
            ASSERT_EQ(got[r], m.row_ptr[first + r] - m.row_ptr[first]) << "first " << first << " row " << r;
        }
    }
  }
}

TEST(ShortRows, RefusesARowOverTheLimit) {
  auto g = snarkd::test::rng("r1cs.short_rows.long");
  CsrMatrix m = random_rows(g, 300, 3);
  EXPECT_TRUE(short_rows(m));
  const uint64_t extra = kShortRowMax + 1 - (m.row_ptr[201] - m.row_ptr[200]);  // row 200 gets 256
  m.col.insert(m.col.begin() + int64_t(m.row_ptr[201]), extra, 0);
  m.coeff.insert(m.coeff.begin() + int64_t(m.row_ptr[201]), extra, 0);
  for (uint64_t r = 201; r < m.row_ptr.size(); ++r) m.row_ptr[r] += extra;
  EXPECT_FALSE(short_rows(m));
}

}  // namespace
}  // namespace snarkd::r1cs
