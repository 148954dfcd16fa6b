// The job lifecycle behind the RPCs: the watcher that journals finished jobs, results from
// engine snapshots, re-queueing after a restart and the retention purge.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>

#include "snarkd/server/service.hpp"
#include "snarkd/server/stage_timings.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::server {

namespace {

v1::JobState to_proto_state(engine::JobState s) {
  switch (s) {
    case engine::JobState::kQueued:
      return v1::JOB_STATE_QUEUED;
    case engine::JobState::kRunning:
      return v1::JOB_STATE_RUNNING;
    case engine::JobState::kDone:
      return v1::JOB_STATE_DONE;
    case engine::JobState::kFailed:
      return v1::JOB_STATE_FAILED;
    case engine::JobState::kCancelled:
      return v1::JOB_STATE_CANCELLED;
  }
  return v1::JOB_STATE_UNSPECIFIED;
}

// A failed or cancelled job delivers no proof: all its partitions are "stopped", even those
// proven before the job ended.
v1::PartitionStage stage_of(const engine::PartitionTiming& t, v1::JobState job) {
  if (job == v1::JOB_STATE_FAILED || job == v1::JOB_STATE_CANCELLED) return v1::PARTITION_STAGE_STOPPED;
  if (t.finalized_s > 0 || job == v1::JOB_STATE_DONE) return v1::PARTITION_STAGE_PROVEN;
  if (t.dequeued_s == 0) return v1::PARTITION_STAGE_QUEUED;
  if (t.reserved_s == 0) return v1::PARTITION_STAGE_WAIT_VRAM;
  if (t.uploaded_s == 0) return v1::PARTITION_STAGE_UPLOAD;
  if (t.computed_s == 0) return v1::PARTITION_STAGE_COMPUTE;
  return v1::PARTITION_STAGE_FINALIZE;
}

}  // namespace

// A result from an engine snapshot. An engine-terminal job that is not journaled yet is
// reported as running without proofs: Await shows a result only once a crash cannot undo it.
v1::JobResult Service::to_result(const Record& rec, const engine::JobResult& r) const {
  v1::JobResult out;
  out.set_job_id(rec.id);
  out.set_circuit_id(rec.circuit_id);
  out.set_priority(v1::Priority(rec.priority));
  out.set_request_id(rec.request_id);
  out.set_submitted_unix_s(rec.submitted_at);
  out.set_attempts(rec.attempts);
  out.set_curve(r1cs::curve_name(r.curve));
  v1::JobState state = to_proto_state(r.state);
  out.set_state(state);
  out.set_error(r.error);
  out.set_verified(r.verified);
  for (size_t k = 0; k < r.timings.size(); ++k) {
    const engine::PartitionTiming& t = r.timings[k];
    v1::PartitionResult* p = out.add_partitions();
    p->set_stage(stage_of(t, state));
    fill_timings(t, *p->mutable_timings());
    if (t.dequeued_s > 0 && t.device < device_names_.size())
      p->set_device(device_names_[t.device]), p->set_worker(t.worker);
    fill_partition_outputs(r, k, state == v1::JOB_STATE_DONE, *p);
  }
  return out;
}

v1::JobResult Service::progress(const Record& rec) const {
  std::optional<engine::JobId> eid;
  {
    std::lock_guard l(mu_);
    if (rec.terminal) return rec.result;
    eid = rec.engine_id;
  }
  if (!eid) {  // accepted, not (yet again) in the engine
    v1::JobResult out;
    out.set_job_id(rec.id);
    out.set_state(v1::JOB_STATE_QUEUED);
    out.set_circuit_id(rec.circuit_id);
    out.set_priority(v1::Priority(rec.priority));
    out.set_request_id(rec.request_id);
    out.set_submitted_unix_s(rec.submitted_at);
    out.set_attempts(rec.attempts);
    out.set_curve(rec.curve);
    for (uint32_t k = 0; k < rec.partitions; ++k) out.add_partitions()->set_stage(v1::PARTITION_STAGE_QUEUED);
    return out;
  }
  v1::JobResult out = to_result(rec, engine_->peek(*eid));
  if (out.state() >= v1::JOB_STATE_DONE) {
    out.set_state(v1::JOB_STATE_RUNNING);
    out.set_error("");
    out.set_verified(false);
    for (auto& p : *out.mutable_partitions()) p.clear_proof(), p.clear_curve();
  }
  return out;
}

// ---- finishing ------------------------------------------------------------------------------

bool Service::claim_finish(Record& rec) {
  std::lock_guard l(mu_);
  if (rec.finishing || rec.terminal) return false;
  rec.finishing = true;
  return true;
}

void Service::finish(const std::shared_ptr<Record>& rec, const engine::JobResult& r) {
  if (!is_terminal(r.state) || !claim_finish(*rec)) return;
  if (spdlog::should_log(spdlog::level::debug)) log_partitions(*rec, r);
  complete(rec, to_result(*rec, r));
}

// partition_finished job=3 circuit=c partition=0 state=done device=cuda:0 worker=1
//   reserved_on=cuda:0 queued_s=… wait_vram_s=… upload_s=… compute_s=… finalize_s=…
//   phases="qap:0.1200,h:0.3100,…"   (the device's compute phases; "" when it reports none)
void Service::log_partitions(const Record& rec, const engine::JobResult& r) const {
  const char* state = job_state_text(to_proto_state(r.state));
  for (size_t k = 0; k < r.timings.size(); ++k) {
    const engine::PartitionTiming& t = r.timings[k];
    const bool placed = t.dequeued_s > 0 && t.device < device_names_.size();
    v1::StageTimings st;
    fill_timings(t, st);
    std::string phases;
    for (const engine::PhaseTime& p : t.phases)
      phases += fmt::format("{}{}:{:.4f}", phases.empty() ? "" : ",", p.name, p.seconds);
    spdlog::debug(
        "partition_finished job={} circuit={} partition={} state={} device={} worker={} reserved_on={} queued_s={:.4f} "
        "wait_vram_s={:.4f} upload_s={:.4f} compute_s={:.4f} finalize_s={:.4f} phases=\"{}\"",
        rec.id, rec.circuit_id, k, state, placed ? device_names_[t.device] : "-", placed ? std::to_string(t.worker) : "-",
        placed && t.reserved_s > 0 && t.reserved_device < device_names_.size() ? device_names_[t.reserved_device] : "-",
        st.queued_s(), st.wait_vram_s(), st.upload_s(), st.compute_s(), st.finalize_s(), phases);
  }
}

void Service::finish_unstarted(const std::shared_ptr<Record>& rec, v1::JobState state, const std::string& why) {
  if (!claim_finish(*rec)) return;
  v1::JobResult out = progress(*rec);
  out.set_state(state);
  out.set_error(why);
  for (auto& p : *out.mutable_partitions()) p.set_stage(v1::PARTITION_STAGE_STOPPED);
  complete(rec, std::move(out));
}

// Journal (queued → terminal, exactly once), drop the spool, then publish. A journal failure
// leaves the job unfinished in memory and on disk: it is retried at the next restart.
void Service::complete(const std::shared_ptr<Record>& rec, v1::JobResult result) {
  result.set_finished_unix_s(unix_now());
  const std::string state = job_state_text(result.state());
  try {
    const std::string blob = result.SerializeAsString();
    if (!journal_->finish_job(rec->id, state, result.finished_unix_s(), result.error(), blob))
      spdlog::warn("journal_finish_skipped job={} reason=\"row not queued\"", rec->id);
  } catch (const std::exception& e) {
    spdlog::error("journal_finish_failed job={} error=\"{}\"", rec->id, e.what());
    std::lock_guard l(mu_);
    rec->finishing = false;
    done_cv_.notify_all();   // a drain waiting for this finish stops waiting
    await_cv_.notify_all();  // waiters past their deadline get the job as it is
    return;
  }
  journal_->remove_spool(rec->id);
  record_metrics(result);
  spdlog::info("job_finished job={} circuit={} state={} partitions={} seconds={:.3f}{}", rec->id, rec->circuit_id,
               state, result.partitions_size(), result.finished_unix_s() - rec->submitted_at,
               result.error().empty() ? "" : " error=\"" + result.error() + "\"");
  {
    std::lock_guard l(mu_);
    rec->result = std::move(result);
    rec->terminal = true;
    done_cv_.notify_all();
  }
  answer_waiters([&rec](const Waiter& w) { return w.rec == rec; });
}

// ---- the watcher ----------------------------------------------------------------------------

void Service::scan_active() {
  std::vector<std::pair<std::shared_ptr<Record>, engine::JobId>> active;
  {
    std::lock_guard l(mu_);
    for (const auto& [id, r] : records_)
      if (!r->terminal && !r->finishing && r->engine_id) active.emplace_back(r, *r->engine_id);
  }
  for (const auto& [rec, eid] : active) {
    try {
      const engine::JobResult r = engine_->peek(eid);
      if (is_terminal(r.state)) finish(rec, r);
    } catch (const std::exception& e) {
      spdlog::error("watch_error job={} error=\"{}\"", rec->id, e.what());
    }
  }
}

// Ties a record to its engine job. A job that ended before its record knew its engine id (a
// Cancel that came first, a job refused at once) was counted by the watcher's wake-up but not
// found by its scan: it is claimed here, so the watcher needs no polling for it (finish() is
// exactly-once whoever calls it).
void Service::adopt_engine_job(const std::shared_ptr<Record>& rec, engine::JobId eid) {
  bool cancelled;
  {
    std::lock_guard l(mu_);
    rec->engine_id = eid;
    by_engine_[eid] = rec->id;
    cancelled = rec->terminal || rec->finishing;  // Cancel came first (the id is guessable)
  }
  try {
    if (cancelled) {
      engine_->cancel(eid);
      return;
    }
    const engine::JobResult r = engine_->peek(eid);
    if (is_terminal(r.state)) finish(rec, r);
  } catch (const std::exception& e) {  // the job is journaled: the watcher's full scan retries
    spdlog::error("watch_error job={} error=\"{}\"", rec->id, e.what());
  }
}

// Wakes when a job ends in the engine (Engine::wait_finished) or after kWatchPeriod, which bounds
// how long a stop waits; a full scan every 500 ms is the safety net. It used to poll stats()
// every 5 ms, then woke every 20 ms for a rescan flag that adopt_engine_job made unnecessary:
// each wake-up preempts a proving thread on a machine whose cores all prove.
void Service::watch_loop() {
  name_this_thread("snarkd-watcher");
  constexpr auto kWatchPeriod = std::chrono::milliseconds(100);
  uint64_t seen = ~uint64_t(0);
  auto last_full = std::chrono::steady_clock::now();
  auto last_purge = last_full;
  while (!stopping_) {
    const uint64_t finished = engine_->wait_finished(seen, kWatchPeriod);
    double retention;
    {
      std::lock_guard l(mu_);
      retention = cfg_.retention_s;
    }
    const auto now = std::chrono::steady_clock::now();
    // The count is read before the scan: a job finishing during the scan moves it again.
    if (finished != seen || now - last_full > std::chrono::milliseconds(500)) {
      seen = finished;
      last_full = now;
      scan_active();
    }
    if (now - last_purge > std::chrono::duration<double>(std::clamp(retention / 4, 0.5, 60.0))) {
      last_purge = now;
      purge_expired();
    }
  }
}

void Service::purge_expired() {
  double retention;
  {
    std::lock_guard l(mu_);
    retention = cfg_.retention_s;
  }
  std::vector<uint64_t> gone;
  try {
    gone = journal_->purge_finished(unix_now() - retention);
  } catch (const std::exception& e) {
    spdlog::error("journal_purge_failed error=\"{}\"", e.what());
    return;
  }
  std::vector<engine::JobId> forget;
  {
    std::lock_guard l(mu_);
    forget.swap(forget_later_);
    for (uint64_t id : gone) {
      const auto it = records_.find(id);
      if (it == records_.end()) continue;
      if (!it->second->request_id.empty()) by_request_.erase(it->second->request_id);
      if (it->second->engine_id) {
        by_engine_.erase(*it->second->engine_id);
        forget.push_back(*it->second->engine_id);
      }
      records_.erase(it);
    }
  }
  forget_engine_jobs(forget);
  if (!gone.empty()) spdlog::info("results_purged jobs={} retention_s={}", gone.size(), retention);
}

// The engine keeps every job's record until told to forget it. A job the daemon cancelled before
// the engine's copy was cancelled (Submit racing Cancel) may not be terminal there yet: retried
// at the next purge.
void Service::forget_engine_jobs(const std::vector<engine::JobId>& ids) {
  std::vector<engine::JobId> retry;
  for (const engine::JobId eid : ids) {
    try {
      engine_->forget(eid);
    } catch (const std::exception&) {
      try {
        if (!is_terminal(engine_->peek(eid).state)) retry.push_back(eid);
      } catch (const std::exception&) {  // already unknown to the engine: nothing to do
      }
    }
  }
  std::lock_guard l(mu_);
  forget_later_.insert(forget_later_.end(), retry.begin(), retry.end());
}

// ---- restart --------------------------------------------------------------------------------

void Service::load_journal_jobs(std::vector<uint64_t>& unfinished) {
  uint64_t kept = 0;
  for (JournalJob& j : journal_->load_jobs()) {
    auto rec = std::make_shared<Record>();
    rec->id = j.id;
    rec->request_id = j.request_id;
    rec->hash = j.payload_sha256;
    rec->circuit_id = j.circuit_id;
    rec->priority = j.priority;
    rec->partitions = uint32_t(j.formats.size());
    rec->formats = j.formats;
    rec->submitted_at = j.submitted_at;
    rec->curve = loaded_curve(j.circuit_id);  // the circuits are loaded before the jobs
    rec->attempts = j.attempts;
    if (j.state != "queued") {
      if (!rec->result.ParseFromString(j.result)) {
        spdlog::error("journal_result_unreadable job={}", j.id);
        continue;
      }
      rec->terminal = true;
      ++kept;
    } else {
      unfinished.push_back(j.id);
    }
    std::lock_guard l(mu_);
    if (!rec->request_id.empty()) by_request_[rec->request_id] = rec->id;
    records_[rec->id] = std::move(rec);
  }
  spdlog::info("journal_loaded path={} finished_jobs={} unfinished_jobs={}", journal_->db_path(), kept,
               unfinished.size());
}

void Service::requeue_one(const std::shared_ptr<Record>& rec) {
  const auto circuit = find_circuit(rec->circuit_id);
  engine::JobRequest req;
  req.circuit_id = rec->circuit_id;
  req.priority = to_engine_priority(rec->priority);
  const KeyShape& shape = circuit->lc.shape;
  // Decoded over the circuit's curve, as at submit: a spooled BN254 job comes back a BN254 job.
  for (uint32_t k = 0; k < rec->partitions; ++k)
    req.witnesses.push_back(read_witness_file(journal_->spool_file(rec->id, k, rec->formats[k]), rec->formats[k],
                                              shape.curve, shape.num_vars, "spooled partition " + std::to_string(k)));
  // A full host budget: wait here, where a shutdown can interrupt, rather than inside the
  // engine's submit (which then normally admits at once).
  const uint64_t need = uint64_t(rec->partitions) * shape.witness_bytes();
  while (cfg_.host_budget_bytes && engine_->stats().host_in_use_bytes + need > cfg_.host_budget_bytes) {
    if (stopping_) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (stopping_) return;
  journal_->job_restarted(rec->id, rec->attempts + 1);
  const engine::JobId eid = engine_->submit(std::move(req));
  {
    std::lock_guard l(mu_);
    ++rec->attempts;
  }
  adopt_engine_job(rec, eid);
  metric_requeued();
  spdlog::info("job_requeued job={} circuit={} attempt={}", rec->id, rec->circuit_id, rec->attempts);
}

void Service::requeue_loop(std::vector<uint64_t> ids) {
  name_this_thread("snarkd-requeue");
  for (uint64_t id : ids) {
    if (stopping_) return;
    std::shared_ptr<Record> rec;
    {
      std::lock_guard l(mu_);
      const auto it = records_.find(id);
      if (it == records_.end() || it->second->terminal || it->second->finishing) continue;
      rec = it->second;
    }
    try {
      requeue_one(rec);
    } catch (const std::exception& e) {
      spdlog::error("job_requeue_failed job={} error=\"{}\"", id, e.what());
      finish_unstarted(rec, v1::JOB_STATE_FAILED, std::string("could not re-queue after a restart: ") + e.what());
    }
  }
}

}  // namespace snarkd::server
