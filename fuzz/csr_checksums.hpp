// Recomputes the checksums of a snarkd CSR file (r1cs/csr_file.hpp), so mutations of the
// counts, structure and dictionary get past them (fuzz targets csr_file and setup).
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "snarkd/r1cs/checksum.hpp"
#include "snarkd/r1cs/csr_file.hpp"

namespace snarkd::fuzz {

// Layout per csr_file.hpp: header checksum at 72 over [0, 72); each section is u32 id,
// u32 reserved, u64 length, u64 checksum, payload padded to 8. Stops at the first section
// whose length runs past the end.
inline void fix_csr_checksums(std::vector<uint8_t>& f) {
  using r1cs::checksum64;
  auto load_u64 = [](const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  };
  auto store_u64 = [](uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); };
  if (f.size() < r1cs::kCsrHeaderBytes) return;
  store_u64(&f[72], checksum64(f.data(), 72));
  uint64_t pos = r1cs::kCsrHeaderBytes;
  while (f.size() - pos >= r1cs::kCsrSectionHeaderBytes) {
    const uint64_t len = load_u64(&f[pos + 8]);
    const uint64_t payload = pos + r1cs::kCsrSectionHeaderBytes;
    if (len > f.size() - payload) return;
    store_u64(&f[pos + 16], checksum64(&f[payload], len));
    const uint64_t padded = (len + 7) / 8 * 8;
    if (padded > f.size() - payload) return;
    pos = payload + padded;
  }
}

}  // namespace snarkd::fuzz
