// circom .wtns reader (r1cs/circom.hpp).
#include <cstddef>
#include <cstdint>

#include "fuzz_common.hpp"
#include "snarkd/r1cs/circom.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = snarkd::fuzz::write_input(data, size, "input.wtns");
  const auto w = snarkd::fuzz::try_read([&] { return snarkd::r1cs::read_wtns(path); });
  // Every value is 32 bytes of the file, so more values than bytes/32 means invented data.
  if (w && w->size() > size / 32) snarkd::fuzz::violated("more values than the file holds");
  return 0;
}
