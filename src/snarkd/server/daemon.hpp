// `snarkd serve`: the daemon's process lifecycle.
//
//   start    config → logs → (signals blocked in every thread) → journal → devices + engine →
//            Service (circuits, journal replay, re-queue in the background) → gRPC on the unix
//            socket (created with umask 077, then chmod socket_mode) and optionally TCP (bearer
//            token) → HTTP side port → ports file → "ready" in the log
//   SIGHUP   re-read the config and apply what is reloadable (config.hpp)
//   SIGTERM  drain: refuse new jobs, let the running ones finish (drain_timeout_s; a second
//   SIGINT   SIGTERM/SIGINT stops waiting), then stop listening and exit 0. Queued jobs stay in
//            the journal and run after the next start.
#pragma once
#include <string>

namespace snarkd::server {

// Runs until SIGTERM/SIGINT. Returns the process exit code: 0 after a drain, 2 when the
// configuration or start-up fails (the message is on stderr and in the log).
int run_daemon(const std::string& config_path);

// Loads and checks a configuration file without starting anything (snarkd serve --check).
int check_config(const std::string& config_path);

}  // namespace snarkd::server
