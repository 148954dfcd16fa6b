// Reading the CLI's inputs by content (file_kind.hpp), each with a message naming the file when
// it is not what the option asks for. Templates over the curve E (groth16/curve.hpp), which the
// commands take from the key file (key_curve); without an argument, BLS12-381.
#pragma once
#include <string>
#include <vector>

#include "snarkd/groth16/curve.hpp"
#include "snarkd/groth16/keys.hpp"
#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::cli {

// A circom .r1cs or (BLS12-381 only) a snarkd CSR file, over F.
template <class F = ff::Fr>
r1cs::CircuitT<F> load_circuit(const std::string& path);
// A .wtns over F whose size fits the circuit (circuit_path names it in the message) and whose
// value 0 is 1.
template <class F = ff::Fr>
std::vector<F> load_witness(const std::string& path, const r1cs::CircuitT<F>& circuit, const std::string& circuit_path);
// The curve of a verifying or proving key: a snarkjs JSON's "curve", a .zkey's q; bellperson
// files are BLS12-381's.
groth16::CurveId key_curve(const std::string& path);
// verification_key.json, a bellperson .vk or .params, or a .zkey: of a .zkey only the vk is read
// (its header and IC sections), which a note on stderr says.
template <class E = groth16::Bls12_381>
groth16::VerifyingKeyT<E> load_vk(const std::string& path);
// proof.json (one proof) or a file of 192-byte bellperson proofs (BLS12-381).
template <class E = groth16::Bls12_381>
std::vector<groth16::ProofT<E>> load_proofs(const std::string& path);
// public.json (publics_from_json's two shapes).
template <class E = groth16::Bls12_381>
std::vector<std::vector<typename E::Fr>> load_publics(const std::string& path);

}  // namespace snarkd::cli
