#include "snarkd/server/config.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "snarkd/util/error.hpp"

namespace snarkd::server {
namespace {

// One TOML table read strictly: every getter records its key, finish() rejects the rest.
class Section {
 public:
  Section(const toml::table* t, std::string name, const std::string& path)
      : t_(t), name_(std::move(name)), path_(path) {}

  void str(const char* key, std::string& out) {
    if (const toml::node* n = get(key)) {
      if (!n->is_string()) fail(key, "expected a string");
      out = n->as_string()->get();
    }
  }
  void boolean(const char* key, bool& out) {
    if (const toml::node* n = get(key)) {
      if (!n->is_boolean()) fail(key, "expected true or false");
      out = n->as_boolean()->get();
    }
  }
  void number(const char* key, double& out, double lo, double hi) {
    if (const toml::node* n = get(key)) {
      if (!n->is_number()) fail(key, "expected a number");
      const double v = n->is_integer() ? double(n->as_integer()->get()) : n->as_floating_point()->get();
      if (!(v >= lo && v <= hi)) fail(key, "must be between " + fmt(lo) + " and " + fmt(hi));
      out = v;
    }
  }
  void u32(const char* key, uint32_t& out, uint32_t lo, uint32_t hi) {
    double v = out;
    number(key, v, lo, hi);
    if (v != std::floor(v)) fail(key, "must be a whole number");
    out = uint32_t(v);
  }
  // A size given in units (key_mib, key_gib): stored as bytes.
  void bytes(const char* key, uint64_t& out, double unit, double hi) {
    double v = double(out) / unit;
    number(key, v, 0, hi);
    out = uint64_t(v * unit);
  }
  void strings(const char* key, std::vector<std::string>& out) {
    if (const toml::node* n = get(key)) {
      const toml::array* a = n->as_array();
      if (!a) fail(key, "expected an array of strings");
      out.clear();
      for (const toml::node& e : *a) {
        if (!e.is_string()) fail(key, "expected an array of strings");
        out.push_back(e.as_string()->get());
      }
    }
  }
  void mark(const char* key) { seen_.insert(key); }
  void finish() const {
    if (!t_) return;
    for (auto&& [k, v] : *t_)
      if (!seen_.count(std::string(k.str())))
        throw InvalidArgument(path_ + ": unknown key '" + qualified(std::string(k.str())) + "'");
  }
  [[noreturn]] void fail(const char* key, const std::string& what) const {
    throw InvalidArgument(path_ + ": " + qualified(key) + ": " + what);
  }

 private:
  const toml::node* get(const char* key) {
    seen_.insert(key);
    return t_ ? t_->get(key) : nullptr;
  }
  std::string qualified(const std::string& key) const { return name_.empty() ? key : name_ + "." + key; }
  static std::string fmt(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
  }

  const toml::table* t_;
  std::string name_;
  const std::string& path_;
  std::set<std::string> seen_;
};

const toml::table* table_of(const toml::table& root, const char* name, const std::string& path) {
  const toml::node* n = root.get(name);
  if (!n) return nullptr;
  if (!n->is_table()) throw InvalidArgument(path + ": [" + std::string(name) + "] must be a table");
  return n->as_table();
}

void read_socket_mode(const toml::table* t, const std::string& path, uint32_t& mode) {
  const toml::node* n = t ? t->get("socket_mode") : nullptr;
  if (!n) return;
  if (n->is_integer()) {
    mode = uint32_t(n->as_integer()->get());  // write it as 0o600 in TOML
  } else if (n->is_string()) {
    const std::string s = n->as_string()->get();
    size_t used = 0;
    try {
      mode = uint32_t(std::stoul(s, &used, 8));
    } catch (...) {
      used = 0;
    }
    if (used != s.size() || s.empty()) throw InvalidArgument(path + ": server.socket_mode: '" + s + "' is not octal");
  } else {
    throw InvalidArgument(path + ": server.socket_mode: expected 0o600 or \"0600\"");
  }
  if (mode > 0777) throw InvalidArgument(path + ": server.socket_mode: must be at most 0777");
}

void read_server(const toml::table& root, const std::string& path, ServerConfig& c) {
  const toml::table* t = table_of(root, "server", path);
  Section s(t, "server", path);
  s.str("socket", c.socket);
  s.mark("socket_mode");
  read_socket_mode(t, path, c.socket_mode);
  s.str("tcp_listen", c.tcp_listen);
  s.str("token", c.token);
  s.str("token_file", c.token_file);
  s.str("http_listen", c.http_listen);
  s.bytes("max_message_mib", c.max_message_bytes, double(1 << 20), 2047);  // gRPC's limit: < 2 GiB
  s.u32("max_partitions", c.max_partitions, 1, 1 << 16);
  s.strings("witness_dirs", c.witness_dirs);
  s.strings("key_dirs", c.key_dirs);
  double wait = double(c.submit_wait_ms);
  s.number("submit_wait_ms", wait, 0, 86400e3);
  c.submit_wait_ms = uint64_t(wait);
  s.number("drain_timeout_s", c.drain_timeout_s, 0, 86400);
  s.u32("max_rpc_threads", c.max_rpc_threads, 4, 65536);
  s.str("ports_file", c.ports_file);
  s.finish();
}

void read_engine(const toml::table& root, const std::string& path, ServerConfig& c) {
  Section s(table_of(root, "engine", path), "engine", path);
  s.str("devices", c.devices);
  s.u32("workers_per_device", c.workers_per_device, 1, 64);
  s.bytes("vram_gib", c.vram_bytes, double(uint64_t{1} << 30), 1 << 20);
  s.bytes("host_budget_gib", c.host_budget_bytes, double(uint64_t{1} << 30), 1 << 20);
  s.boolean("self_check", c.self_check);
  s.number("watchdog_s", c.watchdog_s, 1, 86400);
  s.u32("threads", c.threads, 0, 4096);
  s.number("sim_upload_ms", c.sim_upload_ms, 0, 3600e3);
  s.number("sim_compute_ms", c.sim_compute_ms, 0, 3600e3);
  s.str("sim_hold_file", c.sim_hold_file);
  s.finish();
}

void read_journal_and_log(const toml::table& root, const std::string& path, ServerConfig& c) {
  Section j(table_of(root, "journal", path), "journal", path);
  j.str("state_dir", c.state_dir);
  j.number("retention_s", c.retention_s, 0, 10 * 365 * 86400.0);
  j.finish();
  Section l(table_of(root, "log", path), "log", path);
  l.str("level", c.log_level);
  l.str("file", c.log_file);
  l.str("format", c.log_format);
  l.finish();
  static const std::set<std::string> levels{"trace", "debug", "info", "warn", "error", "critical", "off"};
  if (!levels.count(c.log_level)) l.fail("level", "'" + c.log_level + "' is not one of trace debug info warn error");
  if (c.log_format != "text" && c.log_format != "json") l.fail("format", "'" + c.log_format + "' is not text or json");
}

void read_cluster(const toml::table& root, const std::string& path, ServerConfig& c) {
  Section s(table_of(root, "cluster", path), "cluster", path);
  ServerConfig::Cluster& k = c.cluster;
  s.str("database", k.database);
  s.str("schema", k.schema);
  s.str("host", k.host);
  s.number("lease_s", k.lease_s, 1, 86400);
  s.u32("claim_ahead", k.claim_ahead, 0, 1024);
  s.str("witness_dir", k.witness_dir);
  s.bytes("witness_dir_min_mib", k.witness_dir_min_bytes, double(1 << 20), 1 << 30);
  s.number("poll_ms", k.poll_ms, 0, 3600e3);
  s.u32("pool_size", k.pool_size, 1, 256);
  s.boolean("notify", k.notify);
  s.finish();
  if (!k.notify && k.poll_ms <= 0) s.fail("poll_ms", "must be > 0 with notify = false (nothing else wakes the daemon)");
  // The schema name is spliced into SQL and NOTIFY channel names: a plain identifier only.
  const bool plain = !k.schema.empty() && k.schema.size() <= 40 && !std::isdigit(uint8_t(k.schema[0])) &&
                     std::all_of(k.schema.begin(), k.schema.end(),
                                 [](char ch) { return std::islower(uint8_t(ch)) || std::isdigit(uint8_t(ch)) || ch == '_'; });
  if (!plain) s.fail("schema", "'" + k.schema + "' is not 1 to 40 of a-z, 0-9, _ (not starting with a digit)");
  if (!k.witness_dir.empty() && k.witness_dir[0] != '/') s.fail("witness_dir", "must be an absolute path");
}

void read_circuits(const toml::table& root, const std::string& path, ServerConfig& c) {
  const toml::node* n = root.get("circuit");
  if (!n) return;
  const toml::array* a = n->as_array();
  if (!a) throw InvalidArgument(path + ": circuit: expected [[circuit]] tables");
  std::set<std::string> ids;
  for (size_t k = 0; k < a->size(); ++k) {
    const toml::table* t = (*a)[k].as_table();
    if (!t) throw InvalidArgument(path + ": circuit " + std::to_string(k) + ": expected a table");
    CircuitSpec spec;
    Section s(t, "circuit[" + std::to_string(k) + "]", path);
    s.str("id", spec.id);
    s.str("params", spec.params);
    s.str("circuit", spec.circuit);
    s.str("zkey", spec.zkey);
    s.boolean("check_key", spec.check_key);
    s.finish();
    if (spec.id.empty()) s.fail("id", "missing");
    const auto odd = [](unsigned char ch) { return ch < 0x21 || ch > 0x7e; };  // the API's id rule
    if (spec.id.size() > 128 || std::any_of(spec.id.begin(), spec.id.end(), odd))
      s.fail("id", "'" + spec.id + "' is not 1 to 128 printable ASCII characters without spaces");
    if (spec.zkey.empty() == (spec.params.empty() || spec.circuit.empty()))
      s.fail("id", "give either zkey, or params and circuit");
    if (!ids.insert(spec.id).second) s.fail("id", "'" + spec.id + "' is declared twice");
    c.circuits.push_back(std::move(spec));
  }
}

void check_top_level(const toml::table& root, const std::string& path) {
  static const std::set<std::string> known{"server", "engine", "journal", "log", "circuit", "cluster"};
  for (auto&& [k, v] : root)
    if (!known.count(std::string(k.str())))
      throw InvalidArgument(path + ": unknown table or key '" + std::string(k.str()) + "'");
}

}  // namespace

ServerConfig parse_config(const std::string& text, const std::string& path) {
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    throw InvalidArgument(path + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) + ": " +
                          std::string(e.description()));
  }
  ServerConfig c;
  c.path = path;
  check_top_level(root, path);
  read_server(root, path, c);
  read_engine(root, path, c);
  read_journal_and_log(root, path, c);
  read_circuits(root, path, c);
  read_cluster(root, path, c);
  if (c.socket.empty() && c.tcp_listen.empty())
    throw InvalidArgument(path + ": neither server.socket nor server.tcp_listen is set");
  if (!c.tcp_listen.empty() && c.token.empty() && c.token_file.empty())
    throw InvalidArgument(path +
                          ": server.tcp_listen needs server.token or server.token_file (TCP calls must carry it)");
  if (c.state_dir.empty()) throw InvalidArgument(path + ": journal.state_dir is empty");
  return c;
}

ServerConfig load_config(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InvalidArgument(path + ": cannot open the configuration file");
  std::ostringstream text;
  text << f.rdbuf();
  return parse_config(text.str(), path);
}

std::string resolve_token(const ServerConfig& c) {
  if (!c.token.empty()) return c.token;
  if (c.token_file.empty()) return "";
  std::ifstream f(c.token_file);
  if (!f) throw InvalidArgument(c.path + ": server.token_file: cannot read '" + c.token_file + "'");
  std::string line;
  std::getline(f, line);
  const auto b = line.find_first_not_of(" \t\r\n"), e = line.find_last_not_of(" \t\r\n");
  if (b == std::string::npos) throw InvalidArgument(c.path + ": server.token_file: '" + c.token_file + "' is empty");
  return line.substr(b, e - b + 1);
}

}  // namespace snarkd::server
