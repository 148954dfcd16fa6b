// 64-bit checksum for the sections of snarkd's own files (csr_file.hpp). It detects corruption
// and truncation, not tampering: it is not a cryptographic hash.
//
// Four independent lanes each absorb one 8-byte word of every 32-byte stripe with
// lane = rotl(lane + word·K1, 31)·K2, so the CPU overlaps four multiply chains (~1 cycle per
// 8 bytes on x86-64, well above disk speed); a tail shorter than a stripe is zero-padded into
// one more stripe. The lanes and the byte length are then folded through splitmix64's
// finalizer, which makes every input bit affect every output bit.
#pragma once
#include <cstddef>
#include <cstdint>

namespace snarkd::r1cs {

uint64_t checksum64(const void* data, size_t size);

}  // namespace snarkd::r1cs
