#include "snarkd/server/journal.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <set>
#include <stdexcept>

#include "snarkd/server/files.hpp"
#include "snarkd/util/random.hpp"

namespace fs = std::filesystem;

namespace snarkd::server {

double unix_now() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

namespace {

[[noreturn]] void sql_fail(sqlite3* db, const std::string& what) {
  throw std::runtime_error("journal: " + what + ": " + (db ? sqlite3_errmsg(db) : "no database"));
}

// A prepared statement; binds are 1-based, columns 0-based (SQLite's convention).
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &s_, nullptr) != SQLITE_OK) sql_fail(db, std::string("prepare '") + sql + "'");
  }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Stmt& bind(int i, int64_t v) { return check(sqlite3_bind_int64(s_, i, v)); }
  Stmt& bind(int i, double v) { return check(sqlite3_bind_double(s_, i, v)); }
  Stmt& bind(int i, const std::string& v) {
    return check(sqlite3_bind_text(s_, i, v.data(), int(v.size()), SQLITE_TRANSIENT));
  }
  Stmt& bind_blob(int i, const void* p, size_t n) {
    return check(sqlite3_bind_blob64(s_, i, n ? p : "", n, SQLITE_TRANSIENT));
  }
  bool step() {  // true: a row is ready
    const int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    sql_fail(db_, std::string("step '") + sqlite3_sql(s_) + "'");
  }
  int64_t i64(int c) const { return sqlite3_column_int64(s_, c); }
  double f64(int c) const { return sqlite3_column_double(s_, c); }
  std::string text(int c) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, c));
    return p ? std::string(p, size_t(sqlite3_column_bytes(s_, c))) : std::string();
  }
  std::string blob(int c) const {
    const auto* p = static_cast<const char*>(sqlite3_column_blob(s_, c));
    return p ? std::string(p, size_t(sqlite3_column_bytes(s_, c))) : std::string();
  }

 private:
  Stmt& check(int rc) {
    if (rc != SQLITE_OK) sql_fail(db_, "bind");
    return *this;
  }
  sqlite3* db_;
  sqlite3_stmt* s_ = nullptr;
};

// BEGIN IMMEDIATE … COMMIT (the commit is the fsync); rolled back if not committed.
class Tx {
 public:
  explicit Tx(sqlite3* db) : db_(db) { run("BEGIN IMMEDIATE"); }
  ~Tx() {
    if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  void commit() {
    run("COMMIT");
    done_ = true;
  }

 private:
  void run(const char* sql) {
    if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK) sql_fail(db_, sql);
  }
  sqlite3* db_;
  bool done_ = false;
};

void fsync_path(const std::string& path, bool directory) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0));
  if (fd < 0) throw std::runtime_error("spool: cannot open " + path + " to fsync: " + std::strerror(errno));
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) throw std::runtime_error("spool: fsync " + path + ": " + std::strerror(err));
}

std::string formats_text(const std::vector<WitnessFormat>& f) {
  std::string s;
  for (size_t k = 0; k < f.size(); ++k) {
    if (k) s += ',';
    s += witness_format_ext(f[k]);
  }
  return s;
}

std::vector<WitnessFormat> parse_formats(const std::string& s, uint64_t id) {
  std::vector<WitnessFormat> out;
  size_t start = 0;
  while (start <= s.size() && !s.empty()) {
    const size_t comma = std::min(s.find(',', start), s.size());
    const std::string f = s.substr(start, comma - start);
    if (f == "wtns")
      out.push_back(WitnessFormat::kWtns);
    else if (f == "fr")
      out.push_back(WitnessFormat::kFrMontgomery);
    else
      throw std::runtime_error("journal: job " + std::to_string(id) + ": unknown witness format '" + f + "'");
    start = comma + 1;
  }
  return out;
}

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value);
CREATE TABLE IF NOT EXISTS jobs(
  id INTEGER PRIMARY KEY, request_id TEXT, payload_sha256 BLOB, circuit_id TEXT NOT NULL,
  priority INTEGER NOT NULL, formats TEXT NOT NULL, state TEXT NOT NULL, submitted_at REAL NOT NULL,
  finished_at REAL NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 1, error TEXT NOT NULL DEFAULT '',
  result BLOB);
CREATE INDEX IF NOT EXISTS jobs_state ON jobs(state, finished_at);
CREATE TABLE IF NOT EXISTS job_events(
  seq INTEGER PRIMARY KEY, job_id INTEGER NOT NULL, at REAL NOT NULL, event TEXT NOT NULL, detail TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS job_events_job ON job_events(job_id);
CREATE TABLE IF NOT EXISTS circuits(
  id TEXT PRIMARY KEY, params TEXT NOT NULL, circuit TEXT NOT NULL, zkey TEXT NOT NULL,
  check_key INTEGER NOT NULL, added_at REAL NOT NULL);
INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', 1), ('next_job_id', 1);
)sql";

}  // namespace

Journal::Journal(const std::string& state_dir) : dir_(state_dir) {
  // Witnesses are private inputs: the state directory and the spool are 0700, journal.db 0600
  // whatever the umask (SQLite gives its -wal and -shm files the database file's mode).
  try {
    for (const std::string& d : {dir_, dir_ + "/spool", dir_ + "/spool/.staging"}) make_private_dir(d);
    ensure_file_mode(db_path(), 0600);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("journal: ") + e.what());
  }
  if (sqlite3_open_v2(db_path().c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw std::runtime_error("journal: cannot open " + db_path() + ": " + msg);
  }
  sqlite3_busy_timeout(db_, 10000);  // an operator's sqlite3 reading the file must not fail us
  // WAL + FULL: each commit appends to the WAL and fsyncs it before COMMIT returns.
  exec("PRAGMA journal_mode=WAL");
  exec("PRAGMA synchronous=FULL");
  exec(kSchema);
  Stmt s(db_, "SELECT value FROM meta WHERE key = 'schema'");
  if (!s.step() || s.i64(0) != 1)
    throw std::runtime_error("journal: " + db_path() + " has an unknown schema version (this daemon reads 1)");
  Stmt n(db_,
         "SELECT max((SELECT value FROM meta WHERE key = 'next_job_id'), coalesce((SELECT max(id) + 1 FROM jobs), 1))");
  n.step();
  next_id_ = uint64_t(n.i64(0));
  clean_spool_orphans();
}

Journal::~Journal() { sqlite3_close(db_); }

void Journal::exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string msg = err ? err : "?";
    sqlite3_free(err);
    throw std::runtime_error("journal " + db_path() + ": " + msg);
  }
}

void Journal::clean_spool_orphans() {
  std::set<std::string> keep;
  {
    Stmt s(db_, "SELECT id FROM jobs WHERE state = 'queued'");
    while (s.step()) keep.insert(std::to_string(s.i64(0)));
  }
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_ + "/spool/.staging", ec)) fs::remove_all(e.path(), ec);
  for (const auto& e : fs::directory_iterator(dir_ + "/spool", ec)) {
    const std::string name = e.path().filename().string();
    if (name != ".staging" && !keep.count(name)) fs::remove_all(e.path(), ec);
  }
}

std::string Journal::new_staging_dir() {
  uint64_t r;
  os_random_bytes(&r, sizeof r);
  const std::string d = dir_ + "/spool/.staging/" + to_hex(std::span(reinterpret_cast<const uint8_t*>(&r), 8));
  if (::mkdir(d.c_str(), 0700) != 0 || ::chmod(d.c_str(), 0700) != 0)
    throw std::runtime_error("spool: cannot create " + d + ": " + std::strerror(errno));
  return d;
}

std::string Journal::spool_file(uint64_t id, uint32_t partition, WitnessFormat f) const {
  return dir_ + "/spool/" + std::to_string(id) + "/" + std::to_string(partition) + "." + witness_format_ext(f);
}

void Journal::commit_spool(const std::string& staging, uint64_t id) {
  for (const auto& e : fs::directory_iterator(staging)) fsync_path(e.path().string(), false);
  fsync_path(staging, true);
  const std::string dest = dir_ + "/spool/" + std::to_string(id);
  std::error_code ec;
  fs::rename(staging, dest, ec);
  if (ec) throw std::runtime_error("spool: rename " + staging + " → " + dest + ": " + ec.message());
  fsync_path(dir_ + "/spool", true);
}

void Journal::remove_dir(const std::string& dir) noexcept {
  std::error_code ec;
  fs::remove_all(dir, ec);
}

void Journal::remove_spool(uint64_t id) noexcept { remove_dir(dir_ + "/spool/" + std::to_string(id)); }

uint64_t Journal::allocate_job_id() {
  std::lock_guard l(id_mu_);
  return next_id_++;
}

void Journal::event(uint64_t id, const char* what, const std::string& detail, double at) {
  Stmt(db_, "INSERT INTO job_events(job_id, at, event, detail) VALUES (?, ?, ?, ?)")
      .bind(1, int64_t(id))
      .bind(2, at)
      .bind(3, std::string(what))
      .bind(4, detail)
      .step();
}

void Journal::insert_job(const JournalJob& j) {
  std::lock_guard l(db_mu_);
  Tx tx(db_);
  Stmt(db_,
       "INSERT INTO jobs(id, request_id, payload_sha256, circuit_id, priority, formats, state, submitted_at, attempts) "
       "VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, 1)")
      .bind(1, int64_t(j.id))
      .bind(2, j.request_id)
      .bind_blob(3, j.payload_sha256.data(), j.payload_sha256.size())
      .bind(4, j.circuit_id)
      .bind(5, int64_t(j.priority))
      .bind(6, formats_text(j.formats))
      .bind(7, j.submitted_at)
      .step();
  Stmt(db_, "UPDATE meta SET value = max(value, ?) WHERE key = 'next_job_id'").bind(1, int64_t(j.id + 1)).step();
  event(j.id, "accepted", j.request_id.empty() ? "" : "request_id=" + j.request_id, j.submitted_at);
  event(j.id, "started", "attempt=1", j.submitted_at);
  tx.commit();
}

void Journal::remove_job(uint64_t id) {
  std::lock_guard l(db_mu_);
  Tx tx(db_);
  Stmt(db_, "DELETE FROM jobs WHERE id = ?").bind(1, int64_t(id)).step();
  Stmt(db_, "DELETE FROM job_events WHERE job_id = ?").bind(1, int64_t(id)).step();
  tx.commit();
}

void Journal::job_restarted(uint64_t id, uint32_t attempt) {
  std::lock_guard l(db_mu_);
  Tx tx(db_);
  Stmt(db_, "UPDATE jobs SET attempts = ? WHERE id = ?").bind(1, int64_t(attempt)).bind(2, int64_t(id)).step();
  event(id, "started", "attempt=" + std::to_string(attempt), unix_now());
  tx.commit();
}

bool Journal::finish_job(uint64_t id, const std::string& state, double at, const std::string& error,
                         const std::string& result) {
  std::lock_guard l(db_mu_);
  Tx tx(db_);
  Stmt u(db_, "UPDATE jobs SET state = ?, finished_at = ?, error = ?, result = ? WHERE id = ? AND state = 'queued'");
  u.bind(1, state).bind(2, at).bind(3, error).bind_blob(4, result.data(), result.size()).bind(5, int64_t(id)).step();
  if (sqlite3_changes(db_) != 1) return false;
  event(id, state.c_str(), error, at);
  tx.commit();
  return true;
}

std::vector<JournalJob> Journal::load_jobs() {
  std::lock_guard l(db_mu_);
  Stmt s(db_,
         "SELECT id, request_id, payload_sha256, circuit_id, priority, formats, state, submitted_at, finished_at, "
         "attempts, error, result FROM jobs ORDER BY id");
  std::vector<JournalJob> out;
  while (s.step()) {
    JournalJob j;
    j.id = uint64_t(s.i64(0));
    j.request_id = s.text(1);
    const std::string h = s.blob(2);
    if (h.size() == j.payload_sha256.size()) std::memcpy(j.payload_sha256.data(), h.data(), h.size());
    j.circuit_id = s.text(3);
    j.priority = int(s.i64(4));
    j.formats = parse_formats(s.text(5), j.id);
    j.state = s.text(6);
    j.submitted_at = s.f64(7);
    j.finished_at = s.f64(8);
    j.attempts = uint32_t(s.i64(9));
    j.error = s.text(10);
    j.result = s.blob(11);
    out.push_back(std::move(j));
  }
  return out;
}

std::vector<uint64_t> Journal::purge_finished(double before) {
  std::lock_guard l(db_mu_);
  std::vector<uint64_t> ids;
  {
    Stmt s(db_, "SELECT id FROM jobs WHERE state != 'queued' AND finished_at < ?");
    s.bind(1, before);
    while (s.step()) ids.push_back(uint64_t(s.i64(0)));
  }
  if (ids.empty()) return ids;
  Tx tx(db_);
  for (uint64_t id : ids) {
    Stmt(db_, "DELETE FROM jobs WHERE id = ?").bind(1, int64_t(id)).step();
    Stmt(db_, "DELETE FROM job_events WHERE job_id = ?").bind(1, int64_t(id)).step();
  }
  tx.commit();
  return ids;
}

void Journal::put_circuit(const CircuitSpec& c) {
  std::lock_guard l(db_mu_);
  Stmt(db_, "INSERT OR REPLACE INTO circuits(id, params, circuit, zkey, check_key, added_at) VALUES (?, ?, ?, ?, ?, ?)")
      .bind(1, c.id)
      .bind(2, c.params)
      .bind(3, c.circuit)
      .bind(4, c.zkey)
      .bind(5, int64_t(c.check_key))
      .bind(6, unix_now())
      .step();
}

void Journal::remove_circuit(const std::string& id) {
  std::lock_guard l(db_mu_);
  Stmt(db_, "DELETE FROM circuits WHERE id = ?").bind(1, id).step();
}

std::vector<CircuitSpec> Journal::load_circuits() {
  std::lock_guard l(db_mu_);
  Stmt s(db_, "SELECT id, params, circuit, zkey, check_key FROM circuits ORDER BY added_at");
  std::vector<CircuitSpec> out;
  while (s.step()) out.push_back(CircuitSpec{s.text(0), s.text(1), s.text(2), s.text(3), s.i64(4) != 0});
  return out;
}

}  // namespace snarkd::server
