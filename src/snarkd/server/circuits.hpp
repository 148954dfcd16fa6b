// Proving keys + circuits the daemon serves, loaded from files named in the config ([[circuit]])
// or by PreloadKey: a bellperson .params with its circuit (circom .r1cs or snarkd CSR, told apart
// by their magic bytes), or a snarkjs .zkey, which carries its own A and B matrices.
#pragma once
#include <memory>
#include <string>

#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/r1cs/r1cs.hpp"
#include "snarkd/server/config.hpp"
#include "snarkd/server/digest.hpp"

namespace snarkd::server {

struct LoadedCircuit {
  CircuitSpec spec;
  std::shared_ptr<const groth16::BoundKey> key;
  double load_s = 0;
  bool from_config = false;
  Digest key_hash{};  // key_digest(): what cluster hosts match jobs to their loaded keys by
};

// The key's identity across hosts: SHA-256 over the verifying key (α, β, γ, δ, every IC point,
// uncompressed), the flavour, the domain and the circuit's dimensions. A proof made with a key
// verifies only under that key's vk, and δ comes from the setup's own randomness, so two hosts
// whose loaded keys have the same digest make interchangeable proofs — without hashing the
// tens of GB of a PoRep key's other points at every start.
Digest key_digest(const groth16::ProvingKey& pk, const r1cs::Circuit& c);

// Throws InvalidArgument / DecodeError naming the file and what is wrong. PointCheck::kTrusted
// unless spec.check_key (the engine's self-check still refuses a proof from a corrupt key).
LoadedCircuit load_circuit_files(const CircuitSpec& spec);

// Every file the spec names exists, is a regular file and is readable (stat + access: a FIFO
// does not block the check). Throws InvalidArgument naming the circuit, the file and why.
// load_circuit_files starts with it; `snarkd serve --check` runs it for every [[circuit]].
void check_circuit_files(const CircuitSpec& spec);

// "bellperson params /k.params + circuit /c.r1cs" or "snarkjs zkey /k.zkey".
std::string describe_source(const CircuitSpec& spec);

}  // namespace snarkd::server
