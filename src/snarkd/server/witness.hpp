// Witnesses as the daemon receives them (proto WitnessFormat): snarkd's in-memory layout
// (num_vars × 32-byte little-endian Montgomery Fr, fully reduced) or a circom .wtns file. Both
// are spooled to disk as received; an inline witness is decoded from the received bytes at
// submit (no read-back of what was just written), a path witness and a restarted daemon's
// re-queued jobs from the spool file — the same checks and messages either way.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "snarkd/ff/fr.hpp"

namespace snarkd::server {

enum class WitnessFormat : uint8_t { kFrMontgomery = 1, kWtns = 2 };

const char* witness_format_ext(WitnessFormat f);  // "fr", "wtns" (the spool file's extension)
// "wtns" magic → kWtns, anything else → kFrMontgomery.
WitnessFormat detect_witness_format(std::span<const uint8_t> head);

// Decodes one partition's witness and checks it fits the circuit: num_vars values, each below
// r, values[0] = 1. Throws InvalidArgument naming `label` (e.g. "partition 3"), never the
// spool path, and what is wrong.
std::vector<ff::Fr> decode_witness(std::span<const uint8_t> bytes, WitnessFormat f, uint64_t num_vars,
                                   const std::string& label);
std::vector<ff::Fr> read_witness_file(const std::string& path, WitnessFormat f, uint64_t num_vars,
                                      const std::string& label);

// Our layout for `values` (the bytes kFrMontgomery expects), for clients and tests.
std::vector<uint8_t> encode_fr_montgomery(std::span<const ff::Fr> values);

}  // namespace snarkd::server
