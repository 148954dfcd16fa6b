#include "snarkd/r1cs/gadgets.hpp"

#include <string>

#include "snarkd/util/error.hpp"

namespace snarkd::r1cs::gadgets {

namespace {

LinearCombination one() { return LinearCombination(Variable::one()); }

// Σ 2^i bits[i]; the caller has checked the count.
LinearCombination weighted_sum(std::span<const LinearCombination> bits) {
  LinearCombination sum;
  Fr weight = Fr::one();
  for (const LinearCombination& b : bits) {
    sum += b * weight;
    weight = weight.dbl();
  }
  return sum;
}

void check_bit_count(size_t n, const char* who) {
  if (n > kMaxPackedBits)
    throw InvalidArgument(std::string(who) + ": " + std::to_string(n) + " bits exceed " +
                          std::to_string(kMaxPackedBits));
}

}  // namespace

Variable alloc_bit(CircuitBuilder& cb, bool value) {
  Variable b = cb.allocate_aux(value ? Fr::one() : Fr::zero());
  cb.enforce(b, one() - b, LinearCombination());
  return b;
}

// For bits, AND is the product.
Variable and_bits(CircuitBuilder& cb, const LinearCombination& x, const LinearCombination& y) {
  return mul(cb, x, y);
}

Variable xor_bits(CircuitBuilder& cb, const LinearCombination& x, const LinearCombination& y) {
  const Fr vx = cb.value(x), vy = cb.value(y);
  Variable z = cb.allocate_aux(vx + vy - (vx * vy).dbl());
  cb.enforce(x * Fr::from_u64(2), y, x + y - z);
  return z;
}

LinearCombination not_bit(const LinearCombination& x) { return one() - x; }

Variable pack_bits(CircuitBuilder& cb, std::span<const LinearCombination> bits) {
  check_bit_count(bits.size(), "pack_bits");
  LinearCombination sum = weighted_sum(bits);
  Variable n = cb.allocate_aux(cb.value(sum));
  cb.enforce(sum, one(), n);
  return n;
}

std::vector<Variable> unpack_bits(CircuitBuilder& cb, const LinearCombination& x, size_t num_bits) {
  check_bit_count(num_bits, "unpack_bits");
  const ff::BigInt<4> v = cb.value(x).to_repr();
  std::vector<Variable> bits;
  std::vector<LinearCombination> lcs;
  for (size_t i = 0; i < num_bits; ++i) {
    bits.push_back(alloc_bit(cb, v.bit(i)));
    lcs.emplace_back(bits.back());
  }
  cb.enforce(weighted_sum(lcs), one(), x);
  return bits;
}

Variable mul(CircuitBuilder& cb, const LinearCombination& x, const LinearCombination& y) {
  Variable z = cb.allocate_aux(cb.value(x) * cb.value(y));
  cb.enforce(x, y, z);
  return z;
}

void enforce_equal(CircuitBuilder& cb, const LinearCombination& x, const LinearCombination& y) {
  cb.enforce(x - y, one(), LinearCombination());
}

Variable is_equal(CircuitBuilder& cb, const LinearCombination& x, const LinearCombination& y) {
  const LinearCombination d = x - y;
  const Fr vd = cb.value(d);
  Variable inv = cb.allocate_aux(vd.inverse());  // inverse(0) = 0
  Variable e = cb.allocate_aux(vd.is_zero() ? Fr::one() : Fr::zero());
  cb.enforce(d, inv, one() - e);
  cb.enforce(d, e, LinearCombination());
  return e;
}

Variable select(CircuitBuilder& cb, const LinearCombination& cond, const LinearCombination& x,
                const LinearCombination& y) {
  const Fr vy = cb.value(y);
  Variable r = cb.allocate_aux(vy + cb.value(cond) * (cb.value(x) - vy));
  cb.enforce(cond, x - y, r - y);
  return r;
}

}  // namespace snarkd::r1cs::gadgets
