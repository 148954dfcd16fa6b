// snarkd's own circuit file: the CSR circuit of r1cs.hpp as it is in memory, so loading is a
// few large reads (no parsing) and every byte is covered by a checksum.
//
// Layout, version 2, all integers little-endian:
//   offset  bytes
//   0       8     magic "SNKDCSR\0"
//   8       4     u32 version (2; version 1 had a hand-written checksum and is refused with
//                 a message to re-create the file)
//   12      4     u32 reserved, 0
//   16      8×7   u64 num_constraints, num_inputs (counts ONE), num_aux, nnz_a, nnz_b, nnz_c,
//                 dict_size
//   72      8     u64 checksum64 (checksum.hpp) of bytes [0, 72)
//   80            ten sections, in this order and with these ids:
//                   1 dictionary (dict_size × 32-byte canonical little-endian Fr, not Montgomery)
//                   2 A row_ptr ((num_constraints + 1) × u64), 3 A col (nnz_a × u32),
//                   4 A coeff (nnz_a × u32), 5–7 the same for B, 8–10 for C
//                 each as u32 id, u32 reserved 0, u64 payload bytes, u64 checksum64(payload),
//                 the payload, then zero bytes up to a multiple of 8 (every payload starts
//                 8-aligned, so the file can also be mapped in place).
// The reader checks magic, version, header checksum and counts, compares the size the header
// implies with the file size BEFORE allocating anything, then checks each section's id, length,
// checksum and padding, every dictionary entry < r, and the structure (find_structure_error).
#pragma once
#include <cstdint>
#include <string>

#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::r1cs {

inline constexpr char kCsrMagic[8] = {'S', 'N', 'K', 'D', 'C', 'S', 'R', '\0'};
inline constexpr uint32_t kCsrVersion = 2;
inline constexpr uint64_t kCsrHeaderBytes = 80;
inline constexpr uint64_t kCsrSectionHeaderBytes = 24;

// Throws InvalidArgument if the circuit is malformed, std::runtime_error on I/O errors.
void write_csr_file(const std::string& path, const Circuit& circuit);
// Throws DecodeError("<path>: <what is wrong>") for any malformed or corrupted file.
Circuit read_csr_file(const std::string& path);

}  // namespace snarkd::r1cs
