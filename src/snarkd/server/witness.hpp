// Witnesses as the daemon receives them (proto WitnessFormat): snarkd's in-memory layout
// (num_vars × 32-byte little-endian Montgomery Fr of the circuit's curve, fully reduced) or a
// circom .wtns file (whose prime must be the circuit's curve's r). Both are spooled to disk as
// received; an inline witness is decoded from the received bytes at submit (no read-back of what
// was just written), a path witness and a restarted daemon's re-queued jobs from the spool file —
// the same checks and messages either way. The curve is the circuit's: a witness is decoded over
// it, so a BN254 job re-queued from the spool after a restart is a BN254 job again.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "snarkd/ff/bn254.hpp"
#include "snarkd/ff/fr.hpp"
#include "snarkd/groth16/any_curve.hpp"

namespace snarkd::server {

enum class WitnessFormat : uint8_t { kFrMontgomery = 1, kWtns = 2 };

const char* witness_format_ext(WitnessFormat f);  // "fr", "wtns" (the spool file's extension)
// "wtns" magic → kWtns, anything else → kFrMontgomery.
WitnessFormat detect_witness_format(std::span<const uint8_t> head);

// Decodes one partition's witness over `curve` and checks it fits the circuit: num_vars values,
// each below the curve's r, values[0] = 1; a .wtns for the other curve is refused naming both.
// Throws InvalidArgument naming `label` (e.g. "partition 3"), never the spool path, and what is
// wrong.
groth16::AnyScalars decode_witness(std::span<const uint8_t> bytes, WitnessFormat f, groth16::CurveId curve,
                                   uint64_t num_vars, const std::string& label);
groth16::AnyScalars read_witness_file(const std::string& path, WitnessFormat f, groth16::CurveId curve,
                                      uint64_t num_vars, const std::string& label);

// Our layout for `values` (the bytes kFrMontgomery expects), for clients and tests.
std::vector<uint8_t> encode_fr_montgomery(std::span<const ff::Fr> values);
std::vector<uint8_t> encode_fr_montgomery(std::span<const ff::bn254::Fr> values);

}  // namespace snarkd::server
