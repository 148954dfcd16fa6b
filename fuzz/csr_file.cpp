// snarkd CSR circuit reader (r1cs/csr_file.hpp). Every byte of the file is under a checksum, so
// random mutations would almost never get past the header. Byte 0 therefore picks a mode:
// odd = recompute the header and section checksums of the rest before reading (mutations
// then reach the count, structure and dictionary checks), even = read the rest as it is.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz_common.hpp"
#include "snarkd/r1cs/checksum.hpp"
#include "snarkd/r1cs/csr_file.hpp"

namespace {

using snarkd::r1cs::checksum64;
using snarkd::r1cs::kCsrHeaderBytes;
using snarkd::r1cs::kCsrSectionHeaderBytes;

uint64_t load_u64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

void store_u64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }

// Layout per csr_file.hpp: header checksum at 72 over [0, 72); each section is u32 id,
// u32 reserved, u64 length, u64 checksum, payload padded to 8. Stops at the first section
// whose length runs past the end.
void fix_checksums(std::vector<uint8_t>& f) {
  if (f.size() < kCsrHeaderBytes) return;
  store_u64(&f[72], checksum64(f.data(), 72));
  uint64_t pos = kCsrHeaderBytes;
  while (f.size() - pos >= kCsrSectionHeaderBytes) {
    const uint64_t len = load_u64(&f[pos + 8]);
    const uint64_t payload = pos + kCsrSectionHeaderBytes;
    if (len > f.size() - payload) return;
    store_u64(&f[pos + 16], checksum64(&f[payload], len));
    const uint64_t padded = (len + 7) / 8 * 8;
    if (padded > f.size() - payload) return;
    pos = payload + padded;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::vector<uint8_t> file(data + 1, data + size);
  if (data[0] & 1) fix_checksums(file);
  const std::string path = snarkd::fuzz::write_input(file.data(), file.size(), "input.csr");
  const auto c = snarkd::fuzz::try_read([&] { return snarkd::r1cs::read_csr_file(path); });
  if (c && snarkd::r1cs::find_structure_error(*c)) snarkd::fuzz::violated("accepted circuit is malformed");
  return 0;
}
