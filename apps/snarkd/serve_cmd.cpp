// `snarkd serve --config snarkd.toml [--check]`: the proving daemon (src/snarkd/server/daemon.hpp).
// Built only with the daemon layer (SNARKD_BUILD_SERVER).
#include "commands.hpp"
#include "snarkd/server/daemon.hpp"

namespace snarkd::cli {

void declare_serve(Options& o) {
  o.value("config", "the daemon's TOML configuration (packaging/snarkd.toml: every key explained)", "snarkd.toml")
      .flag("check", "read the configuration, open every file and device it names, and exit");
}

int cmd_serve(const Options& a) {
  const std::string path = a.require("config");
  return a.has("check") ? server::check_config(path) : server::run_daemon(path);
}

}  // namespace snarkd::cli
