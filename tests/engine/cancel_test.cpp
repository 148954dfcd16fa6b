// Cancellation of running work: the CPU prover and its MSMs stop at their next boundary, the
// simulated device's compute stage and its compute-engine queue are interruptible, and the
// engine gives a cancelled partition's memory back, reports how long the stop took and lets the
// circuit be unregistered at once. The simulated stages here last 10 minutes: without a working
// cancel every test below would hit its timeout (and ctest's) instead of passing.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "engine/fixture.hpp"
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
    e->register_circuit("fam", family().pk, family().circuit);
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
      groth16::compute_sums(*f.pk, *f.circuit, w, opt, t);
    } catch (const Cancelled& e) {
      what = e.what();
    }
    EXPECT_EQ(steps.back(), at) << "no step may start after the stop";
    const bool msm = std::string_view(at).rfind("msm", 0) == 0;
    EXPECT_EQ(what, msm ? "msm: cancelled" : "prove: cancelled") << "stopped at " << at;
  }
  groth16::ProveTimings t;
  EXPECT_NO_THROW(groth16::compute_sums(*f.pk, *f.circuit, w, groth16::ProveOptions{}, t));
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
