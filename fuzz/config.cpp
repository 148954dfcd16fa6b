// The daemon's TOML configuration (server/config.hpp), read strictly: whatever the text, the
// result is a config or an InvalidArgument naming the file and the key. A config it accepts
// must be read the same way again (parsing is a function of the text alone).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_common.hpp"
#include "snarkd/server/config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto c = snarkd::fuzz::try_read([&] { return snarkd::server::parse_config(text, "fuzz.toml"); });
  if (!c) return 0;
  const auto again = snarkd::fuzz::try_read([&] { return snarkd::server::parse_config(text, "fuzz.toml"); });
  if (!again || again->circuits != c->circuits || again->devices != c->devices || again->socket != c->socket)
    snarkd::fuzz::violated("the same text gave two different configs");
  return 0;
}
