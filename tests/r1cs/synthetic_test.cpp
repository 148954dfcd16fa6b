#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "snarkd/r1cs/synthetic.hpp"
#include "snarkd/util/error.hpp"
#include "common/seed.hpp"
#include "r1cs/test_util.hpp"

namespace snarkd::r1cs {
namespace {

// Satisfaction recomputed from the merged (column, value) rows with plain products: shares no
// code with dot_row / first_unsatisfied.
std::optional<uint64_t> reference_first_failure(const Circuit& c, const std::vector<Fr>& w) {
  for (uint64_t r = 0; r < c.num_constraints(); ++r) {
    Fr v[3];
    for (int m = 0; m < 3; ++m) {
      v[m] = Fr::zero();
      for (const auto& [col, coeff] : test::canonical_row(c, Matrix(m), r)) {
        Fr f;
        EXPECT_TRUE(Fr::from_repr(coeff, f));
        v[m] += f * w[col];
      }
    }
    if (v[0] * v[1] != v[2]) return r;
  }
  return std::nullopt;
}

SyntheticParams params(uint64_t rows, uint64_t seed) {
  SyntheticParams p;
  p.num_constraints = rows;
  p.seed = seed;
  return p;
}

TEST(Synthetic, SatisfiableAtSeveralSizesAndSeeds) {
  auto g = snarkd::test::rng("r1cs.synthetic.sat");
  for (uint64_t rows : {uint64_t(1), uint64_t(100), uint64_t(1) << 10, uint64_t(1) << 12, uint64_t(1) << 15}) {
    for (int s = 0; s < 2; ++s) {
      const SyntheticParams p = params(rows, g());
      const SyntheticCircuit sc = generate_synthetic(p);
      SCOPED_TRACE("rows " + std::to_string(rows) + " seed " + std::to_string(p.seed));
      ASSERT_EQ(find_structure_error(sc.circuit), std::nullopt);
      EXPECT_EQ(sc.circuit.num_constraints(), rows);
      EXPECT_EQ(sc.circuit.num_inputs, 328u);
      EXPECT_EQ(sc.circuit.num_aux, rows);
      EXPECT_EQ(first_unsatisfied(sc.circuit, sc.witness), std::nullopt);
      if (rows <= (1u << 12)) {
        EXPECT_EQ(reference_first_failure(sc.circuit, sc.witness), std::nullopt);
      }
    }
  }
}

// Corner parameters exercise the fallbacks (one-term C rows, empty A/B rows, no "other" or no
// bit variables at all, ONE as the only input).
TEST(Synthetic, SatisfiableWithCornerParameters) {
  auto g = snarkd::test::rng("r1cs.synthetic.corners");
  const SyntheticParams base = params(3000, g());
  std::vector<SyntheticParams> ps(7, base);
  ps[0].nnz_c = 1.0;
  ps[1].nnz_c = 1.5;
  ps[1].nnz_b = 0.5;
  ps[2].nnz_a = 0;
  ps[3].bit_fraction = ps[3].zero_fraction = 0;
  ps[4].bit_fraction = 1;
  ps[4].zero_fraction = 0;
  ps[5].num_inputs = 1;
  ps[6].nnz_a = ps[6].nnz_b = ps[6].nnz_c = 9.5;
  for (size_t i = 0; i < ps.size(); ++i) {
    const SyntheticCircuit sc = generate_synthetic(ps[i]);
    ASSERT_EQ(find_structure_error(sc.circuit), std::nullopt) << "case " << i;
    EXPECT_EQ(first_unsatisfied(sc.circuit, sc.witness), std::nullopt) << "case " << i;
    EXPECT_EQ(reference_first_failure(sc.circuit, sc.witness), std::nullopt) << "case " << i;
  }
}

TEST(Synthetic, StatisticsMatchTheRequest) {
  auto g = snarkd::test::rng("r1cs.synthetic.stats");
  const uint64_t rows = uint64_t(1) << 15;
  struct Case { double a, b, c, bits, zeros; };
  for (const Case& k : {Case{2.37, 1.0, 2.17, 0.95, 0.5}, Case{4.6, 1.3, 3.2, 0.7, 0.2}}) {
    SyntheticParams p = params(rows, g());
    p.nnz_a = k.a;
    p.nnz_b = k.b;
    p.nnz_c = k.c;
    p.bit_fraction = k.bits;
    p.zero_fraction = k.zeros;
    const SyntheticCircuit sc = generate_synthetic(p);
    const Circuit& c = sc.circuit;
    SCOPED_TRACE("seed " + std::to_string(p.seed) + " nnz_a " + std::to_string(k.a));
    // Means: sampling error ~0.003 at 2^15 rows; merges and dropped/added balancing terms
    // move them by < 1%.
    EXPECT_NEAR(double(c.a.nnz()) / rows, k.a, 0.03 * k.a);
    EXPECT_NEAR(double(c.b.nnz()) / rows, k.b, 0.03 * k.b);
    EXPECT_NEAR(double(c.c.nnz()) / rows, k.c, 0.03 * k.c);
    uint64_t zeros = 0, ones = 0;
    for (uint64_t j = 0; j < c.num_aux; ++j) {
      const Fr& v = sc.witness[c.num_inputs + j];
      zeros += v.is_zero();
      ones += v.is_one();
    }
    EXPECT_NEAR(double(zeros) / rows, k.zeros, 0.02);
    EXPECT_NEAR(double(zeros + ones) / rows, k.bits, 0.02);
    // Coefficients: a small dictionary, mostly ±1.
    EXPECT_LT(c.coeffs.size(), 200u);
    uint64_t unit = 0, total = 0;
    for (Matrix m : {Matrix::A, Matrix::B, Matrix::C}) {
      for (uint32_t ci : c.matrix(m).coeff) unit += ci <= kCoeffMinusOne;
      total += c.matrix(m).nnz();
    }
    EXPECT_GT(double(unit) / total, 0.85);
  }
}

TEST(Synthetic, RowsHaveNoRepeatedColumnAndOnlyEarlierVariables) {
  auto g = snarkd::test::rng("r1cs.synthetic.rows");
  const SyntheticCircuit sc = generate_synthetic(params(5000, g()));
  const Circuit& c = sc.circuit;
  for (Matrix m : {Matrix::A, Matrix::B, Matrix::C}) {
    const CsrMatrix& x = c.matrix(m);
    for (uint64_t r = 0; r < c.num_constraints(); ++r) {
      std::set<uint32_t> cols(x.col.begin() + long(x.row_ptr[r]), x.col.begin() + long(x.row_ptr[r + 1]));
      ASSERT_EQ(cols.size(), x.row_ptr[r + 1] - x.row_ptr[r]) << matrix_name(m) << " row " << r;
      if (cols.empty()) continue;
      const uint64_t fresh = c.num_inputs + r;
      ASSERT_LE(*cols.rbegin(), fresh) << matrix_name(m) << " row " << r;
      if (m == Matrix::C) {
        EXPECT_EQ(x.col[x.row_ptr[r]], fresh);  // each row defines its variable, first in C
      } else {
        EXPECT_LT(*cols.rbegin(), fresh);
      }
    }
  }
}

TEST(Synthetic, DeterministicPerSeed) {
  auto g = snarkd::test::rng("r1cs.synthetic.det");
  const SyntheticParams p = params(4000, g());
  const SyntheticCircuit x = generate_synthetic(p), y = generate_synthetic(p);
  test::expect_identical(x.circuit, y.circuit);
  EXPECT_EQ(x.witness, y.witness);
  SyntheticParams q = p;
  q.seed ^= 1;
  EXPECT_NE(generate_synthetic(q).circuit.a.col, x.circuit.a.col);
}

TEST(Synthetic, RejectsBadParameters) {
  std::vector<SyntheticParams> bad(15, params(100, 1));
  bad[0].num_constraints = 0;
  bad[1].num_inputs = 0;
  bad[2].num_constraints = kMaxVariables;
  bad[3].nnz_a = -1;
  bad[4].nnz_b = 65;
  bad[5].nnz_c = 0.5;
  bad[6].zero_fraction = 0.99;  // above bit_fraction
  bad[7].bit_fraction = NAN;
  bad[8].linear_fraction = 1.5;
  bad[9].square_fraction = -0.1;
  bad[10].chain_fraction = NAN;
  bad[11].b_squared_fraction = 2;
  bad[12].const_fraction = 0.5;  // with num_consts = 0
  bad[13].num_consts = (1u << 20) + 1;
  bad[14].nnz_c_linear = 0.5;
  for (size_t i = 0; i < bad.size(); ++i) EXPECT_THROW(generate_synthetic(bad[i]), InvalidArgument) << i;
}

// circom's shape: satisfiable over both fields (the same matrices: only the constants' values
// differ), rows still define their variable first in C and refer only to earlier ones, and
// measure_shape finds the figures circom_poseidon_shape was fitted to (bench/circom/bn254_16:
// synthetic.hpp). A fraction drawn over n rows is checked to 5 binomial standard deviations,
// sqrt(p(1 − p) / n): B's squares are drawn only over the ≈ 7,700 non-linear rows, where
// 0.015 was 2.8 of them and failed one seed in a hundred.
TEST(Synthetic, CircomShapeOverBothFields) {
  const auto within = [](double p, double n) { return 5 * std::sqrt(p * (1 - p) / n); };
  auto g = snarkd::test::rng("r1cs.synthetic.circom");
  const SyntheticParams p = circom_poseidon_shape(uint64_t(1) << 14, 3, g());
  SCOPED_TRACE("seed " + std::to_string(p.seed));
  const SyntheticCircuit bls = generate_synthetic(p);
  const auto bn = generate_synthetic<ff::bn254::Fr>(p);
  for (Matrix m : {Matrix::A, Matrix::B, Matrix::C}) {
    EXPECT_EQ(bls.circuit.matrix(m).col, bn.circuit.matrix(m).col) << matrix_name(m);
    EXPECT_EQ(bls.circuit.matrix(m).coeff, bn.circuit.matrix(m).coeff) << matrix_name(m);
  }
  ASSERT_EQ(find_structure_error(bls.circuit), std::nullopt);
  ASSERT_EQ(find_structure_error(bn.circuit), std::nullopt);
  EXPECT_EQ(first_unsatisfied(bls.circuit, bls.witness), std::nullopt);
  EXPECT_EQ(first_unsatisfied(bn.circuit, bn.witness), std::nullopt);
  const CsrMatrix& c = bn.circuit.c;
  for (uint64_t r = 0; r < bn.circuit.num_constraints(); ++r) ASSERT_EQ(c.col[c.row_ptr[r]], 3 + r) << r;

  const CircuitShape s = measure_shape<ff::bn254::Fr>(bn.circuit, bn.witness);
  const double rows = double(s.constraints), nonlinear = rows * (1 - s.linear_fraction);
  EXPECT_NEAR(s.linear_fraction, 0.531, within(0.531, rows));
  EXPECT_NEAR(s.nnz_c_linear, 3.28, 0.03);
  EXPECT_DOUBLE_EQ(s.nnz_a_nonlinear, 1);
  EXPECT_DOUBLE_EQ(s.nnz_b_nonlinear, 1);
  EXPECT_DOUBLE_EQ(s.nnz_c_nonlinear, 1);
  EXPECT_NEAR(s.square_fraction, 0.667, within(0.667, nonlinear));
  EXPECT_NEAR(s.a_density, 0.469, within(0.469, rows));  // every non-linear row's A a different variable
  EXPECT_NEAR(s.b_density, 0.313, within(0.313, rows));  // only the squared ones
  EXPECT_NEAR(s.unit_coeff_fraction, 0.71, 0.02);
  EXPECT_LE(s.dictionary_size, 448u + 16);
  EXPECT_EQ(s.bit_fraction, 0);
}

TEST(Synthetic, MeasureShapeCountsWhatItIsGiven) {
  // Rows: x·x = y (a square), 0 = 2·y − z (linear), (x + y)·(z) = w, over ONE, x, y, z, w.
  Circuit c;
  c.num_inputs = 1;
  c.num_aux = 4;
  c.coeffs.push_back(Fr::from_u64(2));
  c.a = {{0, 1, 1, 3}, {1, 1, 2}, {kCoeffMinusOne, kCoeffOne, kCoeffOne}};
  c.b = {{0, 1, 1, 2}, {1, 3}, {kCoeffOne, kCoeffOne}};
  c.c = {{0, 1, 3, 4}, {2, 2, 3, 4}, {kCoeffOne, 2, kCoeffMinusOne, kCoeffOne}};
  ASSERT_EQ(find_structure_error(c), std::nullopt);
  const std::vector<Fr> w = {Fr::one(), Fr::from_u64(3), Fr::from_u64(9), Fr::from_u64(18), Fr::zero()};
  const CircuitShape s = measure_shape<Fr>(c, w);
  EXPECT_EQ(s.constraints, 3u);
  EXPECT_DOUBLE_EQ(s.nnz_a, 1);
  EXPECT_DOUBLE_EQ(s.nnz_c, 4.0 / 3);
  EXPECT_DOUBLE_EQ(s.linear_fraction, 1.0 / 3);
  EXPECT_DOUBLE_EQ(s.nnz_c_linear, 2);
  EXPECT_DOUBLE_EQ(s.nnz_a_nonlinear, 1.5);
  EXPECT_DOUBLE_EQ(s.square_fraction, 0.5);  // x·x with coefficients −1 and 1 counts
  EXPECT_DOUBLE_EQ(s.a_density, 2.0 / 5);
  EXPECT_DOUBLE_EQ(s.b_density, 2.0 / 5);
  EXPECT_DOUBLE_EQ(s.unit_coeff_fraction, 8.0 / 9);
  EXPECT_EQ(s.dictionary_size, 3u);
  EXPECT_DOUBLE_EQ(s.zero_fraction, 0.25);
  EXPECT_DOUBLE_EQ(s.bit_fraction, 0.25);
  EXPECT_THROW(measure_shape<Fr>(c, std::vector<Fr>(4)), InvalidArgument);
}

}  // namespace
}  // namespace snarkd::r1cs
