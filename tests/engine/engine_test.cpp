// The engine on simulated devices: real proofs, priorities, cancel, backpressure, errors, the
// compute engine kept busy by two workers, and a randomized stress of ≥ 10,000 jobs over 1–4
// devices × 1–4 workers × tight..ample VRAM (deadlocks, over-commits, lost jobs, priorities).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include <unistd.h>

#include "common/bound.hpp"
#include "common/seed.hpp"
#include "engine/fixture.hpp"
#include "engine/sim_wrapper.hpp"
#include "snarkd/engine/cpu_device.hpp"
#include "snarkd/engine/devices.hpp"
#include "snarkd/engine/engine.hpp"
#include "snarkd/engine/sim_device.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/r1cs/synthetic.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::engine {
namespace {

using namespace std::chrono_literals;
using test::Family;

std::vector<std::unique_ptr<Device>> sim_devices(size_t n, SimDeviceConfig cfg) {
  std::vector<std::unique_ptr<Device>> v;
  for (size_t d = 0; d < n; ++d) {
    cfg.index = uint32_t(d);
    v.push_back(std::make_unique<SimDevice>(cfg));
  }
  return v;
}

const Family& small_family() {
  static const Family f = test::make_family(12, 7);
  return f;
}

JobRequest request(const Family& f, const std::string& id, std::vector<uint64_t> xs, Priority p = Priority::kNormal) {
  JobRequest r;
  r.circuit_id = id;
  r.priority = p;
  for (uint64_t x : xs) r.witnesses.push_back(f.witness(x));
  return r;
}

// The simulated devices' hold file (SimDeviceConfig::hold_file): while held, no stage ends, so a
// test acts while the partition it needs is inside its stage, however loaded the machine is.
class Hold {
 public:
  Hold() : path_(::testing::TempDir() + "/snarkd-hold-" + std::to_string(::getpid()) + "-" + std::to_string(next_++)) {
    std::FILE* f = std::fopen(path_.c_str(), "w");
    if (f == nullptr) throw std::runtime_error("cannot create " + path_);
    std::fclose(f);
  }
  ~Hold() { release(); }
  void release() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  static inline std::atomic<int> next_{0};
  std::string path_;
};

// Polls `done` every millisecond; no deadline shorter than a minute (a held stage waits for us).
template <class Pred>
bool eventually(Pred done) {
  for (int i = 0; i < 60000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(1ms);
  }
  return done();
}

// One simulated device, one worker, compute_s per partition, small_family() registered as "fam".
std::unique_ptr<Engine> one_worker_engine(double compute_s, const std::string& hold_file = "") {
  SimDeviceConfig cfg;
  cfg.compute_s = compute_s;
  cfg.hold_file = hold_file;
  EngineConfig ec;
  ec.workers_per_device = 1;
  auto e = std::make_unique<Engine>(sim_devices(1, cfg), ec);
  e->register_circuit("fam", small_family().key);
  return e;
}

TEST(Engine, ProofsEqualTheCpuProversWithTheSameRandomness) {
  const Family& f = small_family();
  Engine e(sim_devices(1, {}), EngineConfig{});
  e.register_circuit("fam", f.key);
  JobRequest r = request(f, "fam", {3, 40000, 777});
  auto g = test::rng("engine-rs");
  for (size_t k = 0; k < 3; ++k) r.randomness.push_back(groth16::ProofRandomness{ff::Fr::random(g), ff::Fr::random(g)});
  const auto witnesses = r.witnesses;
  const auto rs = r.randomness;
  const JobId id = e.submit(std::move(r));
  const JobResult res = *e.await(id);
  ASSERT_EQ(res.state, JobState::kDone) << res.error;
  EXPECT_TRUE(res.verified);
  ASSERT_EQ(res.proofs.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(test::bls(res.proofs[k]),
              groth16::prove(*snarkd::test::bind(*f.pk, *f.circuit), test::bls(witnesses[k]), test::bls(rs[k])))
        << "partition " << k;
    EXPECT_EQ(test::bls(res.public_inputs[k]), groth16::public_inputs(*f.circuit, test::bls(witnesses[k])));
  }
  EXPECT_EQ(e.stats().host_in_use_bytes, 0u);
}

TEST(Engine, RejectsBadRequestsWithClearErrors) {
  const Family& f = small_family();
  Engine e(sim_devices(1, {}), EngineConfig{});
  e.register_circuit("fam", f.key);
  EXPECT_THROW(e.register_circuit("fam", f.key), InvalidArgument);
  auto expect_error = [&](JobRequest r, const std::string& needle) {
    try {
      e.submit(std::move(r));
      ADD_FAILURE() << "accepted a bad request (" << needle << ")";
    } catch (const InvalidArgument& ex) {
      EXPECT_NE(std::string(ex.what()).find(needle), std::string::npos) << ex.what();
    }
  };
  expect_error(request(f, "nope", {1}), "unknown circuit 'nope'");
  expect_error(request(f, "fam", {}), "no partitions");
  JobRequest shortw = request(f, "fam", {1, 2});
  test::bls(shortw.witnesses[1]).pop_back();
  expect_error(std::move(shortw), "partition 1: has ");
  JobRequest badone = request(f, "fam", {1});
  test::bls(badone.witnesses[0])[0] = ff::Fr::from_u64(2);
  expect_error(std::move(badone), "partition 0: value 0 (the constant ONE) is not 1");
  JobRequest rs = request(f, "fam", {1, 2});
  rs.randomness.resize(1);
  expect_error(std::move(rs), "randomness for 1 partitions");
  EXPECT_THROW(e.await(999), InvalidArgument);
  EXPECT_THROW(e.cancel(999), InvalidArgument);
  // A working set bigger than the ledger is refused at registration, naming the device.
  SimDeviceConfig tiny;
  tiny.vram_bytes = 4096;
  Engine small(sim_devices(1, tiny), EngineConfig{});
  try {
    small.register_circuit("fam", f.key);
    ADD_FAILURE() << "registered a circuit that cannot fit";
  } catch (const InvalidArgument& ex) {
    EXPECT_NE(std::string(ex.what()).find("sim:0"), std::string::npos) << ex.what();
  }
}

TEST(Engine, UnsatisfiedWitnessFailsItsJobOnlyAndNamesThePartition) {
  const Family& f = small_family();
  Engine e(sim_devices(1, {}), EngineConfig{});
  e.register_circuit("fam", f.key);
  JobRequest bad = request(f, "fam", {5, 6});
  test::bls(bad.witnesses[1])[f.circuit->num_inputs + 3] += ff::Fr::one();
  const JobId b = e.submit(std::move(bad));
  const JobId ok = e.submit(request(f, "fam", {9}));
  const JobResult rb = *e.await(b);
  EXPECT_EQ(rb.state, JobState::kFailed);
  EXPECT_NE(rb.error.find("partition 1"), std::string::npos) << rb.error;
  EXPECT_NE(rb.error.find("does not satisfy"), std::string::npos) << rb.error;
  EXPECT_EQ(e.await(ok)->state, JobState::kDone);
  EXPECT_THROW(e.unregister_circuit("nope"), InvalidArgument);
  // The failed job's other partition leaves its device at its next stage boundary, possibly
  // after the job was reported failed: unregister once nothing is in flight.
  for (int i = 0; i < 2000 && e.stats().in_flight_partitions > 0; ++i) std::this_thread::sleep_for(5ms);
  e.unregister_circuit("fam");
  EXPECT_TRUE(e.circuits().empty());
}

TEST(Engine, HigherPriorityOvertakesQueuedWork) {
  const Family& f = small_family();
  Hold hold;
  const auto engine = one_worker_engine(0, hold.path());
  Engine& e = *engine;
  const JobId low = e.submit(request(f, "fam", {1, 2, 3, 4, 5, 6, 7, 8}, Priority::kLow));
  ASSERT_TRUE(eventually([&] { return e.peek(low).state == JobState::kRunning; }));
  const JobId crit = e.submit(request(f, "fam", {9, 10}, Priority::kCritical));
  hold.release();
  const JobResult rl = *e.await(low), rc = *e.await(crit);
  ASSERT_EQ(rl.state, JobState::kDone);
  ASSERT_EQ(rc.state, JobState::kDone);
  // Every low partition popped after the critical job arrived comes after both critical ones.
  const uint64_t crit_last = std::max(rc.timings[0].dequeue_order, rc.timings[1].dequeue_order);
  size_t overtaken = 0;
  for (const auto& t : rl.timings)
    if (t.dequeue_order > rc.timings[0].submit_order) {
      EXPECT_GT(t.dequeue_order, crit_last);
      ++overtaken;
    }
  EXPECT_EQ(overtaken, 7u) << "the critical job must overtake every low partition but the held one";
}

TEST(Engine, CancelsQueuedAndRunningJobs) {
  const Family& f = small_family();
  Hold hold;
  const auto engine = one_worker_engine(0, hold.path());
  Engine& e = *engine;
  const JobId running = e.submit(request(f, "fam", {1, 2, 3}));
  const JobId queued = e.submit(request(f, "fam", {4, 5}));
  ASSERT_TRUE(eventually([&] { return e.peek(running).state == JobState::kRunning; }));
  EXPECT_TRUE(e.cancel(queued));
  EXPECT_TRUE(e.cancel(running));
  EXPECT_FALSE(e.cancel(running));
  hold.release();
  EXPECT_EQ(e.await(running)->state, JobState::kCancelled);
  EXPECT_EQ(e.await(queued)->state, JobState::kCancelled);
  const JobId after = e.submit(request(f, "fam", {6}));
  EXPECT_EQ(e.await(after)->state, JobState::kDone);
  // Everything has left the device: nothing queued, nothing in flight, no host bytes held.
  eventually([&] { return e.stats().in_flight_partitions == 0; });
  const EngineStats s = e.stats();
  EXPECT_EQ(s.queued_partitions, 0u);
  EXPECT_EQ(s.in_flight_partitions, 0u);
  EXPECT_EQ(s.host_in_use_bytes, 0u);
  EXPECT_EQ(s.cancelled, 2u);
}

TEST(Engine, WaitFinishedWakesWhenAJobEnds) {
  const Family& f = small_family();
  const auto engine = one_worker_engine(0.05);
  Engine& e = *engine;
  EXPECT_EQ(e.wait_finished(0, 1ms), 0u);  // nothing finished: the timeout passes
  const JobId done = e.submit(request(f, "fam", {1}));
  EXPECT_EQ(e.wait_finished(0, 60s), 1u);  // returns on the job's end, long before the timeout
  EXPECT_EQ(e.peek(done).state, JobState::kDone);
  const JobId cancelled = e.submit(request(f, "fam", {2, 3}));
  std::thread canceller([&] {
    std::this_thread::sleep_for(20ms);
    e.cancel(cancelled);
  });
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(e.wait_finished(1, 60s), 2u);  // a cancel counts as finished
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 30s);
  canceller.join();
  EXPECT_EQ(e.wait_finished(2, 5ms), 2u);
}

TEST(Engine, StatsShowEachWorkersStageAndEachLedger) {
  const Family& f = small_family();
  Hold hold;
  SimDeviceConfig cfg;
  cfg.hold_file = hold.path();
  cfg.hold_uploads = true;
  EngineConfig ec;
  ec.workers_per_device = 2;
  Engine e(sim_devices(2, cfg), ec);
  e.register_circuit("fam", f.key);
  EngineStats idle = e.stats();
  ASSERT_EQ(idle.workers.size(), 4u);
  ASSERT_EQ(idle.ledgers.size(), 2u);
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(idle.workers[k].device, k / 2);
    EXPECT_EQ(idle.workers[k].worker, k % 2);
    EXPECT_EQ(idle.workers[k].stage, "idle");
    EXPECT_EQ(idle.workers[k].job, 0u);
  }
  const JobId id = e.submit(request(f, "fam", {1, 2, 3, 4, 5, 6}));
  // Some worker is seen inside a stage of this job, and its ledger holds that partition's bytes.
  // Held, no upload ends: a worker is seen inside a stage of this job, its ledger holding bytes.
  bool seen_upload = false;
  eventually([&] {
    const EngineStats s = e.stats();
    for (const WorkerStatus& w : s.workers)
      if (w.job == id && w.stage == "upload") {
        seen_upload = true;
        EXPECT_LT(w.partition, 6u);
        EXPECT_GT(s.ledgers[w.device].in_use, 0u);
        EXPECT_LE(w.since_s, e.now());
      }
    return seen_upload;
  });
  EXPECT_TRUE(seen_upload) << "no worker was ever seen uploading the job";
  hold.release();
  ASSERT_EQ(e.await(id)->state, JobState::kDone);
  // A worker turns idle just after its partition has left (the job may be done a moment earlier).
  auto all_idle = [&] {
    const EngineStats s = e.stats();
    return std::all_of(s.workers.begin(), s.workers.end(), [](const WorkerStatus& w) { return w.stage == "idle"; });
  };
  eventually(all_idle);
  const EngineStats after = e.stats();
  for (const WorkerStatus& w : after.workers) EXPECT_EQ(w.stage, "idle") << "device " << w.device << " worker " << w.worker;
  for (const LedgerStats& l : after.ledgers) {
    EXPECT_EQ(l.in_use, 0u);
    EXPECT_GT(l.capacity, 0u);
  }
}

TEST(Engine, HostBudgetRefusesOrBlocksSubmitters) {
  const Family& f = small_family();
  Hold hold;  // a's first upload cannot end: both its witnesses stay charged
  SimDeviceConfig cfg;
  cfg.hold_file = hold.path();
  cfg.hold_uploads = true;
  EngineConfig ec;
  ec.workers_per_device = 1;
  ec.host_budget_bytes = 2 * f.circuit->num_vars() * sizeof(ff::Fr);
  Engine e(sim_devices(1, cfg), ec);
  e.register_circuit("fam", f.key);
  const JobId a = e.submit(request(f, "fam", {1, 2}));
  EXPECT_THROW(e.submit(request(f, "fam", {3}), 0ms), Busy);
  EXPECT_THROW(e.submit(request(f, "fam", {1, 2, 3})), InvalidArgument);  // could never fit
  std::atomic<bool> b_accepted{false};
  JobId b = 0;
  std::thread submitter([&] {  // blocks until a's first witness is uploaded
    b = e.submit(request(f, "fam", {3}));
    b_accepted = true;
  });
  EXPECT_FALSE(b_accepted.load());
  hold.release();
  submitter.join();
  EXPECT_EQ(e.await(a)->state, JobState::kDone);
  EXPECT_EQ(e.await(b)->state, JobState::kDone);
  EXPECT_LE(e.stats().host_peak_bytes, ec.host_budget_bytes);
}

// Two workers overlap one's upload with the other's compute: the device's compute engine stays
// busy ≥ 90 % while work is queued. One worker cannot (upload is 20 % of its cycle).
double busy_fraction_with(uint32_t workers) {
  const Family& f = small_family();
  SimDeviceConfig cfg;
  cfg.upload_s = 0.01;
  cfg.compute_s = 0.04;
  EngineConfig ec;
  ec.workers_per_device = workers;
  Engine e(sim_devices(1, cfg), ec);
  e.register_circuit("fam", f.key);
  std::vector<uint64_t> xs(24);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = 100 + i;
  const JobResult r = *e.await(e.submit(request(f, "fam", xs)));
  EXPECT_EQ(r.state, JobState::kDone);
  double first = 1e9, last = 0;
  for (const auto& t : r.timings) {
    first = std::min(first, t.uploaded_s);
    last = std::max(last, t.computed_s);
  }
  return e.stats().compute_busy_s[0] / (last - first);
}

TEST(Engine, TwoWorkersKeepTheComputeEngineBusy) {
  const double one = busy_fraction_with(1), two = busy_fraction_with(2);
  std::printf("compute busy fraction: 1 worker %.3f, 2 workers %.3f\n", one, two);
  EXPECT_GE(two, 0.90);
  EXPECT_GT(two, one);
}

// A device whose workers upload the previous partition's witness — the kind of mix-up the
// reference engine shipped — must produce proofs the self-check rejects, naming the job failed.
class MixUpDevice final : public test::WrappedSimDevice {
 public:
  using WrappedSimDevice::WrappedSimDevice;
  std::string name() const override { return "mixup:" + std::to_string(index()); }
  std::unique_ptr<DeviceWorker> make_worker(uint32_t i) override {
    struct W final : DeviceWorker {
      std::unique_ptr<DeviceWorker> inner;
      std::vector<ff::Fr> previous;
      void upload(const CircuitEntry& c, const groth16::AnyScalars& w, const Reservation& r) override {
        const std::vector<ff::Fr> now = test::bls(w);
        inner->upload(c, previous.empty() ? now : previous, r);
        previous = now;
      }
      groth16::AnyQuerySums compute(const CircuitEntry& c, Reservation& r, StageClock& k,
                                    const std::stop_token& stop) override {
        return inner->compute(c, r, k, stop);
      }
    };
    auto w = std::make_unique<W>();
    w->inner = inner_.make_worker(i);
    return w;
  }
};

TEST(Engine, SelfCheckCatchesPartitionsProvenWithAnotherWitness) {
  const Family& f = small_family();
  std::vector<std::unique_ptr<Device>> devs;
  devs.push_back(std::make_unique<MixUpDevice>(SimDeviceConfig{}));
  EngineConfig ec;
  ec.workers_per_device = 1;
  Engine e(std::move(devs), ec);
  e.register_circuit("fam", f.key);
  const JobResult r = *e.await(e.submit(request(f, "fam", {11, 22, 33})));
  EXPECT_EQ(r.state, JobState::kFailed);
  EXPECT_NE(r.error.find("do not verify"), std::string::npos) << r.error;
  EXPECT_EQ(e.stats().invalid_proofs, 2u);  // partitions 1 and 2 got their predecessor's witness
}

TEST(Engine, CpuDeviceAndDeviceSpecs) {
  const Family& f = small_family();
  EngineConfig ec;
  ec.workers_per_device = 1;
  Engine e(make_devices("cpu", DeviceOptions{}), ec);
  e.register_circuit("fam", f.key);
  JobRequest r = request(f, "fam", {8, 9});
  r.randomness = {groth16::ProofRandomness{ff::Fr::from_u64(3), ff::Fr::from_u64(4)},
                  groth16::ProofRandomness{ff::Fr::from_u64(5), ff::Fr::from_u64(6)}};
  const auto w = r.witnesses;
  const JobResult res = *e.await(e.submit(std::move(r)));
  ASSERT_EQ(res.state, JobState::kDone) << res.error;
  EXPECT_EQ(test::bls(res.proofs[1]),
            groth16::prove(*snarkd::test::bind(*f.pk, *f.circuit), test::bls(w[1]), {ff::Fr::from_u64(5), ff::Fr::from_u64(6)}));
  EXPECT_EQ(make_devices("sim:3", DeviceOptions{}).size(), 3u);
  for (const char* bad : {"gpu", "sim:0", "sim:x", "cuda:", "cuda:a"}) {
    EXPECT_THROW(make_devices(bad, {}), InvalidArgument) << bad;
    EXPECT_THROW(device_list(bad), InvalidArgument) << bad;
  }
  EXPECT_EQ(device_list("sim:3"), (std::vector<std::string>{"sim:0", "sim:1", "sim:2"}));
  EXPECT_EQ(device_list("cpu"), std::vector<std::string>{"cpu"});
  EXPECT_EQ(first_devices("sim:4", 2), "sim:2");
  EXPECT_EQ(first_devices("cpu", 1), "cpu");
  EXPECT_THROW(first_devices("sim:2", 3), InvalidArgument);
  EXPECT_THROW(first_devices("sim:2", 0), InvalidArgument);
  if (cuda_device_count() >= 2) {  // on a machine with GPUs: the list keeps the spec's order
    EXPECT_EQ(device_list("cuda:1,0"), (std::vector<std::string>{"cuda:1", "cuda:0"}));
    EXPECT_EQ(first_devices("cuda:1,0", 1), "cuda:1");
    EXPECT_EQ(first_devices("cuda:all", 2), "cuda:0,1");
  }
}

TEST(Engine, PauseHoldsQueuedWorkAndForgetDropsFinishedJobs) {
  const Family& f = small_family();
  Engine e(sim_devices(1, {}), EngineConfig{});
  e.register_circuit("fam", f.key);
  e.set_paused(true);
  const JobId id = e.submit(request(f, "fam", {1, 2}));
  EXPECT_FALSE(e.await(id, 50ms)) << "a paused engine started work";
  EXPECT_EQ(e.stats().queued_partitions, 2u);
  EXPECT_THROW(e.forget(id), InvalidArgument);  // not finished
  e.set_paused(false);
  EXPECT_EQ(e.await(id)->state, JobState::kDone);
  e.forget(id);
  EXPECT_THROW(e.peek(id), InvalidArgument);
}

// ---- randomized stress -------------------------------------------------------------------

struct StressOutcome {
  uint64_t jobs = 0, done = 0, cancelled = 0, failed = 0, priority_violations = 0;
  uint64_t streamed_circuits = 0, fills = 0, leases = 0;
};

// Pairs popped out of priority order: x popped before y although y (higher priority) had been
// submitted before x was popped. Exact, from the engine's single event sequence.
uint64_t priority_violations(const std::vector<JobResult>& results) {
  struct Pop {
    uint8_t prio;
    uint64_t submit, pop;
  };
  std::vector<Pop> pops;
  for (const auto& r : results)
    for (const auto& t : r.timings)
      if (t.dequeue_order || t.dequeued_s > 0) pops.push_back({uint8_t(r.priority), t.submit_order, t.dequeue_order});
  std::sort(pops.begin(), pops.end(), [](const Pop& a, const Pop& b) { return a.pop < b.pop; });
  uint64_t bad = 0;
  // For each pop x, a later-popped y of higher priority must have been submitted after x's pop.
  std::vector<uint64_t> min_submit_by_prio(4, UINT64_MAX);  // over later pops, per priority
  for (size_t i = pops.size(); i-- > 0;) {
    for (uint8_t p = pops[i].prio + 1; p < 4; ++p)
      if (min_submit_by_prio[p] < pops[i].pop) ++bad;
    min_submit_by_prio[pops[i].prio] = std::min(min_submit_by_prio[pops[i].prio], pops[i].submit);
  }
  return bad;
}

StressOutcome stress_one(uint32_t devices, uint32_t workers, double vram_sets, size_t num_jobs, uint64_t seed) {
  // Tiny circuits (≈ 20 and 40 rows): the stress is about scheduling; each partition is still a
  // real proof (a few ms of CPU), so 10,000 jobs stay within a CI minute or two.
  static const Family f = test::make_family(2, 13);
  static const Family big = test::make_family(8, 11);
  SimDeviceConfig cfg;
  // Streaming slots of 4 KiB (a G2 point, or a few rows of the three matrices), and room for
  // vram_sets of the big circuit's fully resident working set: at the tight end neither key
  // fits beside a working set and both stream through the slots; at the ample end both are
  // resident; in between the second circuit loaded may be squeezed into streaming.
  cfg.slot_bytes = 4096;
  cfg.slots = 2 + (devices + workers) % 2;
  // Streamed partitions in one step (witness once) on one or two compute lanes, or in two steps.
  cfg.compute_lanes = 1 + devices % 2;
  cfg.one_step = workers % 4 != 3;
  const uint64_t ws_big = big.circuit->num_vars() * 32 + 4 * big.pk->domain_size() * 32;
  cfg.vram_bytes = cfg.slots * cfg.slot_bytes + uint64_t(vram_sets * double(ws_big));
  EngineConfig ec;
  ec.workers_per_device = workers;
  ec.watchdog_s = 10;
  StressOutcome out;
  std::vector<JobResult> results;
  {
    Engine e(sim_devices(devices, cfg), ec);
    // The big one first: a circuit's residency is planned when it loads, keeping room for the
    // steps of those already loaded, so the later, smaller one can always stream.
    e.register_circuit("big", big.key);
    e.register_circuit("small", f.key);
    std::mt19937_64 g(seed);
    std::vector<JobId> ids;
    std::vector<bool> want_cancel;
    for (size_t i = 0; i < num_jobs; ++i) {
      const bool use_big = g() % 4 == 0;
      std::vector<uint64_t> xs(g() % 4 == 0 ? 2 + g() % 2 : 1);
      for (auto& x : xs) x = g() % 65536;
      JobRequest r = request(use_big ? big : f, use_big ? "big" : "small", xs, Priority(g() % 4));
      ids.push_back(e.submit(std::move(r)));
      want_cancel.push_back(g() % 10 == 0);
      if (want_cancel.back() && g() % 2) e.cancel(ids.back());  // cancel at once, while queued
      if (g() % 8 == 0) std::this_thread::sleep_for(std::chrono::microseconds(g() % 500));
    }
    for (size_t i = 0; i < ids.size(); ++i)
      if (want_cancel[i]) e.cancel(ids[i]);  // queued, running or already done
    for (JobId id : ids) {
      auto r = e.await(id, 120s);
      if (!r) {
        ADD_FAILURE() << "job " << id << " never finished";
        continue;
      }
      results.push_back(*r);
    }
    const EngineStats s = e.stats();
    EXPECT_EQ(s.deadlocks, 0u);
    EXPECT_EQ(s.vram_overcommits, 0u);
    EXPECT_EQ(s.invalid_proofs, 0u);
    EXPECT_LE(s.peak_vram_bytes, cfg.vram_bytes);  // resident keys and slots included
    for (const auto& d : e.devices()) {
      for (const char* id : {"small", "big"}) out.streamed_circuits += d->residency(id).rfind("streaming", 0) == 0;
      const StreamStats st = d->stream_stats();
      out.fills += st.fills;
      out.leases += st.leases;
    }
  }
  for (const auto& r : results) {
    ++out.jobs;
    if (r.state == JobState::kDone) {
      ++out.done;
      EXPECT_TRUE(r.verified);
      // The engine's self-check verified every job; re-verify a sample here, independently.
      if (r.id % 16 == 0) {
        EXPECT_TRUE(groth16::verify_batch(r.circuit_id == "big" ? big.pk->vk : f.pk->vk, test::bls_all(r.proofs),
                                        test::bls_all(r.public_inputs)))
            << "job " << r.id;
      }
    } else if (r.state == JobState::kCancelled) {
      ++out.cancelled;
    } else {
      ++out.failed;
      ADD_FAILURE() << "job " << r.id << " failed: " << r.error;
    }
  }
  out.priority_violations = priority_violations(results);
  return out;
}

TEST(EngineStress, TenThousandRandomJobsAcrossDevicesWorkersAndBudgets) {
  auto g = test::rng("engine-stress");
  const double vram_sets[] = {1.0, 1.5, 3.0, 8.0};  // tight .. ample, in big working sets
  size_t total = 0;
  StressOutcome sum;
  for (uint32_t devices = 1; devices <= 4; ++devices)
    for (uint32_t workers = 1; workers <= 4; ++workers) {
      const double sets = vram_sets[(devices + workers) % 4];
      const StressOutcome o = stress_one(devices, workers, sets, 630, g());
      std::printf("devices %u workers %u vram %.1f sets: %llu jobs, %llu done, %llu cancelled, %llu priority violations; "
                  "%llu circuit copies streamed, %llu chunk fills, %llu chunk uses\n",
                  devices, workers, sets, (unsigned long long)o.jobs, (unsigned long long)o.done,
                  (unsigned long long)o.cancelled, (unsigned long long)o.priority_violations,
                  (unsigned long long)o.streamed_circuits, (unsigned long long)o.fills, (unsigned long long)o.leases);
      EXPECT_EQ(o.priority_violations, 0u);
      EXPECT_EQ(o.jobs, 630u);
      EXPECT_EQ(o.failed, 0u);
      total += o.jobs;
      sum.done += o.done;
      sum.cancelled += o.cancelled;
      sum.streamed_circuits += o.streamed_circuits;
      sum.fills += o.fills;
      sum.leases += o.leases;
    }
  EXPECT_GE(total, 10000u);
  // Devices whose keys do not fit were part of it, and their partitions shared chunk fills.
  EXPECT_GT(sum.streamed_circuits, 0u);
  EXPECT_GT(sum.fills, 0u);
  EXPECT_GE(sum.leases, sum.fills);
  EXPECT_GT(sum.cancelled, 0u);
  EXPECT_GT(sum.done, total / 2);
}

// A witness of mostly 0s and 1s travels in its compact form (r1cs::CompactWitness: the workers
// compact before reserving and the simulated device expands it with the CPU twin); a witness of
// random field elements travels plain. Either way every proof equals the CPU prover's.
TEST(Engine, BitHeavyWitnessesTravelCompactRandomOnesPlain) {
  for (const double bits : {0.95, 0.0}) {
    r1cs::SyntheticParams p;
    p.num_constraints = 3000;
    p.num_inputs = 4;
    p.bit_fraction = bits;
    p.zero_fraction = bits / 2;
    r1cs::SyntheticCircuit sc = r1cs::generate_synthetic(p);
    const auto key = test::bind(groth16::setup_insecure(sc.circuit, groth16::toxic_waste_from_seed(5)), sc.circuit);
    Engine e(sim_devices(1, SimDeviceConfig{}), EngineConfig{});
    e.register_circuit("syn", key);
    JobRequest r;
    r.circuit_id = "syn";
    std::vector<groth16::ProofRandomness> rs;
    for (uint64_t k = 0; k < 3; ++k) {
      r.witnesses.push_back(sc.witness);
      rs.push_back(groth16::ProofRandomness{ff::Fr::from_u64(10 + k), ff::Fr::from_u64(20 + k)});
    }
    r.randomness.assign(rs.begin(), rs.end());
    const JobResult res = *e.await(e.submit(std::move(r)));
    ASSERT_EQ(res.state, JobState::kDone) << res.error;
    for (size_t k = 0; k < 3; ++k)
      EXPECT_EQ(res.proofs[k], groth16::AnyProof(groth16::prove(*key, sc.witness, rs[k]))) << "bits " << bits;
    const uint64_t plain = 3 * sc.witness.size() * sizeof(ff::Fr), moved = e.devices()[0]->stream_stats().witness_bytes;
    if (bits > 0) EXPECT_LT(moved * 4, plain) << "a bit-heavy witness moved " << moved << " of " << plain << " bytes";
    else EXPECT_EQ(moved, plain);
  }
}

}  // namespace
}  // namespace snarkd::engine
