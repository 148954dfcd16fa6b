// Tests hold keys and circuits apart (to break one of them); the provers take the pair bound
// (groth16/bound_key.hpp). bind() binds copies, so the test's own key and circuit stay as they are.
#pragma once
#include <memory>

#include "snarkd/groth16/bound_key.hpp"

namespace snarkd::test {

inline std::shared_ptr<const groth16::BoundKey> bind(const groth16::ProvingKey& pk, const r1cs::Circuit& circuit) {
  return groth16::BoundKey::bind(pk, circuit);
}

}  // namespace snarkd::test
