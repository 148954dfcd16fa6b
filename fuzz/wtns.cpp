// circom .wtns reader (r1cs/circom.hpp), for the scalar field of fuzz_curve.hpp's curve. A file
// it accepts must be that curve's for circom_curve too.
#include <cstddef>
#include <cstdint>

#include "fuzz_common.hpp"
#include "fuzz_curve.hpp"
#include "snarkd/r1cs/circom.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using E = snarkd::fuzz::Curve;
  const std::string path = snarkd::fuzz::write_input(data, size, "input.wtns");
  const auto w = snarkd::fuzz::try_read([&] { return snarkd::r1cs::read_wtns<typename E::Fr>(path); });
  // Every value is 32 bytes of the file, so more values than bytes/32 means invented data.
  if (w && w->size() > size / 32) snarkd::fuzz::violated("more values than the file holds");
  if (w && snarkd::r1cs::circom_curve(path) != E::kId) snarkd::fuzz::violated("circom_curve names another curve");
  return 0;
}
