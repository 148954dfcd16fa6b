#include <gtest/gtest.h>

#include <set>

#include "snarkd/r1cs/checksum.hpp"
#include "snarkd/r1cs/csr_file.hpp"
#include "snarkd/r1cs/synthetic.hpp"
#include "snarkd/util/error.hpp"
#include "common/seed.hpp"
#include "r1cs/test_util.hpp"

namespace snarkd::r1cs {
namespace {

using test::load_le;
using test::store_le;
using test::TempFile;

TEST(Checksum, EveryBitFlipAndLengthChangesIt) {
  auto g = snarkd::test::rng("r1cs.checksum");
  std::vector<uint8_t> buf(100);
  for (auto& b : buf) b = uint8_t(g());
  const uint64_t base = checksum64(buf.data(), buf.size());
  std::set<uint64_t> seen{base};
  for (size_t i = 0; i < buf.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      buf[i] ^= uint8_t(1 << bit);
      seen.insert(checksum64(buf.data(), buf.size()));
      buf[i] ^= uint8_t(1 << bit);
    }
  EXPECT_EQ(seen.size(), 1 + buf.size() * 8);
  std::vector<uint8_t> zeros(70, 0);  // zero padding of the tail must not hide the length
  std::set<uint64_t> by_len;
  for (size_t n = 0; n <= zeros.size(); ++n) by_len.insert(checksum64(zeros.data(), n));
  EXPECT_EQ(by_len.size(), zeros.size() + 1);
  // XXH3-64 with seed 0: the empty input's value from the xxHash specification's test vectors.
  EXPECT_EQ(checksum64(nullptr, 0), 0x2D06800538D394C2ull);
}

Circuit small_circuit(const char* label) {
  auto g = snarkd::test::rng(label);
  return test::random_circuit(g, 25, 3, 17).circuit;
}

// Offsets of the ten sections, walked with the documented layout.
std::vector<size_t> section_offsets(const std::vector<uint8_t>& f) {
  std::vector<size_t> off;
  size_t p = kCsrHeaderBytes;
  for (int s = 0; s < 10; ++s) {
    off.push_back(p);
    p += kCsrSectionHeaderBytes + (load_le<uint64_t>(f, p + 8) + 7) / 8 * 8;
  }
  EXPECT_EQ(p, f.size());
  return off;
}

void expect_decode_error(const std::string& path, const std::string& needle) {
  try {
    read_csr_file(path);
    ADD_FAILURE() << "no error, expected: " << needle;
  } catch (const DecodeError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << msg;  // names the file
    EXPECT_NE(msg.find(needle), std::string::npos) << msg;
  }
}

TEST(CsrFile, RoundTrip) {
  TempFile f("roundtrip.csr");
  auto g = snarkd::test::rng("r1cs.csr.roundtrip");
  for (uint64_t rows : {0u, 1u, 10u, 500u}) {
    const Circuit c = test::random_circuit(g, rows, 1 + g() % 4, g() % 50 + 1).circuit;
    write_csr_file(f.path(), c);
    test::expect_identical(read_csr_file(f.path()), c);
  }
  SyntheticParams p;
  p.num_constraints = 3000;
  p.seed = g();
  const Circuit syn = generate_synthetic(p).circuit;
  write_csr_file(f.path(), syn);
  test::expect_identical(read_csr_file(f.path()), syn);
}

TEST(CsrFile, LayoutAsDocumented) {
  TempFile f("layout.csr");
  const Circuit c = small_circuit("r1cs.csr.layout");
  write_csr_file(f.path(), c);
  const std::vector<uint8_t> b = test::read_bytes(f.path());
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(b.data()), 8), std::string("SNKDCSR\0", 8));
  EXPECT_EQ(load_le<uint32_t>(b, 8), kCsrVersion);
  EXPECT_EQ(kCsrVersion, 2u);
  const uint64_t want[7] = {c.num_constraints(), c.num_inputs, c.num_aux, c.a.nnz(), c.b.nnz(), c.c.nnz(),
                            c.coeffs.size()};
  for (int i = 0; i < 7; ++i) EXPECT_EQ(load_le<uint64_t>(b, 16 + 8 * i), want[i]) << i;
  EXPECT_EQ(load_le<uint64_t>(b, 72), checksum64(b.data(), 72));
  const std::vector<size_t> off = section_offsets(b);
  for (uint32_t s = 0; s < 10; ++s) {
    EXPECT_EQ(load_le<uint32_t>(b, off[s]), s + 1);
    EXPECT_EQ(off[s] % 8, 0u);
  }
  // Dictionary entries are canonical little-endian: entry 0 is 1, entry 1 is r − 1.
  const size_t d = off[0] + kCsrSectionHeaderBytes;
  EXPECT_EQ(b[d], 1);
  for (int i = 1; i < 32; ++i) EXPECT_EQ(b[d + i], 0) << i;
  EXPECT_EQ(load_le<uint64_t>(b, d + 32), Fr::kModulus.limb[0] - 1);
  EXPECT_EQ(load_le<uint64_t>(b, d + 56), Fr::kModulus.limb[3]);
  // A's row_ptr payload is the array itself.
  for (uint64_t r = 0; r <= c.num_constraints(); ++r)
    EXPECT_EQ(load_le<uint64_t>(b, off[1] + kCsrSectionHeaderBytes + 8 * r), c.a.row_ptr[r]);
}

TEST(CsrFile, TruncationAnywhereIsAnError) {
  TempFile f("trunc.csr"), t("trunc_cut.csr");
  write_csr_file(f.path(), small_circuit("r1cs.csr.trunc"));
  const std::vector<uint8_t> b = test::read_bytes(f.path());
  std::set<size_t> cuts = {0, 4, 8, 12, 16, 71, 72, 79, 80, b.size() - 1};
  for (size_t s : section_offsets(b))
    for (size_t k : {0, 4, 8, 16, 24, 25, 40}) cuts.insert(s + k);
  for (size_t n : cuts) {
    if (n >= b.size()) continue;
    test::write_bytes(t.path(), std::vector<uint8_t>(b.begin(), b.begin() + long(n)));
    expect_decode_error(t.path(), n < 8 ? "truncated in magic" : n < 80 ? "truncated in header" : "truncated");
  }
  std::vector<uint8_t> longer = b;
  longer.push_back(0);
  test::write_bytes(t.path(), longer);
  expect_decode_error(t.path(), "trailing bytes");
}

TEST(CsrFile, EveryByteFlipIsDetected) {
  TempFile f("flip.csr"), t("flip_mut.csr");
  auto g = snarkd::test::rng("r1cs.csr.flip");
  write_csr_file(f.path(), test::random_circuit(g, 6, 2, 5).circuit);
  const std::vector<uint8_t> b = test::read_bytes(f.path());
  for (size_t i = 0; i < b.size(); ++i) {
    std::vector<uint8_t> m = b;
    m[i] ^= uint8_t(1 + g() % 255);
    test::write_bytes(t.path(), m);
    SCOPED_TRACE("byte " + std::to_string(i));
    expect_decode_error(t.path(), "");
  }
}

// Rewrites a header field or a section payload word and repairs the checksum, so that only the
// semantic check can catch the change.
struct Patcher {
  std::vector<uint8_t> b;
  std::vector<size_t> off;
  void header_u64(size_t field, uint64_t v) {
    store_le(b, 16 + 8 * field, v);
    store_le(b, 72, checksum64(b.data(), 72));
  }
  template <class T>
  void payload(int section, size_t index, T v) {
    const size_t p = off[section] + kCsrSectionHeaderBytes;
    store_le(b, p + sizeof(T) * index, v);
    const uint64_t len = load_le<uint64_t>(b, off[section] + 8);
    store_le(b, off[section] + 16, checksum64(&b[p], len));
  }
};

TEST(CsrFile, SemanticCorruptionNamesTheField) {
  TempFile f("sem.csr"), t("sem_mut.csr");
  auto g = snarkd::test::rng("r1cs.csr.semantic");
  const Circuit c = test::random_circuit(g, 40, 3, 20).circuit;
  write_csr_file(f.path(), c);
  const std::vector<uint8_t> b = test::read_bytes(f.path());
  auto expect = [&](auto patch, const std::string& needle) {
    Patcher p{b, section_offsets(b)};
    patch(p);
    test::write_bytes(t.path(), p.b);
    expect_decode_error(t.path(), needle);
  };
  expect([&](Patcher& p) { p.payload<uint64_t>(1, 18, c.a.row_ptr[17] - 1); }, "row_ptr of A is not monotone at row 17");
  expect([&](Patcher& p) { p.payload<uint64_t>(7, 40, c.c.nnz() + 1); }, "row_ptr of C ends at");
  expect([&](Patcher& p) { p.payload<uint32_t>(5, 0, 23u); }, "column of B non-zero 0 is 23, not below num_vars 23");
  expect([&](Patcher& p) { p.payload<uint32_t>(9, 1, uint32_t(c.coeffs.size())); }, "coefficient index of C non-zero 1");
  expect([&](Patcher& p) { p.payload<uint64_t>(0, 4 * 2 + 3, ~uint64_t(0)); }, "dictionary entry 2 is not below r");
  expect([&](Patcher& p) { p.payload<uint64_t>(0, 0, 2); }, "dictionary entry 0 is not 1");
  expect([&](Patcher& p) {
    for (int i = 0; i < 4; ++i) p.payload<uint64_t>(0, 4 * 2 + i, load_le<uint64_t>(p.b, p.off[0] + 24 + 8 * (4 + i)));
  }, "dictionary entry 2 is a duplicate");
  expect([](Patcher& p) { p.header_u64(1, 0); }, "num_inputs is 0");
  expect([](Patcher& p) { p.header_u64(2, uint64_t(1) << 40); }, "exceeds 2^32 variables");
  expect([](Patcher& p) { p.header_u64(6, 1); }, "dict_size 1");
  // Huge counts are compared with the file size before any allocation.
  expect([](Patcher& p) { p.header_u64(3, uint64_t(1) << 60); }, "truncated: the header implies");
  expect([](Patcher& p) { p.header_u64(0, ~uint64_t(0)); }, "more than 2^64");
  expect([](Patcher& p) {
    store_le<uint32_t>(p.b, 8, 3);
    store_le(p.b, 72, checksum64(p.b.data(), 72));
  }, "unsupported version 3 (expected 2)");
  // A version-1 file (the hand-written checksum) says what to do, whatever its checksums.
  expect([](Patcher& p) { store_le<uint32_t>(p.b, 8, 1); }, "CSR version 1, whose checksums this snarkd no longer computes");
  expect([](Patcher& p) { p.b[0] = 'X'; }, "bad magic");
  expect([](Patcher& p) { store_le<uint32_t>(p.b, p.off[3], 9); }, "section 4 (A coeff): id is 9");
  expect([](Patcher& p) { p.b[p.off[2] + kCsrSectionHeaderBytes] ^= 1; }, "section 3 (A col): checksum mismatch");
}

TEST(CsrFile, MissingFileAndInvalidCircuit) {
  expect_decode_error("/nonexistent/dir/circuit.csr", "cannot open");
  TempFile f("invalid.csr");
  Circuit c = small_circuit("r1cs.csr.invalid");
  c.a.col[0] = uint32_t(c.num_vars());
  EXPECT_THROW(write_csr_file(f.path(), c), InvalidArgument);
}

}  // namespace
}  // namespace snarkd::r1cs
