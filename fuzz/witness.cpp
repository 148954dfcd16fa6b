// The daemon's witness decoding (server/witness.hpp) from bytes and from a file: what a client
// sends inline, and what the spool holds after a restart. Byte 0: bit 0 picks the .wtns format
// over snarkd's Fr-Montgomery layout; bit 1 takes num_vars from bytes 1..4 (little-endian)
// instead of the natural count (the payload's size / 32 for Fr-Montgomery, the .wtns header's
// nWitness at byte 60 when the header section comes first); bit 2 decodes over BN254 instead of
// BLS12-381. The rest is the witness.
// Accepted: num_vars values of the curve asked for, value 0 is 1, both paths agree, and
// Fr-Montgomery bytes encode back to themselves.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <variant>

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
  const auto curve = mode & 4 ? groth16::CurveId::kBn254 : groth16::CurveId::kBls12_381;
  if (!(mode & 2)) {
    if (format == server::WitnessFormat::kFrMontgomery) {
      num_vars = bytes.size() / 32;
    } else if (bytes.size() >= 64) {
      uint32_t n;
      std::memcpy(&n, bytes.data() + 60, 4);
      num_vars = n;
    }
  }
  const auto w = fuzz::try_read([&] { return server::decode_witness(bytes, format, curve, num_vars, "partition 0"); });
  const std::string path = fuzz::write_input(bytes.data(), bytes.size(), "spool.witness");
  const auto from_file =
      fuzz::try_read([&] { return server::read_witness_file(path, format, curve, num_vars, "partition 0"); });
  if (w.has_value() != from_file.has_value() || (w && *w != *from_file))
    violated("the witness decoded from bytes and from its spool file differ");
  if (!w) return 0;
  if (groth16::curve_of(*w) != curve) violated("accepted a witness over another curve");
  std::visit(
      [&](const auto& v) {
        if (v.size() != num_vars) violated("accepted a witness with another number of values");
        if (v.empty() || v[0] != std::decay_t<decltype(v[0])>::one()) violated("accepted a witness whose value 0 is not 1");
        if (format != server::WitnessFormat::kFrMontgomery) return;
        const auto again = server::encode_fr_montgomery(v);
        if (again.size() != bytes.size() || std::memcmp(again.data(), bytes.data(), bytes.size()) != 0)
          violated("Fr-Montgomery bytes do not encode back to themselves");
      },
      *w);
  return 0;
}
