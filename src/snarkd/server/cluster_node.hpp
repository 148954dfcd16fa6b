// One daemon's part in a cluster ([cluster] database): the Service hands it Submit, Await,
// Cancel and the cluster half of Status; it claims partitions for the local engine from the
// shared job table (cluster_store.hpp) and records their results there.
//
//   snarkd-clisten  one connection that LISTENs; reconnects with backoff (0.1 s doubling to 5 s)
//                   and migrates the schema on every connect; NOTIFY wakes the others:
//                   <schema>_work → the claimer, <schema>_done → the await thread,
//                   <schema>_cancel → our claims of that job stop.
//   snarkd-claim    while the engine has room (workers + claim_ahead per device, minus what it
//                   holds; at least claim_ahead per device, so claims go in batches) and
//                   something changed (a NOTIFY, a completion, a reconnect, a key loaded), claims
//                   that many partitions, fetches their witnesses (the batch's database-kept ones
//                   in one round trip) and submits each as a one-partition engine job. No
//                   polling: it sleeps on a condition.
//   snarkd-complete woken by the engine (Engine::wait_finished), records each finished claim:
//                   done → complete (with its fencing token; several ready at once go in one
//                   transaction, each still fenced by its own token), failed → fail, cancelled for a
//                   drain → release. While the database is away the outcomes wait in memory and
//                   the engine keeps proving what it holds.
//   snarkd-beat     every lease/3: renews the leases of what it holds (a lease it lost stops
//                   that engine job: another host has the partition), the host row's heartbeat,
//                   returns other hosts' expired claims to the queue (not during the first lease
//                   after a reconnect, so hosts back from a database outage renew theirs first),
//                   purges expired results.
//   snarkd-cawait   answers Await waiters: when their job's end is notified, at their deadline,
//                   and after a reconnect (a notification may have been missed).
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
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
#include "snarkd/groth16/any_curve.hpp"
#include "snarkd/server/cluster_store.hpp"
#include "snarkd/server/config.hpp"
#include "snarkd/server/metrics.hpp"
#include "snarkd/v1/snarkd.pb.h"

namespace snarkd::server {

class ClusterNode {
 public:
  struct Key {
    std::string circuit_id, hash;  // hash: key_digest() in hex (it covers the curve)
    uint64_t num_vars = 0;
    groth16::CurveId curve = groth16::CurveId::kBls12_381;  // witnesses are decoded over it
  };
  using KeysFn = std::function<std::vector<Key>()>;  // the circuits loaded here (the Service's)
  using AwaitDone = std::function<void(v1::JobResult)>;

  ClusterNode(const ServerConfig& cfg, engine::Engine& engine, MetricsRegistry& metrics, KeysFn keys);
  ~ClusterNode();
  ClusterNode(const ClusterNode&) = delete;
  ClusterNode& operator=(const ClusterNode&) = delete;

  void start();  // threads; the database is reached in the background
  // Records what can still be recorded, releases the claims it holds, marks the host stopped,
  // answers every waiter with its job as it is. Idempotent.
  void stop();
  void begin_drain();  // no more claims; claims not on a device yet go back to the queue
  bool drain(std::chrono::steady_clock::time_point deadline);  // until nothing is held

  // Where Submit stages witnesses: witness_dir/.staging/… when witness_dir is set, else "".
  std::string new_staging_dir();
  struct Accepted {
    uint64_t id = 0;
    bool deduplicated = false;
    v1::JobState state = v1::JOB_STATE_QUEUED;
  };
  // `staging`: the staged witness files (j.partitions[k].path lie in it). Large jobs move to
  // witness_dir/<id> (shared mode), the rest is copied into the database. Throws ServiceError
  // (UNAVAILABLE while the database is away, ALREADY_EXISTS for a reused request id).
  Accepted accept(ClusterNewJob j, const std::string& staging);
  uint64_t await_async(uint64_t id, std::optional<std::chrono::milliseconds> timeout, AwaitDone done);
  void forget_await(uint64_t ticket);
  v1::JobResult cancel(uint64_t id);
  // The cluster block of Status, the cluster-wide job counts and recent jobs, and the gauges.
  void fill_status(v1::StatusReply& s, uint32_t recent);
  bool ready(std::string* why) const;
  void keys_changed();  // a circuit was loaded: claim for it

 private:
  struct Local {  // a claim this daemon holds
    ClusterClaim claim;
    std::string circuit_id;
    engine::JobId eid = 0;  // 0 until it is in the engine
    bool lost = false;      // lease lost or job ended: its result will be fenced off anyway
    bool release = false;   // drain: back to the queue
    bool collected = false; // its outcome is in pending_
  };
  struct Pending {
    enum Kind { kComplete, kFail, kRelease } kind;
    ClusterClaim claim;
    std::string blob;  // kComplete: serialized PartitionResult; kFail: the error
    bool verified = false;
  };
  struct Waiter {
    uint64_t job;
    std::chrono::steady_clock::time_point deadline;
    AwaitDone done;
  };

  void listen_loop();
  void wait_notifications(pg::Conn& c);
  void on_notification(const pg::Notification& n);
  void on_connected();
  void on_unavailable(const std::string& error);
  void wait_connected(std::chrono::milliseconds at_most);

  void claim_loop();
  uint32_t room() const;  // mu_ held
  uint32_t claim_batch() const;  // the least room worth a claim
  // fetched: the witness's bytes when the claim batch fetched them already
  void start_claim(const ClusterClaim& c, const std::vector<Key>& keys, const std::string* fetched);
  groth16::AnyScalars fetch_witness(const ClusterClaim& c, const Key& key, const std::string* fetched);

  void complete_loop();
  void collect_finished();
  std::string partition_result(const engine::JobResult& r);
  bool flush_pending();  // false: the database is away
  void record(const Pending& p);
  void record_completions(const std::vector<Pending>& batch);  // kComplete only
  static void log_fenced(const ClusterClaim& c);
  static constexpr size_t kCompleteBatch = 64;
  void linger(uint64_t& seen);    // gathers the completions of partitions still computing
  bool worth_lingering() const;   // mu_ held
  static constexpr std::chrono::milliseconds kCompleteLinger{30};

  void beat_loop();
  void beat_once(std::chrono::steady_clock::time_point& last_purge);
  void sweep_witness_dir();
  ClusterHostInfo host_info() const;
  void cancel_local(uint64_t job_id, const char* why);
  void set_gauges(const v1::ClusterStatus& c);
  std::optional<std::pair<uint64_t, uint32_t>> claim_of(engine::JobId eid) const;  // (job, partition)

  void await_loop();
  void answer(uint64_t ticket_or_all, const std::optional<v1::JobResult>& r, uint64_t job);
  v1::JobResult job_or_error(uint64_t id);

  const ServerConfig cfg_;
  engine::Engine& engine_;
  KeysFn keys_;
  std::unique_ptr<ClusterStore> store_;
  std::string host_name_;
  std::vector<std::string> device_names_;
  int wake_[2] = {-1, -1};  // self-pipe: stop() wakes the listener's poll

  mutable std::mutex mu_;
  std::condition_variable claim_cv_, await_cv_, beat_cv_, state_cv_;
  bool connected_ = false;
  std::chrono::steady_clock::time_point connected_at_, disconnected_at_;
  std::string last_error_;
  int schema_version_ = 0;
  std::atomic<int64_t> host_id_{0};
  uint64_t work_gen_ = 1;  // bumped by whatever may let the claimer claim
  std::map<int64_t, Local> held_;  // by token
  std::unordered_map<engine::JobId, int64_t> by_engine_;
  std::deque<Pending> pending_;
  std::map<uint64_t, Waiter> waiters_;
  uint64_t next_ticket_ = 1;
  std::set<uint64_t> ended_;  // notified ends the await thread has to look up
  bool recheck_all_ = false;
  std::atomic<bool> stopping_{false}, draining_{false};
  bool stopped_ = false;
  std::thread listener_, claimer_, completer_, beat_, awaiter_;

  struct Metrics;
  std::unique_ptr<Metrics> m_;
};

}  // namespace snarkd::server
