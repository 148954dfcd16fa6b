// GPU SpMV against its CPU twin r1cs::evaluate on fresh synthetic circuits (seed printed,
// SNARKD_TEST_SEED pins it), all three matrices, plus a hand-made circuit with empty rows, a
// repeated column, ±1 and dictionary coefficients and a zero witness entry. Outputs are
// poisoned (0xFF) before the stream-ordered run, so an unwritten row cannot pass. BN254: random
// rows over its scalar field.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "common/seed.hpp"
#include "gpu_test_util.hpp"
#include "snarkd/cuda/spmv.hpp"
#include "snarkd/r1cs/synthetic.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {
namespace {

using r1cs::Matrix;

void expect_matches_cpu(const r1cs::Circuit& c, std::span<const ff::Fr> w, const std::string& what) {
  for (Matrix m : {Matrix::A, Matrix::B, Matrix::C}) {
    std::vector<ff::Fr> want(c.num_constraints()), got(c.num_constraints());
    r1cs::evaluate(c, m, w, want);
    spmv_sync(c, m, w, got);
    EXPECT_EQ(got, want) << what << " matrix " << r1cs::matrix_name(m);
  }
}

TEST(CudaSpmv, SyntheticCircuitsMatchCpu) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng("cuda_spmv");
  for (uint64_t rows : {1ull, 31ull, 1000ull, (1ull << 16) + 1, 1ull << 20}) {
    r1cs::SyntheticParams p;
    p.num_constraints = rows;
    p.num_inputs = 1 + g() % 40;
    p.seed = g();
    const auto sc = r1cs::generate_synthetic(p);
    expect_matches_cpu(sc.circuit, sc.witness, "rows=" + std::to_string(rows));
  }
}

TEST(CudaSpmv, HandMadeEdgesAndPoisonedOutput) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng("cuda_spmv_edges");
  r1cs::Circuit c;
  c.num_inputs = 2;
  c.num_aux = 3;
  c.coeffs.push_back(ff::Fr::random(g));  // index 2
  c.coeffs.push_back(ff::Fr::from_u64(3));
  // Rows: empty; 1·w1 − w2 + d2·w4; w3 + w3 (repeated column); empty; d3·w0.
  c.a.row_ptr = {0, 0, 3, 5, 5, 6};
  c.a.col = {1, 2, 4, 3, 3, 0};
  c.a.coeff = {0, 1, 2, 0, 0, 3};
  c.b.row_ptr = c.c.row_ptr = {0, 0, 0, 0, 0, 0};
  ASSERT_FALSE(r1cs::find_structure_error(c).has_value());
  std::vector<ff::Fr> w = {ff::Fr::one(), ff::Fr::random(g), ff::Fr::random(g), ff::Fr::zero(), ff::Fr::random(g)};
  expect_matches_cpu(c, w, "hand-made");

  Stream s;
  auto rp = test::to_device<uint64_t>(c.a.row_ptr, s);
  auto col = test::to_device<uint32_t>(c.a.col, s);
  auto co = test::to_device<uint32_t>(c.a.coeff, s);
  auto dict = test::to_device<Fr>(c.coeffs, s);
  auto dw = test::to_device<Fr>(w, s);
  DeviceBuffer<Fr> out(5);
  out.fill_bytes(0xff, s);
  spmv({rp.data(), col.data(), co.data(), 5}, dict.data(), dw.data(), out.data(), s);
  const auto got = test::to_host<ff::Fr>(out, s);
  std::vector<ff::Fr> want(5);
  r1cs::evaluate(c, Matrix::A, w, want);
  EXPECT_EQ(got, want);
  EXPECT_TRUE(got[0].is_zero() && got[3].is_zero());
  std::vector<ff::Fr> small(4);
  EXPECT_THROW(spmv_sync(c, Matrix::A, w, small), InvalidArgument);
}

// BN254's scalar field (circom circuits): random rows of 0–12 terms with random dictionary
// coefficients, ±1 and repeated variables, against r1cs::evaluate.
TEST(CudaSpmv, Bn254RandomRowsMatchCpu) {
  SNARKD_SKIP_WITHOUT_GPU();
  using F = ff::bn254::Fr;
  auto g = snarkd::test::rng("cuda_spmv_bn254");
  for (uint64_t rows : {1ull, 777ull, (1ull << 15) + 5}) {
    r1cs::CircuitT<F> c;
    c.num_inputs = 3;
    c.num_aux = 500;
    r1cs::CoeffDictionaryT<F> dict;
    std::vector<F> w(c.num_vars());
    w[0] = F::one();
    for (size_t i = 1; i < w.size(); ++i) w[i] = g() % 3 == 0 ? F::from_u64(g() & 1) : F::random(g);
    for (uint64_t r = 0; r < rows; ++r)
      for (Matrix m : {Matrix::A, Matrix::B, Matrix::C}) {
        r1cs::CsrMatrix& mat = c.matrix(m);
        for (uint64_t t = 0, terms = g() % 13; t < terms; ++t) {
          mat.col.push_back(uint32_t(g() % c.num_vars()));
          const uint64_t kind = g() % 4;
          mat.coeff.push_back(kind == 0 ? r1cs::kCoeffOne : kind == 1 ? r1cs::kCoeffMinusOne : dict.intern(F::random(g)));
        }
        mat.row_ptr.push_back(mat.col.size());
      }
    c.coeffs = std::move(dict).take();
    ASSERT_FALSE(r1cs::find_structure_error(c).has_value());
    for (Matrix m : {Matrix::A, Matrix::B, Matrix::C}) {
      std::vector<F> want(rows), got(rows);
      r1cs::evaluate(c, m, w, want);
      spmv_sync(c, m, w, got);
      EXPECT_EQ(got, want) << "rows=" << rows << " matrix " << r1cs::matrix_name(m);
    }
  }
}

}  // namespace
}  // namespace snarkd::cuda
