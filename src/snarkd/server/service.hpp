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
//   Await    a waiter registered with the record, answered by whoever ends the wait: the
//            thread that journals the job's end, the await timer (snarkd-await) at the
//            deadline, or stop(). No thread waits for a client: the gRPC layer answers from
//            those callbacks (grpc_api.hpp).
//   Cancel   the engine stops the job's running partitions at their next phase boundary;
//            Cancel replies once they have left their devices (so EvictKey works right after)
//            and records that time (snarkd_cancel_stop_seconds).
//   circuits the config's [[circuit]]s and the journaled PreloadKey ones; one that fails to load
//            (at start or on SIGHUP) is listed with its error in Status (failed_circuits) and
//            keeps /healthz "not ready" until a reload loads it or EvictKey drops it: the daemon
//            serves the other circuits meanwhile, and the failure cannot go unnoticed.
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
#include "snarkd/server/activity.hpp"
#include "snarkd/server/circuits.hpp"
#include "snarkd/server/cluster_node.hpp"
#include "snarkd/server/config.hpp"
#include "snarkd/server/digest.hpp"
#include "snarkd/server/errors.hpp"
#include "snarkd/server/files.hpp"
#include "snarkd/server/gpu_monitor.hpp"
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
  // watcher, the await timer, and re-queues unfinished jobs in the background. Circuits that
  // fail to load are listed in Status (failed_circuits) and make ready() false.
  void start();
  // Stops the background threads and answers every waiting Await with the job's state as it
  // is. Idempotent.
  void stop();

  v1::SubmitReply submit(const v1::SubmitRequest& req);
  // Calls `done` exactly once with the job's result: when the job's end is journaled, when
  // `timeout` passes (the job as it is then; unset = no limit), or at stop(). It is called on
  // the calling thread when the answer is known at once (a finished job, a zero timeout), else
  // on the thread that ends the wait. Throws NOT_FOUND for an unknown job. Returns a ticket for
  // forget_await.
  using AwaitDone = std::function<void(v1::JobResult)>;
  uint64_t await_async(uint64_t job_id, std::optional<std::chrono::milliseconds> timeout, AwaitDone done);
  // The client went away: `done` is not called any more (it may be running now or have run).
  void forget_await(uint64_t ticket);
  // Blocking forms (tests, tools, the dedup path): await_async and a wait for its answer.
  v1::JobResult await(uint64_t job_id, std::optional<std::chrono::milliseconds> timeout);
  v1::JobResult prove(const v1::ProveRequest& req);
  v1::JobResult cancel(uint64_t job_id);
  v1::StatusReply status(uint32_t recent_jobs) const;
  std::string metrics_text() const;
  // Key files must lie under server.key_dirs and be regular files; one NOT_FOUND for every way
  // a named file can fail that check. PERMISSION_DENIED when key_dirs is empty.
  v1::KeyInfo preload(const v1::PreloadKeyRequest& req);
  // Unregisters a loaded circuit, or drops a failed one from the failed list.
  void evict(const std::string& circuit_id);
  // /healthz: serving and every circuit loaded; else false with the reason in *why.
  bool ready(std::string* why) const;

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
    // The circuit's ("BLS12-381", "BN254"); "" when its circuit was not loaded as the record was
    // made (a restart). Set before the record is shared, never changed.
    std::string curve;
    double submitted_at = 0;
    uint32_t attempts = 1;
    std::optional<engine::JobId> engine_id;
    bool finishing = false, terminal = false;
    v1::JobResult result;  // terminal
  };
  struct Circuit {
    LoadedCircuit lc;
  };
  struct FailedCircuit {
    CircuitSpec spec;
    bool from_config = false;
    std::string error;
    double at = 0;  // unix seconds of the last attempt
  };
  struct Waiter {
    std::shared_ptr<Record> rec;
    std::chrono::steady_clock::time_point deadline;
    AwaitDone done;
  };
  // One submission's witnesses on disk (staging dir) and in memory (decoded, checked).
  struct Staged {
    std::string dir;
    std::vector<WitnessFormat> formats;
    groth16::CurveId curve{};                    // the circuit's
    std::vector<groth16::AnyScalars> witnesses;  // over that curve
    Digest hash{};
  };

  // service_circuits.cpp
  std::shared_ptr<const Circuit> find_circuit(const std::string& id) const;
  std::string loaded_curve(const std::string& id) const;  // the circuit's curve name, "" if not loaded
  void register_circuit(LoadedCircuit lc);
  v1::KeyInfo key_info(const Circuit& c) const;
  void load_start_circuits();
  // Loads spec (key files checked against key_dirs unless from the config); a failure goes to
  // the failed list and the log. True when it loaded.
  bool try_load(const CircuitSpec& spec, bool from_config, const char* source);
  CircuitSpec checked_key_spec(const CircuitSpec& spec) const;  // paths resolved under key_dirs
  void reload_circuits(const ServerConfig& next, std::vector<std::string>& ignored);
  void fill_failed_circuits(v1::StatusReply& s) const;

  // service_await.cpp
  void await_timer_loop();
  // Answers (outside mu_) the waiters `pick` selects, removing them; pick runs under mu_.
  void answer_waiters(const std::function<bool(const Waiter&)>& pick);

  // service.cpp
  Staged stage_witnesses(const v1::SubmitRequest& req, const Circuit& c);
  struct StagedOne {
    WitnessFormat format;
    groth16::AnyScalars values;
  };
  StagedOne stage_one(const v1::Witness& w, int k, const std::string& dir, const KeyShape& shape, uint64_t max_bytes,
                      Sha256& h) const;
  OpenedFile open_witness_path(const std::string& path) const;
  std::optional<uint64_t> claim_request_id(const std::string& rid, const Digest& hash);
  void release_request_id(const std::string& rid);
  uint64_t accept(const v1::SubmitRequest& req, Staged& st, engine::Priority prio);
  std::shared_ptr<Record> find_record(uint64_t id) const;

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

  // service_cluster.cpp: cluster mode ([cluster] database), the seam to ClusterNode
  void start_cluster();  // makes cluster_ when configured
  std::string staging_dir();  // where Submit stages witnesses (the journal's, or witness_dir)
  v1::SubmitReply submit_cluster(const v1::SubmitRequest& req, const Circuit& c);
  std::vector<ClusterNode::Key> cluster_keys() const;

  // service_status.cpp
  void fill_observations(v1::StatusReply& s) const;  // build, host, NVML, throughput, durations
  void refresh_gauges(const v1::StatusReply& s) const;
  void refresh_process_gauges() const;
  void setup_metrics();
  void metric_submitted(const std::string& circuit);
  void metric_dedup(const std::string& circuit);
  void metric_journal_commit(double seconds);
  void metric_requeued();
  void metric_cancel_stop(double seconds);
  double since_start() const;  // seconds on the steady clock (Activity's time base)
  // Debug level: one line per partition of a finished job (device, worker, stage and phase times).
  void log_partitions(const Record& rec, const engine::JobResult& r) const;

  ServerConfig cfg_;   // the reloadable fields change under mu_
  std::string token_;  // resolved from cfg_ (under mu_)
  std::unique_ptr<engine::Engine> engine_;
  std::unique_ptr<Journal> journal_;
  std::unique_ptr<ClusterNode> cluster_;  // cluster mode: jobs live in the shared table
  std::vector<std::string> device_names_;
  std::unique_ptr<GpuMonitor> gpus_;  // NVML, for the cuda devices (dlopen'ed; may be unavailable)
  Activity activity_;                 // recent completed jobs: throughput, duration quantiles
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
  std::map<std::string, FailedCircuit> failed_circuits_;
  std::map<uint64_t, Waiter> waiters_;  // by ticket
  uint64_t next_ticket_ = 1;
  std::condition_variable await_cv_;  // the await timer: a waiter came or a finish failed

  std::atomic<bool> stopping_{false}, draining_{false};
  std::thread watcher_, requeuer_, await_timer_;

  mutable MetricsRegistry metrics_;
  struct Families;
  std::unique_ptr<Families> m_;
};

// Proto → engine priority; INVALID_ARGUMENT for values outside the enum.
engine::Priority to_engine_priority(int proto_priority);
const char* job_state_text(v1::JobState s);  // "queued", "running", "done", "failed", "cancelled"

}  // namespace snarkd::server
