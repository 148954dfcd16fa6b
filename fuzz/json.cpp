// The JSON parser (util/json.hpp) on raw text. An accepted document must survive dump + parse
// in both layouts (compact and snarkjs's indent 1), and dump must be stable.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_common.hpp"
#include "snarkd/util/json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto j = snarkd::fuzz::try_read([&] { return snarkd::Json::parse(text); });
  if (!j) return 0;
  for (int indent : {0, 1}) {
    const std::string out = j->dump(indent);
    const auto again = snarkd::fuzz::try_read([&] { return snarkd::Json::parse(out); });
    if (!again || !(*again == *j)) snarkd::fuzz::violated("dump + parse changed the value");
    if (again->dump(indent) != out) snarkd::fuzz::violated("dump is not stable");
  }
  return 0;
}
