// The daemon's job service, independent of gRPC: what each RPC does, over the engine and the
// journal. grpc_api.cpp is a thin transport on top (auth, status codes); tests drive this class
// directly as well.
//
//   Submit   validate → spool witnesses (staging dir, fsync) → decode and check them →
//            claim the request id → commit the spool + journal row (fsync) → engine.submit
//            (a refusal deletes the row again) → reply with OUR job id.
//   watcher  one thread: when the engine's finished-job count moves (or every 500 ms), peek the
//            active jobs; each newly terminal one is journaled (queued → done/failed/cancelled,
//            exactly once), its spool removed, its metrics recorded, then Await callers woken.
//            It also purges results past the retention time, from the journal, from memory
//            and from the engine (Engine::forget), so a long-running daemon stays bounded.
//   restart  rows still queued are re-queued from their spool by a background thread, in id
//            order, while the daemon already serves; a job that cannot be re-queued (circuit
//            gone, spool unreadable) fails with that reason.
//
// Job ids are the journal's (never reused); engine ids are per process and never leave here.
// Await reports a job finished only once its result is journaled, so a client never sees a
// result that a crash could take back.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "snarkd/engine/engine.hpp"
#include "snarkd/server/circuits.hpp"
#include "snarkd/server/config.hpp"
#include "snarkd/server/digest.hpp"
#include "snarkd/server/errors.hpp"
#include "snarkd/server/journal.hpp"
#include "snarkd/server/metrics.hpp"
#include "snarkd/server/proto_json.hpp"
#include "snarkd/util/json.hpp"
#include "snarkd/v1/snarkd.pb.h"

namespace snarkd::server {

class Service {
 public:
  // Takes the engine (its devices already made) and the opened journal.
  Service(const ServerConfig& cfg, std::unique_ptr<engine::Engine> engine, std::unique_ptr<Journal> journal);
  ~Service();  // stop(), then the engine goes (cancelling what is queued: still journaled as queued)
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  // Registers the config's circuits and the journaled ones, loads the journal's jobs, starts the
  // watcher and re-queues unfinished jobs in the background. Circuits that fail to load are
  // logged and skipped (their jobs then fail with the reason).
  void start();
  // Stops the watcher and the re-queue thread and wakes every Await (they return the job's
  // state as it is). Idempotent.
  void stop();

  v1::SubmitReply submit(const v1::SubmitRequest& req);
  // `abandoned` is polled while waiting (the client went away or the call's deadline passed).
  v1::JobResult await(uint64_t job_id, std::optional<std::chrono::milliseconds> timeout,
                      const std::function<bool()>& abandoned = {});
  v1::JobResult prove(const v1::ProveRequest& req, const std::function<bool()>& abandoned = {});
  v1::JobResult cancel(uint64_t job_id);
  v1::StatusReply status(uint32_t recent_jobs) const;
  std::string metrics_text() const;
  v1::KeyInfo preload(const v1::PreloadKeyRequest& req);
  void evict(const std::string& circuit_id);

  // SIGHUP: applies the reloadable settings (config.hpp) and registers new [[circuit]] ids;
  // returns what it could not apply (for the log).
  std::vector<std::string> reload(const ServerConfig& cfg);
  // SIGTERM: new submissions get UNAVAILABLE and the engine is paused for good (no partition
  // starts); drain waits up to timeout for the partitions in flight to finish and for every job
  // that ended to be journaled. Jobs not finished (queued, or with partitions not yet started)
  // stay "queued" in the journal and run in full after the restart. True if all that happened.
  void begin_drain();
  bool drain(double timeout_s);
  bool draining() const { return draining_; }

  void count_rpc(const std::string& method, const std::string& code);
  // Whether `presented` is the TCP bearer token in force (constant-time comparison).
  bool token_matches(const std::string& presented) const;

 private:
  struct Record {
    uint64_t id = 0;
    std::string request_id;
    Digest hash{};
    std::string circuit_id;
    int priority = 0;  // proto value
    uint32_t partitions = 0;
    std::vector<WitnessFormat> formats;
    double submitted_at = 0;
    uint32_t attempts = 1;
    std::optional<engine::JobId> engine_id;
    bool finishing = false, terminal = false;
    v1::JobResult result;  // terminal
  };
  struct Circuit {
    LoadedCircuit lc;
  };
  struct Staged;

  // service.cpp
  std::shared_ptr<const Circuit> find_circuit(const std::string& id) const;
  Staged stage_witnesses(const v1::SubmitRequest& req, const Circuit& c);
  struct StagedOne {
    WitnessFormat format;
    std::vector<ff::Fr> values;
  };
  StagedOne stage_one(const v1::Witness& w, int k, const std::string& dir, uint64_t num_vars, uint64_t max_bytes,
                      Sha256& h) const;
  std::string check_witness_path(const std::string& path) const;
  std::optional<uint64_t> claim_request_id(const std::string& rid, const Digest& hash);
  void release_request_id(const std::string& rid);
  uint64_t accept(const v1::SubmitRequest& req, Staged& st, engine::Priority prio);
  std::shared_ptr<Record> find_record(uint64_t id) const;
  v1::KeyInfo key_info(const Circuit& c) const;
  void register_circuit(LoadedCircuit lc);

  // service_jobs.cpp
  bool claim_finish(Record& rec);  // true for exactly one caller per record
  void watch_loop();
  void scan_active();
  void adopt_engine_job(const std::shared_ptr<Record>& rec, engine::JobId eid);
  void finish(const std::shared_ptr<Record>& rec, const engine::JobResult& r);
  void finish_unstarted(const std::shared_ptr<Record>& rec, v1::JobState state, const std::string& why);
  void complete(const std::shared_ptr<Record>& rec, v1::JobResult result);
  void record_metrics(const v1::JobResult& r);
  void requeue_loop(std::vector<uint64_t> ids);
  void requeue_one(const std::shared_ptr<Record>& rec);
  void load_journal_jobs(std::vector<uint64_t>& unfinished);
  void purge_expired();
  void forget_engine_jobs(const std::vector<engine::JobId>& ids);
  v1::JobResult progress(const Record& rec) const;
  v1::JobResult to_result(const Record& rec, const engine::JobResult& r) const;

  // service_status.cpp
  void refresh_gauges(const v1::StatusReply& s) const;
  void setup_metrics();
  void metric_submitted(const std::string& circuit);
  void metric_dedup(const std::string& circuit);
  void metric_journal_commit(double seconds);
  void metric_requeued();

  ServerConfig cfg_;   // the reloadable fields change under mu_
  std::string token_;  // resolved from cfg_ (under mu_)
  std::unique_ptr<engine::Engine> engine_;
  std::unique_ptr<Journal> journal_;
  std::vector<std::string> device_names_;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();

  mutable std::mutex mu_;               // everything below
  std::condition_variable done_cv_;     // a record became terminal / stopping
  std::condition_variable request_cv_;  // a pending request id was resolved
  std::map<uint64_t, std::shared_ptr<Record>> records_;
  std::unordered_map<engine::JobId, uint64_t> by_engine_;
  std::unordered_map<std::string, uint64_t> by_request_;
  std::map<std::string, Digest> pending_requests_;
  std::map<std::string, std::shared_ptr<const Circuit>> circuits_;
  std::vector<engine::JobId> forget_later_;  // purged jobs the engine could not forget yet

  std::atomic<bool> stopping_{false}, draining_{false};
  std::thread watcher_, requeuer_;

  mutable MetricsRegistry metrics_;
  struct Families;
  std::unique_ptr<Families> m_;
};

// Proto → engine priority; INVALID_ARGUMENT for values outside the enum.
engine::Priority to_engine_priority(int proto_priority);
const char* job_state_text(v1::JobState s);  // "queued", "running", "done", "failed", "cancelled"

}  // namespace snarkd::server
