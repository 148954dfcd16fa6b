// The durable job journal: SQLite (WAL, synchronous=FULL: every commit is fsync'd) in
// <state_dir>/journal.db, and the witness spool <state_dir>/spool/<job id>/<partition>.<fr|wtns>.
//
// A job is accepted only once its spool directory is complete on disk (files and directory
// fsync'd, then renamed into place) and its row is committed; Submit replies after that. On
// start the daemon re-queues every row still "queued" from its spool; a finished job's row keeps
// the serialized result (proto JobResult) until the retention time has passed. Every transition
// is also appended to job_events, so "each accepted job finished exactly once" can be checked
// from the outside (tests/server/daemon_test.sh does, with the sqlite3 tool):
//   SELECT job_id, count(*) FROM job_events WHERE event IN ('done','failed','cancelled') GROUP BY 1
//
// Schema (version 1):
//   meta(key TEXT PRIMARY KEY, value)                 schema, next_job_id
//   jobs(id INTEGER PRIMARY KEY, request_id TEXT, payload_sha256 BLOB, circuit_id TEXT,
//        priority INT, formats TEXT, state TEXT, submitted_at REAL, finished_at REAL,
//        attempts INT, error TEXT, result BLOB)         state: queued | done | failed | cancelled
//   job_events(seq INTEGER PRIMARY KEY, job_id INT, at REAL, event TEXT, detail TEXT)
//   circuits(id TEXT PRIMARY KEY, params TEXT, circuit TEXT, zkey TEXT, check_key INT, added_at REAL)
// Job ids come from meta.next_job_id and are never reused, even after rows are purged.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "snarkd/server/config.hpp"
#include "snarkd/server/digest.hpp"
#include "snarkd/server/witness.hpp"

namespace SQLite {
class Database;
}

namespace snarkd::server {

struct JournalJob {
  uint64_t id = 0;
  std::string request_id;
  Digest payload_sha256{};
  std::string circuit_id;
  int priority = 0;                    // proto Priority value
  std::vector<WitnessFormat> formats;  // one per partition (the spool files' formats)
  std::string state = "queued";
  double submitted_at = 0, finished_at = 0;  // unix seconds
  uint32_t attempts = 0;
  std::string error;
  std::string result;  // serialized snarkd.v1.JobResult (finished jobs)
};

class Journal {
 public:
  // Opens or creates the journal; removes half-written staging directories and spool
  // directories without a queued row (a crash between spooling and committing).
  explicit Journal(const std::string& state_dir);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  const std::string& state_dir() const { return dir_; }
  std::string db_path() const { return dir_ + "/journal.db"; }

  // Spool: a fresh staging directory for one submission, committed as the job's spool under
  // its id (files and directories fsync'd, then one rename) or dropped.
  std::string new_staging_dir();
  std::string spool_file(uint64_t id, uint32_t partition, WitnessFormat f) const;
  void commit_spool(const std::string& staging, uint64_t id);
  void remove_spool(uint64_t id) noexcept;
  void remove_dir(const std::string& dir) noexcept;

  uint64_t allocate_job_id();  // never reused (meta.next_job_id, advanced in the insert)
  // One fsync'd transaction: the row, 'accepted' and 'started' (attempt 1) events.
  void insert_job(const JournalJob& j);
  // A submit the engine refused (busy): the row and its events go, as if never accepted.
  void remove_job(uint64_t id);
  // A restarted daemon handed the job to its engine again.
  void job_restarted(uint64_t id, uint32_t attempt);
  // queued → state (done | failed | cancelled) with the result; false (and no change) if the
  // row is not queued: the exactly-once guard.
  bool finish_job(uint64_t id, const std::string& state, double at, const std::string& error,
                  const std::string& result);
  std::vector<JournalJob> load_jobs();  // ordered by id
  // Deletes finished rows (and their events) with finished_at < before; returns their ids.
  std::vector<uint64_t> purge_finished(double before);

  void put_circuit(const CircuitSpec& c);
  void remove_circuit(const std::string& id);
  std::vector<CircuitSpec> load_circuits();

 private:
  void event(uint64_t id, const char* what, const std::string& detail, double at);  // db_mu_ held
  void clean_spool_orphans();

  std::string dir_;
  std::unique_ptr<SQLite::Database> db_;  // SQLiteCpp
  std::mutex db_mu_;
  uint64_t next_id_ = 1;
  std::mutex id_mu_;
};

double unix_now();

}  // namespace snarkd::server
