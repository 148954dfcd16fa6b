// The cluster node's RPC side: Submit's accept, Await's waiters, Cancel, the Status block.
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "snarkd/server/cluster_node.hpp"
#include "snarkd/server/errors.hpp"
#include "snarkd/server/files.hpp"
#include "snarkd/util/random.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace fs = std::filesystem;

namespace snarkd::server {

using Clock = std::chrono::steady_clock;

double unix_now();  // journal.hpp

namespace {

[[noreturn]] void unavailable(const std::exception& e, const char* what) {
  throw ServiceError(Code::kUnavailable, std::string("the cluster database is unreachable (") + e.what() + "): " + what);
}

void fsync_path(const std::string& path, bool directory) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0));
  if (fd < 0) throw std::runtime_error("cluster: cannot open " + path + " to fsync: " + std::strerror(errno));
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) throw std::runtime_error("cluster: fsync " + path + ": " + std::strerror(err));
}

// Staged files durable, then the directory renamed into place (as the journal's spool commit).
void commit_dir(const std::string& staging, const std::string& dest) {
  for (const auto& e : fs::directory_iterator(staging)) fsync_path(e.path().string(), false);
  fsync_path(staging, true);
  std::error_code ec;
  fs::rename(staging, dest, ec);
  if (ec) throw std::runtime_error("cluster: rename " + staging + " → " + dest + ": " + ec.message());
  fsync_path(fs::path(dest).parent_path().string(), true);
}

v1::JobState state_from_text(const std::string& s) {
  if (s == "done") return v1::JOB_STATE_DONE;
  if (s == "failed") return v1::JOB_STATE_FAILED;
  if (s == "cancelled") return v1::JOB_STATE_CANCELLED;
  return v1::JOB_STATE_QUEUED;
}

ServiceError unknown_job(uint64_t id) {
  return ServiceError(Code::kNotFound, "unknown job " + std::to_string(id) +
                                           " (never accepted, or finished longer ago than the retention time)");
}

}  // namespace

std::string ClusterNode::new_staging_dir() {
  const std::string& root = cfg_.cluster.witness_dir;
  if (root.empty()) return "";
  make_private_dir(root);
  make_private_dir(root + "/.staging");
  uint64_t r;
  os_random_bytes(&r, sizeof r);
  const std::string d = root + "/.staging/" + to_hex(std::span(reinterpret_cast<const uint8_t*>(&r), 8));
  if (::mkdir(d.c_str(), 0700) != 0 || ::chmod(d.c_str(), 0700) != 0)
    throw std::runtime_error("cluster: cannot create " + d + ": " + std::strerror(errno));
  return d;
}

ClusterNode::Accepted ClusterNode::accept(ClusterNewJob j, const std::string& staging) {
  {
    std::lock_guard l(mu_);
    if (!connected_ || host_id_ == 0)
      throw ServiceError(Code::kUnavailable, "the cluster database is unreachable (" +
                                                 (last_error_.empty() ? std::string("not connected yet") : last_error_) +
                                                 "): nothing was accepted, submit again");
  }
  uint64_t total = 0;
  for (const ClusterPartitionIn& p : j.partitions) total += p.bytes;
  const std::string& root = cfg_.cluster.witness_dir;
  const bool shared = !root.empty() && total >= cfg_.cluster.witness_dir_min_bytes &&
                      staging.rfind(root + "/.staging/", 0) == 0;
  j.host = host_id_;
  std::string dir;
  try {
    if (shared) {
      j.id = store_->next_job_id();
      dir = root + "/" + std::to_string(*j.id);
      commit_dir(staging, dir);
      for (ClusterPartitionIn& p : j.partitions) p.path = dir + "/" + fs::path(p.path).filename().string();
      j.shared = true;
      j.shared_dir = dir;
    }
    const ClusterAccepted a = store_->accept(j);
    if (!a.deduplicated) return Accepted{a.id, false, v1::JOB_STATE_QUEUED};
    if (!dir.empty()) fs::remove_all(dir);
    if (a.existing_payload != j.payload)
      throw ServiceError(Code::kAlreadyExists, "request id '" + j.request_id + "' was used for job " +
                                                   std::to_string(a.id) +
                                                   " with a different payload (circuit, priority or witnesses differ)");
    return Accepted{a.id, true, state_from_text(a.state)};
  } catch (const pg::Unavailable& e) {
    on_unavailable(e.what());
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
    unavailable(e, "the job may not have been accepted: submit again (with a request id, a job that was is found)");
  } catch (const pg::Error&) {
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
    throw;
  }
}

// ---- await ----------------------------------------------------------------------------------

uint64_t ClusterNode::await_async(uint64_t id, std::optional<std::chrono::milliseconds> timeout, AwaitDone done) {
  constexpr auto kForever = std::chrono::hours(24 * 365 * 10);
  const auto deadline = Clock::now() + (timeout ? std::min<std::chrono::milliseconds>(*timeout, kForever) : kForever);
  const bool at_once = stopping_ || (timeout && timeout->count() <= 0);
  uint64_t ticket = 0;
  if (!at_once) {  // registered before the look-up: an end notified in between is not missed
    std::lock_guard l(mu_);
    ticket = next_ticket_++;
    waiters_.emplace(ticket, Waiter{id, deadline, done});
    await_cv_.notify_one();
  }
  auto take = [&]() -> bool {
    std::lock_guard l(mu_);
    return waiters_.erase(ticket) == 1;
  };
  std::optional<v1::JobResult> r;
  try {
    r = store_->job(id);
  } catch (const pg::Unavailable& e) {
    on_unavailable(e.what());
    if (ticket) take();
    unavailable(e, "try again");
  }
  if (!r) {
    if (ticket) take();
    throw unknown_job(id);
  }
  if (!ticket) {
    done(*r);
    return 0;
  }
  if (r->state() >= v1::JOB_STATE_DONE) {
    if (take()) done(*r);  // else the await thread answered it already
    return 0;
  }
  return ticket;
}

void ClusterNode::forget_await(uint64_t ticket) {
  std::lock_guard l(mu_);
  waiters_.erase(ticket);
}

v1::JobResult ClusterNode::job_or_error(uint64_t id) {
  v1::JobResult out;
  out.set_job_id(id);
  try {
    if (std::optional<v1::JobResult> r = store_->job(id)) return *r;
    out.set_error("unknown job (purged)");
  } catch (const std::exception& e) {
    out.set_error(std::string("the cluster database is unreachable: ") + e.what());
  }
  return out;
}

// Answers the waiters of `job` (ticket 0) or the one waiter `ticket`, outside the lock.
void ClusterNode::answer(uint64_t ticket, const std::optional<v1::JobResult>& r, uint64_t job) {
  std::vector<Waiter> due;
  {
    std::lock_guard l(mu_);
    for (auto it = waiters_.begin(); it != waiters_.end();) {
      if (ticket ? it->first == ticket : it->second.job == job) {
        due.push_back(std::move(it->second));
        it = waiters_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (Waiter& w : due) {
    try {
      w.done(r ? *r : job_or_error(w.job));
    } catch (const std::exception& e) {
      spdlog::error("await_answer_failed job={} error=\"{}\"", w.job, e.what());
    }
  }
}

void ClusterNode::await_loop() {
  name_this_thread("snarkd-cawait");
  std::unique_lock l(mu_);
  while (!stopping_) {
    std::set<uint64_t> look;
    look.swap(ended_);
    if (recheck_all_ && connected_) {
      for (const auto& [t, w] : waiters_) look.insert(w.job);
      recheck_all_ = false;
    }
    const auto now = Clock::now();
    auto next = Clock::time_point::max();
    std::vector<std::pair<uint64_t, uint64_t>> due;  // ticket, job
    for (const auto& [t, w] : waiters_) {
      if (w.deadline <= now) due.emplace_back(t, w.job);
      else next = std::min(next, w.deadline);
    }
    if (look.empty() && due.empty()) {
      if (next == Clock::time_point::max()) await_cv_.wait(l);
      else await_cv_.wait_until(l, next);
      continue;
    }
    l.unlock();
    for (uint64_t id : look) {
      try {
        const std::optional<v1::JobResult> r = store_->job(id);
        if (!r || r->state() >= v1::JOB_STATE_DONE) answer(0, r, id);
      } catch (const pg::Unavailable& e) {  // looked at again after the reconnect
        on_unavailable(e.what());
      } catch (const std::exception& e) {
        spdlog::error("await_lookup_failed job={} error=\"{}\"", id, e.what());
      }
    }
    for (const auto& [ticket, job] : due) answer(ticket, job_or_error(job), job);
    l.lock();
  }
  l.unlock();
  std::vector<uint64_t> jobs;
  {
    std::lock_guard g(mu_);
    for (const auto& [t, w] : waiters_) jobs.push_back(w.job);
  }
  for (uint64_t job : jobs) answer(0, std::nullopt, job);  // stopping: each gets its job as it is
}

// ---- cancel, status -------------------------------------------------------------------------

v1::JobResult ClusterNode::cancel(uint64_t id) {
  std::string dir;
  std::optional<v1::JobResult> r;
  try {
    r = store_->cancel(id, &dir);
  } catch (const pg::Unavailable& e) {
    on_unavailable(e.what());
    unavailable(e, "nothing was cancelled");
  }
  if (!r) throw unknown_job(id);
  std::error_code ec;
  if (!dir.empty()) fs::remove_all(dir, ec);
  cancel_local(id, "cancelled");  // ours now; other hosts' through the cancel notification
  spdlog::info("job_cancel job={}", id);
  return *r;
}

void ClusterNode::keys_changed() {
  std::lock_guard l(mu_);
  ++work_gen_;
  claim_cv_.notify_one();
}

bool ClusterNode::ready(std::string* why) const {
  std::lock_guard l(mu_);
  if (connected_ && host_id_ != 0) return true;
  if (why) *why = "the cluster database is unreachable: " + (last_error_.empty() ? "not connected yet" : last_error_);
  return false;
}

void ClusterNode::fill_status(v1::StatusReply& s, uint32_t recent) {
  v1::ClusterStatus* c = s.mutable_cluster();
  {
    std::lock_guard l(mu_);
    c->set_connected(connected_);
    if (!connected_ && disconnected_at_ != Clock::time_point{})
      c->set_disconnected_s(std::chrono::duration<double>(Clock::now() - disconnected_at_).count());
    c->set_last_error(last_error_);
    c->set_host(host_name_);
    c->set_host_id(uint64_t(host_id_.load()));
    c->set_schema_version(uint32_t(schema_version_));
    c->set_held_partitions(held_.size());
  }
  // The engine's workers carry engine job ids; a claim's are the cluster's (job, partition).
  for (const engine::WorkerStatus& w : engine_.stats().workers) {
    const auto claim = w.job ? claim_of(w.job) : std::nullopt;
    if (!claim || int(w.device) >= s.devices_size()) continue;
    for (v1::WorkerStatus& ws : *s.mutable_devices(int(w.device))->mutable_workers())
      if (ws.index() == w.worker) {
        ws.set_job_id(claim->first);
        ws.set_partition(claim->second);
      }
  }
  if (c->connected()) {
    try {
      const ClusterCounts n = store_->counts();
      s.set_jobs_queued(n.jobs_queued);
      s.set_jobs_running(n.jobs_running);
      s.set_jobs_done(n.jobs_done);
      s.set_jobs_failed(n.jobs_failed);
      s.set_jobs_cancelled(n.jobs_cancelled);
      c->set_queued_partitions(n.partitions_queued);
      c->set_claimed_partitions(n.partitions_claimed);
      for (v1::ClusterHost& h : store_->hosts(cfg_.cluster.lease_s)) *c->add_hosts() = std::move(h);
      s.clear_recent_jobs();
      for (v1::JobSummary& j : store_->recent(recent, unix_now())) *s.add_recent_jobs() = std::move(j);
    } catch (const std::exception& e) {
      c->set_last_error(e.what());
    }
  }
  set_gauges(*c);
}

std::optional<std::pair<uint64_t, uint32_t>> ClusterNode::claim_of(engine::JobId eid) const {
  std::lock_guard l(mu_);
  const auto it = by_engine_.find(eid);
  if (it == by_engine_.end()) return std::nullopt;
  const auto h = held_.find(it->second);
  if (h == held_.end()) return std::nullopt;
  return std::make_pair(h->second.claim.job_id, h->second.claim.k);
}

}  // namespace snarkd::server
