// circom .r1cs reader (r1cs/circom.hpp). A circuit it accepts must be structurally valid
// (find_structure_error), since the prover indexes witness and dictionary with it unchecked.
#include <cstddef>
#include <cstdint>

#include "fuzz_common.hpp"
#include "snarkd/r1cs/circom.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = snarkd::fuzz::write_input(data, size, "input.r1cs");
  const auto r = snarkd::fuzz::try_read([&] { return snarkd::r1cs::read_circom_r1cs(path); });
  if (!r) return 0;
  if (snarkd::r1cs::find_structure_error(r->circuit)) snarkd::fuzz::violated("accepted circuit is malformed");
  if (!r->info.wire_to_label.empty() && r->info.wire_to_label.size() != r->circuit.num_vars())
    snarkd::fuzz::violated("wire_to_label does not have one entry per wire");
  return 0;
}
