#include <gtest/gtest.h>

#include <set>

#include "snarkd/r1cs/r1cs.hpp"
#include "snarkd/util/error.hpp"
#include "common/seed.hpp"
#include "r1cs/test_util.hpp"

namespace snarkd::r1cs {
namespace {

using test::RandomCircuit;
using test::Triplet;

TEST(CoeffDictionary, FixedSlotsAndDeduplication) {
  auto g = snarkd::test::rng("r1cs.dict");
  CoeffDictionary d;
  EXPECT_EQ(d.intern(Fr::one()), kCoeffOne);
  EXPECT_EQ(d.intern(-Fr::one()), kCoeffMinusOne);
  EXPECT_EQ(d.intern(Fr::zero() - Fr::one()), kCoeffMinusOne);  // same value, other route
  std::vector<Fr> vals;
  for (int i = 0; i < 200; ++i) vals.push_back(i % 3 ? Fr::random(g) : Fr::from_u64(g() % 10));
  std::vector<uint32_t> idx;
  for (const Fr& v : vals) idx.push_back(d.intern(v));
  for (size_t i = 0; i < vals.size(); ++i) {
    EXPECT_EQ(d.intern(vals[i]), idx[i]);
    EXPECT_EQ(d.values()[idx[i]], vals[i]);
  }
  std::set<ff::BigInt<4>, decltype([](const auto& a, const auto& b) { return less_than(a, b); })> distinct;
  for (const Fr& v : d.values()) distinct.insert(v.to_repr());
  EXPECT_EQ(distinct.size(), d.values().size());
}

TEST(Evaluate, MatchesDenseReference) {
  auto g = snarkd::test::rng("r1cs.spmv");
  for (uint64_t rows : {1u, 7u, 64u, 1000u}) {
    const uint64_t inputs = 1 + g() % 5, aux = 1 + g() % 60;
    RandomCircuit rc = test::random_circuit(g, rows, inputs, aux);
    const std::vector<Fr> w = test::random_witness(g, inputs + aux);
    for (int m = 0; m < 3; ++m) {
      std::vector<Fr> out(rows);
      evaluate(rc.circuit, Matrix(m), w, out);
      const std::vector<Fr> ref = test::dense_eval(rc.t[m], rows, inputs + aux, w);
      for (uint64_t r = 0; r < rows; ++r) ASSERT_EQ(out[r], ref[r]) << matrix_name(Matrix(m)) << " row " << r;
    }
  }
}

TEST(Evaluate, RejectsWrongSizes) {
  auto g = snarkd::test::rng("r1cs.spmv.sizes");
  RandomCircuit rc = test::random_circuit(g, 10, 2, 5);
  std::vector<Fr> w = test::random_witness(g, 7), out(10), short_out(9);
  EXPECT_THROW(evaluate(rc.circuit, Matrix::A, std::span(w).first(6), out), InvalidArgument);
  EXPECT_THROW(evaluate(rc.circuit, Matrix::A, w, short_out), InvalidArgument);
}

// A random A, B with C_r = (a_r·b_r)·ONE: satisfied by w; then C rows or witness entries are
// disturbed and the expected first failing row comes from the dense reference.
struct Satisfied {
  RandomCircuit rc;
  std::vector<Fr> w;
  uint64_t rows, vars;
};

Satisfied satisfied_circuit(std::mt19937_64& g, uint64_t rows, uint64_t inputs, uint64_t aux) {
  Satisfied s{test::random_circuit(g, rows, inputs, aux), test::random_witness(g, inputs + aux), rows, inputs + aux};
  const auto a = test::dense_eval(s.rc.t[0], rows, s.vars, s.w), b = test::dense_eval(s.rc.t[1], rows, s.vars, s.w);
  s.rc.t[2].clear();
  for (uint64_t r = 0; r < rows; ++r) s.rc.t[2].push_back({r, 0, a[r] * b[r]});
  CoeffDictionary dict;
  for (int m = 0; m < 3; ++m) s.rc.circuit.matrix(Matrix(m)) = test::to_csr(s.rc.t[m], rows, dict);
  s.rc.circuit.coeffs = dict.values();
  return s;
}

std::optional<uint64_t> dense_first_failure(const Satisfied& s, const std::vector<Fr>& w) {
  const auto a = test::dense_eval(s.rc.t[0], s.rows, s.vars, w), b = test::dense_eval(s.rc.t[1], s.rows, s.vars, w),
             c = test::dense_eval(s.rc.t[2], s.rows, s.vars, w);
  for (uint64_t r = 0; r < s.rows; ++r)
    if (a[r] * b[r] != c[r]) return r;
  return std::nullopt;
}

TEST(FirstUnsatisfied, FindsTheFirstFailingRow) {
  auto g = snarkd::test::rng("r1cs.check");
  for (int trial = 0; trial < 20; ++trial) {
    Satisfied s = satisfied_circuit(g, 300, 3, 40);
    ASSERT_EQ(first_unsatisfied(s.rc.circuit, s.w), std::nullopt);
    std::vector<Fr> w = s.w;
    w[1 + g() % (s.vars - 1)] += Fr::one();  // any variable but ONE
    EXPECT_EQ(first_unsatisfied(s.rc.circuit, w), dense_first_failure(s, w)) << "trial " << trial;
  }
}

TEST(FirstUnsatisfied, ReportsTheSmallestOfSeveralBadRows) {
  auto g = snarkd::test::rng("r1cs.check.rows");
  Satisfied s = satisfied_circuit(g, 2000, 2, 30);
  std::set<uint64_t> bad;
  for (int i = 0; i < 5; ++i) bad.insert(200 + g() % 1800);
  for (uint64_t r : bad) s.rc.t[2][r].value += Fr::one();  // C row r is the single triplet r
  CoeffDictionary dict;
  for (int m = 0; m < 3; ++m) s.rc.circuit.matrix(Matrix(m)) = test::to_csr(s.rc.t[m], s.rows, dict);
  s.rc.circuit.coeffs = dict.values();
  EXPECT_EQ(first_unsatisfied(s.rc.circuit, s.w), *bad.begin());
}

// The length is checked here (it guards the reads); the ONE at index 0 is the entry points'
// check (groth16::check_witness, tests/groth16/prover_test.cpp).
TEST(FirstUnsatisfied, RejectsAWitnessOfTheWrongLength) {
  auto g = snarkd::test::rng("r1cs.check.bad");
  Satisfied s = satisfied_circuit(g, 10, 2, 5);
  std::vector<Fr> w = s.w;
  w.pop_back();
  EXPECT_THROW(first_unsatisfied(s.rc.circuit, w), InvalidArgument);
  w.push_back(Fr::one());
  w.push_back(Fr::one());
  EXPECT_THROW(first_unsatisfied(s.rc.circuit, w), InvalidArgument);
}

TEST(Density, MatchesStoredColumns) {
  auto g = snarkd::test::rng("r1cs.density");
  const uint64_t inputs = 5, aux = 300;
  RandomCircuit rc = test::random_circuit(g, 80, inputs, aux);  // ~200 of 305 columns used
  for (Matrix m : {Matrix::A, Matrix::B}) {
    std::vector<bool> ref(inputs + aux, false);
    for (const Triplet& t : rc.t[int(m)]) ref[t.col] = true;
    const DensityBitmap d = density(rc.circuit, m);
    ASSERT_EQ(d.num_bits, inputs + aux);
    for (uint64_t i = 0; i < inputs + aux; ++i) ASSERT_EQ(d.test(i), ref[i]) << "column " << i;
    for (int k = 0; k < 50; ++k) {
      uint64_t b = g() % (inputs + aux + 1), e = g() % (inputs + aux + 1);
      if (b > e) std::swap(b, e);
      EXPECT_EQ(d.count(b, e), uint64_t(std::count(ref.begin() + long(b), ref.begin() + long(e), true)))
          << "[" << b << ", " << e << ")";
    }
  }
}

// Each invariant, broken on its own, is reported with its name.
TEST(StructureError, NamesEachViolation) {
  auto g = snarkd::test::rng("r1cs.structure");
  const Circuit good = test::random_circuit(g, 40, 3, 20).circuit;
  ASSERT_EQ(find_structure_error(good), std::nullopt);
  auto expect = [&](auto mutate, const std::string& needle) {
    Circuit c = good;
    mutate(c);
    auto e = find_structure_error(c);
    ASSERT_TRUE(e.has_value()) << needle;
    EXPECT_NE(e->find(needle), std::string::npos) << *e;
  };
  expect([](Circuit& c) { c.num_inputs = 0; }, "num_inputs is 0");
  expect([](Circuit& c) { c.num_aux = kMaxVariables; }, "exceeds 2^32");
  expect([](Circuit& c) { c.coeffs[0] = Fr::from_u64(2); }, "dictionary entry 0 is not 1");
  expect([](Circuit& c) { c.coeffs[1] = Fr::one(); }, "dictionary entry 1 is not -1");
  expect([](Circuit& c) { c.coeffs.push_back(c.coeffs[0]); }, "is a duplicate");
  expect([](Circuit& c) { c.a.row_ptr[18] = c.a.row_ptr[17] - 1; },
         "row_ptr of A is not monotone at row 17");
  expect([](Circuit& c) { c.b.row_ptr[0] = 1; }, "row_ptr of B does not start at 0");
  expect([](Circuit& c) { c.c.col.push_back(0); c.c.coeff.push_back(0); }, "row_ptr of C ends at");
  expect([](Circuit& c) { c.b.row_ptr.push_back(c.b.row_ptr.back()); }, "B has 41 rows, A has 40");
  expect([](Circuit& c) { c.c.coeff.pop_back(); }, "coefficients");
  expect([](Circuit& c) { c.a.col[3] = 23; }, "column of A non-zero 3 is 23, not below num_vars 23");
  expect([](Circuit& c) { c.b.coeff[2] = uint32_t(c.coeffs.size()); }, "coefficient index of B non-zero 2");
}

}  // namespace
}  // namespace snarkd::r1cs
