// Tests hold keys and circuits apart (to break one of them); the provers take the pair bound
// (groth16/bound_key.hpp). bind() binds copies, so the test's own key and circuit stay as they are.
#pragma once
#include <memory>

#include "snarkd/groth16/bound_key.hpp"

namespace snarkd::test {

template <class E>
std::shared_ptr<const groth16::BoundKeyT<E>> bind(const groth16::ProvingKeyT<E>& pk,
                                                  const r1cs::CircuitT<typename E::Fr>& circuit) {
  return groth16::BoundKeyT<E>::bind(pk, circuit);
}

}  // namespace snarkd::test
