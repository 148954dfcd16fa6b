// A family of small circuits for engine tests: one R1CS, many witnesses. The circuit iterates
// y ← y² + x from the public input x, mixes in bits of x (so the witness has 0/1 values for the
// split MSM paths), and exposes the last y as a second public input. A different x gives a
// different valid witness for the same circuit — so a partition proven with another
// partition's witness (or another job's) fails verification against its own public inputs.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "snarkd/groth16/any_curve.hpp"
#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/r1cs/builder.hpp"
#include "snarkd/r1cs/gadgets.hpp"

namespace snarkd::test {

inline r1cs::Synthesized family_member(uint64_t x, size_t steps) {
  using r1cs::LinearCombination;
  r1cs::CircuitBuilder cb;
  const r1cs::Variable xin = cb.allocate_input(ff::Fr::from_u64(x));
  LinearCombination y = xin;
  std::vector<r1cs::Variable> bits = r1cs::gadgets::unpack_bits(cb, xin, 16);
  for (size_t i = 0; i < steps; ++i) {
    const r1cs::Variable sq = r1cs::gadgets::mul(cb, y, y);
    LinearCombination next = LinearCombination(sq) + LinearCombination(xin);
    const r1cs::Variable mixed = r1cs::gadgets::xor_bits(cb, bits[i % 16], bits[(i + 5) % 16]);
    next += LinearCombination(mixed);
    const r1cs::Variable v = cb.allocate_aux(cb.value(next));
    cb.enforce(next, LinearCombination::constant(ff::Fr::one()), v);
    y = v;
  }
  const r1cs::Variable out = cb.allocate_input(cb.value(y));
  r1cs::gadgets::enforce_equal(cb, y, out);
  return std::move(cb).finish();
}

struct Family {
  std::shared_ptr<const groth16::BoundKey> key;
  std::shared_ptr<const r1cs::Circuit> circuit;   // key->shared_circuit()
  std::shared_ptr<const groth16::ProvingKey> pk;  // key->shared_pk()
  size_t steps = 0;
  std::vector<ff::Fr> witness(uint64_t x) const { return family_member(x, steps).witness; }
};

inline Family make_family(size_t steps, uint64_t toxic_seed) {
  Family f;
  f.steps = steps;
  r1cs::Synthesized s = family_member(12345, steps);
  groth16::ProvingKey pk = groth16::setup_insecure(s.circuit, groth16::toxic_waste_from_seed(toxic_seed));
  f.key = groth16::BoundKey::bind(std::move(pk), std::move(s.circuit));
  f.circuit = f.key->shared_circuit();
  f.pk = f.key->shared_pk();
  return f;
}

// The BLS12-381 alternative of an engine value (the family's curve): std::bad_variant_access,
// which fails the test, if a BN254 value came back.
inline std::vector<ff::Fr>& bls(groth16::AnyScalars& s) { return std::get<std::vector<ff::Fr>>(s); }
inline const std::vector<ff::Fr>& bls(const groth16::AnyScalars& s) { return std::get<std::vector<ff::Fr>>(s); }
inline const groth16::Proof& bls(const groth16::AnyProof& p) { return std::get<groth16::Proof>(p); }
inline const groth16::ProofRandomness& bls(const groth16::AnyRandomness& r) {
  return std::get<groth16::ProofRandomness>(r);
}
template <class T>
auto bls_all(const std::vector<T>& v) {
  std::vector<std::decay_t<decltype(bls(v[0]))>> out;
  for (const T& x : v) out.push_back(bls(x));
  return out;
}

}  // namespace snarkd::test
