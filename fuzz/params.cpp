// bellperson .params reader (groth16/bellperson_io.hpp). Byte 0: bit 0 picks PointCheck::kTrusted
// over kFull, bit 1 reads only the vk part (read_vk_or_params, which seeks over the other
// sections); the rest is the file. An accepted file must have the shape the header documents
// and be written back byte for byte (every accepted point encoding is canonical).
#include <cstddef>
#include <cstdint>

#include "fuzz_common.hpp"
#include "snarkd/groth16/bellperson_io.hpp"

namespace {

using namespace snarkd::groth16;
using snarkd::fuzz::violated;

void check_params(const ProvingKey& pk, const uint8_t* data, size_t size) {
  if (pk.vk.ic.empty()) violated("accepted params with an empty ic");
  if (pk.h.size() + 1 != pk.domain_size()) violated("|h| + 1 is not the domain size");
  if (pk.b_g1.size() != pk.b_g2.size()) violated("|b_g1| != |b_g2|");
  if (pk.a.size() > pk.vk.ic.size() + pk.l.size()) violated("|a| > |ic| + |l|");
  const std::string again = snarkd::fuzz::write_input(nullptr, 0, "rewritten.params");
  write_params(again, pk);
  if (!snarkd::fuzz::file_equals(again, data, size)) violated("params written back differ from the accepted file");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  const std::string path = snarkd::fuzz::write_input(data + 1, size - 1, "input.params");
  if (mode & 2) {
    const auto vk = snarkd::fuzz::try_read([&] { return read_vk_or_params(path); });
    if (vk && vk->ic.empty()) violated("accepted a vk with an empty ic");
    return 0;
  }
  const PointCheck check = mode & 1 ? PointCheck::kTrusted : PointCheck::kFull;
  const auto pk = snarkd::fuzz::try_read([&] { return read_params(path, check); });
  if (pk) check_params(*pk, data + 1, size - 1);
  return 0;
}
