// A witness of mostly 0s and 1s in a fraction of its bytes, for the trip to a device that
// expands it in place (cuda/witness_expand.hpp). A PoRep partition's 130.2M aux values are 95 %
// SHA-256 bits (anchors §1): 4.17 GB as 32-byte Montgomery values, ≈ 0.25 GB compact (two bit
// vectors, a prefix count per 64 values and the 6.5M other values). The device worker compacts
// before it asks the ledger for memory, so the host work no longer holds device memory, and the
// upload inside the reservation moves 1/16 of the bytes.
//
// Form, for n values in W = ⌈n/64⌉ words: bit i of ones[i/64] says value i is 1, bit i of
// others[i/64] that it is neither 0 nor 1; offset[k] counts the others in words 0 .. k−1, and
// values holds the others in index order. Value i is values[offset[k] + popcount(others[k] below
// bit i)] when it is an other. Field elements are compared as stored (Montgomery limbs): 1 is R.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "snarkd/ff/fr.hpp"

namespace snarkd::r1cs {

struct CompactWitness {
  uint64_t n = 0;
  std::vector<uint64_t> ones, others;  // W words each
  std::vector<uint32_t> offset;        // W prefix counts
  std::vector<ff::Fr> values;          // the others, in index order

  // The bytes the four arrays take (the upload's payload).
  uint64_t payload_bytes() const {
    return ones.size() * 8 + others.size() * 8 + offset.size() * 4 + values.size() * sizeof(ff::Fr);
  }
};

// Where the four arrays go when packed into one range, each 256-byte aligned (the device
// upload's layout, cuda/witness_expand.hpp), and the range's size.
struct CompactLayout {
  uint64_t ones = 0, others = 0, offset = 0, values = 0, total = 0;
};
CompactLayout compact_layout(uint64_t n, uint64_t num_values);
inline CompactLayout compact_layout(const CompactWitness& c) { return compact_layout(c.n, c.values.size()); }

// The compact form of w on `threads` threads, or nullopt when it would take more than
// max_fraction of w's bytes (a witness of random field elements: the plain upload is cheaper)
// or hold 2^32 others or more (offsets are 32-bit).
std::optional<CompactWitness> compact_witness(std::span<const ff::Fr> w, double max_fraction = 0.5,
                                              unsigned threads = 4);

// The witness back from its compact form (the CPU twin of the device expansion). Throws
// InvalidArgument when the arrays disagree with each other (sizes, offsets, counts).
std::vector<ff::Fr> expand_witness(const CompactWitness& c);

// Checks the arrays' sizes and that offset is the prefix count of others (what the device
// expansion trusts); throws InvalidArgument naming the first disagreement.
void check_compact_witness(const CompactWitness& c);

}  // namespace snarkd::r1cs
