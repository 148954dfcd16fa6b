#include "snarkd/server/journal.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fcntl.h>
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

// SQLiteCpp (Debian libsqlitecpp-dev) holds the connection, statements and transactions. Its
// exceptions carry SQLite's message alone; these helpers name the statement, so an RPC reply or a
// log line says which journal write failed. Binds are 1-based, columns 0-based (SQLite's rule).
[[noreturn]] void fail(const std::string& sql, const std::exception& e) {
  throw std::runtime_error("journal: '" + sql + "': " + e.what());
}

struct Blob {  // a zero-length blob binds as an empty blob, not NULL (as before: "" with size 0)
  const void* p;
  size_t n;
};
void bind_one(SQLite::Statement& s, int i, int64_t v) { s.bind(i, v); }
void bind_one(SQLite::Statement& s, int i, double v) { s.bind(i, v); }
void bind_one(SQLite::Statement& s, int i, const std::string& v) { s.bind(i, v); }
void bind_one(SQLite::Statement& s, int i, Blob b) {
  if (b.n > size_t(INT32_MAX)) throw std::runtime_error("journal: blob of " + std::to_string(b.n) + " bytes");
  s.bind(i, b.n ? b.p : "", int(b.n));
}

// A prepared statement with v… bound to ?1, ?2, … in order.
template <class... V>
SQLite::Statement prepare(SQLite::Database& db, const char* sql, const V&... v) {
  try {
    SQLite::Statement s(db, sql);
    int i = 0;
    (bind_one(s, ++i, v), ...);
    return s;
  } catch (const SQLite::Exception& e) {
    fail(sql, e);
  }
}

bool step(SQLite::Statement& s) {  // true: a row is ready
  try {
    return s.executeStep();
  } catch (const SQLite::Exception& e) {
    fail(s.getQuery(), e);
  }
}

// One INSERT, UPDATE or DELETE run to completion; the number of rows it changed.
template <class... V>
int run(SQLite::Database& db, const char* sql, const V&... v) {
  SQLite::Statement s = prepare(db, sql, v...);
  try {
    return s.exec();
  } catch (const SQLite::Exception& e) {
    fail(sql, e);
  }
}

// BEGIN IMMEDIATE … COMMIT (the commit is the fsync); SQLiteCpp rolls back one not committed.
struct Tx {
  explicit Tx(SQLite::Database& db) try : t(db, SQLite::TransactionBehavior::IMMEDIATE) {
  } catch (const SQLite::Exception& e) {
    fail("BEGIN IMMEDIATE", e);
  }
  void commit() {
    try {
      t.commit();
    } catch (const SQLite::Exception& e) {
      fail("COMMIT", e);
    }
  }
  SQLite::Transaction t;
};

int64_t i64(const SQLite::Statement& s, int c) { return s.getColumn(c).getInt64(); }
double f64(const SQLite::Statement& s, int c) { return s.getColumn(c).getDouble(); }
// Text and blobs by their byte count (embedded NULs kept; NULL reads as "").
std::string bytes(const SQLite::Statement& s, int c) { return s.getColumn(c).getString(); }

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
  try {
    // 10 s busy timeout: an operator's sqlite3 reading the file must not fail us.
    db_ = std::make_unique<SQLite::Database>(
        db_path(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE | SQLite::OPEN_FULLMUTEX, 10000);
    // WAL + FULL: each commit appends to the WAL and fsyncs it before COMMIT returns.
    db_->exec("PRAGMA journal_mode=WAL");
    db_->exec("PRAGMA synchronous=FULL");
    db_->exec(kSchema);
  } catch (const SQLite::Exception& e) {
    throw std::runtime_error("journal: cannot open " + db_path() + ": " + e.what());
  }
  SQLite::Statement s = prepare(*db_, "SELECT value FROM meta WHERE key = 'schema'");
  if (!step(s) || i64(s, 0) != 1)
    throw std::runtime_error("journal: " + db_path() + " has an unknown schema version (this daemon reads 1)");
  SQLite::Statement n = prepare(
      *db_,
      "SELECT max((SELECT value FROM meta WHERE key = 'next_job_id'), coalesce((SELECT max(id) + 1 FROM jobs), 1))");
  step(n);
  next_id_ = uint64_t(i64(n, 0));
  clean_spool_orphans();
}

Journal::~Journal() = default;

void Journal::clean_spool_orphans() {
  std::set<std::string> keep;
  {
    SQLite::Statement s = prepare(*db_, "SELECT id FROM jobs WHERE state = 'queued'");
    while (step(s)) keep.insert(std::to_string(i64(s, 0)));
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
  run(*db_, "INSERT INTO job_events(job_id, at, event, detail) VALUES (?, ?, ?, ?)", int64_t(id), at, std::string(what),
      detail);
}

void Journal::insert_job(const JournalJob& j) {
  std::lock_guard l(db_mu_);
  Tx tx(*db_);
  run(*db_,
      "INSERT INTO jobs(id, request_id, payload_sha256, circuit_id, priority, formats, state, submitted_at, attempts) "
      "VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, 1)",
      int64_t(j.id), j.request_id, Blob{j.payload_sha256.data(), j.payload_sha256.size()}, j.circuit_id,
      int64_t(j.priority), formats_text(j.formats), j.submitted_at);
  run(*db_, "UPDATE meta SET value = max(value, ?) WHERE key = 'next_job_id'", int64_t(j.id + 1));
  event(j.id, "accepted", j.request_id.empty() ? "" : "request_id=" + j.request_id, j.submitted_at);
  event(j.id, "started", "attempt=1", j.submitted_at);
  tx.commit();
}

void Journal::remove_job(uint64_t id) {
  std::lock_guard l(db_mu_);
  Tx tx(*db_);
  run(*db_, "DELETE FROM jobs WHERE id = ?", int64_t(id));
  run(*db_, "DELETE FROM job_events WHERE job_id = ?", int64_t(id));
  tx.commit();
}

void Journal::job_restarted(uint64_t id, uint32_t attempt) {
  std::lock_guard l(db_mu_);
  Tx tx(*db_);
  run(*db_, "UPDATE jobs SET attempts = ? WHERE id = ?", int64_t(attempt), int64_t(id));
  event(id, "started", "attempt=" + std::to_string(attempt), unix_now());
  tx.commit();
}

bool Journal::finish_job(uint64_t id, const std::string& state, double at, const std::string& error,
                         const std::string& result) {
  std::lock_guard l(db_mu_);
  Tx tx(*db_);
  if (run(*db_, "UPDATE jobs SET state = ?, finished_at = ?, error = ?, result = ? WHERE id = ? AND state = 'queued'",
          state, at, error, Blob{result.data(), result.size()}, int64_t(id)) != 1)
    return false;
  event(id, state.c_str(), error, at);
  tx.commit();
  return true;
}

std::vector<JournalJob> Journal::load_jobs() {
  std::lock_guard l(db_mu_);
  SQLite::Statement s =
      prepare(*db_,
              "SELECT id, request_id, payload_sha256, circuit_id, priority, formats, state, submitted_at, "
              "finished_at, attempts, error, result FROM jobs ORDER BY id");
  std::vector<JournalJob> out;
  while (step(s)) {
    JournalJob j;
    j.id = uint64_t(i64(s, 0));
    j.request_id = bytes(s, 1);
    const std::string h = bytes(s, 2);
    if (h.size() == j.payload_sha256.size()) std::memcpy(j.payload_sha256.data(), h.data(), h.size());
    j.circuit_id = bytes(s, 3);
    j.priority = int(i64(s, 4));
    j.formats = parse_formats(bytes(s, 5), j.id);
    j.state = bytes(s, 6);
    j.submitted_at = f64(s, 7);
    j.finished_at = f64(s, 8);
    j.attempts = uint32_t(i64(s, 9));
    j.error = bytes(s, 10);
    j.result = bytes(s, 11);
    out.push_back(std::move(j));
  }
  return out;
}

std::vector<uint64_t> Journal::purge_finished(double before) {
  std::lock_guard l(db_mu_);
  std::vector<uint64_t> ids;
  {
    SQLite::Statement s = prepare(*db_, "SELECT id FROM jobs WHERE state != 'queued' AND finished_at < ?", before);
    while (step(s)) ids.push_back(uint64_t(i64(s, 0)));
  }
  if (ids.empty()) return ids;
  Tx tx(*db_);
  for (uint64_t id : ids) {
    run(*db_, "DELETE FROM jobs WHERE id = ?", int64_t(id));
    run(*db_, "DELETE FROM job_events WHERE job_id = ?", int64_t(id));
  }
  tx.commit();
  return ids;
}

void Journal::put_circuit(const CircuitSpec& c) {
  std::lock_guard l(db_mu_);
  run(*db_, "INSERT OR REPLACE INTO circuits(id, params, circuit, zkey, check_key, added_at) VALUES (?, ?, ?, ?, ?, ?)",
      c.id, c.params, c.circuit, c.zkey, int64_t(c.check_key), unix_now());
}

void Journal::remove_circuit(const std::string& id) {
  std::lock_guard l(db_mu_);
  run(*db_, "DELETE FROM circuits WHERE id = ?", id);
}

std::vector<CircuitSpec> Journal::load_circuits() {
  std::lock_guard l(db_mu_);
  SQLite::Statement s = prepare(*db_, "SELECT id, params, circuit, zkey, check_key FROM circuits ORDER BY added_at");
  std::vector<CircuitSpec> out;
  while (step(s)) out.push_back(CircuitSpec{bytes(s, 0), bytes(s, 1), bytes(s, 2), bytes(s, 3), i64(s, 4) != 0});
  return out;
}

}  // namespace snarkd::server
