// public.json in both shapes the CLI reads (apps/snarkd/file_kind.hpp publics_from_json): one
// array of decimal strings, or one array per proof of a multi-partition file. Accepted inputs
// must survive the writer: every proof's inputs written and read again are unchanged.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "file_kind.hpp"
#include "fuzz_common.hpp"
#include "snarkd/groth16/snarkjs_json.hpp"

using namespace snarkd;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto publics = fuzz::try_read([&] { return cli::publics_from_json(Json::parse(text), "public.json"); });
  if (!publics) return 0;
  if (publics->empty()) fuzz::violated("accepted public inputs for no proof");
  for (const auto& one : *publics)
    if (groth16::public_from_snarkjs_json(groth16::public_to_snarkjs_json<groth16::Bls12_381>(one), "again") != one)
      fuzz::violated("public inputs do not survive write + read");
  return 0;
}
