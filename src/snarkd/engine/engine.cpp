#include "snarkd/engine/engine.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>
#include <stop_token>
#include <thread>
#include <unordered_map>
#include <utility>

#include "snarkd/groth16/verifier.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/thread_pool.hpp"
#include "snarkd/util/threads.hpp"

namespace snarkd::engine {

const char* priority_name(Priority p) {
  switch (p) {
    case Priority::kLow: return "low";
    case Priority::kNormal: return "normal";
    case Priority::kHigh: return "high";
    case Priority::kCritical: return "critical";
  }
  return "?";
}

const char* job_state_name(JobState s) {
  switch (s) {
    case JobState::kQueued: return "queued";
    case JobState::kRunning: return "running";
    case JobState::kDone: return "done";
    case JobState::kFailed: return "failed";
    case JobState::kCancelled: return "cancelled";
  }
  return "?";
}

void DeviceWorker::upload_abc(const CircuitEntry& c, const groth16::AbcAssignment&, const Reservation&) {
  throw InvalidArgument("device worker: no a/b/c path for key '" + c.id + "'");
}

groth16::QuerySums DeviceWorker::compute_abc(const CircuitEntry& c, const Reservation&, StageClock&,
                                             const std::stop_token&) {
  throw InvalidArgument("device worker: no a/b/c path for key '" + c.id + "'");
}

void DeviceWorker::compute_step(const CircuitEntry&, uint32_t step, Reservation&, StageClock&, const std::stop_token&) {
  throw std::logic_error("device worker: step " + std::to_string(step) + " of a one-step device");
}

namespace {

using Clock = std::chrono::steady_clock;

struct Registered {
  std::shared_ptr<const CircuitEntry> entry;
  std::vector<std::vector<DeviceStep>> steps;  // per device: a partition's steps there
  std::vector<uint64_t> abc_bytes;             // per device: an a/b/c partition's working set (0: none)
  uint64_t users = 0;                 // partitions queued or in flight (mu held)
  bool ready = false;                 // loaded on every device (mu held)
};

struct Job {
  JobId id = 0;
  Priority priority = Priority::kNormal;
  uint64_t seq = 0;
  std::shared_ptr<Registered> circuit;
  std::vector<groth16::AnyScalars> witnesses;
  std::vector<AbcPartition> abc;  // the a/b/c form's partitions (abc_form)
  bool abc_form = false;
  int32_t device = -1;            // ≥ 0: only this device runs the job's partitions
  uint64_t part_bytes = 0;        // host budget per partition (its witness or a/b/c bytes)
  uint32_t unconsumed = 0;        // a/b/c partitions whose arrays may still be read (mu held)
  bool unsatisfied = false;
  std::vector<bool> charged;  // partition still holds its witness bytes in the host budget
  std::vector<groth16::AnyRandomness> randomness;
  std::vector<groth16::AnyProof> proofs;
  std::vector<groth16::AnyScalars> publics;
  std::vector<PartitionTiming> timings;
  uint32_t proven = 0, in_flight = 0;
  JobState state = JobState::kQueued;
  std::string error;
  bool verified = false;
  std::atomic<bool> stop{false};  // cancelled or failed: in-flight partitions stop at a boundary
  std::stop_source stop_source;   // ... and their devices with them (compute's stop token)

  uint32_t partitions() const { return uint32_t(timings.size()); }
};

// Queue order: priority descending, then submit order, then partition.
struct QueueKey {
  uint8_t inverse_priority;
  uint64_t seq;
  uint32_t partition;
  auto operator<=>(const QueueKey&) const = default;
};

struct Popped {
  std::shared_ptr<Job> job;
  uint32_t partition = 0;
  groth16::AnyScalars witness;
  AbcPartition abc;
};

// Whether a worker of `device` may run the job's partitions (its pin, the curve and the a/b/c
// path there).
bool runs_on(const Job& j, uint32_t device) {
  if (j.device >= 0 && uint32_t(j.device) != device) return false;
  if (j.abc_form) return j.circuit->abc_bytes[device] > 0;
  return !j.circuit->steps[device].empty();
}

// The circuit's verifying key as curve E's (the a/b/c form's key is BLS12-381's).
template <class E>
const groth16::VerifyingKeyT<E>& vk_of(const CircuitEntry& c) {
  if constexpr (std::is_same_v<E, groth16::Bls12_381>)
    if (c.abc_only()) return c.pk->vk;
  return c.key_of<E>().pk().vk;
}

// The proof of one partition from its sums: the blinding (fixed or fresh) on the host, over the
// circuit's curve.
groth16::AnyProof assemble(const CircuitEntry& c, const groth16::AnyQuerySums& sums,
                           const std::vector<groth16::AnyRandomness>& fixed, uint32_t part) {
  return groth16::with_curve(c.curve(), [&](auto e) -> groth16::AnyProof {
    using E = decltype(e);
    const auto& vk = vk_of<E>(c);
    const groth16::ProofRandomnessT<E> rs = fixed.empty() ? groth16::random_proof_randomness<E>()
                                                          : groth16::as_curve<E>(fixed[part], "randomness");
    return groth16::assemble(vk, groth16::as_curve<E>(sums, "the device's sums"), rs);
  });
}

// The job's self-check: one batch verification of all its partitions (k + 3 Miller loops); on
// failure each proof alone, to name the bad partition. Returns how many do not verify.
uint64_t count_invalid(const CircuitEntry& c, const std::vector<groth16::AnyProof>& proofs,
                       const std::vector<groth16::AnyScalars>& publics, std::string& first_bad) {
  return groth16::with_curve(c.curve(), [&](auto e) -> uint64_t {
    using E = decltype(e);
    const auto& vk = vk_of<E>(c);
    std::vector<groth16::ProofT<E>> ps;
    std::vector<groth16::ScalarVector<E>> ins;
    for (size_t k = 0; k < proofs.size(); ++k) {
      ps.push_back(groth16::as_curve<E>(proofs[k], "proof"));
      ins.push_back(groth16::as_curve<E>(publics[k], "public inputs"));
    }
    if (groth16::verify_batch(vk, ps, ins)) return 0;
    uint64_t invalid = 0;
    for (size_t k = 0; k < ps.size(); ++k)
      if (!groth16::verify(vk, ps[k], ins[k]) && invalid++ == 0) first_bad = std::to_string(k);
    if (invalid == 0) invalid = 1, first_bad = "?";  // the batch failed but no single proof did
    return invalid;
  });
}

}  // namespace

struct Engine::Impl {
  EngineConfig cfg;
  std::vector<std::unique_ptr<Device>> devices;
  std::vector<VramLedger*> ledgers;  // each device's own (Device::ledger())
  HostBudget host;
  const Clock::time_point t0 = Clock::now();

  mutable std::mutex mu;
  std::condition_variable work_cv, done_cv;
  std::map<QueueKey, std::shared_ptr<Job>> queue;
  std::unordered_map<JobId, std::shared_ptr<Job>> jobs;
  std::map<std::string, std::shared_ptr<Registered>> circuits;
  uint64_t next_job = 1, next_seq = 0, events = 0, in_flight = 0;
  EngineStats counters;  // submitted/completed/failed/cancelled/invalid_proofs/deadlocks
  std::atomic<bool> stopping{false};
  bool paused = false;  // mu held
  std::atomic<uint64_t> progress{0};

  mutable std::mutex tl_mu;
  std::vector<StageSpan> spans;
  std::vector<WorkerStatus> worker_status;  // device-major, tl_mu held

  std::vector<std::thread> threads;
  std::mutex wd_mu;
  std::condition_variable wd_cv;
  std::thread watchdog;

  Impl(std::vector<std::unique_ptr<Device>> devs, const EngineConfig& c)
      : cfg(c), devices(std::move(devs)), host(c.host_budget_bytes) {}

  double now() const { return std::chrono::duration<double>(Clock::now() - t0).count(); }
  void record(uint32_t d, uint32_t w, const Job& j, uint32_t p, Stage s, double b, double e) {
    progress.fetch_add(1, std::memory_order_relaxed);
    if (!cfg.record_timeline) return;
    std::lock_guard l(tl_mu);
    spans.push_back(StageSpan{d, w, j.id, p, s, b, e});
  }
  // The worker's current stage (job = 0: idle), shown by stats().workers.
  void set_status(uint32_t d, uint32_t w, const char* stage, JobId job, uint32_t p) {
    std::lock_guard l(tl_mu);
    worker_status[size_t(d) * cfg.workers_per_device + w] = WorkerStatus{d, w, stage, job, p, now()};
  }

  void start_threads();
  void stop_threads();
  std::optional<Popped> pop(uint32_t device, uint32_t worker);
  // The first queued partition a worker of `device` may run (mu held); queue.end() if none.
  std::map<QueueKey, std::shared_ptr<Job>>::iterator eligible(uint32_t device);
  // mu held: the partition's inputs leave the job (its host budget is released). The caller
  // frees what it returns once mu is unlocked: freeing a PoRep witness (4.2 GB, ~1M pages given
  // back to the kernel) takes a good fraction of a second, which under mu stalls every worker.
  struct DroppedInput {
    groth16::AnyScalars witness;
    AbcPartition abc;
  };
  [[nodiscard]] DroppedInput drop_input(Job& j, uint32_t partition, groth16::AnyScalars& witness, AbcPartition& abc);
  void worker_loop(uint32_t device, uint32_t worker);
  void run_partition(uint32_t device, uint32_t worker, DeviceWorker& dw, Popped& p);
  void leave(Job& j, uint32_t partition);  // mu held; an in-flight partition leaves its device
  void finish_partition(const std::shared_ptr<Job>& j, uint32_t partition, groth16::AnyProof proof);
  // mu held. Returns the inputs of the job's still-queued partitions (a PoRep job's ten witnesses
  // are ~42 GB), which the caller frees once mu is unlocked.
  [[nodiscard]] std::vector<DroppedInput> fail(Job& j, const std::string& why, JobState state);
  void check_job(const std::shared_ptr<Job>& j);
  void watchdog_loop();
  JobResult snapshot(const Job& j) const;  // mu held
};

// ---- threads -------------------------------------------------------------------------------

void Engine::Impl::start_threads() {
  if (devices.empty()) throw InvalidArgument("engine: no devices");
  if (cfg.workers_per_device == 0) throw InvalidArgument("engine: workers_per_device must be ≥ 1");
  for (uint32_t d = 0; d < devices.size(); ++d)
    for (uint32_t w = 0; w < cfg.workers_per_device; ++w) worker_status.push_back(WorkerStatus{d, w, "idle", 0, 0, now()});
  for (auto& d : devices) {
    ledgers.push_back(&d->ledger());
    d->set_workers(cfg.workers_per_device);
    d->record_copy_spans(cfg.record_timeline);
  }
  for (uint32_t d = 0; d < devices.size(); ++d)
    for (uint32_t w = 0; w < cfg.workers_per_device; ++w) threads.emplace_back([this, d, w] { worker_loop(d, w); });
  watchdog = std::thread([this] { watchdog_loop(); });
}

void Engine::Impl::stop_threads() {
  host.shutdown();  // submitters waiting for host memory get Busy
  std::vector<DroppedInput> freed;  // destroyed after mu is unlocked
  {
    std::lock_guard l(mu);
    stopping = true;
    for (auto& [id, j] : jobs)
      if (!is_terminal(j->state))
        for (DroppedInput& d : fail(*j, "the engine shut down", JobState::kCancelled)) freed.push_back(std::move(d));
  }
  work_cv.notify_all();
  for (auto& l : ledgers) l->poke();
  for (auto& t : threads) t.join();
  {
    std::lock_guard l(wd_mu);
    wd_cv.notify_all();
  }
  watchdog.join();
}

void Engine::Impl::worker_loop(uint32_t device, uint32_t worker) {
  name_this_thread(("snarkd-work" + std::to_string(device) + "." + std::to_string(worker)).c_str());
  std::unique_ptr<DeviceWorker> dw;
  try {
    dw = devices[device]->make_worker(worker);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "snarkd engine: %s worker %u could not start: %s\n", devices[device]->name().c_str(), worker,
                 e.what());
    return;
  }
  while (auto p = pop(device, worker)) {
    run_partition(device, worker, *dw, *p);
    set_status(device, worker, "idle", 0, 0);
  }
}

// Pinned jobs are rare and queues short (partitions, not proofs' data): a scan is enough.
std::map<QueueKey, std::shared_ptr<Job>>::iterator Engine::Impl::eligible(uint32_t device) {
  auto it = queue.begin();
  while (it != queue.end() && !runs_on(*it->second, device)) ++it;
  return it;
}

std::optional<Popped> Engine::Impl::pop(uint32_t device, uint32_t worker) {
  std::unique_lock l(mu);
  work_cv.wait(l, [&] { return stopping || (!paused && eligible(device) != queue.end()); });
  if (stopping) return std::nullopt;
  auto it = eligible(device);
  Popped p{it->second, it->first.partition, {}, {}};
  queue.erase(it);
  Job& j = *p.job;
  if (j.abc_form) p.abc = std::move(j.abc[p.partition]);
  else p.witness = std::move(j.witnesses[p.partition]);
  ++j.in_flight;
  ++in_flight;
  if (j.state == JobState::kQueued) j.state = JobState::kRunning;
  PartitionTiming& t = j.timings[p.partition];
  t.device = device;
  t.worker = worker;
  t.dequeued_s = now();
  t.dequeue_order = events++;
  progress.fetch_add(1, std::memory_order_relaxed);
  return p;
}

// ---- one partition -------------------------------------------------------------------------

namespace {

// The worker's view of the engine clock; remembers where the compute engine's wait ended.
class WorkerClock final : public StageClock {
 public:
  WorkerClock(std::function<double()> now, std::function<void(Stage, double, double)> rec)
      : now_(std::move(now)), rec_(std::move(rec)) {}
  double now() const override { return now_(); }
  void span(Stage s, double b, double e) override {
    rec_(s, b, e);
    if (s == Stage::kWaitCompute) wait_end_ = e;
  }
  void phase(const char* name, double seconds) override { phases_.push_back(PhaseTime{name, seconds}); }
  double wait_end_ = 0;
  std::vector<PhaseTime> phases_;

 private:
  std::function<double()> now_;
  std::function<void(Stage, double, double)> rec_;
};

}  // namespace

void Engine::Impl::run_partition(uint32_t device, uint32_t worker, DeviceWorker& dw, Popped& p) {
  Job& j = *p.job;
  const uint32_t part = p.partition;
  const CircuitEntry& c = *j.circuit->entry;
  auto rec = [&](Stage s, double b, double e) { record(device, worker, j, part, s, b, e); };
  auto enter = [&](Stage s) { set_status(device, worker, stage_name(s), j.id, part); };
  auto give_up = [&] { return j.stop.load() || stopping.load(); };
  const std::stop_token stop = j.stop_source.get_token();  // ends a step on its device (cancel)
  auto stamp = [&](double PartitionTiming::*field, double t) {
    std::lock_guard l(mu);
    j.timings[part].*field = t;
  };
  DroppedInput dropped;  // freed outside mu: after the step's reservation is released, or on return
  // The inputs leave the job under mu; whatever `dropped` held before is freed after unlocking.
  auto release_witness = [&] {
    DroppedInput d;
    {
      std::lock_guard l(mu);
      d = drop_input(j, part, p.witness, p.abc);
    }
    std::swap(dropped, d);
  };
  auto abandon = [&] {
    DroppedInput d;  // destroyed after the lock below
    std::lock_guard l(mu);
    d = drop_input(j, part, p.witness, p.abc);
    leave(j, part);
  };
  // Each step: its own reservation (all-or-nothing, FIFO), taken while holding no other device
  // memory and released before the next step asks (no hold-and-wait, see engine.hpp).
  const std::vector<DeviceStep> abc_step{{j.circuit->abc_bytes[device], true}};
  const std::vector<DeviceStep>& steps = j.abc_form ? abc_step : j.circuit->steps[device];
  uint32_t last_witness = 0;
  for (uint32_t k = 0; k < steps.size(); ++k)
    if (steps[k].witness) last_witness = k;
  try {
    if (!j.abc_form) {  // host work before the first reservation: it holds no device memory
      const double s = dw.prepare(c, p.witness);
      std::lock_guard l(mu);
      j.timings[part].prepare_seconds = s;
    }
    groth16::AnyQuerySums sums;
    for (uint32_t k = 0; k < steps.size(); ++k) {
      enter(Stage::kWaitVram);
      const double t_wait = now();
      std::optional<Reservation> res = ledgers[device]->reserve(steps[k].bytes, give_up);
      const double t_res = now();
      if (t_res > t_wait) rec(Stage::kWaitVram, t_wait, t_res);
      if (!res) return abandon();
      // The working set must come from this device's own ledger (the multi-device invariant; the
      // bench reports reserved_device against device for every partition).
      const auto granter = std::find(ledgers.begin(), ledgers.end(), res->ledger());
      if (k == 0) stamp(&PartitionTiming::reserved_s, t_res);
      {
        std::lock_guard l(mu);
        j.timings[part].reserved_device = uint32_t(granter - ledgers.begin());
      }
      if (granter - ledgers.begin() != std::ptrdiff_t(device))
        throw std::logic_error("engine: a reservation from another device's ledger reached " + devices[device]->name());
      double t_up = t_res;
      if (steps[k].witness) {
        enter(Stage::kUpload);
        if (j.abc_form) dw.upload_abc(c, p.abc.view, *res);
        else dw.upload(c, p.witness, *res);
        if (k == last_witness) release_witness();  // the host copy is no longer needed
        t_up = now();
        rec(Stage::kUpload, t_res, t_up);
        if (j.timings[part].uploaded_s == 0) stamp(&PartitionTiming::uploaded_s, t_up);
      }
      if (give_up()) {
        dw.settle();     // the upload may still be on the wire into the reservation
        res->release();  // before leave(): a waiter that sees the partition gone sees its memory back
        return abandon();
      }
      enter(Stage::kCompute);
      WorkerClock clock([this] { return now(); }, rec);
      if (k + 1 < steps.size()) dw.compute_step(c, k, *res, clock, stop);
      else sums = j.abc_form ? dw.compute_abc(c, *res, clock, stop) : dw.compute(c, *res, clock, stop);
      res->release();
      const double t_comp = now();
      rec(Stage::kCompute, std::max(t_up, clock.wait_end_), t_comp);
      {
        std::lock_guard l(mu);
        auto& phases = j.timings[part].phases;
        phases.insert(phases.end(), clock.phases_.begin(), clock.phases_.end());
      }
      if (k + 1 == steps.size()) stamp(&PartitionTiming::computed_s, t_comp);
      dropped = {};  // the host witness, once given up, is freed off the device's path
      if (give_up()) return abandon();
    }
    const double t_comp = now();
    enter(Stage::kFinalize);
    groth16::AnyProof proof = assemble(c, sums, j.randomness, part);
    rec(Stage::kFinalize, t_comp, now());
    finish_partition(p.job, part, std::move(proof));
  } catch (const std::exception& e) {
    std::vector<DroppedInput> freed;  // destroyed after mu is unlocked
    {
      std::lock_guard l(mu);
      if (dynamic_cast<const groth16::UnsatisfiedWitness*>(&e) && !is_terminal(j.state)) j.unsatisfied = true;
      freed = fail(j, "partition " + std::to_string(part) + " on " + devices[device]->name() + ": " + e.what(),
                   JobState::kFailed);
    }
    abandon();
  }
}

Engine::Impl::DroppedInput Engine::Impl::drop_input(Job& j, uint32_t part, groth16::AnyScalars& witness,
                                                   AbcPartition& abc) {
  DroppedInput out{std::exchange(witness, groth16::AnyScalars()), std::exchange(abc, AbcPartition())};
  if (j.charged[part]) {
    host.release(j.part_bytes);
    if (j.abc_form && --j.unconsumed == 0) done_cv.notify_all();  // await_consumed
  }
  j.charged[part] = false;
  return out;
}

void Engine::Impl::leave(Job& j, uint32_t) {
  --j.in_flight;
  --in_flight;
  --j.circuit->users;
  progress.fetch_add(1, std::memory_order_relaxed);
  if (j.in_flight == 0 && j.stop) done_cv.notify_all();  // wait_stopped
}

void Engine::Impl::finish_partition(const std::shared_ptr<Job>& jp, uint32_t part, groth16::AnyProof proof) {
  Job& j = *jp;
  {
    std::lock_guard l(mu);
    leave(j, part);
    if (j.stop) return;  // cancelled or failed meanwhile: the proof is dropped
    j.proofs[part] = std::move(proof);
    j.timings[part].finalized_s = now();
    if (++j.proven < j.partitions()) return;
  }
  check_job(jp);
}

void Engine::Impl::check_job(const std::shared_ptr<Job>& jp) {
  Job& j = *jp;
  uint64_t invalid = 0;
  std::string first_bad;
  if (cfg.self_check) invalid = count_invalid(*j.circuit->entry, j.proofs, j.publics, first_bad);
  std::vector<DroppedInput> freed;  // destroyed after the lock below
  std::lock_guard l(mu);
  if (is_terminal(j.state)) return;
  if (invalid == 0) {
    j.state = JobState::kDone;
    j.verified = cfg.self_check;
    ++counters.completed;
    done_cv.notify_all();
  } else {
    counters.invalid_proofs += invalid;
    j.unsatisfied = true;
    freed = fail(j,
                 std::to_string(invalid) + " of " + std::to_string(j.partitions()) +
                     " proofs do not verify (first: partition " + first_bad + ")",
                 JobState::kFailed);
  }
}

std::vector<Engine::Impl::DroppedInput> Engine::Impl::fail(Job& j, const std::string& why, JobState state) {
  std::vector<DroppedInput> dropped;
  if (is_terminal(j.state)) return dropped;
  j.state = state;
  j.error = why;
  j.stop = true;
  j.stop_source.request_stop();  // wakes the job's partitions on their devices
  ++(state == JobState::kCancelled ? counters.cancelled : counters.failed);
  const QueueKey base{uint8_t(3 - uint8_t(j.priority)), j.seq, 0};
  for (uint32_t k = 0; k < j.partitions(); ++k) {
    QueueKey key = base;
    key.partition = k;
    if (queue.erase(key) == 0) continue;
    dropped.push_back(drop_input(j, k, j.witnesses[k], j.abc[k]));
    --j.circuit->users;
  }
  done_cv.notify_all();
  for (auto& l : ledgers) l->poke();  // partitions waiting for VRAM re-check their give_up
  return dropped;
}

void Engine::Impl::watchdog_loop() {
  name_this_thread("snarkd-watchdog");
  const auto limit = std::chrono::duration<double>(cfg.watchdog_s);
  const auto period = std::min<Clock::duration>(std::chrono::seconds(1),
                                                std::chrono::duration_cast<Clock::duration>(limit / 4));
  uint64_t last = progress.load();
  auto last_change = Clock::now();
  bool fired = false;
  std::unique_lock wl(wd_mu);
  while (!stopping) {
    wd_cv.wait_for(wl, period);
    const uint64_t p = progress.load();
    bool busy;
    {
      std::lock_guard l(mu);
      busy = !queue.empty() || in_flight > 0;
    }
    if (p != last || !busy) {
      last = p;
      last_change = Clock::now();
      fired = false;
    } else if (!fired && Clock::now() - last_change > limit) {
      fired = true;
      std::lock_guard l(mu);
      ++counters.deadlocks;
      std::fprintf(stderr, "snarkd engine: watchdog: no progress for %.0f s with %zu partitions queued and %llu in flight\n",
                   cfg.watchdog_s, queue.size(), (unsigned long long)in_flight);
    }
  }
}

JobResult Engine::Impl::snapshot(const Job& j) const {
  JobResult r;
  r.id = j.id;
  r.state = j.state;
  r.circuit_id = j.circuit->entry->id;
  r.priority = j.priority;
  r.error = j.error;
  r.curve = j.circuit->entry->curve();
  if (j.state == JobState::kDone) r.proofs = j.proofs;
  r.public_inputs = j.publics;
  r.timings = j.timings;
  r.verified = j.verified;
  r.unsatisfied = j.unsatisfied;
  return r;
}

// ---- public API ----------------------------------------------------------------------------

Engine::Engine(std::vector<std::unique_ptr<Device>> devices, const EngineConfig& cfg)
    : impl_(std::make_unique<Impl>(std::move(devices), cfg)) {
  impl_->start_threads();
}

Engine::~Engine() { impl_->stop_threads(); }

double Engine::now() const { return impl_->now(); }
const std::vector<std::unique_ptr<Device>>& Engine::devices() const { return impl_->devices; }

namespace {

// Loads the circuit on every device at once, one thread per device (a PoRep key is ~75 GB of
// host-to-device copies per device: in turn they would take devices × ~20 s). Rethrows the
// first failure after every thread has finished.
void load_everywhere(const std::vector<std::unique_ptr<Device>>& devices, const CircuitEntry& c) {
  run_on_threads(devices.size(), [&](size_t d) {
    if (!devices[d]->proves(c.curve())) return;
    try {
      devices[d]->load(c);
    } catch (const InvalidArgument& e) {
      throw InvalidArgument("register_circuit '" + c.id + "' on " + devices[d]->name() + ": " + e.what());
    }
  });
}

}  // namespace

void Engine::register_circuit(const std::string& id, groth16::AnyBoundKey key) {
  std::visit(
      [&](auto& k) {
        if (!k) throw InvalidArgument("register_circuit '" + id + "': no key");
        using E = typename std::decay_t<decltype(*k)>::Curve;
        register_entry(CircuitEntry::bound<E>(id, std::move(k)));
      },
      key);
}

void Engine::register_abc_key(const std::string& id, std::shared_ptr<const groth16::ProvingKey> pk) {
  if (!pk) throw InvalidArgument("register_circuit '" + id + "': no key");
  if (pk->flavour != groth16::KeyFlavour::kBellperson)
    throw InvalidArgument("register_circuit '" + id + "': no circuit (only a bellperson key may come alone, for a/b/c jobs)");
  register_entry(CircuitEntry::abc_form(id, std::move(pk)));
}

void Engine::register_entry(CircuitEntry entry) {
  const std::string id = entry.id;
  if (id.empty()) throw InvalidArgument("register_circuit: empty circuit id");
  const bool bellperson = entry.pk && entry.pk->flavour == groth16::KeyFlavour::kBellperson;
  const auto& devs = impl_->devices;
  if (std::none_of(devs.begin(), devs.end(), [&](const auto& d) { return d->proves(entry.curve()); })) {
    std::string names;
    for (const auto& d : devs) names += (names.empty() ? "" : ", ") + d->name();
    throw InvalidArgument("register_circuit '" + id + "': a " + r1cs::curve_name(entry.curve()) + " key, and no device (" +
                          names + ") proves " + r1cs::curve_name(entry.curve()) + " keys");
  }
  auto reg = std::make_shared<Registered>();
  reg->entry = std::make_shared<CircuitEntry>(std::move(entry));
  {
    std::lock_guard l(impl_->mu);  // the id is taken from here on, while the devices load
    if (!impl_->circuits.emplace(id, reg).second)
      throw InvalidArgument("register_circuit: circuit id '" + id + "' is taken");
  }
  // Load first (the device knows its steps once the key's residency is planned), check every
  // step fits beside the device's resident data, and undo every load if one device cannot.
  try {
    load_everywhere(impl_->devices, *reg->entry);
    bool abc_somewhere = false;
    for (size_t d = 0; d < impl_->devices.size(); ++d) {
      Device& dev = *impl_->devices[d];
      const uint64_t gap = impl_->ledgers[d]->largest_working_gap();
      // No steps: the device does not run this circuit's witness-form partitions.
      const bool runs = dev.proves(reg->entry->curve()) && !reg->entry->abc_only();
      std::vector<DeviceStep> steps = runs ? dev.steps(*reg->entry) : std::vector<DeviceStep>{};
      for (const DeviceStep& st : steps)
        if (VramLedger::round_up(st.bytes) > gap)
          throw InvalidArgument("register_circuit '" + id + "': one partition needs " + std::to_string(st.bytes) +
                                " bytes of device memory at once, " + dev.name() + "'s ledger has " +
                                std::to_string(gap) + " beside its resident data");
      // The a/b/c form where the device has a path for the key and its working set fits.
      uint64_t abc = bellperson && dev.proves(reg->entry->curve()) ? dev.abc_working_set_bytes(*reg->entry) : 0;
      if (VramLedger::round_up(abc) > gap) abc = 0;
      abc_somewhere |= abc > 0;
      reg->steps.push_back(std::move(steps));
      reg->abc_bytes.push_back(abc);
    }
    if (reg->entry->abc_only() && !abc_somewhere)
      throw InvalidArgument("register_circuit '" + id + "': no device can prove a/b/c partitions of this key " +
                            "(the working set does not fit beside the resident key, or no a/b/c path)");
  } catch (...) {
    for (auto& dev : impl_->devices) dev->unload(id);
    std::lock_guard l(impl_->mu);
    impl_->circuits.erase(id);
    throw;
  }
  std::lock_guard l(impl_->mu);
  reg->ready = true;
}

void Engine::unregister_circuit(const std::string& id) {
  {
    std::lock_guard l(impl_->mu);
    auto it = impl_->circuits.find(id);
    if (it == impl_->circuits.end() || !it->second->ready)
      throw InvalidArgument("unregister_circuit: unknown (or still loading) circuit '" + id + "'");
    if (it->second->users > 0)
      throw InvalidArgument("unregister_circuit '" + id + "': " + std::to_string(it->second->users) +
                            " partitions are queued or in flight");
    impl_->circuits.erase(it);
  }
  for (auto& dev : impl_->devices) dev->unload(id);
}

std::vector<std::string> Engine::circuits() const {
  std::lock_guard l(impl_->mu);
  std::vector<std::string> ids;
  for (const auto& [id, r] : impl_->circuits)
    if (r->ready) ids.push_back(id);
  return ids;
}

namespace {

// The a/b/c form's checks: the key's flavour, each partition against the key, the device.
void validate_abc(const JobRequest& req, const CircuitEntry& c, const std::vector<uint64_t>& abc_bytes,
                  const std::string& where) {
  if (!req.witnesses.empty()) throw InvalidArgument(where + "both witnesses and a/b/c partitions");
  if (c.pk->flavour != groth16::KeyFlavour::kBellperson)
    throw InvalidArgument(where + "a/b/c partitions need a bellperson key");
  for (size_t k = 0; k < req.abc.size(); ++k)
    groth16::check_abc_assignment(*c.pk, req.abc[k].view, where + "partition " + std::to_string(k));
  for (size_t k = 0; k < req.randomness.size(); ++k)
    (void)groth16::as_curve<groth16::Bls12_381>(req.randomness[k], where + "randomness of partition " + std::to_string(k));
  if (req.device >= 0 && abc_bytes[size_t(req.device)] == 0)
    throw InvalidArgument(where + "device " + std::to_string(req.device) + " has no a/b/c path for this key");
  if (std::none_of(abc_bytes.begin(), abc_bytes.end(), [](uint64_t b) { return b > 0; }))
    throw InvalidArgument(where + "no device has an a/b/c path for this key");
}

void validate_request(const JobRequest& req, const CircuitEntry& c, const std::vector<uint64_t>& abc_bytes,
                      const std::vector<std::vector<DeviceStep>>& steps) {
  const std::string where = "job for circuit '" + c.id + "': ";
  const size_t parts = req.abc.empty() ? req.witnesses.size() : req.abc.size();
  if (parts == 0) throw InvalidArgument(where + "no partitions (no witnesses)");
  if (!req.randomness.empty() && req.randomness.size() != parts)
    throw InvalidArgument(where + "randomness for " + std::to_string(req.randomness.size()) + " partitions, " +
                          std::to_string(parts) + " partitions in the job");
  if (uint8_t(req.priority) > uint8_t(Priority::kCritical)) throw InvalidArgument(where + "unknown priority");
  if (req.device < -1 || req.device >= int64_t(abc_bytes.size()))
    throw InvalidArgument(where + "device " + std::to_string(req.device) + " (the engine has " +
                          std::to_string(abc_bytes.size()) + "; −1 = any)");
  if (!req.abc.empty()) return validate_abc(req, c, abc_bytes, where);
  if (c.abc_only()) throw InvalidArgument(where + "the key was registered without a circuit: a/b/c jobs only");
  if (req.device >= 0 && steps[size_t(req.device)].empty())
    throw InvalidArgument(where + "device " + std::to_string(req.device) + " does not prove " +
                          r1cs::curve_name(c.curve()) + " keys");
  groth16::with_curve(c.curve(), [&](auto e) {
    using E = decltype(e);
    for (size_t k = 0; k < req.witnesses.size(); ++k) {
      const std::string label = where + "partition " + std::to_string(k);
      c.key_of<E>().check_witness(groth16::as_curve<E>(req.witnesses[k], label + ": the witness"), label);
    }
    for (size_t k = 0; k < req.randomness.size(); ++k)
      (void)groth16::as_curve<E>(req.randomness[k], where + "randomness of partition " + std::to_string(k));
  });
}

}  // namespace

JobId Engine::submit(JobRequest req, std::chrono::milliseconds wait) {
  Impl& m = *impl_;
  std::shared_ptr<Registered> reg;
  {
    std::lock_guard l(m.mu);
    auto it = m.circuits.find(req.circuit_id);
    if (it == m.circuits.end()) throw InvalidArgument("unknown circuit '" + req.circuit_id + "'");
    if (!it->second->ready) throw Busy("busy: circuit '" + req.circuit_id + "' is still loading");
    reg = it->second;
  }
  const CircuitEntry& c = *reg->entry;
  validate_request(req, c, reg->abc_bytes, reg->steps);
  const bool abc = !req.abc.empty();
  const uint32_t parts = uint32_t(abc ? req.abc.size() : req.witnesses.size());
  const uint64_t part_bytes = abc ? abc_upload_bytes(c) : c.witness_bytes();
  const uint64_t bytes = uint64_t(parts) * part_bytes;
  m.host.acquire(bytes, wait);  // blocks FIFO or throws Busy; never under mu
  auto j = std::make_shared<Job>();
  j->priority = req.priority;
  j->circuit = reg;
  j->abc_form = abc;
  j->device = req.device;
  j->part_bytes = part_bytes;
  j->unconsumed = abc ? parts : 0;
  j->charged.assign(parts, true);
  j->randomness = std::move(req.randomness);
  j->proofs.resize(parts);
  j->timings.resize(parts);
  if (abc) {
    for (const AbcPartition& p : req.abc) j->publics.emplace_back(std::vector<ff::Fr>(p.view.inputs.begin() + 1, p.view.inputs.end()));
  } else {
    for (const auto& any : req.witnesses)
      j->publics.push_back(std::visit(
          [&](const auto& w) -> groth16::AnyScalars {
            return std::decay_t<decltype(w)>(w.begin() + 1, w.begin() + std::min<uint64_t>(c.num_inputs(), w.size()));
          },
          any));
  }
  j->witnesses = std::move(req.witnesses);
  j->abc = std::move(req.abc);
  j->witnesses.resize(parts);
  j->abc.resize(parts);
  std::lock_guard l(m.mu);
  if (m.stopping) {
    m.host.release(bytes);
    throw Busy("busy: the engine is shutting down");
  }
  j->id = m.next_job++;
  j->seq = m.next_seq++;
  const double t = m.now();
  for (uint32_t k = 0; k < parts; ++k) {
    j->timings[k].submitted_s = t;
    j->timings[k].submit_order = m.events++;
    m.queue.emplace(QueueKey{uint8_t(3 - uint8_t(j->priority)), j->seq, k}, j);
  }
  reg->users += parts;
  ++m.counters.submitted;
  m.jobs.emplace(j->id, j);
  m.work_cv.notify_all();
  return j->id;
}

std::optional<JobResult> Engine::await(JobId id, std::optional<std::chrono::milliseconds> timeout) {
  Impl& m = *impl_;
  std::unique_lock l(m.mu);
  auto it = m.jobs.find(id);
  if (it == m.jobs.end()) throw InvalidArgument("unknown job " + std::to_string(id));
  std::shared_ptr<Job> j = it->second;
  auto terminal = [&] { return is_terminal(j->state); };
  if (timeout) {
    if (!m.done_cv.wait_for(l, *timeout, terminal)) return std::nullopt;
  } else {
    m.done_cv.wait(l, terminal);
  }
  return m.snapshot(*j);
}

JobResult Engine::peek(JobId id) const {
  std::lock_guard l(impl_->mu);
  auto it = impl_->jobs.find(id);
  if (it == impl_->jobs.end()) throw InvalidArgument("unknown job " + std::to_string(id));
  return impl_->snapshot(*it->second);
}

void Engine::await_consumed(JobId id) {
  Impl& m = *impl_;
  std::unique_lock l(m.mu);
  auto it = m.jobs.find(id);
  if (it == m.jobs.end()) throw InvalidArgument("unknown job " + std::to_string(id));
  std::shared_ptr<Job> j = it->second;
  m.done_cv.wait(l, [&] { return j->unconsumed == 0; });
}

bool Engine::cancel(JobId id) {
  std::vector<Impl::DroppedInput> freed;  // the queued partitions' inputs, freed after the lock
  std::lock_guard l(impl_->mu);
  auto it = impl_->jobs.find(id);
  if (it == impl_->jobs.end()) throw InvalidArgument("unknown job " + std::to_string(id));
  if (is_terminal(it->second->state)) return false;
  freed = impl_->fail(*it->second, "cancelled", JobState::kCancelled);
  return true;
}

bool Engine::wait_stopped(JobId id, std::chrono::milliseconds timeout) {
  Impl& m = *impl_;
  std::unique_lock l(m.mu);
  auto it = m.jobs.find(id);
  if (it == m.jobs.end()) throw InvalidArgument("unknown job " + std::to_string(id));
  std::shared_ptr<Job> j = it->second;
  return m.done_cv.wait_for(l, timeout, [&] { return is_terminal(j->state) && j->in_flight == 0; });
}

void Engine::forget(JobId id) {
  std::lock_guard l(impl_->mu);
  auto it = impl_->jobs.find(id);
  if (it == impl_->jobs.end()) throw InvalidArgument("unknown job " + std::to_string(id));
  if (!is_terminal(it->second->state)) throw InvalidArgument("job " + std::to_string(id) + " has not finished");
  impl_->jobs.erase(it);
}

void Engine::set_paused(bool paused) {
  {
    std::lock_guard l(impl_->mu);
    impl_->paused = paused;
  }
  impl_->work_cv.notify_all();
}

EngineStats Engine::stats() const {
  const Impl& m = *impl_;
  EngineStats s;
  {
    std::lock_guard l(m.mu);
    s = m.counters;
    s.queued_partitions = m.queue.size();
    s.in_flight_partitions = m.in_flight;
  }
  // Stages before ledgers: a worker reserves before it enters upload or compute, so a worker seen
  // there still holds its bytes when the ledgers are read just after (unless it moved on since).
  // Read the other way round, a reservation made between the two reads showed a worker uploading
  // beside a ledger holding nothing.
  {
    std::lock_guard l(m.tl_mu);
    s.workers = m.worker_status;
  }
  for (const auto& led : m.ledgers) {
    const LedgerStats ls = led->stats();
    s.vram_overcommits += ls.overcommits;
    s.peak_vram_bytes = std::max(s.peak_vram_bytes, ls.peak_in_use);
    s.ledgers.push_back(ls);
  }
  s.host_in_use_bytes = m.host.in_use();
  s.host_peak_bytes = m.host.peak();
  for (const auto& d : m.devices) s.compute_busy_s.push_back(d->compute_busy_s());
  return s;
}

uint64_t Engine::wait_finished(uint64_t seen, std::chrono::milliseconds timeout) const {
  Impl& m = *impl_;
  const auto finished = [&m] { return m.counters.completed + m.counters.failed + m.counters.cancelled; };
  std::unique_lock l(m.mu);
  m.done_cv.wait_for(l, timeout, [&] { return finished() != seen; });  // notified by every terminal change
  return finished();
}

Timeline Engine::timeline() const {
  Timeline t;
  t.devices = uint32_t(impl_->devices.size());
  t.workers_per_device = impl_->cfg.workers_per_device;
  t.wall_s = impl_->now();
  {
    std::lock_guard l(impl_->tl_mu);
    t.spans = impl_->spans;
  }
  // Each device's copy engine (streamed key chunks) on its own lane after the workers'.
  for (uint32_t d = 0; d < impl_->devices.size(); ++d)
    for (const CopySpan& c : impl_->devices[d]->copy_spans()) {
      const double b = std::chrono::duration<double>(c.begin - impl_->t0).count();
      const double e = std::chrono::duration<double>(c.end - impl_->t0).count();
      if (b >= 0 && e >= b) t.spans.push_back(StageSpan{d, t.workers_per_device, 0, 0, Stage::kCopy, b, e});
    }
  return t;
}

}  // namespace snarkd::engine
