#include "snarkd/server/witness.hpp"

#include <cstring>
#include <fstream>

#include "snarkd/r1cs/circom.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::server {

const char* witness_format_ext(WitnessFormat f) { return f == WitnessFormat::kWtns ? "wtns" : "fr"; }

WitnessFormat detect_witness_format(std::span<const uint8_t> head) {
  return head.size() >= 4 && std::memcmp(head.data(), "wtns", 4) == 0 ? WitnessFormat::kWtns
                                                                      : WitnessFormat::kFrMontgomery;
}

namespace {

// The file's bytes straight into the Fr vector (our layout is the host's little-endian limbs),
// then each value checked to be below r: a non-reduced value would make every later step
// silently wrong.
std::vector<ff::Fr> read_fr_montgomery(const std::string& path, uint64_t num_vars, const std::string& label) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) throw std::runtime_error("spool file " + path + " cannot be opened");
  const uint64_t size = uint64_t(f.tellg());
  if (size % sizeof(ff::Fr) != 0)
    throw InvalidArgument(label + ": " + std::to_string(size) + " bytes is not a whole number of 32-byte Fr values");
  if (size / sizeof(ff::Fr) != num_vars)
    throw InvalidArgument(label + ": has " + std::to_string(size / sizeof(ff::Fr)) + " values, the circuit has " +
                          std::to_string(num_vars) + " variables");
  std::vector<ff::Fr> w(num_vars);
  f.seekg(0);
  if (!f.read(reinterpret_cast<char*>(w.data()), std::streamsize(size)))
    throw std::runtime_error("spool file " + path + ": read failed");
  for (uint64_t i = 0; i < num_vars; ++i) {
    if (!ff::less_than(w[i].montgomery(), ff::Fr::kModulus))
      throw InvalidArgument(label + ": value " + std::to_string(i) +
                            " is not below the Fr modulus (expected fully reduced Montgomery limbs)");
  }
  return w;
}

std::vector<ff::Fr> read_wtns_checked(const std::string& path, uint64_t num_vars, const std::string& label) {
  std::vector<ff::Fr> w;
  try {
    w = r1cs::read_wtns(path);
  } catch (const DecodeError& e) {
    std::string msg = e.what();  // "<spool path>: <what>": the client knows it as its partition
    if (msg.rfind(path, 0) == 0) msg = msg.substr(path.size());
    throw InvalidArgument(label + " (.wtns)" + msg);
  }
  if (w.size() != num_vars)
    throw InvalidArgument(label + ": has " + std::to_string(w.size()) + " witness values, the circuit has " +
                          std::to_string(num_vars) + " variables");
  return w;
}

}  // namespace

std::vector<ff::Fr> read_witness_file(const std::string& path, WitnessFormat f, uint64_t num_vars,
                                      const std::string& label) {
  std::vector<ff::Fr> w =
      f == WitnessFormat::kWtns ? read_wtns_checked(path, num_vars, label) : read_fr_montgomery(path, num_vars, label);
  if (w.empty() || w[0] != ff::Fr::one()) throw InvalidArgument(label + ": value 0 (the constant ONE) is not 1");
  return w;
}

std::vector<uint8_t> encode_fr_montgomery(std::span<const ff::Fr> values) {
  std::vector<uint8_t> out(values.size() * 32);
  for (size_t i = 0; i < values.size(); ++i) values[i].to_montgomery_bytes_le(&out[32 * i]);
  return out;
}

}  // namespace snarkd::server
