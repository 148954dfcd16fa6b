// Await without a thread per waiting client: each Await is a waiter on its job's record,
// answered exactly once by whoever ends the wait — the thread that journals the job's end
// (complete()), the await timer at the deadline, or stop(). The gRPC layer finishes its call
// from that answer, so thousands of clients awaiting long proofs hold no RPC thread.
#include <spdlog/spdlog.h>

#include <cstdint>
#include <future>

#include "snarkd/server/service.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::server {

using Clock = std::chrono::steady_clock;

uint64_t Service::await_async(uint64_t id, std::optional<std::chrono::milliseconds> timeout, AwaitDone done) {
  if (cluster_) return cluster_->await_async(id, timeout, std::move(done));
  const auto rec = find_record(id);
  constexpr auto kForever = std::chrono::hours(24 * 365 * 10);  // longer would overflow the clock
  const auto deadline =
      Clock::now() + (timeout ? std::min<std::chrono::milliseconds>(*timeout, kForever) : kForever);
  std::unique_lock l(mu_);
  // A record being finished is one journal commit from terminal: its waiters are answered when
  // that commit ends, even past their deadline, rather than report "running" for a job the
  // engine has ended (the watcher, woken by the engine, often claims a cancelled job's finish
  // just before Cancel replies).
  const bool at_once = rec->terminal || stopping_ || (!rec->finishing && timeout && timeout->count() <= 0);
  if (!at_once) {
    const uint64_t ticket = next_ticket_++;
    waiters_.emplace(ticket, Waiter{rec, deadline, std::move(done)});
    await_cv_.notify_all();
    return ticket;
  }
  l.unlock();
  done(progress(*rec));
  return 0;
}

void Service::forget_await(uint64_t ticket) {
  if (cluster_) return cluster_->forget_await(ticket);
  std::lock_guard l(mu_);
  waiters_.erase(ticket);
}

void Service::answer_waiters(const std::function<bool(const Waiter&)>& pick) {
  std::vector<Waiter> due;
  {
    std::lock_guard l(mu_);
    for (auto it = waiters_.begin(); it != waiters_.end();) {
      if (pick(it->second)) {
        due.push_back(std::move(it->second));
        it = waiters_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (Waiter& w : due) {
    v1::JobResult r;
    try {
      r = progress(*w.rec);
    } catch (const std::exception& e) {  // the engine lost the job: report what the record knows
      spdlog::error("await_progress_failed job={} error=\"{}\"", w.rec->id, e.what());
      r.set_job_id(w.rec->id);
      r.set_error(std::string("internal: ") + e.what());
    }
    try {
      w.done(std::move(r));
    } catch (const std::exception& e) {
      spdlog::error("await_answer_failed job={} error=\"{}\"", w.rec->id, e.what());
    }
  }
}

// Sleeps until the earliest deadline of a waiter whose record is not being finished (those are
// answered by complete(), which wakes this loop if the finish fails), answers what is due.
void Service::await_timer_loop() {
  name_this_thread("snarkd-await");
  std::unique_lock l(mu_);
  while (!stopping_) {
    const auto now = Clock::now();
    auto next = Clock::time_point::max();
    bool due = false;
    for (const auto& [ticket, w] : waiters_) {
      if (w.rec->finishing || w.rec->terminal) continue;
      if (w.deadline <= now) due = true;
      else next = std::min(next, w.deadline);
    }
    if (due) {
      l.unlock();
      answer_waiters([now](const Waiter& w) { return !w.rec->finishing && w.deadline <= now; });
      l.lock();
      continue;
    }
    if (next == Clock::time_point::max())
      await_cv_.wait(l);
    else
      await_cv_.wait_until(l, next);
  }
  l.unlock();
  answer_waiters([](const Waiter&) { return true; });  // stopping: each gets its job as it is
}

v1::JobResult Service::await(uint64_t id, std::optional<std::chrono::milliseconds> timeout) {
  auto answer = std::make_shared<std::promise<v1::JobResult>>();
  std::future<v1::JobResult> f = answer->get_future();
  await_async(id, timeout, [answer](v1::JobResult r) { answer->set_value(std::move(r)); });
  return f.get();
}

v1::JobResult Service::prove(const v1::ProveRequest& req) {
  const v1::SubmitReply s = submit(req.job());
  std::optional<std::chrono::milliseconds> timeout;
  if (req.has_timeout_ms())
    timeout = std::chrono::milliseconds(std::min<uint64_t>(req.timeout_ms(), uint64_t(INT64_MAX / 2000000)));
  return await(s.job_id(), timeout);
}

}  // namespace snarkd::server
