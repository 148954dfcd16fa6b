#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <stdexcept>

#include "snarkd/r1cs/builder.hpp"
#include "snarkd/r1cs/circom.hpp"
#include "snarkd/r1cs/gadgets.hpp"
#include "snarkd/r1cs/synthetic.hpp"
#include "snarkd/util/error.hpp"
#include "common/seed.hpp"
#include "r1cs/test_util.hpp"

namespace snarkd::r1cs {
namespace {

using test::load_le;
using test::store_le;
using test::TempFile;

const std::string kFixtures = SNARKD_R1CS_FIXTURES;

template <class Read>
void expect_decode_error(Read read, const std::string& path, const std::string& needle) {
  try {
    read(path);
    ADD_FAILURE() << "no error, expected: " << needle;
  } catch (const DecodeError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << msg;
    EXPECT_NE(msg.find(needle), std::string::npos) << msg;
  }
}

void expect_r1cs_error(const std::string& path, const std::string& needle) {
  expect_decode_error([](const std::string& p) { read_circom_r1cs(p); }, path, needle);
}
// Both .wtns entry points: the file reader and the in-memory parser (the daemon's inline
// witnesses) give the same error, each naming what it was given.
void expect_wtns_error(const std::string& path, const std::string& needle) {
  expect_decode_error([](const std::string& p) { read_wtns(p); }, path, needle);
  const std::vector<uint8_t> bytes = test::read_bytes(path);
  expect_decode_error([&](const std::string& name) { parse_wtns(bytes, name); }, "partition 7", needle);
}

// fixtures/fixture.circom compiled by circom 2.2.3 (--prime bls12381); the expected constraints
// are those of `snarkjs r1cs export json`, the witness values follow from fixture_input.json
// by hand (out = a·b·(a − 7) + 123456789, packed = 1 + 4 + 8 − 3·11).
struct WireCoeff {
  uint32_t wire;
  int64_t coeff;
};
const std::vector<WireCoeff> kFixtureRows[7][3] = {
    {{{0, -1}, {5, 1}}, {{5, 1}}, {}},
    {{{0, -1}, {6, 1}}, {{6, 1}}, {}},
    {{{0, -1}, {7, 1}}, {{7, 1}}, {}},
    {{{0, -1}, {8, 1}}, {{8, 1}}, {}},
    {{{3, -1}}, {{4, 1}}, {{9, -1}}},
    {{{0, 7}, {3, -1}}, {{9, 1}}, {{0, 123456789}, {1, -1}}},
    {{}, {}, {{2, -1}, {4, -3}, {5, 1}, {6, 2}, {7, 4}, {8, 8}}},
};
const int64_t kFixtureWitness[10] = {1, 123456679, -20, 5, 11, 1, 0, 1, 1, 55};

TEST(Circom, ReadsRealCircomFiles) {
  const CircomR1cs f = read_circom_r1cs(kFixtures + "/fixture.r1cs");
  EXPECT_EQ(f.info.n_pub_out, 2u);
  EXPECT_EQ(f.info.n_pub_in, 1u);
  EXPECT_EQ(f.info.n_prv_in, 5u);
  EXPECT_EQ(f.info.n_labels, 10u);
  EXPECT_EQ(f.info.wire_to_label.size(), 10u);
  const Circuit& c = f.circuit;
  EXPECT_EQ(c.num_inputs, 4u);  // ONE, 2 outputs, 1 public input
  EXPECT_EQ(c.num_aux, 6u);
  ASSERT_EQ(c.num_constraints(), 7u);
  EXPECT_EQ(c.a.nnz(), 11u);
  EXPECT_EQ(c.b.nnz(), 6u);
  EXPECT_EQ(c.c.nnz(), 9u);
  EXPECT_EQ(find_structure_error(c), std::nullopt);
  for (uint64_t r = 0; r < 7; ++r)
    for (int m = 0; m < 3; ++m) {
      std::vector<std::pair<uint32_t, ff::BigInt<4>>> want;
      for (const WireCoeff& t : kFixtureRows[r][m]) want.emplace_back(t.wire, Fr::from_i64(t.coeff).to_repr());
      EXPECT_EQ(test::canonical_row(c, Matrix(m), r), want) << "row " << r << " " << matrix_name(Matrix(m));
    }
  const std::vector<Fr> w = read_wtns(kFixtures + "/fixture.wtns");
  ASSERT_EQ(w.size(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(w[i], Fr::from_i64(kFixtureWitness[i])) << "wire " << i;
  EXPECT_EQ(first_unsatisfied(c, w), std::nullopt);
  std::vector<Fr> bad = w;
  bad[9] += Fr::one();  // t = a·b is first used by constraint 4
  EXPECT_EQ(first_unsatisfied(c, bad), 4u);
}

TEST(Circom, RejectsOtherPrimes) {
  expect_r1cs_error(kFixtures + "/fixture_bn128.r1cs",
                    "prime 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001 is not BLS12-381's r "
                    "0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
}

TEST(Circom, RoundTripThroughWriter) {
  TempFile r1cs("rt.r1cs"), wtns("rt.wtns");
  auto g = snarkd::test::rng("r1cs.circom.roundtrip");
  CircuitBuilder cb;
  Variable out = cb.allocate_input(Fr::zero());
  Variable in = cb.allocate_input(Fr::random(g));
  Variable x = cb.allocate_aux(Fr::random(g));
  std::vector<Variable> bits = gadgets::unpack_bits(cb, x, 40);
  Variable prod = gadgets::mul(cb, in, LinearCombination(x) * Fr::random(g) + bits[3]);
  gadgets::enforce_equal(cb, prod, prod);
  Synthesized s = std::move(cb).finish();
  s.witness[s.column(out)] = Fr::from_u64(7);
  const CircomR1csInfo info{1, 1, 1, 1000, {}};
  write_circom_r1cs(r1cs.path(), s.circuit, info);
  const CircomR1cs back = read_circom_r1cs(r1cs.path());
  test::expect_same_system(back.circuit, s.circuit);
  EXPECT_EQ(back.info.n_pub_out, 1u);
  EXPECT_EQ(back.info.n_pub_in, 1u);
  EXPECT_EQ(back.info.n_prv_in, 1u);
  EXPECT_EQ(back.info.n_labels, 1000u);
  ASSERT_EQ(back.info.wire_to_label.size(), s.circuit.num_vars());
  for (uint64_t i = 0; i < s.circuit.num_vars(); ++i) EXPECT_EQ(back.info.wire_to_label[i], i);
  write_wtns(wtns.path(), s.witness);
  EXPECT_EQ(read_wtns(wtns.path()), s.witness);

  // The real fixture, written by us and read back, keeps its system and label map.
  const CircomR1cs fx = read_circom_r1cs(kFixtures + "/fixture.r1cs");
  write_circom_r1cs(r1cs.path(), fx.circuit, fx.info);
  const CircomR1cs fx2 = read_circom_r1cs(r1cs.path());
  test::expect_same_system(fx2.circuit, fx.circuit);
  EXPECT_EQ(fx2.info.wire_to_label, fx.info.wire_to_label);

  // Synthetic rows are not column-sorted; the reader's normalisation keeps the system.
  SyntheticParams p;
  p.num_constraints = 1500;
  p.seed = g();
  const SyntheticCircuit syn = generate_synthetic(p);
  write_circom_r1cs(r1cs.path(), syn.circuit, {uint32_t(p.num_inputs - 1), 0, 0, syn.circuit.num_vars(), {}});
  const CircomR1cs syn2 = read_circom_r1cs(r1cs.path());
  test::expect_same_system(syn2.circuit, syn.circuit);
  EXPECT_EQ(first_unsatisfied(syn2.circuit, syn.witness), std::nullopt);
}

TEST(Circom, WriterRejectsShapesCircomCannotHold) {
  TempFile f("bad_shape.r1cs");
  Circuit c;
  c.num_inputs = 3;
  c.num_aux = 2;
  EXPECT_THROW(write_circom_r1cs(f.path(), c, {1, 0, 0, 5, {}}), InvalidArgument);   // 1 + 1 + 0 ≠ 3
  EXPECT_THROW(write_circom_r1cs(f.path(), c, {1, 1, 3, 5, {}}), InvalidArgument);   // nPrvIn > aux
  EXPECT_THROW(write_circom_r1cs(f.path(), c, {1, 1, 0, 5, {1, 2}}), InvalidArgument);  // map size
  EXPECT_NO_THROW(write_circom_r1cs(f.path(), c, {2, 0, 2, 5, {}}));
}

// Patches the real fixture bytes: sections are constraints @12 (1020 B), header @1044 (64 B),
// map @1120 (80 B).
struct R1csBytes {
  std::vector<uint8_t> b = test::read_bytes(kFixtures + "/fixture.r1cs");
  static constexpr size_t kBody = 12 + 12, kHeader = 1044 + 12, kMap = 1120 + 12;
  void write(const std::string& path) const { test::write_bytes(path, b); }
};

TEST(Circom, R1csCorruptionNamesTheField) {
  TempFile t("corrupt.r1cs");
  {
    R1csBytes x;
    ASSERT_EQ(x.b.size(), 1212u);
    ASSERT_EQ(load_le<uint32_t>(x.b, 1044), 1u);  // the layout this test assumes
  }
  auto expect = [&](auto patch, const std::string& needle) {
    R1csBytes x;
    patch(x.b);
    x.write(t.path());
    expect_r1cs_error(t.path(), needle);
  };
  using B = std::vector<uint8_t>;
  expect([](B& b) { b[1] = 'X'; }, "bad magic");
  expect([](B& b) { store_le<uint32_t>(b, 4, 2); }, "unsupported version 2 (expected 1)");
  expect([](B& b) { store_le<uint32_t>(b, 8, 4); }, "truncated in section 3 type");
  expect([](B& b) { store_le<uint64_t>(b, 16, 5000); }, "declares 5000 bytes");
  expect([](B& b) { b.push_back(0); }, "1 bytes after the last section");
  expect([](B& b) { store_le<uint32_t>(b, 1120, 1); }, "more than one header section");
  expect([](B& b) { store_le<uint32_t>(b, 12, 7); }, "missing constraints section");
  expect([](B& b) { store_le<uint32_t>(b, 1120, 4); }, "custom gates");
  expect([](B& b) { store_le<uint32_t>(b, R1csBytes::kHeader, 48); }, "is not BLS12-381's r");
  expect([](B& b) { b[R1csBytes::kHeader + 4] ^= 2; }, "is not BLS12-381's r");
  expect([](B& b) { store_le<uint32_t>(b, R1csBytes::kHeader + 36, 9); }, "constraint 4 C: wire 9 is not below nWires 9");
  expect([](B& b) { store_le<uint32_t>(b, R1csBytes::kHeader + 40, 9); }, "nWires 10 is less than");
  expect([](B& b) { store_le<uint32_t>(b, R1csBytes::kHeader + 60, 0xffffffffu); }, "mConstraints 4294967295 does not fit");
  expect([](B& b) { store_le<uint32_t>(b, R1csBytes::kHeader + 60, 6); }, "constraints section has");
  expect([](B& b) { store_le<uint32_t>(b, R1csBytes::kBody, 1000000); }, "constraint 0 A: nTerms 1000000 exceeds");
  expect([](B& b) { for (int i = 0; i < 32; ++i) b[R1csBytes::kBody + 8 + i] = 0xff; },
         "constraint 0 A: coefficient of wire 0 is not below r");
  expect([](B& b) {
    b.resize(b.size() - 8);
    store_le<uint64_t>(b, 1124, 72);
  }, "wire-to-label section has 72 bytes");
}

TEST(Circom, TruncationAnywhereIsAnError) {
  TempFile t("trunc.r1cs");
  const std::vector<uint8_t> b = test::read_bytes(kFixtures + "/fixture.r1cs");
  for (size_t n : {0, 3, 4, 8, 12, 16, 23, 24, 100, 1043, 1044, 1050, 1056, 1100, 1119, 1120, 1132, 1211}) {
    test::write_bytes(t.path(), std::vector<uint8_t>(b.begin(), b.begin() + long(n)));
    expect_r1cs_error(t.path(), "truncated");
  }
  const std::vector<uint8_t> w = test::read_bytes(kFixtures + "/fixture.wtns");
  for (size_t n : {0, 4, 11, 12, 23, 24, 30, 63, 64, 76, 100, 383}) {
    test::write_bytes(t.path(), std::vector<uint8_t>(w.begin(), w.begin() + long(n)));
    expect_wtns_error(t.path(), "truncated");
  }
}

TEST(Circom, WtnsFromBytesEqualsFromFile) {
  const std::vector<uint8_t> b = test::read_bytes(kFixtures + "/fixture.wtns");
  const std::vector<Fr> w = parse_wtns(b, "inline");
  EXPECT_EQ(w, read_wtns(kFixtures + "/fixture.wtns"));
  ASSERT_EQ(w.size(), 10u);
  EXPECT_EQ(w[2], Fr::from_i64(kFixtureWitness[2]));
  // A parse reads only its span: the same bytes inside a larger buffer, cut at both ends.
  std::vector<uint8_t> padded(3, 0xee);
  padded.insert(padded.end(), b.begin(), b.end());
  padded.insert(padded.end(), 5, 0xee);
  EXPECT_EQ(parse_wtns(std::span(padded).subspan(3, b.size()), "inline"), w);
  EXPECT_THROW(parse_wtns(std::span(padded).subspan(3, b.size() + 1), "inline"), DecodeError);
}

// b with 1–3 random bytes changed.
template <class Rng>
std::vector<uint8_t> damaged(std::vector<uint8_t> b, Rng& g) {
  for (int k = 0; k < 1 + int(g() % 3); ++k) b[g() % b.size()] ^= uint8_t(1 + g() % 255);
  return b;
}

// Random single-byte damage of the in-memory .wtns: decoded (values all below r) or DecodeError.
TEST(Circom, RandomWtnsDamageNeverEscapesDecodeError) {
  auto g = snarkd::test::rng("r1cs.circom.wtns.fuzz");
  const std::vector<uint8_t> b = test::read_bytes(kFixtures + "/fixture.wtns");
  int decoded = 0;
  for (int i = 0; i < 2000; ++i) {
    const std::vector<uint8_t> m = damaged(b, g);
    try {
      for (const Fr& v : parse_wtns(m, "fuzz")) EXPECT_TRUE(ff::less_than(v.montgomery(), Fr::kModulus));
      ++decoded;
    } catch (const DecodeError&) {
    }
  }
  RecordProperty("decoded", decoded);
}

// Random single-byte damage: the reader either decodes a valid circuit or throws DecodeError.
TEST(Circom, RandomDamageNeverEscapesDecodeError) {
  TempFile t("fuzz.r1cs");
  auto g = snarkd::test::rng("r1cs.circom.fuzz");
  const std::vector<uint8_t> b = test::read_bytes(kFixtures + "/fixture.r1cs");
  int decoded = 0;
  for (int i = 0; i < 400; ++i) {
    test::write_bytes(t.path(), damaged(b, g));
    try {
      const CircomR1cs c = read_circom_r1cs(t.path());
      EXPECT_EQ(find_structure_error(c.circuit), std::nullopt);
      ++decoded;
    } catch (const DecodeError&) {
    }
  }
  RecordProperty("decoded", decoded);
}

TEST(Circom, WtnsCorruptionNamesTheField) {
  TempFile t("corrupt.wtns");
  auto expect = [&](auto patch, const std::string& needle) {
    std::vector<uint8_t> b = test::read_bytes(kFixtures + "/fixture.wtns");
    patch(b);
    test::write_bytes(t.path(), b);
    expect_wtns_error(t.path(), needle);
  };
  using B = std::vector<uint8_t>;
  expect([](B& b) { b[0] = 'r'; }, "bad magic");
  expect([](B& b) { store_le<uint32_t>(b, 4, 1); }, "unsupported version 1 (expected 2)");
  expect([](B& b) { b[59] = 0x30; }, "is not BLS12-381's r");
  expect([](B& b) { store_le<uint32_t>(b, 60, 11); }, "values section has 320 bytes, nWitness 11 needs 352");
  expect([](B& b) { for (int i = 0; i < 32; ++i) b[76 + 3 * 32 + i] = 0xff; }, "witness value 3 is not below r");
  expect([](B& b) { store_le<uint32_t>(b, 64, 1); }, "more than one header section");
}

// A directory or a FIFO named as an input file: its own message, at once (a plain open of a
// FIFO without a writer blocks).
TEST(Circom, DirectoriesAndFifosAreNotFiles) {
  TempFile dir("a_directory.r1cs");
  std::filesystem::create_directory(dir.path());
  expect_r1cs_error(dir.path(), "is a directory, not a file");
  TempFile fifo("a_fifo.wtns");
  ASSERT_EQ(::mkfifo(fifo.path().c_str(), 0600), 0);
  expect_decode_error([](const std::string& p) { read_wtns(p); }, fifo.path(), "is not a regular file (a FIFO");
  expect_r1cs_error(kFixtures + "/does_not_exist.r1cs", "cannot open: No such file or directory");
}

}  // namespace
}  // namespace snarkd::r1cs
