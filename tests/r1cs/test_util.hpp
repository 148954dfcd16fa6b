// Helpers shared by the r1cs tests: random circuits built independently of the generator under
// test, a dense reference evaluation, temporary files and byte-level file editing.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::r1cs::test {

// One non-zero of a matrix as a triplet; rows may repeat a column (the CSR allows it).
struct Triplet {
  uint64_t row, col;
  Fr value;
};

// Coefficients as circuits have them: mostly ±1, some small, some arbitrary.
inline Fr random_coeff(std::mt19937_64& g) {
  switch (g() % 4) {
    case 0: return Fr::one();
    case 1: return -Fr::one();
    case 2: return Fr::from_i64(int64_t(g() % 17) - 8);  // may be 0: a stored zero is legal
    default: return Fr::random(g);
  }
}

inline std::vector<Triplet> random_triplets(std::mt19937_64& g, uint64_t rows, uint64_t vars, double per_row) {
  std::vector<Triplet> t;
  for (uint64_t r = 0; r < rows; ++r) {
    const uint64_t n = g() % uint64_t(2 * per_row + 1);  // includes empty rows
    for (uint64_t k = 0; k < n; ++k) t.push_back({r, g() % vars, random_coeff(g)});
  }
  return t;
}

inline CsrMatrix to_csr(const std::vector<Triplet>& t, uint64_t rows, CoeffDictionary& dict) {
  CsrMatrix m;
  size_t k = 0;
  for (uint64_t r = 0; r < rows; ++r) {
    for (; k < t.size() && t[k].row == r; ++k) {
      m.col.push_back(uint32_t(t[k].col));
      m.coeff.push_back(dict.intern(t[k].value));
    }
    m.row_ptr.push_back(m.col.size());
  }
  return m;
}

// A random circuit (not satisfiable in general) and the triplets of A, B, C it was built from.
struct RandomCircuit {
  Circuit circuit;
  std::vector<Triplet> t[3];
};

inline RandomCircuit random_circuit(std::mt19937_64& g, uint64_t rows, uint64_t inputs, uint64_t aux) {
  RandomCircuit rc;
  rc.circuit.num_inputs = inputs;
  rc.circuit.num_aux = aux;
  CoeffDictionary dict;
  for (int m = 0; m < 3; ++m) {
    rc.t[m] = random_triplets(g, rows, inputs + aux, 2.5);
    rc.circuit.matrix(Matrix(m)) = to_csr(rc.t[m], rows, dict);
  }
  rc.circuit.coeffs = dict.values();
  return rc;
}

inline std::vector<Fr> random_witness(std::mt19937_64& g, uint64_t vars) {
  std::vector<Fr> w(vars);
  w[0] = Fr::one();
  for (uint64_t i = 1; i < vars; ++i) w[i] = g() % 3 == 0 ? Fr::from_u64(g() % 2) : Fr::random(g);
  return w;
}

// Dense reference: out[r] = Σ_c M[r][c]·w[c], with a plain product for every coefficient.
inline std::vector<Fr> dense_eval(const std::vector<Triplet>& t, uint64_t rows, uint64_t vars,
                                  const std::vector<Fr>& w) {
  std::vector<std::vector<Fr>> dense(rows, std::vector<Fr>(vars, Fr::zero()));
  for (const Triplet& x : t) dense[x.row][x.col] += x.value;
  std::vector<Fr> out(rows, Fr::zero());
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t c = 0; c < vars; ++c) out[r] += dense[r][c] * w[c];
  return out;
}

// Row r of matrix m as sorted (column, canonical value) pairs with repeats merged and zeros
// dropped: equal for circuits that are the same constraint system in different encodings.
inline std::vector<std::pair<uint32_t, ff::BigInt<4>>> canonical_row(const Circuit& c, Matrix m, uint64_t r) {
  const CsrMatrix& x = c.matrix(m);
  std::vector<std::pair<uint32_t, Fr>> terms;
  for (uint64_t k = x.row_ptr[r]; k < x.row_ptr[r + 1]; ++k) terms.emplace_back(x.col[k], c.coeffs[x.coeff[k]]);
  std::sort(terms.begin(), terms.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<uint32_t, ff::BigInt<4>>> out;
  for (size_t i = 0; i < terms.size();) {
    Fr sum = Fr::zero();
    size_t j = i;
    for (; j < terms.size() && terms[j].first == terms[i].first; ++j) sum += terms[j].second;
    if (!sum.is_zero()) out.emplace_back(terms[i].first, sum.to_repr());
    i = j;
  }
  return out;
}

inline void expect_same_system(const Circuit& x, const Circuit& y) {
  ASSERT_EQ(x.num_inputs, y.num_inputs);
  ASSERT_EQ(x.num_aux, y.num_aux);
  ASSERT_EQ(x.num_constraints(), y.num_constraints());
  for (Matrix m : {Matrix::A, Matrix::B, Matrix::C})
    for (uint64_t r = 0; r < x.num_constraints(); ++r)
      ASSERT_EQ(canonical_row(x, m, r), canonical_row(y, m, r)) << matrix_name(m) << " row " << r;
}

inline void expect_identical(const Circuit& x, const Circuit& y) {
  EXPECT_EQ(x.num_inputs, y.num_inputs);
  EXPECT_EQ(x.num_aux, y.num_aux);
  EXPECT_TRUE(x.coeffs == y.coeffs);
  for (Matrix m : {Matrix::A, Matrix::B, Matrix::C}) {
    EXPECT_EQ(x.matrix(m).row_ptr, y.matrix(m).row_ptr) << matrix_name(m);
    EXPECT_EQ(x.matrix(m).col, y.matrix(m).col) << matrix_name(m);
    EXPECT_EQ(x.matrix(m).coeff, y.matrix(m).coeff) << matrix_name(m);
  }
}

// A file path in a per-process temporary directory, removed by the destructor.
class TempFile {
 public:
  explicit TempFile(const std::string& name) {
    dir_ = std::filesystem::temp_directory_path() / ("snarkd_r1cs_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / name).string();
  }
  ~TempFile() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
    std::filesystem::remove(dir_, ec);  // succeeds once the last file of the process is gone
  }
  const std::string& path() const { return path_; }

 private:
  std::filesystem::path dir_;
  std::string path_;
};

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

inline void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

template <class T>
T load_le(const std::vector<uint8_t>& b, size_t off) {
  T v;
  std::memcpy(&v, &b[off], sizeof v);
  return v;
}
template <class T>
void store_le(std::vector<uint8_t>& b, size_t off, T v) {
  std::memcpy(&b[off], &v, sizeof v);
}

}  // namespace snarkd::r1cs::test
