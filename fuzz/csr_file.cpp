// snarkd CSR circuit reader (r1cs/csr_file.hpp). Every byte of the file is under a checksum, so
// random mutations would almost never get past the header. Byte 0 therefore picks a mode:
// odd = recompute the header and section checksums of the rest before reading (mutations
// then reach the count, structure and dictionary checks), even = read the rest as it is.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "csr_checksums.hpp"
#include "fuzz_common.hpp"
#include "snarkd/r1cs/csr_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::vector<uint8_t> file(data + 1, data + size);
  if (data[0] & 1) snarkd::fuzz::fix_csr_checksums(file);
  const std::string path = snarkd::fuzz::write_input(file.data(), file.size(), "input.csr");
  const auto c = snarkd::fuzz::try_read([&] { return snarkd::r1cs::read_csr_file(path); });
  if (c && snarkd::r1cs::find_structure_error(*c)) snarkd::fuzz::violated("accepted circuit is malformed");
  return 0;
}
