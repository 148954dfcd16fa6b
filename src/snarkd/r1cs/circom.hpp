// circom's .r1cs and .wtns files (iden3 binfile container): 4-byte magic ("r1cs" / "wtns"),
// u32 version, u32 nSections, then sections of u32 type, u64 size, payload, in any order; all
// little-endian. Field elements are n8 = 32 plain (NOT Montgomery) little-endian bytes and must
// be below the prime, the scalar field's r of the curve F belongs to: BLS12-381's (circom --prime
// bls12381) or BN254's (--prime bn128). circom_curve tells which from the header; the readers
// take the field as a template argument (BLS12-381's by default) and refuse the other prime.
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

template <class F>
struct CircomR1csT {
  CircuitT<F> circuit;
  CircomR1csInfo info;
};
using CircomR1cs = CircomR1csT<Fr>;

// Readers throw DecodeError("<path>: <what is wrong>"). Each LC is normalised on the way in:
// repeated wires merged, zero coefficients dropped.
template <class F = Fr>
CircomR1csT<F> read_circom_r1cs(const std::string& path);
template <class F = Fr>
std::vector<F> read_wtns(const std::string& path);
// A .wtns already in memory (the daemon's inline witnesses); errors name `name` as the path.
template <class F = Fr>
std::vector<F> parse_wtns(std::span<const uint8_t> bytes, const std::string& name);

// The curve a .r1cs or .wtns is for, from its header section's prime. DecodeError naming the
// file for anything that is not a circom file, or whose prime is neither curve's r.
CurveId circom_curve(const std::string& path);

// Writers (fixtures, tests, export). The r1cs writer needs 1 + n_pub_out + n_pub_in =
// num_inputs and n_prv_in ≤ num_aux; it writes info.wire_to_label, or the identity map when
// that is empty. Throws InvalidArgument for a circuit circom cannot express, std::runtime_error
// on I/O errors.
template <class F>
void write_circom_r1cs(const std::string& path, const CircuitT<F>& circuit, const CircomR1csInfo& info);
// One overload per field, so that vectors convert.
void write_wtns(const std::string& path, std::span<const Fr> witness);
void write_wtns(const std::string& path, std::span<const ff::bn254::Fr> witness);

#define SNARKD_CIRCOM_DECLARE(F)                                                                      \
  extern template CircomR1csT<F> read_circom_r1cs<F>(const std::string&);                            \
  extern template std::vector<F> read_wtns<F>(const std::string&);                                   \
  extern template std::vector<F> parse_wtns<F>(std::span<const uint8_t>, const std::string&);        \
  extern template void write_circom_r1cs<F>(const std::string&, const CircuitT<F>&, const CircomR1csInfo&);
SNARKD_CIRCOM_DECLARE(ff::Fr)
SNARKD_CIRCOM_DECLARE(ff::bn254::Fr)
#undef SNARKD_CIRCOM_DECLARE

}  // namespace snarkd::r1cs
