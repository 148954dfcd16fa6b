// Proving keys + circuits the daemon serves, loaded from files named in the config ([[circuit]])
// or by PreloadKey: a bellperson .params with its circuit (circom .r1cs or snarkd CSR, told apart
// by their magic bytes; BLS12-381), or a snarkjs .zkey of either curve (its q says which), which
// carries its own A and B matrices.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "snarkd/groth16/any_curve.hpp"
#include "snarkd/r1cs/r1cs.hpp"
#include "snarkd/server/config.hpp"
#include "snarkd/server/digest.hpp"

namespace snarkd::server {

// The shape of a bound key that the daemon reads without knowing its curve (Submit's witness
// checks, Status, the cluster's claims).
struct KeyShape {
  groth16::CurveId curve = groth16::CurveId::kBls12_381;
  groth16::KeyFlavour flavour = groth16::KeyFlavour::kBellperson;
  uint64_t constraints = 0, num_vars = 0, num_inputs = 0;  // num_inputs counts ONE
  uint32_t log_domain = 0;
  // One partition's witness in memory (num_vars field elements of the curve's Fr).
  uint64_t witness_bytes() const;
};
KeyShape key_shape(const groth16::AnyBoundKey& key);

struct LoadedCircuit {
  CircuitSpec spec;
  groth16::AnyBoundKey key;  // BLS12-381 or BN254 (the zkey's curve)
  KeyShape shape;            // key_shape(key)
  double load_s = 0;
  bool from_config = false;
  Digest key_hash{};  // key_digest(): what cluster hosts match jobs to their loaded keys by
};

// The key's identity across hosts: SHA-256 over the curve, the verifying key (α, β, γ, δ, every
// IC point, uncompressed), the flavour, the domain and the circuit's dimensions. A proof made
// with a key verifies only under that key's vk, and δ comes from the setup's own randomness, so
// two hosts whose loaded keys have the same digest make interchangeable proofs — without hashing
// the tens of GB of a PoRep key's other points at every start. The curve is hashed only for
// curves other than BLS12-381, so BLS12-381 keys keep the digests of daemons from before BN254
// (hosts of a cluster upgraded one by one still claim each other's jobs).
template <class E>
Digest key_digest(const groth16::ProvingKeyT<E>& pk, const r1cs::CircuitT<typename E::Fr>& c);
Digest key_digest(const groth16::AnyBoundKey& key);

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
