// The daemon's witness decoding (server/witness.hpp) from bytes and from a file: what a client
// sends inline, and what the spool holds after a restart. Byte 0: bit 0 picks the .wtns format
// over snarkd's Fr-Montgomery layout; bit 1 takes num_vars from bytes 1..4 (little-endian)
// instead of the natural count (the payload's size / 32 for Fr-Montgomery, the .wtns header's
// nWitness at byte 60 when the header section comes first). The rest is the witness.
// Accepted: num_vars values, value 0 is 1, both paths agree, and Fr-Montgomery bytes encode back
// to themselves.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "fuzz_common.hpp"
#include "snarkd/server/witness.hpp"

using namespace snarkd;
using fuzz::violated;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::span<const uint8_t> bytes(data + 1, size - 1);
  uint64_t num_vars = 0;
  if (mode & 2) {
    if (bytes.size() < 4) return 0;
    uint32_t n;
    std::memcpy(&n, bytes.data(), 4);
    num_vars = n;
    bytes = bytes.subspan(4);
  }
  const auto format = mode & 1 ? server::WitnessFormat::kWtns : server::WitnessFormat::kFrMontgomery;
  if (!(mode & 2)) {
    if (format == server::WitnessFormat::kFrMontgomery) {
      num_vars = bytes.size() / 32;
    } else if (bytes.size() >= 64) {
      uint32_t n;
      std::memcpy(&n, bytes.data() + 60, 4);
      num_vars = n;
    }
  }
  const auto w = fuzz::try_read([&] { return server::decode_witness(bytes, format, num_vars, "partition 0"); });
  const std::string path = fuzz::write_input(bytes.data(), bytes.size(), "spool.witness");
  const auto from_file =
      fuzz::try_read([&] { return server::read_witness_file(path, format, num_vars, "partition 0"); });
  if (w.has_value() != from_file.has_value() || (w && *w != *from_file))
    violated("the witness decoded from bytes and from its spool file differ");
  if (!w) return 0;
  if (w->size() != num_vars) violated("accepted a witness with another number of values");
  if ((*w)[0] != ff::Fr::one()) violated("accepted a witness whose value 0 is not 1");
  if (format == server::WitnessFormat::kFrMontgomery) {
    const auto again = server::encode_fr_montgomery(*w);
    if (again.size() != bytes.size() || std::memcmp(again.data(), bytes.data(), bytes.size()) != 0)
      violated("Fr-Montgomery bytes do not encode back to themselves");
  }
  return 0;
}
