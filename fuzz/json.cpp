// The JSON parser (util/json.hpp) on raw text. An accepted document must dump and parse again
// in both layouts (compact and snarkjs's indent 1), and from then on be a fixed point: the first
// dump writes numbers in canonical form (1E5 → 100000.0), later ones change nothing.
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
    if (!again) snarkd::fuzz::violated("dump wrote text the parser refuses");
    if (again->dump(indent) != out) snarkd::fuzz::violated("dump is not stable");
    const auto third = snarkd::fuzz::try_read([&] { return snarkd::Json::parse(again->dump(indent)); });
    if (!third || !(*third == *again)) snarkd::fuzz::violated("parse + dump is not a fixed point");
  }
  return 0;
}
