// Cancellation of running work: the CPU prover and its MSMs stop at their next boundary, the
// simulated device's compute stage and its compute-engine queue are interruptible, and the
// engine gives a cancelled partition's memory back, reports how long the stop took and lets the
// circuit be unregistered at once. The simulated stages here last 10 minutes: without a working
// cancel every test below would hit its timeout (and ctest's) instead of passing. On a device
// whose key streams (two steps over chunks leased from slots), a cancel inside a step, or while
// a step waits for a chunk, releases the reservation, leaves no lease or subscription behind,
// never starts the next step, and the next job proves the CPU prover's bytes.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <thread>

#include "common/bound.hpp"
#include "common/seed.hpp"
#include "engine/fixture.hpp"
#include "engine/sim_wrapper.hpp"
#include "snarkd/engine/engine.hpp"
#include "snarkd/engine/sim_device.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/msm/msm.hpp"
#include "snarkd/util/cancel.hpp"
#include "snarkd/util/random.hpp"

namespace snarkd::engine {
namespace {

using namespace std::chrono_literals;

constexpr double kForever = 600;  // a simulated stage no test may wait out

const test::Family& family() {
  static const test::Family f = test::make_family(12, 7);
  return f;
}

JobRequest request(std::vector<uint64_t> xs) {
  JobRequest r;
  r.circuit_id = "fam";
  for (uint64_t x : xs) r.witnesses.push_back(family().witness(x));
  return r;
}

struct CancelEngine {
  std::unique_ptr<Engine> e;

  explicit CancelEngine(uint32_t workers) {
    SimDeviceConfig cfg;
    cfg.compute_s = kForever;
    std::vector<std::unique_ptr<Device>> devs;
    devs.push_back(std::make_unique<SimDevice>(cfg));
    EngineConfig ec;
    ec.workers_per_device = workers;
    e = std::make_unique<Engine>(std::move(devs), ec);
    e->register_circuit("fam", family().key);
  }

  // Polls the engine's own report until a worker shows `stage` for the job (no timing
  // assumption: the job gets there whatever the load, or the test's 60 s limit fails it).
  bool wait_stage(JobId id, const std::string& stage) const {
    const auto end = std::chrono::steady_clock::now() + 60s;
    while (std::chrono::steady_clock::now() < end) {
      for (const WorkerStatus& w : e->stats().workers)
        if (w.job == id && w.stage == stage) return true;
      std::this_thread::sleep_for(1ms);
    }
    return false;
  }
};

TEST(Cancel, StopsAPartitionInsideTheSimulatedComputeStage) {
  CancelEngine ce(1);
  Engine& e = *ce.e;
  const JobId id = e.submit(request({5}));
  ASSERT_TRUE(ce.wait_stage(id, "compute"));
  EXPECT_GT(e.stats().ledgers[0].in_use, 0u);
  EXPECT_TRUE(e.cancel(id));
  ASSERT_TRUE(e.wait_stopped(id, 60s)) << "the partition computed on after the cancel";
  EXPECT_EQ(e.peek(id).state, JobState::kCancelled);
  const EngineStats s = e.stats();
  EXPECT_EQ(s.in_flight_partitions, 0u);
  EXPECT_EQ(s.ledgers[0].in_use, 0u) << "the cancelled partition's reservation was not released";
  e.unregister_circuit("fam");  // nothing of the circuit is in use any more
}

TEST(Cancel, AWaiterForTheComputeEngineGivesItsTurnUp) {
  CancelEngine ce(2);
  Engine& e = *ce.e;
  const JobId first = e.submit(request({1}));
  ASSERT_TRUE(ce.wait_stage(first, "compute"));
  const JobId second = e.submit(request({2}));
  ASSERT_TRUE(ce.wait_stage(second, "compute"));  // its worker's compute stage waits for the SMs
  EXPECT_TRUE(e.cancel(second));
  ASSERT_TRUE(e.wait_stopped(second, 60s)) << "a cancelled partition waited for the compute engine";
  EXPECT_EQ(e.peek(first).state, JobState::kRunning) << "the other job goes on";
  EXPECT_TRUE(e.cancel(first));
  ASSERT_TRUE(e.wait_stopped(first, 60s));
  // The abandoned turn is skipped: a new job gets the compute engine. Only a holder adds to the
  // busy time (a waiter that gives up never started), so the busy time grows by its cancel.
  const double busy = e.stats().compute_busy_s[0];
  const JobId third = e.submit(request({3}));
  ASSERT_TRUE(ce.wait_stage(third, "compute"));
  EXPECT_TRUE(e.cancel(third));
  ASSERT_TRUE(e.wait_stopped(third, 60s));
  EXPECT_GT(e.stats().compute_busy_s[0], busy) << "the third job never held the compute engine";
  EXPECT_EQ(e.stats().ledgers[0].in_use, 0u);
}

TEST(Cancel, EngineShutdownStopsRunningWork) {
  CancelEngine ce(1);
  const JobId id = ce.e->submit(request({9}));
  ASSERT_TRUE(ce.wait_stage(id, "compute"));
  const auto t0 = std::chrono::steady_clock::now();
  ce.e.reset();  // cancels everything; joins the worker only after its stage stopped
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::duration<double>(kForever / 2));
}

// The test hold (SimDeviceConfig::hold_file): present while the object says so, gone with it.
class HoldFile {
 public:
  explicit HoldFile(const std::string& name)
      : path_((std::filesystem::temp_directory_path() / ("snarkd-cancel-" + std::to_string(getpid()) + "-" + name))
                  .string()) {
    remove();
  }
  ~HoldFile() { remove(); }
  const std::string& path() const { return path_; }
  void create() const { std::ofstream(path_).put('1'); }
  void remove() const { std::filesystem::remove(path_); }

 private:
  std::string path_;
};

// A simulated device whose workers count the steps they start; `hold_last_step` creates the hold
// file as a partition's last step begins (so a test can act while that step runs).
class CountingDevice final : public test::WrappedSimDevice {
 public:
  explicit CountingDevice(const SimDeviceConfig& cfg) : WrappedSimDevice(cfg), hold_(cfg.hold_file) {}
  std::unique_ptr<DeviceWorker> make_worker(uint32_t i) override {
    struct W final : DeviceWorker {
      CountingDevice* d = nullptr;
      std::unique_ptr<DeviceWorker> inner;
      void upload(const CircuitEntry& c, const groth16::AnyScalars& w, const Reservation& r) override {
        inner->upload(c, w, r);
      }
      void settle() override { inner->settle(); }
      void compute_step(const CircuitEntry& c, uint32_t step, Reservation& r, StageClock& k,
                        const std::stop_token& stop) override {
        ++d->first_steps;
        inner->compute_step(c, step, r, k, stop);
      }
      groth16::AnyQuerySums compute(const CircuitEntry& c, Reservation& r, StageClock& k,
                                    const std::stop_token& stop) override {
        ++d->last_steps;
        if (d->hold_last_step) std::ofstream(d->hold_).put('1');
        return inner->compute(c, r, k, stop);
      }
    };
    auto w = std::make_unique<W>();
    w->d = this;
    w->inner = inner_.make_worker(i);
    return w;
  }

  std::atomic<uint32_t> first_steps{0}, last_steps{0};
  std::atomic<bool> hold_last_step{false};

 private:
  std::string hold_;
};

// One worker on a device with two 4 KiB slots and the least memory the family's circuit loads
// under: its key streams, every partition in two steps (one_step: in one, the witness uploaded
// once).
struct StreamingEngine {
  std::unique_ptr<Engine> e;
  CountingDevice* dev = nullptr;

  StreamingEngine(const HoldFile& hold, bool hold_fills, bool one_step = false, uint32_t lanes = 1) {
    SimDeviceConfig cfg;
    cfg.slot_bytes = 4096;
    cfg.slots = 2;
    cfg.hold_file = hold.path();
    cfg.hold_fills = hold_fills;
    cfg.one_step = one_step;
    cfg.compute_lanes = lanes;
    for (cfg.vram_bytes = 4 * cfg.slots * cfg.slot_bytes;; cfg.vram_bytes = cfg.vram_bytes * 5 / 4) {
      std::vector<std::unique_ptr<Device>> devs;
      auto d = std::make_unique<CountingDevice>(cfg);
      CountingDevice* raw = d.get();
      devs.push_back(std::move(d));
      EngineConfig ec;
      ec.workers_per_device = 1;
      e = std::make_unique<Engine>(std::move(devs), ec);
      try {
        e->register_circuit("fam", family().key);
        dev = raw;
        return;
      } catch (const InvalidArgument&) {
        if (cfg.vram_bytes > (uint64_t{64} << 20)) throw;
      }
    }
  }

  bool wait_for(const std::function<bool()>& done) const {
    const auto end = std::chrono::steady_clock::now() + 60s;
    while (std::chrono::steady_clock::now() < end) {
      if (done()) return true;
      std::this_thread::sleep_for(1ms);
    }
    return false;
  }

  // A job of one partition with fixed r, s: done, and the CPU prover's bytes.
  void expect_proves_cpu_bytes(uint64_t x, std::mt19937_64& g) const {
    JobRequest r = request({x});
    r.randomness.push_back(groth16::ProofRandomness{ff::Fr::random(g), ff::Fr::random(g)});
    const groth16::ProofRandomness rs = test::bls(r.randomness[0]);
    const JobResult res = *e->await(e->submit(std::move(r)));
    ASSERT_EQ(res.state, JobState::kDone) << res.error;
    EXPECT_TRUE(res.verified);
    EXPECT_EQ(test::bls(res.proofs.at(0)), groth16::prove(*snarkd::test::bind(*family().pk, *family().circuit), family().witness(x), rs));
  }

  // Cancels `id`; false if it has not stopped within 60 s, else it is cancelled and holds nothing.
  bool cancel_and_stop(JobId id) const {
    EXPECT_TRUE(e->cancel(id));
    if (!e->wait_stopped(id, 60s)) return false;
    EXPECT_EQ(e->peek(id).state, JobState::kCancelled);
    expect_nothing_held();
    return true;
  }

  // After a cancel has taken effect: no working set, no lease, no subscription left.
  void expect_nothing_held() const {
    const EngineStats s = e->stats();
    EXPECT_EQ(s.in_flight_partitions, 0u);
    EXPECT_EQ(s.ledgers[0].in_use, 0u) << "the cancelled step's reservation was not released";
    EXPECT_EQ(s.vram_overcommits, 0u);
    const StreamStats st = dev->stream_stats();
    EXPECT_EQ(st.open_leases, 0u) << "a slot lease outlived the cancelled step";
    EXPECT_EQ(st.subscriptions, 0u) << "the cancelled step stayed subscribed to chunks";
  }
};

TEST(Cancel, StreamingPartitionCancelledInStepZeroNeverStartsStepOne) {
  const HoldFile hold("step0");
  StreamingEngine se(hold, false);
  Engine& e = *se.e;
  ASSERT_EQ(se.dev->residency("fam").rfind("streaming", 0), 0u) << se.dev->residency("fam");
  auto g = test::rng("cancel-streaming-step0");
  se.expect_proves_cpu_bytes(21, g);  // both steps run and agree with the CPU prover
  ASSERT_EQ(se.dev->first_steps.load(), 1u);
  ASSERT_EQ(se.dev->last_steps.load(), 1u);
  hold.create();  // step 0 cannot end
  const JobId id = e.submit(request({22}));
  ASSERT_TRUE(se.wait_for([&] { return se.dev->first_steps.load() == 2; }));
  EXPECT_GT(e.stats().ledgers[0].in_use, 0u);
  ASSERT_TRUE(se.cancel_and_stop(id)) << "step 0 computed on after the cancel";
  EXPECT_EQ(se.dev->last_steps.load(), 1u) << "a cancelled partition started its second step";
  hold.remove();
  se.expect_proves_cpu_bytes(23, g);
  se.expect_nothing_held();
}

// One step (the witness uploaded once; on two lanes the witness MSMs run on a thread of their
// own beside the H MSM): a cancel inside it ends both lanes, gives everything back, and the next
// partition proves the CPU prover's bytes.
TEST(Cancel, OneStepStreamingPartitionCancelledInsideItsStep) {
  for (uint32_t lanes : {1u, 2u}) {
    SCOPED_TRACE("lanes " + std::to_string(lanes));
    const HoldFile hold("one" + std::to_string(lanes));
    StreamingEngine se(hold, false, true, lanes);
    Engine& e = *se.e;
    ASSERT_EQ(se.dev->residency("fam").rfind("streaming", 0), 0u) << se.dev->residency("fam");
    auto g = test::rng("cancel-streaming-one-step");
    se.expect_proves_cpu_bytes(41, g);
    ASSERT_EQ(se.dev->first_steps.load(), 0u) << "a one-step partition ran a first step";
    ASSERT_EQ(se.dev->last_steps.load(), 1u);
    hold.create();  // the step cannot end
    const JobId id = e.submit(request({42}));
    ASSERT_TRUE(se.wait_for([&] { return se.dev->last_steps.load() == 2; }));
    EXPECT_GT(e.stats().ledgers[0].in_use, 0u);
    ASSERT_TRUE(se.cancel_and_stop(id)) << "the step computed on after the cancel";
    hold.remove();
    se.expect_proves_cpu_bytes(43, g);
    se.expect_nothing_held();
  }
}

// A step waiting for a chunk whose copy cannot end (the hold on fills): the stop wakes it, its
// subscription and leases go back, and once the copy ends the next job proves correctly.
TEST(Cancel, StreamingStepWaitingForAChunkLeavesTheStreamer) {
  for (uint32_t step : {0u, 1u}) {
    SCOPED_TRACE("cancelled in step " + std::to_string(step));
    const HoldFile hold("fills" + std::to_string(step));
    StreamingEngine se(hold, true);
    Engine& e = *se.e;
    ASSERT_EQ(se.dev->residency("fam").rfind("streaming", 0), 0u) << se.dev->residency("fam");
    auto g = test::rng("cancel-streaming-fills");
    se.expect_proves_cpu_bytes(31, g);
    if (step == 0) hold.create();
    else se.dev->hold_last_step = true;
    const JobId id = e.submit(request({32}));
    std::atomic<uint32_t>& entered = step == 0 ? se.dev->first_steps : se.dev->last_steps;
    ASSERT_TRUE(se.wait_for([&] { return entered.load() == 2 && se.dev->stream_stats().subscriptions > 0; }))
        << "the step never subscribed to a streamed chunk";
    ASSERT_TRUE(se.cancel_and_stop(id)) << "the step went on waiting for its chunk after the cancel";
    EXPECT_EQ(se.dev->last_steps.load(), step == 0 ? 1u : 2u);
    se.dev->hold_last_step = false;
    hold.remove();  // the held copy ends; the slot is reused
    se.expect_proves_cpu_bytes(33, g);
    se.expect_nothing_held();
  }
}

TEST(Cancel, WaitStoppedTimesOutWhileWorkRuns) {
  CancelEngine ce(1);
  const JobId id = ce.e->submit(request({4}));
  ASSERT_TRUE(ce.wait_stage(id, "compute"));
  EXPECT_FALSE(ce.e->wait_stopped(id, 1ms));
  EXPECT_THROW(ce.e->wait_stopped(id + 100, 1ms), InvalidArgument);
}

// The CPU prover: a stop requested when a step starts is seen at the next boundary, and one
// requested during an MSM is seen inside it (the message names the MSM, not the next step).
TEST(Cancel, CpuProverStopsBetweenStepsAndInsideMsms) {
  const test::Family& f = family();
  const std::vector<ff::Fr> w = f.witness(77);
  for (const char* at : {"qap", "h", "msm_a", "msm_b", "msm_l", "msm_h"}) {
    std::stop_source src;
    groth16::ProveOptions opt;
    opt.stop = src.get_token();
    std::vector<std::string> steps;
    opt.on_step = [&](std::string_view s) {
      steps.emplace_back(s);
      if (s == at) src.request_stop();
    };
    groth16::ProveTimings t;
    std::string what;
    try {
      groth16::compute_sums(*snarkd::test::bind(*f.pk, *f.circuit), w, opt, t);
    } catch (const Cancelled& e) {
      what = e.what();
    }
    EXPECT_EQ(steps.back(), at) << "no step may start after the stop";
    const bool msm = std::string_view(at).rfind("msm", 0) == 0;
    EXPECT_EQ(what, msm ? "msm: cancelled" : "prove: cancelled") << "stopped at " << at;
  }
  groth16::ProveTimings t;
  EXPECT_NO_THROW(groth16::compute_sums(*snarkd::test::bind(*f.pk, *f.circuit), w, groth16::ProveOptions{}, t));
}

TEST(Cancel, MsmChecksItsTokenAndIsExactWithoutAStop) {
  OsRandom g;
  const size_t n = 3 * msm::kStopCheckPoints + 5;
  std::vector<ec::G1Affine> bases(n, ec::generator<ec::G1Config>());
  std::vector<ff::Fr> scalars(n);
  for (auto& s : scalars) s = ff::Fr::random(g);
  msm::Options opt;
  std::stop_source src;
  opt.stop = src.get_token();
  const ec::G1Jacobian want = msm::msm<ec::G1Config>(bases, scalars, opt);
  ff::Fr sum = ff::Fr::zero();
  for (const auto& s : scalars) sum += s;
  EXPECT_EQ(want.to_affine(), ec::G1Jacobian::from_affine(ec::generator<ec::G1Config>()).mul_scalar(sum).to_affine());
  src.request_stop();
  EXPECT_THROW(msm::msm<ec::G1Config>(bases, scalars, opt), Cancelled);
  EXPECT_THROW(msm::msm_split<ec::G1Config>(bases, scalars, nullptr, opt), Cancelled);
}

TEST(Cancel, SleepUntilWakesOnAStop) {
  std::stop_source src;
  std::thread t([&] { src.request_stop(); });
  EXPECT_FALSE(sleep_until(std::chrono::steady_clock::now() + std::chrono::seconds(int(kForever)), src.get_token()));
  t.join();
  EXPECT_TRUE(sleep_until(std::chrono::steady_clock::now() + 1ms, std::stop_token{}));
}

}  // namespace
}  // namespace snarkd::engine
