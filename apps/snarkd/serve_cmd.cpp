// `snarkd serve --config snarkd.toml [--check]`: the proving daemon (src/snarkd/server/daemon.hpp).
// Built only with the daemon layer (SNARKD_BUILD_SERVER).
#include "args.hpp"
#include "commands.hpp"
#include "snarkd/server/daemon.hpp"

namespace snarkd::cli {

int cmd_serve(int argc, char** argv) {
  const Args a(argc, argv, 2, {{"config", true}, {"check", false}});
  if (!a.positional().empty()) throw UsageError("unexpected argument '" + a.positional()[0] + "'");
  const std::string path = a.require("config");
  return a.has("check") ? server::check_config(path) : server::run_daemon(path);
}

}  // namespace snarkd::cli
