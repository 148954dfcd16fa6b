// Rank-1 constraint systems in compressed sparse row (CSR) form.
//
// Variable layout (bellperson's): column 0 is ONE (the constant 1), columns 1 .. num_inputs−1
// are the public inputs, then num_aux auxiliary (private) variables. num_inputs COUNTS ONE, as
// bellperson's input_assignment does: a circuit with k public inputs has num_inputs = k + 1.
// A witness is the full vector w of num_inputs + num_aux values in that order, w[0] = 1.
//
// Constraint i holds when ⟨A_i, w⟩ · ⟨B_i, w⟩ = ⟨C_i, w⟩. Each matrix is CSR: row_ptr (u64 per
// row + 1), then per non-zero a u32 column and a u32 index into one coefficient dictionary
// shared by A, B and C. A PoRep partition has 722M non-zeros, almost all ±1 or small, so 8 bytes
// per non-zero instead of 36 (25.7 GiB → 5.4 GiB), and ±1 are recognised by index
// (kCoeffOne, kCoeffMinusOne) so evaluation adds or subtracts instead of multiplying.
//
// Density (which variables occur in A, in B): bellperson's ProvingAssignment tracks
// a_aux_density (aux variables in A), b_input_density and b_aux_density (inputs and aux in B)
// and nothing for C; a variable counts as soon as it appears in a term. It does not track inputs
// in A because its generator and prover both append one constraint "input_j · 0 = 0" per input
// (ONE included) after synthesis, so every input occurs in A and the A query over inputs is
// dense. Our bitmaps cover every column of the matrices as stored here, WITHOUT those appended
// rows: the Groth16 layer must append them (or treat inputs as present in A) to match
// bellperson's keys and QAP. Zero coefficients are never stored, so "occurs" = non-zero.
//
// Fields: a circuit is over the scalar field of the curve it is proved on. CircuitT<F> and the
// functions below are templates instantiated in r1cs.cpp for BLS12-381's ff::Fr (Circuit, what
// bellperson, the CSR file and the GPU prover use) and BN254's ff::bn254::Fr (circom's bn128);
// FieldTraits<F> says which curve a field belongs to, so a file's prime picks the curve.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include <type_traits>

#include "snarkd/ff/bn254.hpp"
#include "snarkd/ff/fr.hpp"

namespace snarkd::r1cs {

using ff::Fr;

// The curves snarkd proves over, named by their scalar field's role: circom's prime and
// snarkjs's q/r pick one (the CLI chooses the curve from the file, never from a flag).
enum class CurveId : uint8_t { kBls12_381, kBn254 };
const char* curve_name(CurveId c);  // "BLS12-381", "BN254"

// Per scalar field: its curve, and circom's --prime name for it (for messages about files).
template <class F>
struct FieldTraits;
template <>
struct FieldTraits<ff::Fr> {
  static constexpr CurveId kCurve = CurveId::kBls12_381;
  static constexpr const char* kCircomPrime = "bls12381";
};
template <>
struct FieldTraits<ff::bn254::Fr> {
  static constexpr CurveId kCurve = CurveId::kBn254;
  static constexpr const char* kCircomPrime = "bn128";
};

// Fixed dictionary slots: every dictionary starts with 1, −1.
inline constexpr uint32_t kCoeffOne = 0;
inline constexpr uint32_t kCoeffMinusOne = 1;
// Columns are u32, so at most 2^32 variables.
inline constexpr uint64_t kMaxVariables = uint64_t(1) << 32;

struct CsrMatrix {
  std::vector<uint64_t> row_ptr{0};  // num_rows + 1 offsets into col/coeff; row_ptr[0] = 0
  std::vector<uint32_t> col;         // column (variable) of each non-zero
  std::vector<uint32_t> coeff;       // dictionary index of each non-zero

  uint64_t num_rows() const { return row_ptr.size() - 1; }
  uint64_t nnz() const { return col.size(); }
};

enum class Matrix { A, B, C };
const char* matrix_name(Matrix m);  // "A", "B", "C" (for messages)

template <class F>
struct CircuitT {
  using Field = F;
  uint64_t num_inputs = 1;  // ONE + public inputs
  uint64_t num_aux = 0;
  CsrMatrix a, b, c;        // same number of rows: one per constraint
  std::vector<F> coeffs{F::one(), -F::one()};  // the dictionary; [0] = 1, [1] = −1

  uint64_t num_constraints() const { return a.num_rows(); }
  uint64_t num_vars() const { return num_inputs + num_aux; }
  const CsrMatrix& matrix(Matrix m) const { return m == Matrix::A ? a : m == Matrix::B ? b : c; }
  CsrMatrix& matrix(Matrix m) { return m == Matrix::A ? a : m == Matrix::B ? b : c; }
};
using Circuit = CircuitT<Fr>;

// A witness span whose field comes from the circuit argument (so vectors convert).
template <class F>
using Values = std::type_identity_t<std::span<const F>>;

// Builds a deduplicated dictionary: intern(v) returns v's index, adding it the first time.
// Keys are the Montgomery limbs, which are as canonical as the plain value (a bijection).
template <class F>
class CoeffDictionaryT {
 public:
  CoeffDictionaryT();  // holds 1 at kCoeffOne and −1 at kCoeffMinusOne
  uint32_t intern(const F& v);
  const std::vector<F>& values() const { return values_; }
  std::vector<F> take() && { return std::move(values_); }

 private:
  static_assert(F::N == 4, "the key holds four limbs");
  struct Key {
    uint64_t l[4];
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  std::vector<F> values_;
  std::unordered_map<Key, uint32_t, KeyHash> index_;
};
using CoeffDictionary = CoeffDictionaryT<Fr>;

// Witness entries are fetched this many non-zeros ahead: rows reach back to arbitrary earlier
// variables, and at PoRep size the witness (4 GiB) is far beyond any cache. Measured on a
// 2^20-row synthetic circuit (32 MiB witness): 25% less time per non-zero than no prefetch.
inline constexpr uint64_t kPrefetchDistance = 16;

// ⟨row r of m, w⟩ with ±1 coefficients done by addition/subtraction. The caller guarantees that
// columns index w and coefficient indices index dict (true for any validated circuit).
template <class F>
inline F dot_row(const CsrMatrix& m, const F* dict, const F* w, uint64_t r) {
  F acc = F::zero();
  const uint64_t nnz = m.col.size();
  for (uint64_t k = m.row_ptr[r], end = m.row_ptr[r + 1]; k < end; ++k) {
    if (k + kPrefetchDistance < nnz) __builtin_prefetch(&w[m.col[k + kPrefetchDistance]]);
    const F& x = w[m.col[k]];
    const uint32_t ci = m.coeff[k];
    if (ci == kCoeffOne) {
      acc += x;
    } else if (ci == kCoeffMinusOne) {
      acc -= x;
    } else {
      acc += dict[ci] * x;
    }
  }
  return acc;
}

// out = M·w for M = A, B or C. witness.size() must be num_vars and out.size() num_constraints
// (InvalidArgument otherwise). Parallel over row ranges of equal work (non-zeros + rows).
template <class F>
void evaluate(const CircuitT<F>& circuit, Matrix m, Values<F> witness, std::type_identity_t<std::span<F>> out);

// The first row i with (A·w)_i · (B·w)_i ≠ (C·w)_i, or none. InvalidArgument if witness.size()
// is not num_vars (the ONE at index 0 is the entry points' check: groth16/bound_key.hpp).
template <class F>
std::optional<uint64_t> first_unsatisfied(const CircuitT<F>& circuit, Values<F> witness);

// One bit per variable: set when the variable has a non-zero coefficient in some row.
struct DensityBitmap {
  std::vector<uint64_t> words;
  uint64_t num_bits = 0;

  bool test(uint64_t i) const { return (words[i / 64] >> (i % 64)) & 1; }
  uint64_t count(uint64_t begin, uint64_t end) const;  // set bits in [begin, end)
};
// Density of A or B (C has none in Groth16: its query is not split by density).
template <class F>
DensityBitmap density(const CircuitT<F>& circuit, Matrix m);
// The variables set in d, ascending (u32: columns are u32, kMaxVariables): a density query's
// index list; empty for an empty bitmap (a full query).
std::vector<uint32_t> density_indices(const DensityBitmap& d);

// Checks every structural invariant: num_inputs ≥ 1, num_vars ≤ 2^32, equal row counts,
// row_ptr starting at 0, monotone and ending at nnz, col/coeff of equal length, columns <
// num_vars, coefficient indices < dictionary size, dictionary [0] = 1, [1] = −1, entries
// distinct. Returns a description of the first violation ("row_ptr of A is not monotone at
// row 17"), or none. Readers prefix the file name and throw DecodeError.
template <class F>
std::optional<std::string> find_structure_error(const CircuitT<F>& circuit);

// Instantiated in r1cs.cpp for each field.
#define SNARKD_R1CS_DECLARE(F)                                                                           \
  extern template class CoeffDictionaryT<F>;                                                            \
  extern template void evaluate<F>(const CircuitT<F>&, Matrix, Values<F>, std::type_identity_t<std::span<F>>); \
  extern template std::optional<uint64_t> first_unsatisfied<F>(const CircuitT<F>&, Values<F>);          \
  extern template DensityBitmap density<F>(const CircuitT<F>&, Matrix);                                  \
  extern template std::optional<std::string> find_structure_error<F>(const CircuitT<F>&);
SNARKD_R1CS_DECLARE(ff::Fr)
SNARKD_R1CS_DECLARE(ff::bn254::Fr)
#undef SNARKD_R1CS_DECLARE

}  // namespace snarkd::r1cs
