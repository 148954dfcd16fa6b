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
template <class F>
void check_fr_size(uint64_t size, uint64_t num_vars, const std::string& label) {
  if (size % sizeof(F) != 0)
    throw InvalidArgument(label + ": " + std::to_string(size) + " bytes is not a whole number of " +
                          std::to_string(sizeof(F)) + "-byte Fr values");
  if (size / sizeof(F) != num_vars)
    throw InvalidArgument(label + ": has " + std::to_string(size / sizeof(F)) + " values, the circuit has " +
                          std::to_string(num_vars) + " variables");
}

// Each value below r: a non-reduced value would make every later step silently wrong.
template <class F>
void check_fr_reduced(const F& v, uint64_t i, const std::string& label) {
  if (!ff::less_than(v.montgomery(), F::kModulus))
    throw InvalidArgument(label + ": value " + std::to_string(i) + " is not below the " +
                          r1cs::curve_name(r1cs::FieldTraits<F>::kCurve) +
                          " Fr modulus (expected fully reduced Montgomery limbs)");
}

// The file's bytes straight into the Fr vector (our layout is the host's little-endian limbs):
// a PoRep partition is 4.2 GB, so it is not staged through a byte buffer first.
template <class F>
std::vector<F> read_fr_montgomery(const std::string& path, uint64_t num_vars, const std::string& label) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) throw std::runtime_error("spool file " + path + " cannot be opened");
  const uint64_t size = uint64_t(f.tellg());
  check_fr_size<F>(size, num_vars, label);
  std::vector<F> w(num_vars);
  f.seekg(0);
  if (!f.read(reinterpret_cast<char*>(w.data()), std::streamsize(size)))
    throw std::runtime_error("spool file " + path + ": read failed");
  for (uint64_t i = 0; i < num_vars; ++i) check_fr_reduced(w[i], i, label);
  return w;
}

// One pass: copy and check each value (a zero-filled vector, a copy and a check pass would
// touch a 4.2 GB PoRep witness three times).
template <class F>
std::vector<F> decode_fr_montgomery(std::span<const uint8_t> bytes, uint64_t num_vars, const std::string& label) {
  check_fr_size<F>(bytes.size(), num_vars, label);
  std::vector<F> w;
  w.reserve(num_vars);
  for (uint64_t i = 0; i < num_vars; ++i) {
    F v;
    std::memcpy(static_cast<void*>(&v), bytes.data() + i * sizeof(F), sizeof(F));
    check_fr_reduced(v, i, label);
    w.push_back(v);
  }
  return w;
}

// The circom decoder's errors name the "file" it is given: the label, never a spool path. Its
// prime check names both curves when the file is the other curve's.
template <class F>
std::vector<F> decode_wtns(std::span<const uint8_t> bytes, const std::string& label) {
  try {
    return r1cs::parse_wtns<F>(bytes, label + " (.wtns)");
  } catch (const DecodeError& e) {
    throw InvalidArgument(e.what());
  }
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
template <class F>
groth16::AnyScalars checked(std::vector<F> w, uint64_t num_vars, const std::string& label) {
  groth16::check_witness<F>(w, num_vars, label);
  return w;
}

template <class F>
std::vector<uint8_t> encode_values(std::span<const F> values) {
  std::vector<uint8_t> out(values.size() * sizeof(F));
  for (size_t i = 0; i < values.size(); ++i) values[i].to_montgomery_bytes_le(&out[sizeof(F) * i]);
  return out;
}

}  // namespace

groth16::AnyScalars decode_witness(std::span<const uint8_t> bytes, WitnessFormat f, groth16::CurveId curve,
                                   uint64_t num_vars, const std::string& label) {
  return groth16::with_curve(curve, [&](auto e) {
    using F = typename decltype(e)::Fr;
    return checked(
        f == WitnessFormat::kWtns ? decode_wtns<F>(bytes, label) : decode_fr_montgomery<F>(bytes, num_vars, label),
        num_vars, label);
  });
}

groth16::AnyScalars read_witness_file(const std::string& path, WitnessFormat f, groth16::CurveId curve,
                                      uint64_t num_vars, const std::string& label) {
  return groth16::with_curve(curve, [&](auto e) {
    using F = typename decltype(e)::Fr;
    return checked(f == WitnessFormat::kWtns ? decode_wtns<F>(read_all(path), label)
                                             : read_fr_montgomery<F>(path, num_vars, label),
                   num_vars, label);
  });
}

std::vector<uint8_t> encode_fr_montgomery(std::span<const ff::Fr> values) { return encode_values(values); }
std::vector<uint8_t> encode_fr_montgomery(std::span<const ff::bn254::Fr> values) { return encode_values(values); }

}  // namespace snarkd::server
