// Small gadgets over CircuitBuilder: booleans, bit logic, packing, arithmetic, comparison.
// Inputs called "bits" must already be constrained to {0, 1} (alloc_bit, and_bits, xor_bits,
// not_bit of those); outputs are constrained by the gadget. Each gadget computes its witness
// from the values of its inputs, so an honest build always satisfies the circuit. Constraint
// counts are listed because tests locate failing rows by them.
#pragma once
#include <cstddef>
#include <span>
#include <vector>

#include "snarkd/r1cs/builder.hpp"

namespace snarkd::r1cs::gadgets {

// Most bits a packed number may have: 2^254 − 1 < r, so Σ 2^i b_i never wraps and unpacking
// is unique.
inline constexpr size_t kMaxPackedBits = Fr::kBits - 1;

// New aux bit: 1 constraint, b·(1 − b) = 0.
Variable alloc_bit(CircuitBuilder& cb, bool value);
// x ∧ y: 1 constraint, x·y = z.
Variable and_bits(CircuitBuilder& cb, const LinearCombination& x, const LinearCombination& y);
// x ⊕ y = x + y − 2xy: 1 constraint, (2x)·y = x + y − z.
Variable xor_bits(CircuitBuilder& cb, const LinearCombination& x, const LinearCombination& y);
// ¬x = 1 − x: no constraint, no variable.
LinearCombination not_bit(const LinearCombination& x);

// n = Σ 2^i bits[i] (bits[0] least significant): 1 constraint, (Σ 2^i b_i)·1 = n.
// InvalidArgument for more than kMaxPackedBits bits.
Variable pack_bits(CircuitBuilder& cb, std::span<const LinearCombination> bits);
// The low num_bits bits of x's value: num_bits alloc_bit constraints, then (Σ 2^i b_i)·1 = x.
// If x does not fit in num_bits bits, the witness fails that last row (no honest one exists).
std::vector<Variable> unpack_bits(CircuitBuilder& cb, const LinearCombination& x, size_t num_bits);

// x·y: 1 constraint.
Variable mul(CircuitBuilder& cb, const LinearCombination& x, const LinearCombination& y);
// x = y: 1 constraint, (x − y)·1 = 0.
void enforce_equal(CircuitBuilder& cb, const LinearCombination& x, const LinearCombination& y);
// Bit e = [x == y] with d = x − y and an aux inv (d⁻¹, or 0 when d = 0): 2 constraints,
// d·inv = 1 − e (so e = 1 forces d·inv = 0) and d·e = 0 (so e = 1 forces d = 0); when d ≠ 0
// the first with e = 0 needs inv = d⁻¹, which exists.
Variable is_equal(CircuitBuilder& cb, const LinearCombination& x, const LinearCombination& y);
// cond ? x : y for a bit cond: 1 constraint, cond·(x − y) = r − y.
Variable select(CircuitBuilder& cb, const LinearCombination& cond, const LinearCombination& x,
                const LinearCombination& y);

}  // namespace snarkd::r1cs::gadgets
