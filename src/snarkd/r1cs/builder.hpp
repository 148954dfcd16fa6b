// Building circuits by hand (tests, small gadgets, fixtures): allocate variables with their
// values, enforce constraints between linear combinations, and get the CSR Circuit plus the
// witness at the end. Bellperson's ConstraintSystem in miniature; big synthetic circuits skip
// this and write the CSR directly (synthetic.hpp).
//
// Inputs and aux variables are numbered separately while the circuit grows (bellperson's
// Index::Input / Index::Aux), because inputs may be allocated after aux; finish() places them
// as [ONE, inputs…, aux…] (r1cs.hpp) and Synthesized::column() maps a Variable to its column.
#pragma once
#include <compare>
#include <cstdint>
#include <vector>

#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::r1cs {

class Variable {
 public:
  static Variable one() { return Variable(0); }
  static Variable input(uint32_t i) { return Variable(i); }  // input 0 is ONE
  static Variable aux(uint32_t i) { return Variable(kAuxTag | i); }
  bool is_input() const { return (tagged_ & kAuxTag) == 0; }
  uint32_t index() const { return tagged_ & ~kAuxTag; }  // within its kind
  // Inputs order before aux, each by index: the order of the final columns.
  auto operator<=>(const Variable&) const = default;

  static constexpr uint32_t kMaxIndex = (uint32_t(1) << 31) - 1;

 private:
  friend class CircuitBuilder;  // stores the tagged form as a column until finish()
  static constexpr uint32_t kAuxTag = uint32_t(1) << 31;
  explicit Variable(uint32_t tagged) : tagged_(tagged) {}
  uint32_t tagged_;
};

struct Term {
  Variable var;
  Fr coeff;
};

// Σ coeff·var. Terms are kept as written (duplicates, zeros); enforce() normalises them.
class LinearCombination {
 public:
  LinearCombination() = default;
  LinearCombination(Variable v) { terms_.push_back({v, Fr::one()}); }  // NOLINT: implicit on purpose
  static LinearCombination constant(const Fr& c);                       // c·ONE

  LinearCombination& add_term(Variable v, const Fr& c);
  LinearCombination& operator+=(const LinearCombination& o);
  LinearCombination& operator-=(const LinearCombination& o);
  LinearCombination& operator*=(const Fr& s);
  friend LinearCombination operator+(LinearCombination x, const LinearCombination& y) { return x += y; }
  friend LinearCombination operator-(LinearCombination x, const LinearCombination& y) { return x -= y; }
  friend LinearCombination operator*(LinearCombination x, const Fr& s) { return x *= s; }
  friend LinearCombination operator*(const Fr& s, LinearCombination x) { return x *= s; }

  const std::vector<Term>& terms() const { return terms_; }

 private:
  std::vector<Term> terms_;
};

// The result of a build: the circuit, its witness [ONE, inputs…, aux…] and the column map.
struct Synthesized {
  Circuit circuit;
  std::vector<Fr> witness;
  uint64_t column(Variable v) const { return v.is_input() ? v.index() : circuit.num_inputs + v.index(); }
};

class CircuitBuilder {
 public:
  CircuitBuilder();

  Variable allocate_input(const Fr& value);
  Variable allocate_aux(const Fr& value);
  // Records a·b = c as the next row (returned) after merging repeated variables in each
  // combination and dropping zero coefficients. The values are not checked here: a wrong
  // witness is what first_unsatisfied() finds.
  uint64_t enforce(const LinearCombination& a, const LinearCombination& b, const LinearCombination& c);

  Fr value(Variable v) const { return v.is_input() ? inputs_[v.index()] : aux_[v.index()]; }
  Fr value(const LinearCombination& lc) const;
  uint64_t num_constraints() const { return a_.num_rows(); }

  // Lays out the columns and hands over circuit and witness; the builder is empty afterwards.
  Synthesized finish() &&;

 private:
  void record(CsrMatrix& m, const LinearCombination& lc);

  std::vector<Fr> inputs_;  // [0] = 1 (ONE)
  std::vector<Fr> aux_;
  // Columns hold the Variable encoding (aux tagged by the top bit) until finish() places them.
  CsrMatrix a_, b_, c_;
  CoeffDictionary dict_;
  std::vector<Term> scratch_;  // reused by record() to sort and merge terms
};

}  // namespace snarkd::r1cs
