// The device side of r1cs::CompactWitness: the kernel that writes the plain witness (32-byte
// Montgomery values) from the compact arrays packed by r1cs::compact_layout. CPU twin:
// r1cs::expand_witness. Values move as opaque 32-byte words, so one kernel serves any 32-byte
// scalar field (the caller gives the field's 1 as stored).
//
// Stream-ordered: launch_expand_witness only enqueues one kernel (one thread per value, coalesced
// writes; 130M values ≈ 4.2 GB written, a few ms at HBM speed); no allocation, no scratch.
#pragma once
#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>

#include "snarkd/r1cs/compact_witness.hpp"

namespace snarkd::cuda {

// Writes out[0, n) from the arrays at d_compact (laid out by r1cs::compact_layout(n, …)); `one`
// is the field's 1 as stored (4 little-endian limbs). out must not overlap d_compact's range.
void launch_expand_witness(const void* d_compact, const r1cs::CompactLayout& l, uint64_t n,
                           const std::array<uint64_t, 4>& one, void* out, cudaStream_t stream);

}  // namespace snarkd::cuda
