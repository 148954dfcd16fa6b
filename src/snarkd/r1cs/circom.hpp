// circom's .r1cs and .wtns files (iden3 binfile container): 4-byte magic ("r1cs" / "wtns"),
// u32 version, u32 nSections, then sections of u32 type, u64 size, payload, in any order; all
// little-endian. Field elements are n8 = 32 plain (NOT Montgomery) little-endian bytes and must
// be below the prime, which must be BLS12-381's r (circom --prime bls12381).
//
// .r1cs (version 1): type 1 header (u32 n8, prime, u32 nWires, u32 nPubOut, u32 nPubIn,
// u32 nPrvIn, u64 nLabels, u32 mConstraints); type 2 constraints (per constraint the LCs A, B,
// C, each u32 nTerms then nTerms × (u32 wire, n8-byte coefficient)); type 3 wire → label map
// (nWires × u64, optional); types 4/5 (custom gates, PLONK only) are rejected, others skipped.
// .wtns (version 2): type 1 header (u32 n8, prime, u32 nWitness); type 2 nWitness values.
//
// Wires map to columns one to one: wire 0 is ONE, then the public outputs, the public inputs
// (circom's public signals are outputs then inputs), then private inputs and intermediate
// signals. So num_inputs = 1 + nPubOut + nPubIn and num_aux = nWires − num_inputs, and a .wtns
// witness is already in our column order.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::r1cs {

// What a .r1cs header says beyond our Circuit.
struct CircomR1csInfo {
  uint32_t n_pub_out = 0;
  uint32_t n_pub_in = 0;
  uint32_t n_prv_in = 0;  // private inputs among the aux columns (the rest are intermediates)
  uint64_t n_labels = 0;
  std::vector<uint64_t> wire_to_label;  // read: empty if the file has no map section
};

struct CircomR1cs {
  Circuit circuit;
  CircomR1csInfo info;
};

// Readers throw DecodeError("<path>: <what is wrong>"). Each LC is normalised on the way in:
// repeated wires merged, zero coefficients dropped.
CircomR1cs read_circom_r1cs(const std::string& path);
std::vector<Fr> read_wtns(const std::string& path);
// A .wtns already in memory (the daemon's inline witnesses); errors name `name` as the path.
std::vector<Fr> parse_wtns(std::span<const uint8_t> bytes, const std::string& name);

// Writers (fixtures, tests, export). The r1cs writer needs 1 + n_pub_out + n_pub_in =
// num_inputs and n_prv_in ≤ num_aux; it writes info.wire_to_label, or the identity map when
// that is empty. Throws InvalidArgument for a circuit circom cannot express, std::runtime_error
// on I/O errors.
void write_circom_r1cs(const std::string& path, const Circuit& circuit, const CircomR1csInfo& info);
void write_wtns(const std::string& path, std::span<const Fr> witness);

}  // namespace snarkd::r1cs
