#include "snarkd/r1cs/builder.hpp"

#include <algorithm>
#include <utility>

#include "snarkd/util/error.hpp"

namespace snarkd::r1cs {

LinearCombination LinearCombination::constant(const Fr& c) {
  LinearCombination lc;
  lc.add_term(Variable::one(), c);
  return lc;
}

LinearCombination& LinearCombination::add_term(Variable v, const Fr& c) {
  terms_.push_back({v, c});
  return *this;
}

LinearCombination& LinearCombination::operator+=(const LinearCombination& o) {
  terms_.insert(terms_.end(), o.terms_.begin(), o.terms_.end());
  return *this;
}

LinearCombination& LinearCombination::operator-=(const LinearCombination& o) {
  for (const Term& t : o.terms_) terms_.push_back({t.var, -t.coeff});
  return *this;
}

LinearCombination& LinearCombination::operator*=(const Fr& s) {
  for (Term& t : terms_) t.coeff *= s;
  return *this;
}

CircuitBuilder::CircuitBuilder() : inputs_{Fr::one()} {}

Variable CircuitBuilder::allocate_input(const Fr& value) {
  if (inputs_.size() > Variable::kMaxIndex) throw InvalidArgument("CircuitBuilder: too many inputs");
  inputs_.push_back(value);
  return Variable::input(uint32_t(inputs_.size() - 1));
}

Variable CircuitBuilder::allocate_aux(const Fr& value) {
  if (aux_.size() > Variable::kMaxIndex) throw InvalidArgument("CircuitBuilder: too many aux variables");
  aux_.push_back(value);
  return Variable::aux(uint32_t(aux_.size() - 1));
}

Fr CircuitBuilder::value(const LinearCombination& lc) const {
  Fr acc = Fr::zero();
  for (const Term& t : lc.terms()) acc += t.coeff * value(t.var);
  return acc;
}

uint64_t CircuitBuilder::enforce(const LinearCombination& a, const LinearCombination& b,
                                 const LinearCombination& c) {
  record(a_, a);
  record(b_, b);
  record(c_, c);
  return a_.num_rows() - 1;
}

void CircuitBuilder::record(CsrMatrix& m, const LinearCombination& lc) {
  // Sort by variable, sum the coefficients of equal variables, keep the non-zero sums.
  scratch_.assign(lc.terms().begin(), lc.terms().end());
  std::sort(scratch_.begin(), scratch_.end(),
            [](const Term& x, const Term& y) { return x.var < y.var; });
  for (size_t i = 0; i < scratch_.size();) {
    Fr sum = Fr::zero();
    size_t j = i;
    for (; j < scratch_.size() && scratch_[j].var == scratch_[i].var; ++j) sum += scratch_[j].coeff;
    if (!sum.is_zero()) {
      m.col.push_back(scratch_[i].var.tagged_);
      m.coeff.push_back(dict_.intern(sum));
    }
    i = j;
  }
  m.row_ptr.push_back(m.col.size());
}

Synthesized CircuitBuilder::finish() && {
  Synthesized out;
  Circuit& c = out.circuit;
  c.num_inputs = inputs_.size();
  c.num_aux = aux_.size();
  if (c.num_vars() > kMaxVariables) throw InvalidArgument("CircuitBuilder: more than 2^32 variables");
  for (CsrMatrix* m : {&a_, &b_, &c_})
    for (uint32_t& col : m->col)
      if (col & Variable::kAuxTag) col = uint32_t(c.num_inputs + (col & ~Variable::kAuxTag));
  c.a = std::move(a_);
  c.b = std::move(b_);
  c.c = std::move(c_);
  c.coeffs = std::move(dict_).take();
  out.witness = std::move(inputs_);
  out.witness.insert(out.witness.end(), aux_.begin(), aux_.end());
  *this = CircuitBuilder();
  return out;
}

}  // namespace snarkd::r1cs
