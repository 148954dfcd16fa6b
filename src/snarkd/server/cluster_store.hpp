// The cluster's shared job table in PostgreSQL (or anything wire-compatible with it that has
// FOR UPDATE SKIP LOCKED and LISTEN/NOTIFY): every SQL statement of cluster mode lives here, so
// the daemon (cluster_node.hpp) and the claim benchmark run the same code.
//
// Schema (version 1, in the configured PostgreSQL schema; created and migrated by migrate()
// under an advisory lock, so daemons starting together do it once):
//   meta(key, value)                 schema_version
//   hosts(id, name, pid, version, devices, workers, keys, started_at, heartbeat_at, in_flight,
//         stopped_at)                one row per daemon process
//   jobs(id, request_id UNIQUE, payload_sha256, circuit_id, key_hash, priority, partitions,
//        partitions_done, state, submitted_by, submitted_at, finished_at, error, result,
//        witness_dir)                state: queued | done | failed | cancelled
//   partitions(job_id, k, priority, key_hash, format, witness_bytes, witness_path, state,
//        host_id, token, lease_until, attempts, verified, result)
//                                    state: queued | claimed | done | failed | stopped
//   witness_chunks(job_id, k, seq, data)   1 MiB pieces of the witnesses kept in the database
//   events(seq, at, job_id, k, host_id, token, event, detail)
//                                    accepted, claimed, partition_done, fenced, released,
//                                    lease_expired, partition_failed, done, failed, cancelled
//   sequences job_ids (never reused), fence (claim tokens)
//
// Exactly once: a claim takes the highest-priority, oldest queued partitions whose key this host
// has loaded (FOR UPDATE SKIP LOCKED: claimers never wait for each other) and stamps each with a
// fresh fencing token and a lease. A result is recorded only while the partition is still
// claimed under that token; a lease that was not renewed in time puts the partition back in the
// queue, so a late result from a host that lost it is refused ("fenced"). The job row is locked
// before any of its partitions by every transaction that touches several rows of one job
// (complete, fail, cancel), so they cannot deadlock; the last partition's completion finishes the
// job in the same transaction. NOTIFY (delivered at commit): <schema>_work when partitions are
// queued, <schema>_done with a job id when a job ends, <schema>_cancel with a job id when its
// claimed partitions must stop.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "snarkd/server/digest.hpp"
#include "snarkd/server/pg.hpp"
#include "snarkd/server/witness.hpp"
#include "snarkd/v1/snarkd.pb.h"

namespace snarkd::server {

inline constexpr int kClusterSchemaVersion = 1;
inline constexpr size_t kWitnessChunkBytes = size_t{1} << 20;

struct ClusterHostInfo {
  std::string name, version, devices, keys;  // keys: "circuit=hash,…" (what it can claim)
  int64_t pid = 0;
  uint32_t workers = 0, in_flight = 0;
};

struct ClusterPartitionIn {
  WitnessFormat format = WitnessFormat::kFrMontgomery;
  uint64_t bytes = 0;
  std::string path;  // a file: copied into the database in chunks, or (shared mode) referenced
};

struct ClusterNewJob {
  std::optional<int64_t> id;  // pre-allocated (shared witnesses live under it); else allocated
  std::string request_id;
  Digest payload{};
  std::string circuit_id, key_hash;
  int priority = 0;  // proto value
  int64_t host = 0;
  bool shared = false;     // the witness files stay where they are (witness_path)
  std::string shared_dir;  // shared mode: the job's directory (removed when it ends)
  std::vector<ClusterPartitionIn> partitions;
};

struct ClusterAccepted {
  uint64_t id = 0;
  bool deduplicated = false;
  Digest existing_payload{};  // deduplicated: the earlier job's payload hash
  std::string state;
};

struct ClusterClaim {
  uint64_t job_id = 0;
  uint32_t k = 0;
  int64_t token = 0;
  int priority = 0;
  std::string key_hash;
  WitnessFormat format = WitnessFormat::kFrMontgomery;
  uint64_t witness_bytes = 0;
  std::string witness_path;  // "" = chunks in the database
  uint32_t attempt = 0;
};

enum class ClusterOutcome { kRecorded, kJobEnded, kFenced };

struct ClusterResult {  // one finished partition for complete_many
  ClusterClaim claim;
  std::string result;  // serialized v1::PartitionResult
  bool verified = false;
};

struct ClusterCounts {
  uint64_t jobs_queued = 0, jobs_running = 0, jobs_done = 0, jobs_failed = 0, jobs_cancelled = 0;
  uint64_t partitions_queued = 0, partitions_claimed = 0;
};

class ClusterStore {
 public:
  struct Options {
    std::string conninfo;
    std::string schema = "snarkd";
    std::string application_name = "snarkd";
    size_t pool_size = 8;
    bool notify = true;  // false: no pg_notify (a database without LISTEN/NOTIFY; daemons poll)
  };
  explicit ClusterStore(Options o);

  const Options& options() const { return o_; }
  std::string channel(const char* what) const { return o_.schema + "_" + what; }
  // A fresh connection with search_path set (the listener keeps its own). Throws pg::Unavailable.
  std::unique_ptr<pg::Conn> connect() const;

  // Creates or migrates the schema; returns the version. Throws pg::Error when the database
  // holds a newer schema than this daemon knows.
  int migrate();

  int64_t register_host(const ClusterHostInfo& h);
  void heartbeat(int64_t host, const ClusterHostInfo& h);
  void host_stopped(int64_t host);

  int64_t next_job_id();
  // One transaction: the job, its partitions, the witnesses (chunks, or paths in shared mode),
  // the 'accepted' event and the work notification. A request id already taken answers with
  // that job (deduplicated) and writes nothing.
  ClusterAccepted accept(const ClusterNewJob& j);

  std::vector<ClusterClaim> claim(int64_t host, const std::vector<std::string>& key_hashes, uint32_t max,
                                  double lease_s);
  std::string witness(const ClusterClaim& c);  // the bytes of a claimed partition's witness
  // The witnesses of several claimed partitions kept in the database, in one round trip, by
  // token; for claims of small witnesses (at most 64 MiB in all). A claim whose bytes do not add
  // up is left out: witness() fetched alone reports it.
  std::map<int64_t, std::string> witnesses(const std::vector<ClusterClaim>& cs);
  // `result`: the serialized v1::PartitionResult. kJobEnded: it was the job's last partition.
  // A retry after a commit whose answer was lost is recognised (same token: kRecorded).
  ClusterOutcome complete(int64_t host, const ClusterClaim& c, const std::string& result, bool verified,
                          std::string* ended_dir);
  // Several results in one transaction (one WAL flush instead of one per result), each still
  // recorded only under its own claim's token; the outcomes in the order given (kJobEnded on the
  // result that finished its job). `ended_dirs` gets the shared witness directories of the jobs
  // that ended. Retries after a lost commit are recognised as in complete().
  std::vector<ClusterOutcome> complete_many(int64_t host, const std::vector<ClusterResult>& rs,
                                            std::vector<std::string>* ended_dirs);
  ClusterOutcome fail(int64_t host, const ClusterClaim& c, const std::string& error, std::string* ended_dir);
  bool release(int64_t host, const ClusterClaim& c);  // back to the queue (drain, engine refusal)
  // Extends the leases of the claims held; returns the tokens this host no longer holds.
  std::vector<int64_t> renew(int64_t host, const std::vector<int64_t>& tokens, double lease_s);
  uint64_t reap_expired();  // claims past their lease back to the queue (+ work notification)

  // A job's result (terminal) or progress; nullopt for an unknown (or purged) job.
  std::optional<v1::JobResult> job(uint64_t id);
  // Cancels a queued job (its claimed partitions are told to stop); the job as it ends up.
  // nullopt for an unknown job.
  std::optional<v1::JobResult> cancel(uint64_t id, std::string* ended_dir);

  ClusterCounts counts();
  std::vector<v1::JobSummary> recent(uint32_t n, double now_unix);
  std::vector<v1::ClusterHost> hosts(double lease_s);
  // Jobs finished before now − retention go (rows, partitions, events); hosts silent for a day.
  uint64_t purge(double retention_s);
  // Which of `ids` are jobs still queued (shared witness directories to keep).
  std::vector<uint64_t> queued_among(const std::vector<uint64_t>& ids);

  // Runs f on a pooled connection; a broken connection is dropped (the next call makes a new
  // one) and pg::Unavailable propagates; pg::Retry reruns f up to 5 times.
  template <class F>
  auto with(F&& f) -> decltype(f(std::declval<pg::Conn&>()));

 private:
  void notify(pg::Conn& c, const char* what, const std::string& payload) const;
  std::unique_ptr<pg::Conn> take();
  void give(std::unique_ptr<pg::Conn> c);
  ClusterOutcome finish_job(pg::Conn& c, uint64_t id, const std::string& state, const std::string& error,
                            std::string* ended_dir);

  Options o_;
  std::mutex mu_;
  std::vector<std::unique_ptr<pg::Conn>> idle_;
};

template <class F>
auto ClusterStore::with(F&& f) -> decltype(f(std::declval<pg::Conn&>())) {
  for (int attempt = 0;; ++attempt) {
    std::unique_ptr<pg::Conn> c = take();
    try {
      if constexpr (std::is_void_v<decltype(f(*c))>) {
        f(*c);
        give(std::move(c));
        return;
      } else {
        auto r = f(*c);
        give(std::move(c));
        return r;
      }
    } catch (const pg::Retry&) {
      give(std::move(c));
      if (attempt >= 4) throw;
    } catch (const pg::Unavailable&) {
      throw;  // c goes with the exception
    } catch (...) {
      give(std::move(c));
      throw;
    }
  }
}

}  // namespace snarkd::server
