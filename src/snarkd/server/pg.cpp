#include "snarkd/server/pg.hpp"

#include <libpq-fe.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <regex>

namespace snarkd::server::pg {

namespace {

// Connection-class SQLSTATEs (08…), the server shutting down or starting (57P01–57P03), too
// many connections (53300): the caller waits and reconnects. Serialization failures and
// deadlocks (40001, 40P01): the transaction is run again.
bool unavailable_state(const std::string& s) {
  return s.rfind("08", 0) == 0 || s == "57P01" || s == "57P02" || s == "57P03" || s == "53300";
}

// libpq's messages end in a newline and continue on tab-indented lines: one line for logs.
std::string one_line(std::string m) {
  for (char& ch : m)
    if (ch == '\n' || ch == '\t') ch = ' ';
  while (!m.empty() && m.back() == ' ') m.pop_back();
  std::string out;
  for (char ch : m)
    if (ch != ' ' || out.empty() || out.back() != ' ') out += ch;
  return out;
}

std::string quote_element(const std::string& v) {
  std::string out = "\"";
  for (char ch : v) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

}  // namespace

// ---- Result ---------------------------------------------------------------------------------

Result::~Result() { PQclear(r_); }

Result& Result::operator=(Result&& o) noexcept {
  if (this != &o) {
    PQclear(r_);
    r_ = o.r_;
    o.r_ = nullptr;
  }
  return *this;
}

int Result::rows() const { return r_ ? PQntuples(r_) : 0; }

uint64_t Result::affected() const {
  const char* n = r_ ? PQcmdTuples(r_) : "";
  return *n ? std::strtoull(n, nullptr, 10) : 0;
}

bool Result::null(int row, int col) const { return PQgetisnull(r_, row, col) != 0; }

std::string Result::text(int row, int col) const {
  return std::string(PQgetvalue(r_, row, col), size_t(PQgetlength(r_, row, col)));
}

int64_t Result::i64(int row, int col) const { return null(row, col) ? 0 : std::strtoll(PQgetvalue(r_, row, col), nullptr, 10); }

double Result::f64(int row, int col) const { return null(row, col) ? 0 : std::strtod(PQgetvalue(r_, row, col), nullptr); }

bool Result::boolean(int row, int col) const { return !null(row, col) && PQgetvalue(r_, row, col)[0] == 't'; }

std::string_view Result::raw(int row, int col) const {
  return {PQgetvalue(r_, row, col), size_t(PQgetlength(r_, row, col))};
}

std::string Result::bytes(int row, int col) const {
  if (null(row, col)) return {};
  if (PQfformat(r_, col) == 1) return std::string(raw(row, col));
  size_t n = 0;
  unsigned char* p = PQunescapeBytea(reinterpret_cast<const unsigned char*>(PQgetvalue(r_, row, col)), &n);
  if (!p) throw Error("postgresql: cannot decode a bytea value", "");
  std::string out(reinterpret_cast<const char*>(p), n);
  PQfreemem(p);
  return out;
}

// ---- Params ---------------------------------------------------------------------------------

Params& Params::text(std::string v) {
  values_.emplace_back(std::move(v));
  formats_.push_back(0);
  return *this;
}

Params& Params::f64(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return text(buf);
}

Params& Params::bytes(std::string v) {
  values_.emplace_back(std::move(v));
  formats_.push_back(1);
  return *this;
}

Params& Params::null() {
  values_.emplace_back(std::nullopt);
  formats_.push_back(0);
  return *this;
}

Params& Params::text_array(const std::vector<std::string>& v) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + quote_element(v[i]);
  return text(s + "}");
}

Params& Params::i64_array(const std::vector<int64_t>& v) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return text(s + "}");
}

// ---- Conn -----------------------------------------------------------------------------------

Conn::Conn(const std::string& conninfo, const std::string& application_name) {
  const char* keys[] = {"connect_timeout", "keepalives", "keepalives_idle", "keepalives_interval",
                        "keepalives_count", "application_name", "dbname", nullptr};
  const char* values[] = {"5", "1", "10", "5", "3", application_name.c_str(), conninfo.c_str(), nullptr};
  c_ = PQconnectdbParams(keys, values, 1);
  if (!c_ || PQstatus(c_) != CONNECTION_OK) {
    const std::string msg = one_line(c_ ? PQerrorMessage(c_) : "out of memory");
    PQfinish(c_);
    c_ = nullptr;
    throw Unavailable("cannot connect to " + redact(conninfo) + ": " + msg, "08001");
  }
  PQsetNoticeProcessor(c_, [](void*, const char*) {}, nullptr);  // NOTICEs (IF NOT EXISTS) are not errors
}

Conn::~Conn() { PQfinish(c_); }

bool Conn::ok() const { return c_ && PQstatus(c_) == CONNECTION_OK; }

int Conn::socket() const { return c_ ? PQsocket(c_) : -1; }

std::string Conn::server_version() const { return c_ ? std::to_string(PQserverVersion(c_)) : ""; }

void Conn::fail(pg_result* r, const std::string& what) {
  const char* st = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  const std::string state = st ? st : "";
  std::string msg = r ? PQresultErrorMessage(r) : "";
  if (msg.empty()) msg = PQerrorMessage(c_);
  msg = one_line(msg);
  PQclear(r);
  const std::string text = "postgresql: " + what + ": " + msg;
  if (!ok() || unavailable_state(state)) throw Unavailable(text, state.empty() ? "08006" : state);
  if (state == "40001" || state == "40P01") throw Retry(text, state);
  throw Error(text, state);
}

Result Conn::check(pg_result* r, const std::string& what) {
  const ExecStatusType s = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK) return Result(r);
  fail(r, what);
}

Result Conn::exec(const std::string& sql) {
  if (!ok()) throw Unavailable("postgresql: the connection is closed", "08003");
  return check(PQexec(c_, sql.c_str()), sql.substr(0, 60));
}

Result Conn::query(const std::string& sql, const Params& p, bool binary_result) {
  if (!ok()) throw Unavailable("postgresql: the connection is closed", "08003");
  auto it = prepared_.find(sql);
  if (it == prepared_.end()) {
    const std::string name = "s" + std::to_string(prepared_.size() + 1);
    check(PQprepare(c_, name.c_str(), sql.c_str(), p.size(), nullptr), "prepare " + sql.substr(0, 60));
    it = prepared_.emplace(sql, name).first;
  }
  std::vector<const char*> values;
  std::vector<int> lengths;
  for (const auto& v : p.values_) {
    values.push_back(v ? v->data() : nullptr);
    lengths.push_back(v ? int(v->size()) : 0);
  }
  return check(PQexecPrepared(c_, it->second.c_str(), p.size(), values.data(), lengths.data(), p.formats_.data(),
                              binary_result ? 1 : 0),
               sql.substr(0, 60));
}

bool Conn::consume() { return ok() && PQconsumeInput(c_) == 1 && ok(); }

std::optional<Notification> Conn::notification() {
  PGnotify* n = PQnotifies(c_);
  if (!n) return std::nullopt;
  Notification out{n->relname ? n->relname : "", n->extra ? n->extra : ""};
  PQfreemem(n);
  return out;
}

// ---- Tx -------------------------------------------------------------------------------------

Tx::Tx(Conn& c) : c_(c) { c_.exec("BEGIN"); }

Tx::~Tx() {
  if (!done_ && c_.ok()) {
    try {
      c_.exec("ROLLBACK");
    } catch (...) {  // the connection broke: the server rolled back already
    }
  }
}

void Tx::commit() {
  done_ = true;  // whatever COMMIT answers, there is nothing left to roll back
  c_.exec("COMMIT");
}

std::string redact(const std::string& conninfo) {
  static const std::regex uri_pw(R"(^(\w+://[^:/@]*:)[^@]*@)");
  static const std::regex kv_pw(R"((password\s*=\s*)('[^']*'|\S+))");
  std::string s = std::regex_replace(conninfo, uri_pw, "$1***@");
  return std::regex_replace(s, kv_pw, "$1***");
}

}  // namespace snarkd::server::pg
