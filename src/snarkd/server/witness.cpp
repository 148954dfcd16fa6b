#include "snarkd/server/witness.hpp"

#include <cstring>
#include <fstream>

#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/r1cs/circom.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::server {

const char* witness_format_ext(WitnessFormat f) { return f == WitnessFormat::kWtns ? "wtns" : "fr"; }

WitnessFormat detect_witness_format(std::span<const uint8_t> head) {
  return head.size() >= 4 && std::memcmp(head.data(), "wtns", 4) == 0 ? WitnessFormat::kWtns
                                                                      : WitnessFormat::kFrMontgomery;
}

namespace {

// Checks before anything is allocated: the size must be num_vars whole values.
void check_fr_size(uint64_t size, uint64_t num_vars, const std::string& label) {
  if (size % sizeof(ff::Fr) != 0)
    throw InvalidArgument(label + ": " + std::to_string(size) + " bytes is not a whole number of 32-byte Fr values");
  if (size / sizeof(ff::Fr) != num_vars)
    throw InvalidArgument(label + ": has " + std::to_string(size / sizeof(ff::Fr)) + " values, the circuit has " +
                          std::to_string(num_vars) + " variables");
}

// Each value below r: a non-reduced value would make every later step silently wrong.
void check_fr_reduced(const ff::Fr& v, uint64_t i, const std::string& label) {
  if (!ff::less_than(v.montgomery(), ff::Fr::kModulus))
    throw InvalidArgument(label + ": value " + std::to_string(i) +
                          " is not below the Fr modulus (expected fully reduced Montgomery limbs)");
}

// The file's bytes straight into the Fr vector (our layout is the host's little-endian limbs):
// a PoRep partition is 4.2 GB, so it is not staged through a byte buffer first.
std::vector<ff::Fr> read_fr_montgomery(const std::string& path, uint64_t num_vars, const std::string& label) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) throw std::runtime_error("spool file " + path + " cannot be opened");
  const uint64_t size = uint64_t(f.tellg());
  check_fr_size(size, num_vars, label);
  std::vector<ff::Fr> w(num_vars);
  f.seekg(0);
  if (!f.read(reinterpret_cast<char*>(w.data()), std::streamsize(size)))
    throw std::runtime_error("spool file " + path + ": read failed");
  for (uint64_t i = 0; i < num_vars; ++i) check_fr_reduced(w[i], i, label);
  return w;
}

// One pass: copy and check each value (a zero-filled vector, a copy and a check pass would
// touch a 4.2 GB PoRep witness three times).
std::vector<ff::Fr> decode_fr_montgomery(std::span<const uint8_t> bytes, uint64_t num_vars, const std::string& label) {
  check_fr_size(bytes.size(), num_vars, label);
  std::vector<ff::Fr> w;
  w.reserve(num_vars);
  for (uint64_t i = 0; i < num_vars; ++i) {
    ff::Fr v;
    std::memcpy(static_cast<void*>(&v), bytes.data() + i * sizeof(ff::Fr), sizeof(ff::Fr));
    check_fr_reduced(v, i, label);
    w.push_back(v);
  }
  return w;
}

// The circom decoder's errors name the "file" it is given: the label, never a spool path.
std::vector<ff::Fr> decode_wtns(std::span<const uint8_t> bytes, const std::string& label) {
  std::vector<ff::Fr> w;
  try {
    w = r1cs::parse_wtns(bytes, label + " (.wtns)");
  } catch (const DecodeError& e) {
    throw InvalidArgument(e.what());
  }
  return w;
}

std::vector<uint8_t> read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) throw std::runtime_error("spool file " + path + " cannot be opened");
  std::vector<uint8_t> bytes(size_t(f.tellg()));
  f.seekg(0);
  if (!f.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size())))
    throw std::runtime_error("spool file " + path + ": read failed");
  return bytes;
}

// The daemon's entry-point check (groth16/bound_key.hpp): length and the constant ONE.
std::vector<ff::Fr> checked(std::vector<ff::Fr> w, uint64_t num_vars, const std::string& label) {
  groth16::check_witness(w, num_vars, label);
  return w;
}

}  // namespace

std::vector<ff::Fr> decode_witness(std::span<const uint8_t> bytes, WitnessFormat f, uint64_t num_vars,
                                   const std::string& label) {
  return checked(f == WitnessFormat::kWtns ? decode_wtns(bytes, label) : decode_fr_montgomery(bytes, num_vars, label),
                 num_vars, label);
}

std::vector<ff::Fr> read_witness_file(const std::string& path, WitnessFormat f, uint64_t num_vars,
                                      const std::string& label) {
  return checked(f == WitnessFormat::kWtns ? decode_wtns(read_all(path), label) : read_fr_montgomery(path, num_vars, label),
                 num_vars, label);
}

std::vector<uint8_t> encode_fr_montgomery(std::span<const ff::Fr> values) {
  std::vector<uint8_t> out(values.size() * 32);
  for (size_t i = 0; i < values.size(); ++i) values[i].to_montgomery_bytes_le(&out[32 * i]);
  return out;
}

}  // namespace snarkd::server
