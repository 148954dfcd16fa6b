// Reading the CLI's inputs by content (file_kind.hpp), each with a message naming the file when
// it is not what the option asks for.
#pragma once
#include <string>
#include <vector>

#include "snarkd/ff/fr.hpp"
#include "snarkd/groth16/keys.hpp"
#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::cli {

// A circom .r1cs or a snarkd CSR file.
r1cs::Circuit load_circuit(const std::string& path);
// A .wtns whose size fits the circuit (circuit_path names it in the message) and whose value 0 is 1.
std::vector<ff::Fr> load_witness(const std::string& path, const r1cs::Circuit& circuit,
                                 const std::string& circuit_path);
// verification_key.json, a bellperson .vk or .params, or a .zkey: of a .zkey only the vk is read
// (its header and IC sections), which a note on stderr says.
groth16::VerifyingKey load_vk(const std::string& path);
// proof.json (one proof) or a file of 192-byte bellperson proofs.
std::vector<groth16::Proof> load_proofs(const std::string& path);
// public.json (publics_from_json's two shapes).
std::vector<std::vector<ff::Fr>> load_publics(const std::string& path);

}  // namespace snarkd::cli
