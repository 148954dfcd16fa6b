// bellperson proofs (groth16/bellperson_io.hpp): decode_proof on the bytes and read_proofs on
// them as a file. Every accepted proof re-encodes to its 192 bytes.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz_common.hpp"
#include "snarkd/groth16/bellperson_io.hpp"

using namespace snarkd::groth16;
using snarkd::fuzz::violated;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto p = snarkd::fuzz::try_read([&] { return decode_proof(std::span<const uint8_t>(data, size)); });
  if (p) {
    const auto again = encode_proof(*p);
    if (size != again.size() || !std::equal(again.begin(), again.end(), data))
      violated("decoded proof does not re-encode to its input");
  }
  const std::string path = snarkd::fuzz::write_input(data, size, "input.proof");
  const auto ps = snarkd::fuzz::try_read([&] { return read_proofs(path); });
  if (!ps) return 0;
  if (ps->empty() || ps->size() * kBellpersonProofSize != size) violated("wrong proof count");
  for (size_t i = 0; i < ps->size(); ++i) {
    const auto again = encode_proof((*ps)[i]);
    if (!std::equal(again.begin(), again.end(), data + i * kBellpersonProofSize))
      violated("proof from a file does not re-encode to its bytes");
  }
  return 0;
}
