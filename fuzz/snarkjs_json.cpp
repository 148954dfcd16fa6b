// snarkjs JSON readers (groth16/snarkjs_json.hpp), for the curve of fuzz_curve.hpp. Byte 0 picks
// proof.json, public.json or verification_key.json; the rest is the file. What a reader accepts
// must survive its writer: to_json then from_json gives the same value; and an accepted vk names
// the target curve for snarkjs_json_curve.
#include <cstddef>
#include <cstdint>

#include "fuzz_common.hpp"
#include "fuzz_curve.hpp"
#include "snarkd/groth16/snarkjs_json.hpp"

using namespace snarkd::groth16;
using E = snarkd::fuzz::Curve;
using snarkd::fuzz::try_read;
using snarkd::fuzz::violated;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string path = snarkd::fuzz::write_input(data + 1, size - 1, "input.json");
  switch (data[0] % 3) {
    case 0:
      if (const auto p = try_read([&] { return read_snarkjs_proof<E>(path); }))
        if (!(proof_from_snarkjs_json<E>(proof_to_snarkjs_json(*p), "again") == *p))
          violated("proof.json does not survive write + read");
      break;
    case 1:
      if (const auto x = try_read([&] { return read_snarkjs_public<E>(path); }))
        if (public_from_snarkjs_json<E>(public_to_snarkjs_json<E>(*x), "again") != *x)
          violated("public.json does not survive write + read");
      break;
    default:
      if (const auto vk = try_read([&] { return read_snarkjs_vk<E>(path); })) {
        const snarkd::Json j = vk_to_snarkjs_json(*vk);
        if (!(vk_from_snarkjs_json<E>(j, "again") == *vk)) violated("verification_key.json does not survive write + read");
        if (snarkjs_json_curve(j, "again") != E::kId) violated("snarkjs_json_curve names another curve");
      }
  }
  return 0;
}
