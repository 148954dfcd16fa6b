#include "snarkd/server/service.hpp"

#include <spdlog/spdlog.h>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "snarkd/server/spool.hpp"
#include "snarkd/util/error.hpp"

namespace fs = std::filesystem;

namespace snarkd::server {

engine::Priority to_engine_priority(int p) {
  switch (p) {
    case v1::PRIORITY_UNSPECIFIED:
    case v1::PRIORITY_NORMAL:
      return engine::Priority::kNormal;
    case v1::PRIORITY_LOW:
      return engine::Priority::kLow;
    case v1::PRIORITY_HIGH:
      return engine::Priority::kHigh;
    case v1::PRIORITY_CRITICAL:
      return engine::Priority::kCritical;
  }
  throw ServiceError(Code::kInvalidArgument,
                     "priority " + std::to_string(p) + " is not one of LOW NORMAL HIGH CRITICAL");
}

const char* job_state_text(v1::JobState s) {
  switch (s) {
    case v1::JOB_STATE_QUEUED:
      return "queued";
    case v1::JOB_STATE_RUNNING:
      return "running";
    case v1::JOB_STATE_DONE:
      return "done";
    case v1::JOB_STATE_FAILED:
      return "failed";
    case v1::JOB_STATE_CANCELLED:
      return "cancelled";
    default:
      return "unknown";
  }
}

void Service::start() {
  load_start_circuits();
  start_cluster();
  std::vector<uint64_t> unfinished;
  load_journal_jobs(unfinished);
  watcher_ = std::thread([this] { watch_loop(); });
  await_timer_ = std::thread([this] { await_timer_loop(); });
  requeuer_ = std::thread([this, ids = std::move(unfinished)]() mutable { requeue_loop(std::move(ids)); });
}

void Service::stop() {
  {
    std::lock_guard l(mu_);
    if (stopping_.exchange(true)) return;
    done_cv_.notify_all();
    request_cv_.notify_all();
    await_cv_.notify_all();
  }
  if (cluster_) cluster_->stop();
  if (requeuer_.joinable()) requeuer_.join();
  if (watcher_.joinable()) watcher_.join();
  if (await_timer_.joinable()) await_timer_.join();  // it answers every waiting Await on its way out
}

// ---- submit ---------------------------------------------------------------------------------

// One answer for a path outside the directories, missing, unreadable or not a regular file: a
// client learns nothing about files it may not read.
OpenedFile Service::open_witness_path(const std::string& path) const {
  std::vector<std::string> dirs;
  {
    std::lock_guard l(mu_);
    dirs = cfg_.witness_dirs;
  }
  if (dirs.empty())
    throw ServiceError(Code::kPermissionDenied, "witness paths are disabled (server.witness_dirs is empty)");
  if (path.empty() || path[0] != '/')
    throw ServiceError(Code::kInvalidArgument, "witness path '" + clip(path) + "' is not absolute");
  std::optional<OpenedFile> f = open_under(path, dirs);
  if (!f)
    throw ServiceError(Code::kNotFound,
                       "witness path '" + clip(path) + "' is not a readable regular file under server.witness_dirs");
  return std::move(*f);
}

namespace {

WitnessFormat resolve_format(int requested, std::span<const uint8_t> head, uint32_t k) {
  switch (requested) {
    case v1::WITNESS_FORMAT_AUTO:
      return detect_witness_format(head);
    case v1::WITNESS_FORMAT_FR_MONTGOMERY:
      return WitnessFormat::kFrMontgomery;
    case v1::WITNESS_FORMAT_WTNS:
      return WitnessFormat::kWtns;
  }
  throw ServiceError(Code::kInvalidArgument,
                     "partition " + std::to_string(k) + ": unknown witness format " + std::to_string(requested));
}

void check_witness_size(uint64_t size, uint64_t max_bytes, int k) {
  if (size > max_bytes)
    throw ServiceError(Code::kInvalidArgument,
                       "partition " + std::to_string(k) + ": the witness is " + std::to_string(size) +
                           " bytes, more than the circuit's variables can take (" + std::to_string(max_bytes) + ")");
}

std::span<const uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

}  // namespace

// One partition's witness into <dir>/<k>.<fr|wtns>, its bytes hashed, and decoded: an inline
// one from the received bytes (≈ 40 % of the gRPC thread's CPU per Submit was reading back the
// file just written, zero-filling and decoding it), a path one from its spool copy.
Service::StagedOne Service::stage_one(const v1::Witness& w, int k, const std::string& dir, const KeyShape& shape,
                                      uint64_t max_bytes, Sha256& h) const {
  const std::string tmp = dir + "/" + std::to_string(k) + ".tmp";
  const std::string label = "partition " + std::to_string(k);
  std::string head;
  if (w.source_case() == v1::Witness::kData) {
    check_witness_size(w.data().size(), max_bytes, k);
    head = w.data().substr(0, 8);
    h.update_u64(w.data().size());
    h.update(w.data().data(), w.data().size());
    spool_write(tmp, w.data());
  } else if (w.source_case() == v1::Witness::kPath) {
    const OpenedFile src = open_witness_path(w.path());
    struct stat st;
    if (::fstat(src.fd.get(), &st) != 0) throw std::runtime_error("cannot stat " + src.real_path);
    check_witness_size(uint64_t(st.st_size), max_bytes, k);
    head = spool_copy(src.fd.get(), "witness path '" + w.path() + "'", tmp, h);
  } else {
    throw ServiceError(Code::kInvalidArgument, label + ": no witness (set data or path)");
  }
  StagedOne one;
  one.format = resolve_format(w.format(), as_bytes(head), uint32_t(k));
  h.update_u64(uint64_t(one.format));
  const std::string file = dir + "/" + std::to_string(k) + "." + witness_format_ext(one.format);
  fs::rename(tmp, file);
  one.values = w.source_case() == v1::Witness::kData
                   ? decode_witness(as_bytes(w.data()), one.format, shape.curve, shape.num_vars, label)
                   : read_witness_file(file, one.format, shape.curve, shape.num_vars, label);
  return one;
}

// Every partition staged and decoded (so a bad witness is refused before anything is
// journaled); the hash covers circuit, priority and each partition's format and bytes.
Service::Staged Service::stage_witnesses(const v1::SubmitRequest& req, const Circuit& c) {
  Staged st;
  st.curve = c.lc.shape.curve;
  // A .wtns adds a header of < 100 bytes to the values: anything larger cannot fit the circuit
  // and is refused before it is copied into the spool.
  const uint64_t max_bytes = c.lc.shape.witness_bytes() + 1024;
  st.dir = staging_dir();
  try {
    Sha256 h;
    h.update_str("snarkd.v1.Submit");
    h.update_str(req.circuit_id());
    h.update_u64(uint64_t(to_engine_priority(req.priority())));
    h.update_u64(uint64_t(req.partitions_size()));
    for (int k = 0; k < req.partitions_size(); ++k) {
      StagedOne one = stage_one(req.partitions(k), k, st.dir, c.lc.shape, max_bytes, h);
      st.formats.push_back(one.format);
      st.witnesses.push_back(std::move(one.values));
    }
    st.hash = h.finish();
  } catch (...) {
    journal_->remove_dir(st.dir);
    throw;
  }
  return st;
}

std::optional<uint64_t> Service::claim_request_id(const std::string& rid, const Digest& hash) {
  if (rid.empty()) return std::nullopt;
  std::unique_lock l(mu_);
  for (;;) {
    if (const auto it = by_request_.find(rid); it != by_request_.end()) {
      const Record& r = *records_.at(it->second);
      if (r.hash == hash) return r.id;
      throw ServiceError(Code::kAlreadyExists, "request id '" + rid + "' was used for job " + std::to_string(r.id) +
                                                   " with a different payload (circuit, priority or witnesses differ)");
    }
    if (!pending_requests_.count(rid)) {
      pending_requests_.emplace(rid, hash);
      return std::nullopt;
    }
    if (stopping_) throw ServiceError(Code::kUnavailable, "the daemon is stopping");
    request_cv_.wait(l);  // the same id is being submitted right now: its outcome decides
  }
}

void Service::release_request_id(const std::string& rid) {
  if (rid.empty()) return;
  std::lock_guard l(mu_);
  pending_requests_.erase(rid);
  request_cv_.notify_all();
}

// Journal first (the reply promises durability), then the engine; an engine refusal (busy)
// undoes the journal entry, so a refused job never runs after a restart.
uint64_t Service::accept(const v1::SubmitRequest& req, Staged& st, engine::Priority prio) {
  const uint64_t id = journal_->allocate_job_id();
  auto rec = std::make_shared<Record>();
  rec->id = id;
  rec->request_id = req.request_id();
  rec->hash = st.hash;
  rec->circuit_id = req.circuit_id();
  rec->priority = req.priority() == v1::PRIORITY_UNSPECIFIED ? int(v1::PRIORITY_NORMAL) : req.priority();
  rec->partitions = uint32_t(st.witnesses.size());
  rec->formats = st.formats;
  rec->curve = r1cs::curve_name(st.curve);
  rec->submitted_at = unix_now();
  const auto t0 = std::chrono::steady_clock::now();
  journal_->commit_spool(st.dir, id);
  try {
    journal_->insert_job(JournalJob{id, rec->request_id, rec->hash, rec->circuit_id, rec->priority, rec->formats,
                                    "queued", rec->submitted_at, 0, 1, "", ""});
  } catch (...) {
    journal_->remove_spool(id);
    throw;
  }
  metric_journal_commit(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  {
    std::lock_guard l(mu_);
    records_[id] = rec;
  }
  engine::JobRequest er;
  er.circuit_id = req.circuit_id();
  er.priority = prio;
  er.witnesses = std::move(st.witnesses);
  uint64_t wait_ms;
  {
    std::lock_guard l(mu_);
    wait_ms = cfg_.submit_wait_ms;
  }
  engine::JobId eid;
  try {
    eid = engine_->submit(std::move(er), std::chrono::milliseconds(wait_ms));
  } catch (...) {
    journal_->remove_job(id);
    journal_->remove_spool(id);
    std::lock_guard l(mu_);
    records_.erase(id);
    throw;
  }
  adopt_engine_job(rec, eid);
  return id;
}

v1::SubmitReply Service::submit(const v1::SubmitRequest& req) {
  if (draining_ || stopping_)
    throw ServiceError(Code::kUnavailable, "the daemon is draining (SIGTERM) and accepts no new jobs");
  check_id("circuit_id", req.circuit_id());
  if (!req.request_id().empty()) check_id("request_id", req.request_id());
  for (int k = 0; k < req.partitions_size(); ++k)
    if (req.partitions(k).source_case() == v1::Witness::kPath)
      check_path(("partition " + std::to_string(k) + ": witness path").c_str(), req.partitions(k).path());
  if (req.partitions_size() == 0) throw ServiceError(Code::kInvalidArgument, "no partitions (a job needs ≥ 1 witness)");
  if (uint64_t(req.partitions_size()) > cfg_.max_partitions)
    throw ServiceError(Code::kInvalidArgument, std::to_string(req.partitions_size()) + " partitions, at most " +
                                                   std::to_string(cfg_.max_partitions) + " per job");
  const engine::Priority prio = to_engine_priority(req.priority());
  const auto circuit = find_circuit(req.circuit_id());
  if (cluster_) return submit_cluster(req, *circuit);
  Staged st = stage_witnesses(req, *circuit);
  v1::SubmitReply reply;
  if (const auto existing = claim_request_id(req.request_id(), st.hash)) {
    journal_->remove_dir(st.dir);
    reply.set_job_id(*existing);
    reply.set_deduplicated(true);
    reply.set_state(await(*existing, std::chrono::milliseconds(0)).state());
    metric_dedup(req.circuit_id());
    return reply;
  }
  uint64_t id;
  try {
    id = accept(req, st, prio);
  } catch (...) {
    journal_->remove_dir(st.dir);
    release_request_id(req.request_id());
    throw;
  }
  {
    std::lock_guard l(mu_);
    if (!req.request_id().empty()) by_request_[req.request_id()] = id;
    pending_requests_.erase(req.request_id());
    request_cv_.notify_all();
  }
  metric_submitted(req.circuit_id());
  spdlog::info("job_accepted job={} circuit={} partitions={} priority={} request_id={}", id, req.circuit_id(),
               req.partitions_size(), engine::priority_name(prio), req.request_id().empty() ? "-" : req.request_id());
  reply.set_job_id(id);
  reply.set_state(v1::JOB_STATE_QUEUED);
  return reply;
}

// ---- cancel ---------------------------------------------------------------------------------

namespace {
// How long Cancel waits for running partitions to reach their next phase boundary: one MSM
// window chunk on the CPU, one kernel phase on a GPU (≤ 1 s at PoRep size), an instant on the
// simulated device. Past it the reply goes out anyway (the stop still happens).
constexpr std::chrono::milliseconds kCancelStopWait{60000};
}  // namespace

std::shared_ptr<Service::Record> Service::find_record(uint64_t id) const {
  std::lock_guard l(mu_);
  const auto it = records_.find(id);
  if (it == records_.end())
    throw ServiceError(Code::kNotFound, "unknown job " + std::to_string(id) +
                                            " (never accepted, or finished longer ago than the retention time)");
  return it->second;
}

v1::JobResult Service::cancel(uint64_t id) {
  if (cluster_) return cluster_->cancel(id);
  const auto rec = find_record(id);
  std::optional<engine::JobId> eid;
  {
    std::lock_guard l(mu_);
    if (rec->terminal) return rec->result;  // nothing to cancel; the engine may have forgotten it
    eid = rec->engine_id;
  }
  if (eid) {
    // Cancelled now, or finished just before: either way the engine's state is final, so
    // journal it here (finish ignores it if the watcher was first) and reply with it.
    try {
      const engine::JobResult before = engine_->peek(*eid);
      const bool on_device = std::any_of(before.timings.begin(), before.timings.end(), [](const auto& t) {
        return t.dequeued_s > 0 && t.finalized_s == 0;  // popped by a worker, not done
      });
      const auto t0 = std::chrono::steady_clock::now();
      const bool was_running = engine_->cancel(*eid) && on_device;
      finish(rec, engine_->peek(*eid));
      // Reply once the running partitions have left their devices (their next phase boundary):
      // the circuit can be evicted and the drain does not wait for them.
      if (was_running) {
        if (engine_->wait_stopped(*eid, kCancelStopWait))
          metric_cancel_stop(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        else
          spdlog::warn("cancel_stop_slow job={} waited_s={}", id, kCancelStopWait.count() / 1000);
      }
    } catch (const InvalidArgument&) {  // finished and purged (forgotten) in between
      std::lock_guard l(mu_);
      if (!rec->terminal) throw;
      return rec->result;
    }
  } else {
    // Not handed to the engine yet (being accepted, or re-queued after a restart): whoever
    // hands it over sees it terminal and cancels the engine's copy.
    finish_unstarted(rec, v1::JOB_STATE_CANCELLED, "cancelled");
  }
  spdlog::info("job_cancel job={}", id);
  return await(id, std::chrono::milliseconds(0));
}

// ---- lifecycle ------------------------------------------------------------------------------

void Service::begin_drain() {
  draining_ = true;
  engine_->set_paused(true);  // for good: no partition starts from here on
  if (cluster_) cluster_->begin_drain();
  spdlog::info("drain_started");
}

namespace {

// No partition between pop and leave, and no worker in a stage or a job's self-check (which
// runs after the last partition's leave, while its worker still shows "finalize").
bool engine_idle(const engine::Engine& e) {
  const engine::EngineStats s = e.stats();
  if (s.in_flight_partitions != 0) return false;
  for (const engine::WorkerStatus& w : s.workers)
    if (w.stage != "idle") return false;
  return true;
}

}  // namespace

// The engine is paused, so the in-flight partitions only drain away: wait for that (polling:
// the engine has no "idle" notification; 20 ms against stages of seconds), then journal every
// job that ended meanwhile. What has not run stays "queued" in the journal.
bool Service::drain(double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  spdlog::info("drain_waiting in_flight_partitions={} timeout_s={}", engine_->stats().in_flight_partitions,
               timeout_s);
  // Two idle snapshots in a row: whatever order stats() reads the count and the stages in, a
  // partition that left between the two reads of one snapshot is seen busy (its self-check) or
  // done by the next. Paused, nothing new can start in between.
  for (int idle = 0; idle < 2; idle = engine_idle(*engine_) ? idle + 1 : 0) {
    if (stopping_ || std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  scan_active();  // claims what the watcher has not; finish() is exactly-once either way
  if (cluster_ && !cluster_->drain(std::chrono::time_point_cast<std::chrono::steady_clock::duration>(deadline)))
    return false;
  std::unique_lock l(mu_);
  return done_cv_.wait_until(l, deadline, [&] {
    if (stopping_) return true;
    for (const auto& [id, r] : records_)
      if (r->finishing && !r->terminal) return false;  // the watcher is journaling it
    return true;
  }) && !stopping_;
}

std::vector<std::string> Service::reload(const ServerConfig& next) {
  std::vector<std::string> ignored;
  auto differs = [&](bool changed, const char* what) {
    if (changed) ignored.push_back(what);
  };
  differs(next.socket != cfg_.socket || next.socket_mode != cfg_.socket_mode, "server.socket*");
  differs(next.tcp_listen != cfg_.tcp_listen, "server.tcp_listen");
  differs(next.http_listen != cfg_.http_listen, "server.http_listen");
  differs(next.devices != cfg_.devices || next.workers_per_device != cfg_.workers_per_device ||
              next.vram_bytes != cfg_.vram_bytes || next.host_budget_bytes != cfg_.host_budget_bytes,
          "engine.*");
  differs(next.state_dir != cfg_.state_dir, "journal.state_dir");
  differs(next.log_file != cfg_.log_file || next.log_format != cfg_.log_format, "log.file, log.format");
  differs(!(next.cluster == cfg_.cluster), "cluster.*");
  std::optional<std::string> token;
  try {
    token = resolve_token(next);
  } catch (const std::exception& e) {
    ignored.push_back(std::string("the token (the old one stays): ") + e.what());
  }
  {
    std::lock_guard l(mu_);
    if (token) token_ = *token;
    cfg_.token = next.token;
    cfg_.token_file = next.token_file;
    cfg_.witness_dirs = next.witness_dirs;
    cfg_.key_dirs = next.key_dirs;
    cfg_.submit_wait_ms = next.submit_wait_ms;
    cfg_.retention_s = next.retention_s;
    cfg_.log_level = next.log_level;
  }
  reload_circuits(next, ignored);
  return ignored;
}

}  // namespace snarkd::server
