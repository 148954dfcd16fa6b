// The cluster node's background threads: the listener (connectivity, NOTIFY), the claimer, the
// completer and the heartbeat (cluster_node.hpp). The RPC side is cluster_node_api.cpp.
#include "snarkd/server/cluster_node.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "snarkd/server/errors.hpp"
#include "snarkd/server/proto_json.hpp"
#include "snarkd/server/stage_timings.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/json.hpp"
#include "snarkd/util/thread_pool.hpp"

#ifndef SNARKD_VERSION
#define SNARKD_VERSION "dev"
#endif

namespace fs = std::filesystem;

namespace snarkd::server {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

engine::Priority to_engine_priority(int proto_priority);  // service.cpp

struct ClusterNode::Metrics {
  explicit Metrics(MetricsRegistry& r)
      : connected(r.gauge("snarkd_cluster_connected", "1 while the cluster database answers.")),
        hosts(r.gauge("snarkd_cluster_hosts", "Cluster hosts by liveness (alive: heartbeat within the lease).")),
        partitions(r.gauge("snarkd_cluster_partitions", "Partitions in the shared table by state (queued, claimed).")),
        held(r.gauge("snarkd_cluster_held_partitions", "Partitions this daemon has claimed and not yet recorded.")),
        claims(r.counter("snarkd_cluster_claims_total", "Partitions this daemon claimed.")),
        results(r.counter("snarkd_cluster_results_total",
                          "Claims this daemon recorded, by outcome: done, failed, released, fenced (a late result "
                          "the table refused: the claim had been lost).")),
        leases_lost(r.counter("snarkd_cluster_leases_lost_total", "Claims this daemon found lost at a renewal.")),
        leases_expired(r.counter("snarkd_cluster_leases_expired_total",
                                 "Other hosts' expired claims this daemon returned to the queue.")),
        disconnects(r.counter("snarkd_cluster_disconnects_total", "Times the cluster database became unreachable.")) {
    connected.set({}, 0);
    for (const char* o : {"done", "failed", "released", "fenced"}) results.touch({{"outcome", o}});
    claims.touch({});
    leases_lost.touch({});
    leases_expired.touch({});
    disconnects.touch({});
  }
  MetricFamily &connected, &hosts, &partitions, &held, &claims, &results, &leases_lost, &leases_expired, &disconnects;
};

namespace {

std::string default_host_name() {
  char h[256] = {};
  ::gethostname(h, sizeof h - 1);
  return std::string(h) + ":" + std::to_string(::getpid());
}

}  // namespace

ClusterNode::ClusterNode(const ServerConfig& cfg, engine::Engine& engine, MetricsRegistry& metrics, KeysFn keys)
    : cfg_(cfg), engine_(engine), keys_(std::move(keys)) {
  host_name_ = cfg.cluster.host.empty() ? default_host_name() : cfg.cluster.host;
  ClusterStore::Options o;
  o.conninfo = cfg.cluster.database;
  o.schema = cfg.cluster.schema;
  o.application_name = "snarkd " + host_name_.substr(0, 40);
  o.pool_size = cfg.cluster.pool_size;
  o.notify = cfg.cluster.notify;
  store_ = std::make_unique<ClusterStore>(o);
  for (const auto& d : engine.devices()) device_names_.push_back(d->name());
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("cluster: cannot create a pipe");
  m_ = std::make_unique<Metrics>(metrics);
}

ClusterNode::~ClusterNode() {
  stop();
  for (int fd : wake_)
    if (fd >= 0) ::close(fd);
}

void ClusterNode::start() {
  spdlog::info("cluster_starting host={} database=\"{}\" schema={} lease_s={}", host_name_,
               pg::redact(cfg_.cluster.database), cfg_.cluster.schema, cfg_.cluster.lease_s);
  listener_ = std::thread([this] { listen_loop(); });
  claimer_ = std::thread([this] { claim_loop(); });
  completer_ = std::thread([this] { complete_loop(); });
  beat_ = std::thread([this] { beat_loop(); });
  awaiter_ = std::thread([this] { await_loop(); });
}

void ClusterNode::stop() {
  {
    std::lock_guard l(mu_);
    if (stopped_) return;
    stopped_ = true;
    stopping_ = true;
    for (auto* cv : {&claim_cv_, &await_cv_, &beat_cv_, &state_cv_}) cv->notify_all();
  }
  if (wake_[1] >= 0) (void)!::write(wake_[1], "x", 1);
  for (std::thread* t : {&listener_, &claimer_, &completer_, &beat_})
    if (t->joinable()) t->join();
  // Last chance, if the database answers: outcomes recorded, the rest released at once (not
  // after a lease) for the other hosts, the host marked stopped.
  std::vector<std::pair<ClusterClaim, engine::JobId>> rest;
  {
    std::lock_guard l(mu_);
    for (const auto& [t, c] : held_)
      if (!c.collected) rest.emplace_back(c.claim, c.eid);
  }
  try {
    flush_pending();
    for (const auto& [c, eid] : rest) {
      if (eid) engine_.cancel(eid);
      store_->release(host_id_, c);
    }
    if (host_id_) store_->host_stopped(host_id_);
  } catch (const std::exception& e) {
    spdlog::warn("cluster_stop_unrecorded held_partitions={} error=\"{}\" (their leases will expire)", rest.size(),
                 e.what());
  }
  if (awaiter_.joinable()) awaiter_.join();  // it answers every waiter on its way out
}

void ClusterNode::set_gauges(const v1::ClusterStatus& c) {
  uint64_t alive = 0;
  for (const v1::ClusterHost& h : c.hosts()) alive += h.alive();
  m_->connected.set({}, c.connected() ? 1 : 0);
  m_->hosts.set({{"state", "alive"}}, double(alive));
  m_->hosts.set({{"state", "silent"}}, double(uint64_t(c.hosts_size()) - alive));
  m_->partitions.set({{"state", "queued"}}, double(c.queued_partitions()));
  m_->partitions.set({{"state", "claimed"}}, double(c.claimed_partitions()));
  m_->held.set({}, double(c.held_partitions()));
}

// The engine is paused already (Service::begin_drain): claims still queued in it will not start
// here, so they go back to the table now rather than after the restart.
void ClusterNode::begin_drain() {
  draining_ = true;
  std::vector<std::pair<int64_t, engine::JobId>> in_engine;
  {
    std::lock_guard l(mu_);
    for (const auto& [t, loc] : held_)
      if (loc.eid && !loc.collected) in_engine.emplace_back(t, loc.eid);
  }
  uint32_t released = 0;
  for (const auto& [token, eid] : in_engine) {
    try {
      const engine::JobResult r = engine_.peek(eid);
      if (!r.timings.empty() && r.timings[0].dequeued_s > 0) continue;  // on a device: it finishes
    } catch (const std::exception&) {
      continue;
    }
    {
      std::lock_guard l(mu_);
      held_[token].release = true;
    }
    engine_.cancel(eid);
    ++released;
  }
  spdlog::info("cluster_drain held_partitions={} returned_to_queue={}", in_engine.size(), released);
}

bool ClusterNode::drain(Clock::time_point deadline) {
  std::unique_lock l(mu_);
  return state_cv_.wait_until(l, deadline, [this] { return stopping_ || held_.empty(); }) && !stopping_;
}

// ---- connectivity ---------------------------------------------------------------------------

void ClusterNode::listen_loop() {
  name_this_thread("snarkd-clisten");
  auto backoff = milliseconds(100);
  while (!stopping_) {
    try {
      std::unique_ptr<pg::Conn> c = store_->connect();
      const int version = store_->migrate();
      if (host_id_ == 0) host_id_ = store_->register_host(host_info());
      if (cfg_.cluster.notify)
        for (const char* ch : {"work", "done", "cancel"}) c->exec("LISTEN " + store_->channel(ch));
      {
        std::lock_guard l(mu_);
        schema_version_ = version;
      }
      on_connected();
      backoff = milliseconds(100);
      wait_notifications(*c);
      if (stopping_) break;
      on_unavailable("postgresql: the connection was closed");
    } catch (const std::exception& e) {
      on_unavailable(e.what());
    }
    std::unique_lock l(mu_);
    state_cv_.wait_for(l, backoff, [this] { return stopping_.load(); });
    backoff = std::min(backoff * 2, milliseconds(5000));
  }
}

// Sleeps in poll(2) on the connection's socket and the wake pipe: no query runs here, so a
// notification is handled as soon as it arrives. poll_ms > 0 adds a periodic re-check for a
// database that does not deliver NOTIFY.
void ClusterNode::wait_notifications(pg::Conn& c) {
  const int timeout = cfg_.cluster.poll_ms > 0 ? int(cfg_.cluster.poll_ms) : -1;
  for (;;) {
    pollfd fds[2] = {{c.socket(), POLLIN, 0}, {wake_[0], POLLIN, 0}};
    const int n = ::poll(fds, 2, timeout);
    if (stopping_) return;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return;
    if (n == 0) {
      std::lock_guard l(mu_);
      ++work_gen_;
      recheck_all_ = true;
      claim_cv_.notify_one();
      await_cv_.notify_one();
      continue;
    }
    if (fds[1].revents) {
      char b[64];
      while (::read(wake_[0], b, sizeof b) > 0) {
      }
    }
    if (fds[0].revents) {
      if (!c.consume()) return;
      while (auto note = c.notification()) on_notification(*note);
    }
  }
}

void ClusterNode::on_notification(const pg::Notification& n) {
  if (n.channel == store_->channel("work")) {
    std::lock_guard l(mu_);
    ++work_gen_;
    claim_cv_.notify_one();
    return;
  }
  uint64_t id = 0;
  try {
    id = std::stoull(n.payload);
  } catch (const std::exception&) {
    return;
  }
  if (n.channel == store_->channel("done")) {
    std::lock_guard l(mu_);
    for (const auto& [t, w] : waiters_)
      if (w.job == id) {
        ended_.insert(id);
        await_cv_.notify_one();
        break;
      }
  } else if (n.channel == store_->channel("cancel")) {
    cancel_local(id, "job ended");
  }
}

void ClusterNode::on_connected() {
  std::lock_guard l(mu_);
  const double down = connected_ ? 0 : std::chrono::duration<double>(Clock::now() - disconnected_at_).count();
  if (!connected_)
    spdlog::info("cluster_db_connected host={} host_id={} schema_version={} held_partitions={} down_s={:.1f}",
                 host_name_, host_id_.load(), schema_version_, held_.size(), disconnected_at_ == Clock::time_point{} ? 0.0 : down);
  connected_ = true;
  connected_at_ = Clock::now();
  last_error_.clear();
  recheck_all_ = true;  // a done notification may have been missed while away
  ++work_gen_;
  for (auto* cv : {&claim_cv_, &await_cv_, &beat_cv_, &state_cv_}) cv->notify_all();
}

void ClusterNode::on_unavailable(const std::string& error) {
  std::lock_guard l(mu_);
  last_error_ = error;
  if (connected_ || disconnected_at_ == Clock::time_point{}) {
    spdlog::warn("cluster_db_disconnected error=\"{}\" held_partitions={} pending_results={} "
                 "action=\"proving what is held, results kept until the database is back; reconnecting\"",
                 error, held_.size(), pending_.size());
    if (connected_) m_->disconnects.inc({});
    disconnected_at_ = Clock::now();
  }
  connected_ = false;
}

void ClusterNode::wait_connected(milliseconds at_most) {
  std::unique_lock l(mu_);
  state_cv_.wait_for(l, at_most, [this] { return stopping_ || connected_; });
}

ClusterHostInfo ClusterNode::host_info() const {
  ClusterHostInfo h;
  h.name = host_name_;
  h.pid = ::getpid();
  h.version = SNARKD_VERSION;
  for (const std::string& d : device_names_) h.devices += (h.devices.empty() ? "" : ",") + d;
  h.workers = uint32_t(device_names_.size()) * cfg_.workers_per_device;
  for (const Key& k : keys_()) h.keys += (h.keys.empty() ? "" : ",") + k.circuit_id + "=" + k.hash.substr(0, 16);
  std::lock_guard l(mu_);
  h.in_flight = uint32_t(held_.size());
  return h;
}

// ---- claims ---------------------------------------------------------------------------------

uint32_t ClusterNode::room() const {
  const uint64_t target = uint64_t(device_names_.size()) * (cfg_.workers_per_device + cfg_.cluster.claim_ahead);
  return held_.size() >= target ? 0 : uint32_t(target - held_.size());
}

// Claims go in batches: once the partitions claimed ahead have all reached a worker (room for
// claim_ahead per device), not one round trip per completion. Every device's workers are still
// busy when the claim is made, so nothing idles for it unless a claim takes longer than a proof.
uint32_t ClusterNode::claim_batch() const {
  const uint64_t ahead = uint64_t(device_names_.size()) * cfg_.cluster.claim_ahead;
  return uint32_t(std::clamp<uint64_t>(ahead, 1, 1024));
}

void ClusterNode::claim_loop() {
  name_this_thread("snarkd-claim");
  uint64_t seen = 0;
  for (;;) {
    uint32_t n;
    {
      std::unique_lock l(mu_);
      claim_cv_.wait(l, [&] {
        return stopping_ || (connected_ && !draining_ && work_gen_ != seen && room() >= claim_batch());
      });
      if (stopping_) return;
      seen = work_gen_;
      n = room();
    }
    const std::vector<Key> keys = keys_();
    std::vector<std::string> hashes;
    for (const Key& k : keys)
      if (std::find(hashes.begin(), hashes.end(), k.hash) == hashes.end()) hashes.push_back(k.hash);
    std::vector<ClusterClaim> got;
    try {
      got = store_->claim(host_id_, hashes, n, cfg_.cluster.lease_s);
    } catch (const std::exception& e) {
      if (dynamic_cast<const pg::Unavailable*>(&e)) on_unavailable(e.what());
      else spdlog::error("cluster_claim_failed error=\"{}\"", e.what());
      std::unique_lock l(mu_);  // again shortly (or once the database is back)
      claim_cv_.wait_for(l, milliseconds(500), [this] { return stopping_.load(); });
      ++work_gen_;
      continue;
    }
    if (got.empty()) continue;
    {
      std::lock_guard l(mu_);
      for (const ClusterClaim& c : got) held_[c.token].claim = c;
    }
    m_->claims.inc({}, double(got.size()));
    std::map<int64_t, std::string> fetched;  // the batch's witnesses in one round trip
    if (got.size() > 1) try {
        fetched = store_->witnesses(got);
      } catch (const std::exception&) {  // each claim fetches its own then, and reports what fails
      }
    for (const ClusterClaim& c : got) {
      const auto it = fetched.find(c.token);
      start_claim(c, keys, it == fetched.end() ? nullptr : &it->second);
    }
  }
}

// Decoded over the claimed key's curve: the key hash the claim matched covers the curve, so it
// is the curve the submitting host checked the witness against.
groth16::AnyScalars ClusterNode::fetch_witness(const ClusterClaim& c, const Key& key, const std::string* fetched) {
  const std::string label = "job " + std::to_string(c.job_id) + " partition " + std::to_string(c.k);
  if (!c.witness_path.empty()) return read_witness_file(c.witness_path, c.format, key.curve, key.num_vars, label);
  const std::string bytes = fetched ? *fetched : store_->witness(c);
  return decode_witness({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}, c.format, key.curve,
                        key.num_vars, label);
}

// Witness → one-partition engine job. A witness that does not decode fails the job (it was
// checked at submit: the stored bytes are damaged); a key evicted meanwhile, a full engine, a
// drain or an unreadable shared file gives the partition back to the queue.
void ClusterNode::start_claim(const ClusterClaim& c, const std::vector<Key>& keys, const std::string* fetched) {
  const auto key = std::find_if(keys.begin(), keys.end(), [&](const Key& k) { return k.hash == c.key_hash; });
  auto give_up = [&](Pending::Kind kind, const std::string& why) {
    if (kind == Pending::kFail)
      spdlog::error("cluster_partition_unusable job={} partition={} error=\"{}\"", c.job_id, c.k, why);
    else
      spdlog::warn("cluster_claim_returned job={} partition={} reason=\"{}\"", c.job_id, c.k, why);
    std::lock_guard l(mu_);
    held_[c.token].collected = true;
    pending_.push_back(Pending{kind, c, why, false});
  };
  groth16::AnyScalars w;
  try {
    if (key == keys.end()) return give_up(Pending::kRelease, "its key is not loaded here any more");
    w = fetch_witness(c, *key, fetched);
  } catch (const pg::Unavailable& e) {
    on_unavailable(e.what());
    return give_up(Pending::kRelease, std::string("the database went away: ") + e.what());
  } catch (const snarkd::InvalidArgument& e) {
    return give_up(Pending::kFail, e.what());
  } catch (const std::exception& e) {
    give_up(Pending::kRelease, e.what());
    std::unique_lock l(mu_);  // a host that cannot read a shared witness leaves it to the others a while
    claim_cv_.wait_for(l, std::chrono::duration<double>(cfg_.cluster.lease_s / 3), [this] { return stopping_.load(); });
    return;
  }
  if (draining_) return give_up(Pending::kRelease, "draining");
  engine::JobId eid = 0;
  try {
    engine::JobRequest r;
    r.circuit_id = key->circuit_id;
    r.priority = to_engine_priority(c.priority);
    r.witnesses.push_back(std::move(w));
    eid = engine_.submit(std::move(r), milliseconds(int64_t(cfg_.cluster.lease_s * 500)));
  } catch (const std::exception& e) {
    return give_up(Pending::kRelease, std::string("the engine refused it: ") + e.what());
  }
  bool stop_it = false;
  {
    std::lock_guard l(mu_);
    Local& loc = held_[c.token];
    loc.eid = eid;
    loc.circuit_id = key->circuit_id;
    by_engine_[eid] = c.token;
    stop_it = loc.lost || loc.release;
  }
  if (stop_it) engine_.cancel(eid);
  spdlog::debug("cluster_claimed job={} partition={} token={} attempt={} engine_job={}", c.job_id, c.k, c.token,
                c.attempt, eid);
}

void ClusterNode::cancel_local(uint64_t job_id, const char* why) {
  std::vector<engine::JobId> stop;
  {
    std::lock_guard l(mu_);
    for (auto& [t, loc] : held_)
      if (loc.claim.job_id == job_id && !loc.lost && !loc.collected) {
        loc.lost = true;
        if (loc.eid) stop.push_back(loc.eid);
      }
  }
  for (engine::JobId eid : stop) engine_.cancel(eid);
  if (!stop.empty()) spdlog::info("cluster_partitions_stopped job={} partitions={} reason=\"{}\"", job_id, stop.size(), why);
}

// ---- completions ----------------------------------------------------------------------------

void ClusterNode::complete_loop() {
  name_this_thread("snarkd-complete");
  uint64_t seen = ~uint64_t(0);
  while (!stopping_) {
    seen = engine_.wait_finished(seen, milliseconds(250));
    collect_finished();
    linger(seen);
    if (!flush_pending()) wait_connected(milliseconds(1000));
  }
}

// A partition that finished while others still compute here waits up to kCompleteLinger for
// them, so that their results share one transaction (complete_many: one WAL flush, one lock
// pass) instead of one each: 16 daemons at ~300 partitions/s committed 3,200 completion
// transactions per 4,000 partitions. The wait ends early once every worker's result is in,
// and never holds a failure, a release or a draining host's results. A result is safe meanwhile
// exactly as while it was computing (the lease covers it; lost, it is proven again).
void ClusterNode::linger(uint64_t& seen) {
  const auto deadline = Clock::now() + kCompleteLinger;
  for (;;) {
    {
      std::lock_guard l(mu_);
      if (!worth_lingering()) return;
    }
    const auto left = std::chrono::ceil<milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return;
    seen = engine_.wait_finished(seen, left);
    collect_finished();
  }
}

bool ClusterNode::worth_lingering() const {
  if (pending_.empty() || stopping_ || draining_) return false;
  for (const Pending& p : pending_)
    if (p.kind != Pending::kComplete) return false;
  const size_t workers = device_names_.size() * size_t(cfg_.workers_per_device);
  if (pending_.size() >= workers) return false;
  for (const auto& [t, loc] : held_)
    if (loc.eid && !loc.collected) return true;
  return false;
}

std::string ClusterNode::partition_result(const engine::JobResult& r) {
  v1::PartitionResult p;
  p.set_stage(v1::PARTITION_STAGE_PROVEN);
  if (!r.timings.empty()) {
    const engine::PartitionTiming& t = r.timings[0];
    fill_timings(t, *p.mutable_timings());
    if (t.device < device_names_.size()) p.set_device(host_name_ + "/" + device_names_[t.device]);
    p.set_worker(t.worker);
  }
  fill_partition_outputs(r, 0, true, p);  // its curve too: finish_job gives the job's from it
  return p.SerializeAsString();
}

// Engine jobs that ended become outcomes to record; a cancelled one that nobody needs (lease
// lost, job ended) is just dropped.
void ClusterNode::collect_finished() {
  std::vector<std::pair<int64_t, engine::JobId>> in_engine;
  {
    std::lock_guard l(mu_);
    for (const auto& [t, loc] : held_)
      if (loc.eid && !loc.collected) in_engine.emplace_back(t, loc.eid);
  }
  for (const auto& [token, eid] : in_engine) {
    engine::JobResult r;
    try {
      r = engine_.peek(eid);
    } catch (const std::exception&) {
      continue;
    }
    if (!is_terminal(r.state)) continue;
    const std::string blob = r.state == engine::JobState::kDone ? partition_result(r) : r.error;
    {
      std::lock_guard l(mu_);
      const auto it = held_.find(token);
      if (it == held_.end()) continue;
      Local& loc = it->second;
      std::optional<Pending::Kind> kind;
      if (r.state == engine::JobState::kDone) kind = Pending::kComplete;
      else if (r.state == engine::JobState::kFailed && !loc.lost) kind = Pending::kFail;
      else if (loc.release && !loc.lost) kind = Pending::kRelease;
      if (kind) {
        loc.collected = true;
        pending_.push_back(Pending{*kind, loc.claim, blob, r.verified});
      } else {
        held_.erase(it);
        by_engine_.erase(eid);
        ++work_gen_;
        claim_cv_.notify_one();
        state_cv_.notify_all();
      }
    }
    try {
      engine_.forget(eid);
    } catch (const std::exception&) {
    }
  }
}

// Outcomes in order; a run of completions at the front goes in one transaction (complete_many).
bool ClusterNode::flush_pending() {
  for (;;) {
    std::vector<Pending> batch;
    {
      std::lock_guard l(mu_);
      if (pending_.empty()) return true;
      for (const Pending& p : pending_) {
        if (!batch.empty() && (p.kind != Pending::kComplete || batch[0].kind != Pending::kComplete ||
                               batch.size() >= kCompleteBatch))
          break;
        batch.push_back(p);
      }
    }
    try {
      if (batch.size() == 1) record(batch[0]);
      else record_completions(batch);
    } catch (const pg::Unavailable& e) {
      on_unavailable(e.what());
      return false;
    } catch (const std::exception& e) {  // not retried: the lease expires and another host redoes it
      for (const Pending& p : batch)
        spdlog::error("cluster_record_failed job={} partition={} token={} error=\"{}\"", p.claim.job_id, p.claim.k,
                      p.claim.token, e.what());
    }
    std::lock_guard l(mu_);
    for (const Pending& p : batch) {
      pending_.pop_front();
      if (const auto it = held_.find(p.claim.token); it != held_.end()) {
        by_engine_.erase(it->second.eid);
        held_.erase(it);
      }
    }
    ++work_gen_;
    claim_cv_.notify_one();
    state_cv_.notify_all();
  }
}

void ClusterNode::record_completions(const std::vector<Pending>& batch) {
  std::vector<ClusterResult> rs;
  for (const Pending& p : batch) rs.push_back(ClusterResult{p.claim, p.blob, p.verified});
  std::vector<std::string> dirs;
  const std::vector<ClusterOutcome> o = store_->complete_many(host_id_, rs, &dirs);
  for (size_t i = 0; i < o.size(); ++i) {
    const ClusterClaim& c = batch[i].claim;
    if (o[i] == ClusterOutcome::kJobEnded) spdlog::info("job_finished job={} state=done last_partition={}", c.job_id, c.k);
    if (o[i] == ClusterOutcome::kFenced) log_fenced(c);
    m_->results.inc({{"outcome", o[i] == ClusterOutcome::kFenced ? "fenced" : "done"}});
  }
  for (const std::string& dir : dirs) {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
}

void ClusterNode::log_fenced(const ClusterClaim& c) {
  spdlog::warn("cluster_result_fenced job={} partition={} token={} reason=\"the claim was lost (lease expired or "
               "job ended): the table keeps the result it has\"",
               c.job_id, c.k, c.token);
}

void ClusterNode::record(const Pending& p) {
  std::string dir;
  const ClusterClaim& c = p.claim;
  const char* outcome = "released";
  if (p.kind == Pending::kComplete) {
    const ClusterOutcome o = store_->complete(host_id_, c, p.blob, p.verified, &dir);
    outcome = o == ClusterOutcome::kFenced ? "fenced" : "done";
    if (o == ClusterOutcome::kJobEnded) spdlog::info("job_finished job={} state=done last_partition={}", c.job_id, c.k);
  } else if (p.kind == Pending::kFail) {
    const ClusterOutcome o = store_->fail(host_id_, c, p.blob, &dir);
    outcome = o == ClusterOutcome::kFenced ? "fenced" : "failed";
    if (o == ClusterOutcome::kJobEnded)
      spdlog::info("job_finished job={} state=failed partition={} error=\"{}\"", c.job_id, c.k, p.blob);
  } else if (!store_->release(host_id_, c)) {
    outcome = "fenced";
  }
  if (std::string(outcome) == "fenced") log_fenced(c);
  m_->results.inc({{"outcome", outcome}});
  if (!dir.empty()) {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
}

// ---- heartbeat ------------------------------------------------------------------------------

void ClusterNode::beat_loop() {
  name_this_thread("snarkd-beat");
  const auto period = std::chrono::duration<double>(cfg_.cluster.lease_s / 3);
  auto last_purge = Clock::now();
  std::unique_lock l(mu_);
  while (!stopping_) {
    beat_cv_.wait_for(l, period, [this] { return stopping_.load(); });
    if (stopping_ || !connected_) continue;
    l.unlock();
    beat_once(last_purge);
    l.lock();
  }
}

void ClusterNode::beat_once(Clock::time_point& last_purge) {
  std::vector<int64_t> tokens;
  bool may_reap;
  {
    std::lock_guard l(mu_);
    for (const auto& [t, loc] : held_) tokens.push_back(t);
    // Right after a (re)connect every host's leases may look expired: each gets one lease to renew.
    may_reap = Clock::now() - connected_at_ >= std::chrono::duration<double>(cfg_.cluster.lease_s);
  }
  try {
    const std::vector<int64_t> lost = store_->renew(host_id_, tokens, cfg_.cluster.lease_s);
    for (int64_t t : lost) {
      engine::JobId eid = 0;
      ClusterClaim c;
      {
        std::lock_guard l(mu_);
        const auto it = held_.find(t);
        if (it == held_.end() || it->second.collected || it->second.lost) continue;  // being recorded: the table decides
        it->second.lost = true;
        eid = it->second.eid;
        c = it->second.claim;
      }
      if (eid) engine_.cancel(eid);
      m_->leases_lost.inc({});
      spdlog::warn("cluster_lease_lost job={} partition={} token={} action=\"stopped here: another host has it\"",
                   c.job_id, c.k, t);
    }
    store_->heartbeat(host_id_, host_info());
    if (may_reap)
      if (const uint64_t n = store_->reap_expired()) {
        m_->leases_expired.inc({}, double(n));
        spdlog::info("cluster_leases_expired partitions={} action=\"back to the queue\"", n);
      }
    const auto every = std::chrono::duration<double>(std::clamp(cfg_.retention_s / 4, 0.5, 60.0));
    if (Clock::now() - last_purge > every) {
      last_purge = Clock::now();
      if (const uint64_t n = store_->purge(cfg_.retention_s)) spdlog::info("results_purged jobs={}", n);
      sweep_witness_dir();
    }
  } catch (const pg::Unavailable& e) {
    on_unavailable(e.what());
  } catch (const std::exception& e) {
    spdlog::error("cluster_heartbeat_failed error=\"{}\"", e.what());
  }
}

// Shared witness directories of jobs that ended whose owner could not remove them (it died
// right after the end): gone once their job is no longer queued and they are an hour old.
void ClusterNode::sweep_witness_dir() {
  if (cfg_.cluster.witness_dir.empty()) return;
  std::vector<uint64_t> ids;
  std::error_code ec;
  const auto old = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (const auto& e : fs::directory_iterator(cfg_.cluster.witness_dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (e.last_write_time(ec) < old) ids.push_back(std::stoull(name));
  }
  const std::vector<uint64_t> keep = store_->queued_among(ids);
  for (uint64_t id : ids)
    if (std::find(keep.begin(), keep.end(), id) == keep.end())
      fs::remove_all(cfg_.cluster.witness_dir + "/" + std::to_string(id), ec);
}

}  // namespace snarkd::server
