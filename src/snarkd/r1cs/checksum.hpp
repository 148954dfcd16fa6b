// 64-bit checksum for the sections of snarkd's own files (csr_file.hpp): XXH3-64 (Debian's
// libxxhash, seed 0). It detects corruption and truncation, not tampering: it is not a
// cryptographic hash. XXH3 runs at tens of GB/s, far above disk speed, so checking every byte
// of a multi-GB circuit costs nothing measurable beside the read.
#pragma once
#include <cstddef>
#include <cstdint>

namespace snarkd::r1cs {

uint64_t checksum64(const void* data, size_t size);

}  // namespace snarkd::r1cs
