// The daemon's configuration: a TOML file (packaging/snarkd.toml is the commented example),
// read strictly — an unknown table or key, a value of the wrong type or out of range is an
// error naming the file, the key and what is expected, so a typo never silently falls back to
// a default.
//
// SIGHUP re-reads the file; what a running daemon can apply is marked "reloadable" below,
// everything else needs a restart (the reload logs which changes it ignored).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace snarkd::server {

// A circuit to register at start-up: a bellperson .params + circuit file, or a snarkjs .zkey.
struct CircuitSpec {
  std::string id;
  std::string params;   // .params (bellperson flavour) ...
  std::string circuit;  // ... with its circuit: circom .r1cs or snarkd CSR
  std::string zkey;     // or a .zkey (snarkjs flavour)
  bool check_key = false;
  bool operator==(const CircuitSpec&) const = default;
};

struct ServerConfig {
  // [server]
  std::string socket = "/run/snarkd/snarkd.sock";  // unix socket; "" = none
  uint32_t socket_mode = 0600;
  std::string tcp_listen;                            // "host:port" ("127.0.0.1:0" picks a port); "" = no TCP
  std::string token;                                 // the TCP bearer token (reloadable) ...
  std::string token_file;                            // ... or a file holding it (first line; reloadable)
  std::string http_listen = "127.0.0.1:9464";        // /metrics, /status, / ; "" = off
  uint64_t max_message_bytes = uint64_t{512} << 20;  // largest request (witnesses inline)
  uint32_t max_partitions = 1024;                    // per job
  std::vector<std::string> witness_dirs;             // where witness paths may point (reloadable)
  std::vector<std::string> key_dirs;                 // where PreloadKey's files may lie (reloadable)
  uint64_t submit_wait_ms = 10000;  // host budget full: wait this long, then RESOURCE_EXHAUSTED (reloadable)
  double drain_timeout_s = 300;     // SIGTERM: how long in-flight partitions may take to finish
  uint32_t max_rpc_threads = 256;  // threads for the blocking calls (Submit, Cancel, EvictKey, Prove's submit)
  std::string ports_file;  // if set: the bound ports as JSON {"tcp": N, "http": M} after start-up

  // [engine]
  std::string devices = "cpu";  // engine::make_devices spec: cpu, sim, sim:K, cuda:N, cuda:all
  uint32_t workers_per_device = 1;
  uint64_t vram_bytes = 0;         // the ledger per device; 0 = the device's default
  uint64_t host_budget_bytes = 0;  // queued witnesses in host RAM; 0 = unlimited
  bool self_check = true;          // batch-verify each job's proofs before reporting it done
  double watchdog_s = 120;
  uint32_t threads = 0;                          // the prover's thread pool; 0 = all cores
  double sim_upload_ms = 0, sim_compute_ms = 0;  // simulated devices' stage times (tests)
  std::string sim_hold_file;  // tests: while this file exists, simulated compute stages don't end

  // [journal]
  std::string state_dir = "/var/lib/snarkd";  // journal.db and spool/
  double retention_s = 86400;                 // finished results kept this long (reloadable)

  // [log]
  std::string log_level = "info";  // trace debug info warn error (reloadable)
  std::string log_file;            // "" = stderr (systemd's journal)
  std::string log_format = "text";  // "text" (event key=value) or "json" (one object per line; log_format.hpp)

  std::vector<CircuitSpec> circuits;  // [[circuit]] (new ids are loaded on reload)

  // [cluster] (none reloadable): set `database` and the daemon keeps its jobs in the shared
  // PostgreSQL schema instead of the SQLite journal, and proves partitions any daemon accepted
  // (docs/ARCHITECTURE.md, "Cluster mode"). The local journal still holds PreloadKey circuits.
  struct Cluster {
    std::string database;       // libpq connection URI or key=value string; "" = single host
    std::string schema = "snarkd";  // PostgreSQL schema holding the tables (one per cluster)
    std::string host;           // this daemon's name in the hosts table; "" = hostname:pid
    double lease_s = 30;        // a claim not renewed for this long goes back to the queue
    uint32_t claim_ahead = 1;   // partitions claimed per device beyond its workers (queued here)
    std::string witness_dir;    // shared storage (same path on every host) for large witnesses
    uint64_t witness_dir_min_bytes = uint64_t{64} << 20;  // jobs this large go there, not the database
    double poll_ms = 0;         // also re-check every poll_ms (required with notify = false)
    bool notify = true;         // LISTEN/NOTIFY; off for a database without it (YugabyteDB's default)
    uint32_t pool_size = 8;     // connections for RPCs (each background thread has its own)
    bool operator==(const Cluster&) const = default;
  } cluster;

  std::string path;  // the file this came from
};

// Throws InvalidArgument("<path>: <key>: <what is wrong>").
ServerConfig load_config(const std::string& path);
ServerConfig parse_config(const std::string& toml_text, const std::string& path_for_errors);

// The token in force: token, else token_file's first line (trimmed). Throws InvalidArgument when
// the file cannot be read or is empty.
std::string resolve_token(const ServerConfig& c);

}  // namespace snarkd::server
