// A thin RAII layer over libpq (Debian's libpq-dev) for the cluster store: one connection,
// parameterised statements (prepared once per connection and SQL text), transactions and
// LISTEN/NOTIFY notifications. Parameters go as text, byte strings as binary; results come as
// text (bytes() decodes bytea's hex form) unless a query asks for binary results.
//
// Errors: pg::Unavailable when the connection is unusable (the server went away or restarts, a
// network cut, "cannot connect now"); pg::Retry for a serialization failure or a deadlock the
// server broke (run the transaction again); pg::Error for the rest, with the SQLSTATE.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

struct pg_conn;
struct pg_result;

namespace snarkd::server::pg {

class Error : public std::runtime_error {
 public:
  Error(const std::string& what, std::string sqlstate) : std::runtime_error(what), sqlstate_(std::move(sqlstate)) {}
  const std::string& sqlstate() const { return sqlstate_; }

 private:
  std::string sqlstate_;
};
class Unavailable : public Error {
  using Error::Error;
};
class Retry : public Error {
  using Error::Error;
};

class Result {
 public:
  explicit Result(pg_result* r = nullptr) : r_(r) {}
  ~Result();
  Result(Result&& o) noexcept : r_(o.r_) { o.r_ = nullptr; }
  Result& operator=(Result&& o) noexcept;
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;

  int rows() const;
  uint64_t affected() const;  // rows an INSERT/UPDATE/DELETE touched
  bool null(int row, int col) const;
  std::string text(int row, int col) const;
  int64_t i64(int row, int col) const;  // text results
  double f64(int row, int col) const;
  bool boolean(int row, int col) const;
  std::string bytes(int row, int col) const;  // bytea: binary results as is, text ones unescaped
  std::string_view raw(int row, int col) const;  // binary results: the value's bytes

 private:
  pg_result* r_;
};

// Statement parameters in order ($1, $2, ...).
class Params {
 public:
  Params& text(std::string v);
  Params& i64(int64_t v) { return text(std::to_string(v)); }
  Params& f64(double v);
  Params& boolean(bool v) { return text(v ? "t" : "f"); }
  Params& bytes(std::string v);  // bytea, sent binary
  Params& null();
  // A text[] / bigint[] literal: {"a","b"} (elements quoted and escaped).
  Params& text_array(const std::vector<std::string>& v);
  Params& i64_array(const std::vector<int64_t>& v);

  int size() const { return int(values_.size()); }

 private:
  friend class Conn;
  std::vector<std::optional<std::string>> values_;
  std::vector<int> formats_;  // 0 text, 1 binary
};

struct Notification {
  std::string channel, payload;
};

class Conn {
 public:
  // Connects (libpq keywords first, the configured string last so its settings win:
  // connect_timeout 5 s, TCP keepalives so a dead server is noticed). Throws Unavailable.
  Conn(const std::string& conninfo, const std::string& application_name);
  ~Conn();
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  // A statement without parameters (several may be ';'-separated), e.g. DDL, BEGIN.
  Result exec(const std::string& sql);
  // A prepared statement (prepared on this connection at first use of this SQL text).
  Result query(const std::string& sql, const Params& p = Params(), bool binary_result = false);

  bool ok() const;   // the connection is usable
  int socket() const;
  // Reads what the server sent (notifications); false when the connection broke.
  bool consume();
  std::optional<Notification> notification();
  std::string server_version() const;

 private:
  [[noreturn]] void fail(pg_result* r, const std::string& what);
  Result check(pg_result* r, const std::string& what);
  pg_conn* c_ = nullptr;
  std::unordered_map<std::string, std::string> prepared_;  // SQL text → statement name
};

// BEGIN … COMMIT; rolled back when not committed (a broken connection rolls back by itself).
class Tx {
 public:
  explicit Tx(Conn& c);
  ~Tx();
  Tx(const Tx&) = delete;
  Tx& operator=(const Tx&) = delete;
  void commit();

 private:
  Conn& c_;
  bool done_ = false;
};

// "host=/tmp/x dbname=d password=…" or a URI with the password replaced by "***" (for logs).
std::string redact(const std::string& conninfo);

}  // namespace snarkd::server::pg
