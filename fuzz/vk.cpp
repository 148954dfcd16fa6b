// bellperson .vk reader (groth16/bellperson_io.hpp): read_vk, and read_vk_or_params on the same
// file (it must accept a .vk too and agree). An accepted file is written back byte for byte.
#include <cstddef>
#include <cstdint>

#include "fuzz_common.hpp"
#include "snarkd/groth16/bellperson_io.hpp"

using namespace snarkd::groth16;
using snarkd::fuzz::violated;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = snarkd::fuzz::write_input(data, size, "input.vk");
  const auto vk = snarkd::fuzz::try_read([&] { return read_vk(path); });
  if (!vk) return 0;
  if (vk->ic.empty()) violated("accepted a vk with an empty ic");
  if (!(read_vk_or_params(path) == *vk)) violated("read_vk_or_params disagrees with read_vk");
  const std::string again = snarkd::fuzz::write_input(nullptr, 0, "rewritten.vk");
  write_vk(again, *vk);
  if (!snarkd::fuzz::file_equals(again, data, size)) violated("vk written back differs from the accepted file");
  return 0;
}
