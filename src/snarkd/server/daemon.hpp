// `snarkd serve`: the daemon's process lifecycle.
//
//   start    umask 077 → config → logs (0640) → (signals blocked in every thread) → journal
//            (0700 / 0600) → devices + engine → Service (circuits, journal replay, re-queue in
//            the background) → gRPC on the unix socket (its mode set at bind by the umask) and
//            optionally TCP (bearer token) → HTTP side port → ports file (0600) → "ready" in
//            the log, with the number of circuits that failed to load (Status lists them and
//            /healthz answers 503 while there are any)
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

// Loads and checks a configuration file without starting anything (snarkd serve --check): the
// devices it names must exist in this build and machine, every [[circuit]] file must be a
// readable regular file, the directories must exist or be creatable. 0 if so, else 2 with the
// reason on stderr.
int check_config(const std::string& config_path);

}  // namespace snarkd::server
