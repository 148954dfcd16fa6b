// The daemon's job service in-process (no gRPC): real proofs on the simulated device, witnesses
// from a circuit family with random members (seeded: SNARKD_TEST_SEED), checked by the verifier.
#include "snarkd/server/service.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/seed.hpp"
#include "engine/fixture.hpp"
#include "snarkd/engine/devices.hpp"
#include "snarkd/groth16/bellperson_io.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/r1cs/csr_file.hpp"
#include "snarkd/server/log_format.hpp"
#include "snarkd/util/json.hpp"

namespace fs = std::filesystem;
using namespace snarkd;
using namespace snarkd::server;
using Clock = std::chrono::steady_clock;

namespace {

struct Env {
  std::string dir;
  test::Family fam = test::make_family(6, 11);
  ServerConfig cfg;
  std::mt19937_64 rng = test::rng("service");
  engine::Engine* engine = nullptr;  // the last service()'s, owned by it

  explicit Env(double sim_compute_ms = 0) {
    char t[] = "/tmp/snarkd-service-test-XXXXXX";
    dir = ::mkdtemp(t);
    r1cs::write_csr_file(dir + "/c.csr", *fam.circuit);
    groth16::write_params(dir + "/k.params", *fam.pk);
    cfg.state_dir = dir + "/state";
    cfg.devices = "sim";
    cfg.sim_compute_ms = sim_compute_ms;
    cfg.sim_hold_file = dir + "/hold";
    cfg.submit_wait_ms = 1000;
    cfg.circuits = {CircuitSpec{"fam", dir + "/k.params", dir + "/c.csr", "", false}};
  }
  ~Env() { fs::remove_all(dir); }

  std::unique_ptr<Service> service(const std::string& devices = "sim") {
    cfg.devices = devices;
    engine::DeviceOptions d;
    d.sim.compute_s = cfg.sim_compute_ms / 1e3;
    d.sim.hold_file = cfg.sim_hold_file;
    engine::EngineConfig e;
    e.workers_per_device = 1;
    e.record_timeline = false;
    auto eng = std::make_unique<engine::Engine>(engine::make_devices(devices, d), e);
    engine = eng.get();
    auto s = std::make_unique<Service>(cfg, std::move(eng), std::make_unique<Journal>(cfg.state_dir));
    s->start();
    return s;
  }

  // One job, one partition per x (fresh random members unless given).
  v1::SubmitRequest job(std::vector<uint64_t> xs, const std::string& request_id = "") {
    v1::SubmitRequest r;
    r.set_circuit_id("fam");
    r.set_request_id(request_id);
    for (uint64_t x : xs) {
      const auto bytes = encode_fr_montgomery(fam.witness(x));
      r.add_partitions()->set_data(std::string(bytes.begin(), bytes.end()));
    }
    return r;
  }
  uint64_t x() { return rng() % 60000 + 1; }
  // While held, no simulated compute stage ends (a cancel still ends it): tests act while the
  // job they need is running instead of racing a stage time on a loaded machine.
  void hold() { std::ofstream(cfg.sim_hold_file).put('\n'); }
  void release() { fs::remove(cfg.sim_hold_file); }
};

Code code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return classify(e);
  }
  ADD_FAILURE() << "no error";
  return Code::kInternal;
}

// Every partition's proof verifies against the witness's public inputs.
void expect_valid(const v1::JobResult& r, const test::Family& fam, const std::vector<uint64_t>& xs,
                  const std::string& device = "sim:0") {
  ASSERT_EQ(r.state(), v1::JOB_STATE_DONE) << r.error();
  EXPECT_TRUE(r.verified());
  ASSERT_EQ(r.partitions_size(), int(xs.size()));
  for (size_t k = 0; k < xs.size(); ++k) {
    const auto& p = r.partitions(int(k));
    const groth16::Proof proof =
        groth16::decode_proof(std::span(reinterpret_cast<const uint8_t*>(p.proof().data()), p.proof().size()));
    const std::vector<ff::Fr> w = fam.witness(xs[k]);
    const std::vector<ff::Fr> pub(w.begin() + 1, w.begin() + fam.circuit->num_inputs);
    ASSERT_EQ(p.public_inputs_size(), int(pub.size()));
    for (size_t i = 0; i < pub.size(); ++i) EXPECT_EQ(p.public_inputs(int(i)), to_decimal(pub[i]));
    EXPECT_TRUE(groth16::verify(fam.pk->vk, proof, pub)) << "partition " << k;
    EXPECT_EQ(p.stage(), v1::PARTITION_STAGE_PROVEN);
    EXPECT_EQ(p.device(), device);
  }
}

// How many of the engine's job ids 1..limit it still knows (it numbers jobs from 1 upward).
size_t engine_jobs_known(const engine::Engine& e, engine::JobId limit = 1000) {
  size_t n = 0;
  for (engine::JobId id = 1; id <= limit; ++id) {
    try {
      e.peek(id);
      ++n;
    } catch (const std::exception&) {
    }
  }
  return n;
}

void wait_running(Service& s, uint64_t id) {
  const auto end = Clock::now() + std::chrono::seconds(20);
  while (s.await(id, std::chrono::milliseconds(0)).state() != v1::JOB_STATE_RUNNING && Clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

}  // namespace

TEST(Service, ProvesJobsOfManyPartitions) {
  Env env;
  auto s = env.service();
  const std::vector<uint64_t> a{env.x(), env.x(), env.x()}, b{env.x()};
  const uint64_t ja = s->submit(env.job(a)).job_id(), jb = s->submit(env.job(b)).job_id();
  EXPECT_NE(ja, jb);
  expect_valid(s->await(ja, std::nullopt), env.fam, a);
  expect_valid(s->await(jb, std::nullopt), env.fam, b);
  const std::string m = s->metrics_text();
  EXPECT_NE(m.find("snarkd_jobs_completed_total{circuit=\"fam\"} 2"), std::string::npos) << m;
  EXPECT_NE(m.find("snarkd_partitions_proven_total{circuit=\"fam\"} 4"), std::string::npos);
  EXPECT_NE(m.find("snarkd_stage_duration_seconds_count{stage=\"compute\"} 4"), std::string::npos);
}

TEST(Service, RequestIdsDeduplicateNeverBecomeJobIds) {
  Env env;
  auto s = env.service();
  const uint64_t x = env.x();
  const v1::SubmitReply first = s->submit(env.job({x}, "req-1"));
  const v1::SubmitReply again = s->submit(env.job({x}, "req-1"));
  EXPECT_FALSE(first.deduplicated());
  EXPECT_TRUE(again.deduplicated());
  EXPECT_EQ(first.job_id(), again.job_id());
  EXPECT_EQ(code_of([&] { s->submit(env.job({x + 1}, "req-1")); }), Code::kAlreadyExists);
  const v1::SubmitReply other = s->submit(env.job({x}, "req-2"));
  EXPECT_NE(other.job_id(), first.job_id());
  EXPECT_NE(s->submit(env.job({x})).job_id(), s->submit(env.job({x})).job_id());  // no id: no dedup
  expect_valid(s->await(first.job_id(), std::nullopt), env.fam, {x});
}

TEST(Service, AwaitHonoursItsTimeout) {
  Env env;
  env.hold();
  auto s = env.service();
  const uint64_t id = s->submit(env.job({env.x()})).job_id();
  const auto t0 = Clock::now();
  const v1::JobResult r = s->await(id, std::chrono::milliseconds(100));
  const double waited = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_GE(waited, 0.09);
  EXPECT_LT(waited, 10.0);  // 0.1 s plus scheduling: generous for a loaded CI machine
  EXPECT_LT(r.state(), v1::JOB_STATE_DONE);
  EXPECT_TRUE(r.partitions(0).proof().empty());
  env.release();
  EXPECT_EQ(s->await(id, std::nullopt).state(), v1::JOB_STATE_DONE);
}

TEST(Service, CancelsQueuedAndRunningJobs) {
  Env env;
  env.hold();
  auto s = env.service();
  const uint64_t running = s->submit(env.job({env.x()})).job_id();
  const uint64_t queued = s->submit(env.job({env.x()})).job_id();
  wait_running(*s, running);
  EXPECT_EQ(s->await(queued, std::chrono::milliseconds(0)).state(), v1::JOB_STATE_QUEUED);
  EXPECT_EQ(s->cancel(queued).state(), v1::JOB_STATE_CANCELLED);
  EXPECT_EQ(s->cancel(running).state(), v1::JOB_STATE_CANCELLED);
  EXPECT_EQ(s->cancel(running).state(), v1::JOB_STATE_CANCELLED);  // idempotent
  env.release();
  const uint64_t x = env.x();
  expect_valid(s->await(s->submit(env.job({x})).job_id(), std::nullopt), env.fam, {x});
  EXPECT_EQ(code_of([&] { s->cancel(999999); }), Code::kNotFound);
}

// The engine wakes the watcher as a job ends, so the watcher often claims a cancelled job's
// finish and is still journaling it when Cancel replies: the reply must still say cancelled
// (it said running in CI, 1 run in 3 here, before Cancel waited for that journaling).
TEST(Service, CancelRepliesCancelledWhileTheWatcherJournals) {
  Env env;
  env.hold();
  auto s = env.service();
  const uint64_t running = s->submit(env.job({env.x()})).job_id();
  wait_running(*s, running);
  for (int k = 0; k < 40; ++k) {
    const uint64_t queued = s->submit(env.job({env.x()})).job_id();
    const v1::JobResult r = s->cancel(queued);
    EXPECT_EQ(r.state(), v1::JOB_STATE_CANCELLED) << "cancel " << k << " of job " << queued;
    EXPECT_EQ(r.error(), "cancelled");
  }
  EXPECT_EQ(s->cancel(running).state(), v1::JOB_STATE_CANCELLED);
}

TEST(Service, EvictRefusedWhileInUse) {
  Env env;
  env.cfg.key_dirs = {env.dir};
  env.hold();
  auto s = env.service();
  const uint64_t id = s->submit(env.job({env.x()})).job_id();
  EXPECT_EQ(code_of([&] { s->evict("fam"); }), Code::kFailedPrecondition);
  env.release();
  EXPECT_EQ(s->await(id, std::nullopt).state(), v1::JOB_STATE_DONE);
  s->evict("fam");
  EXPECT_EQ(code_of([&] { s->submit(env.job({env.x()})); }), Code::kNotFound);
  EXPECT_EQ(code_of([&] { s->evict("fam"); }), Code::kNotFound);
  v1::PreloadKeyRequest p;
  p.set_circuit_id("fam2");
  p.set_params_path(env.dir + "/k.params");
  p.set_circuit_path(env.dir + "/c.csr");
  EXPECT_EQ(s->preload(p).num_vars(), env.fam.circuit->num_vars());
  EXPECT_EQ(code_of([&] { s->preload(p); }), Code::kAlreadyExists);
  p.set_circuit_id("broken");
  p.set_params_path(env.dir + "/missing.params");
  EXPECT_EQ(code_of([&] { s->preload(p); }), Code::kNotFound);
}

TEST(Service, MalformedRequestsAreRefusedWithTheirCode) {
  Env env;
  env.cfg.witness_dirs = {env.dir + "/allowed"};
  fs::create_directories(env.dir + "/allowed");
  auto s = env.service();
  v1::SubmitRequest r = env.job({env.x()});
  r.set_circuit_id("nope");
  EXPECT_EQ(code_of([&] { s->submit(r); }), Code::kNotFound);
  r = env.job({});
  EXPECT_EQ(code_of([&] { s->submit(r); }), Code::kInvalidArgument);
  r = env.job({env.x()});
  r.set_priority(v1::Priority(42));
  EXPECT_EQ(code_of([&] { s->submit(r); }), Code::kInvalidArgument);
  r = env.job({env.x()}, "has space");
  EXPECT_EQ(code_of([&] { s->submit(r); }), Code::kInvalidArgument);
  r = env.job({env.x()});
  r.mutable_partitions(0)->mutable_data()->resize(64);
  EXPECT_EQ(code_of([&] { s->submit(r); }), Code::kInvalidArgument);
  r.mutable_partitions(0)->clear_data();
  EXPECT_EQ(code_of([&] { s->submit(r); }), Code::kInvalidArgument);
  const auto bytes = encode_fr_montgomery(env.fam.witness(7));
  std::ofstream(env.dir + "/outside.fr", std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  std::ofstream(env.dir + "/allowed/in.fr", std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  r.mutable_partitions(0)->set_path(env.dir + "/outside.fr");  // one answer for outside and missing
  EXPECT_EQ(code_of([&] { s->submit(r); }), Code::kNotFound);
  r.mutable_partitions(0)->set_path(env.dir + "/allowed/../outside.fr");  // resolved before the check
  EXPECT_EQ(code_of([&] { s->submit(r); }), Code::kNotFound);
  r.mutable_partitions(0)->set_path("relative.fr");
  EXPECT_EQ(code_of([&] { s->submit(r); }), Code::kInvalidArgument);
  r.mutable_partitions(0)->set_path(env.dir + "/allowed/in.fr");
  expect_valid(s->await(s->submit(r).job_id(), std::nullopt), env.fam, {7});
  EXPECT_TRUE(fs::is_empty(env.cfg.state_dir + "/spool/.staging")) << "refused submissions leave nothing behind";
}

TEST(Service, RestartRequeuesUnfinishedJobsAndKeepsResults) {
  Env env;
  std::vector<std::vector<uint64_t>> xs;
  std::vector<uint64_t> ids;
  std::string first_proof;
  {
    auto s = env.service();
    for (int j = 0; j < 4; ++j) {
      xs.push_back({env.x(), env.x()});
      ids.push_back(s->submit(env.job(xs.back(), "job-" + std::to_string(j))).job_id());
      if (j == 0) {  // job 0 finishes; the engine then starts nothing, so jobs 1–3 are queued at the crash
        first_proof = s->await(ids[0], std::nullopt).partitions(0).proof();
        env.engine->set_paused(true);
      }
    }
  }  // "crash": the engine is torn down with jobs queued; they stay queued in the journal
  auto s = env.service();
  for (size_t j = 0; j < ids.size(); ++j) expect_valid(s->await(ids[j], std::nullopt), env.fam, xs[j]);
  EXPECT_EQ(s->await(ids[0], std::nullopt).partitions(0).proof(), first_proof) << "a finished result is kept as it was";
  EXPECT_EQ(s->await(ids[0], std::nullopt).attempts(), 1u);
  EXPECT_EQ(s->await(ids[3], std::nullopt).attempts(), 2u);
  const v1::SubmitReply again = s->submit(env.job(xs[2], "job-2"));  // request ids survive restarts
  EXPECT_TRUE(again.deduplicated());
  EXPECT_EQ(again.job_id(), ids[2]);
  const uint64_t later = s->submit(env.job({env.x()})).job_id();
  EXPECT_GT(later, ids.back()) << "ids are never reused";
  EXPECT_EQ(s->await(later, std::nullopt).state(), v1::JOB_STATE_DONE);
  size_t spooled = 0;  // every job finished: its spool is gone
  for (const auto& e : fs::directory_iterator(env.cfg.state_dir + "/spool"))
    spooled += e.path().filename() != ".staging";
  EXPECT_EQ(spooled, 0u);
}

TEST(Service, StatusShowsWorkersAndDrainRefusesNewJobs) {
  Env env;
  env.hold();
  auto s = env.service();
  const uint64_t id = s->submit(env.job({env.x()})).job_id();
  v1::StatusReply st;
  const auto end = Clock::now() + std::chrono::seconds(60);
  do {  // the partition passes wait_vram and upload, then computes until released
    st = s->status(10);
  } while (st.devices(0).workers(0).stage() != "compute" && Clock::now() < end);
  ASSERT_EQ(st.devices_size(), 1);
  const v1::DeviceStatus& dev = st.devices(0);
  ASSERT_EQ(dev.workers_size(), 1);
  EXPECT_EQ(dev.workers(0).index(), 0u);
  EXPECT_EQ(dev.workers(0).job_id(), id) << "the daemon's job id, not the engine's";
  EXPECT_EQ(dev.workers(0).partition(), 0u);
  EXPECT_EQ(dev.workers(0).stage(), "compute");
  EXPECT_GE(dev.workers(0).stage_s(), 0.0);
  // The ledger's figures: one working set reserved during compute.
  EXPECT_GT(dev.pool_bytes(), 0u);
  EXPECT_GT(dev.reserved_bytes(), 0u);
  EXPECT_LE(dev.reserved_bytes(), dev.pool_bytes());
  EXPECT_GE(dev.peak_reserved_bytes(), dev.reserved_bytes());
  EXPECT_EQ(dev.vram_waiting(), 0u);
  const std::string m = s->metrics_text();
  EXPECT_NE(m.find("snarkd_workers{device=\"sim:0\",stage=\"compute\"} 1\n"), std::string::npos) << m;
  EXPECT_NE(m.find("snarkd_workers{device=\"sim:0\",stage=\"idle\"} 0\n"), std::string::npos);
  EXPECT_NE(m.find("snarkd_workers_busy{device=\"sim:0\"} 1\n"), std::string::npos);
  EXPECT_NE(m.find("snarkd_ledger_reserved_bytes{device=\"sim:0\",memory=\"host_arena\"} " +
                   std::to_string(dev.reserved_bytes()) + "\n"),
            std::string::npos);
  EXPECT_NE(m.find("snarkd_ledger_capacity_bytes{device=\"sim:0\",memory=\"host_arena\"} " +
                   std::to_string(dev.pool_bytes()) + "\n"),
            std::string::npos);
  EXPECT_EQ(st.jobs_running(), 1u);
  ASSERT_EQ(st.keys_size(), 1);
  EXPECT_EQ(st.keys(0).unfinished_jobs(), 1u);
  const Json j = proto_to_json(st);
  EXPECT_EQ(j["devices"][0]["workers"][0]["stage"].str(), "compute");
  EXPECT_EQ(j["recent_jobs"][0]["state"].str(), "JOB_STATE_RUNNING");
  s->begin_drain();
  EXPECT_EQ(code_of([&] { s->submit(env.job({env.x()})); }), Code::kUnavailable);
  env.release();
  EXPECT_TRUE(s->drain(30));
  EXPECT_EQ(s->await(id, std::chrono::milliseconds(0)).state(), v1::JOB_STATE_DONE);
  st = s->status(10);
  EXPECT_EQ(st.devices(0).workers(0).stage(), "idle");
  EXPECT_EQ(st.devices(0).workers(0).job_id(), 0u);
  EXPECT_EQ(st.devices(0).reserved_bytes(), 0u);
  EXPECT_GT(st.devices(0).peak_reserved_bytes(), 0u);
}

// SIGTERM's drain: the partition computing now finishes, nothing new starts — neither the
// running job's next partition nor a queued job — and both stay queued in the journal, to run
// in full after the restart.
TEST(Service, DrainFinishesInFlightWorkAndJournalsTheRest) {
  Env env;
  env.hold();
  const std::vector<uint64_t> a{env.x(), env.x()}, b{env.x()};
  uint64_t ja, jb;
  {
    auto s = env.service();
    ja = s->submit(env.job(a)).job_id();
    jb = s->submit(env.job(b)).job_id();
    wait_running(*s, ja);  // partition 0 of a is on the only worker, held there
    s->begin_drain();
    EXPECT_EQ(code_of([&] { s->submit(env.job({env.x()})); }), Code::kUnavailable);
    env.release();
    EXPECT_TRUE(s->drain(30));
    const v1::JobResult ra = s->await(ja, std::chrono::milliseconds(0));
    EXPECT_EQ(ra.state(), v1::JOB_STATE_RUNNING);
    EXPECT_EQ(ra.partitions(0).stage(), v1::PARTITION_STAGE_PROVEN) << "the in-flight partition finished";
    EXPECT_EQ(ra.partitions(1).stage(), v1::PARTITION_STAGE_QUEUED) << "no partition starts while draining";
    EXPECT_EQ(s->await(jb, std::chrono::milliseconds(0)).state(), v1::JOB_STATE_QUEUED);
    const v1::StatusReply st = s->status(10);
    EXPECT_EQ(st.in_flight_partitions(), 0u);
    EXPECT_EQ(st.queued_partitions(), 2u);
    EXPECT_EQ(st.devices(0).workers(0).stage(), "idle");
    // Paused for good: still nothing starts after the drain returned.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(s->status(10).in_flight_partitions(), 0u);
  }
  auto s = env.service();
  const v1::JobResult ra = s->await(ja, std::nullopt), rb = s->await(jb, std::nullopt);
  expect_valid(ra, env.fam, a);
  expect_valid(rb, env.fam, b);
  EXPECT_EQ(ra.attempts(), 2u);
  EXPECT_EQ(rb.attempts(), 2u);
}

// Results kept retention_s, then gone from the journal, the daemon's memory and the engine.
TEST(Service, ExpiredResultsAreForgottenByTheEngineToo) {
  Env env;
  env.cfg.retention_s = 2;  // purge every 0.5 s (retention / 4, at least 0.5 s)
  auto s = env.service();
  std::vector<uint64_t> ids;
  for (int j = 0; j < 3; ++j) ids.push_back(s->submit(env.job({env.x()})).job_id());
  s->cancel(ids[2]);  // done or cancelled: terminal either way
  for (uint64_t id : ids) EXPECT_GE(s->await(id, std::nullopt).state(), v1::JOB_STATE_DONE);
  EXPECT_EQ(engine_jobs_known(*env.engine), 3u) << "finished, not expired yet";
  // Each result goes retention_s after its own finish: the jobs finished milliseconds apart,
  // so one purge may take some and the next (0.5 s later) the rest.
  const auto kept = [&](uint64_t id) {
    return code_of([&] {
             s->await(id, std::chrono::milliseconds(0));
             throw std::runtime_error("still kept");
           }) != Code::kNotFound;
  };
  const auto end = Clock::now() + std::chrono::seconds(20);
  while (Clock::now() < end && std::any_of(ids.begin(), ids.end(), kept))
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  for (uint64_t id : ids) EXPECT_EQ(code_of([&] { s->await(id, std::chrono::milliseconds(0)); }), Code::kNotFound);
  EXPECT_EQ(code_of([&] { s->cancel(ids[1]); }), Code::kNotFound);
  // The purge drops the records, then tells the engine: allow it that moment.
  const auto end_forget = Clock::now() + std::chrono::seconds(5);
  while (engine_jobs_known(*env.engine) != 0 && Clock::now() < end_forget)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(engine_jobs_known(*env.engine), 0u) << "the engine still holds expired jobs";
  const uint64_t x = env.x();
  const uint64_t later = s->submit(env.job({x})).job_id();
  expect_valid(s->await(later, std::nullopt), env.fam, {x});
  EXPECT_EQ(engine_jobs_known(*env.engine), 1u);
}

// ---- observability (issue 21 item 7) --------------------------------------------------------

namespace {

// Whether this machine has the NVIDIA driver's NVML (then the daemon reports "ok: …").
bool nvml_loadable() {
  void* h = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h) ::dlclose(h);
  return h != nullptr;
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

}  // namespace

TEST(Service, StatusShowsBuildHostThroughputAndDurations) {
  Env env;
  auto s = env.service();
  const std::vector<uint64_t> a{env.x()}, b{env.x(), env.x()};
  const uint64_t ja = s->submit(env.job(a)).job_id(), jb = s->submit(env.job(b)).job_id();
  expect_valid(s->await(ja, std::nullopt), env.fam, a);
  expect_valid(s->await(jb, std::nullopt), env.fam, b);
  const v1::StatusReply st = s->status(10);
  EXPECT_FALSE(st.build().version().empty());
  EXPECT_FALSE(st.build().git_commit().empty());
  EXPECT_GT(st.host().memory_total_bytes(), 0u);
  EXPECT_LE(st.host().memory_available_bytes(), st.host().memory_total_bytes());
  EXPECT_GT(st.host().process_resident_bytes(), 0u);
  EXPECT_GT(st.host().process_threads(), 1u);
  if (!nvml_loadable()) {
    EXPECT_EQ(st.nvml().rfind("unavailable: ", 0), 0u) << st.nvml();
  }
  // The simulated device's "VRAM" is a host arena, and it is no GPU.
  ASSERT_EQ(st.devices_size(), 1);
  EXPECT_EQ(st.devices(0).memory(), "host_arena");
  EXPECT_FALSE(st.devices(0).gpu().available());
  EXPECT_EQ(st.devices(0).gpu().reason(), "not a GPU");
  EXPECT_EQ(st.devices(0).gpu().memory_total_bytes(), 0u);
  EXPECT_EQ(st.throughput().jobs(), 2u);
  EXPECT_EQ(st.throughput().partitions(), 3u);
  EXPECT_GT(st.throughput().window_s(), 0);
  EXPECT_NEAR(st.throughput().partitions_per_s(), 3 / st.throughput().window_s(), 1e-9);
  ASSERT_EQ(st.job_durations_size(), 1);
  const v1::DurationStats& jd = st.job_durations(0);
  EXPECT_EQ(jd.name(), "fam");
  EXPECT_EQ(jd.count(), 2u);
  EXPECT_GT(jd.median_s(), 0);
  EXPECT_LE(jd.median_s(), jd.p95_s());
  EXPECT_LE(jd.p95_s(), jd.max_s());
  ASSERT_EQ(st.stage_durations_size(), 5);
  const char* stages[] = {"queued", "wait_vram", "upload", "compute", "finalize"};
  for (int k = 0; k < 5; ++k) {
    EXPECT_EQ(st.stage_durations(k).name(), stages[k]);
    EXPECT_EQ(st.stage_durations(k).count(), 3u) << "one sample per partition";
  }
  const Json j = proto_to_json(st);
  EXPECT_EQ(j["devices"][0]["memory"].str(), "host_arena");
  EXPECT_EQ(j["devices"][0]["gpu"]["available"].boolean_value(), false);
  EXPECT_EQ(j["throughput"]["partitions"].as_u64(), 3u);
}

TEST(Service, MetricsHaveBuildInfoProcessAndHonestLedgerLabels) {
  Env env;
  auto s = env.service("cpu");
  const std::vector<uint64_t> xs{env.x()};
  expect_valid(s->await(s->submit(env.job(xs)).job_id(), std::nullopt), env.fam, xs, "cpu:0");
  const v1::StatusReply st = s->status(1);
  ASSERT_EQ(st.devices_size(), 1);
  EXPECT_EQ(st.devices(0).memory(), "host") << "the CPU device's ledger budgets host RAM, not VRAM";
  EXPECT_FALSE(st.devices(0).gpu().available());
  const std::string m = s->metrics_text();
  // prometheus-cpp writes labels sorted by name.
  EXPECT_TRUE(has(m, "\nsnarkd_build_info{commit=\"" + st.build().git_commit() + "\",compile_check=\"")) << m;
  EXPECT_TRUE(has(m, "\",version=\"" + st.build().version() + "\"} 1\n")) << m;
  for (const char* p : {"\n# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total ",
                        "\nprocess_resident_memory_bytes ", "\nprocess_virtual_memory_bytes ", "\nprocess_open_fds ",
                        "\nprocess_max_fds ", "\nprocess_start_time_seconds ", "\nsnarkd_host_memory_total_bytes ",
                        "\nsnarkd_host_memory_available_bytes ",
                        "\nsnarkd_ledger_capacity_bytes{device=\"cpu:0\",memory=\"host\"} ",
                        "\nsnarkd_ledger_reserved_bytes{device=\"cpu:0\",memory=\"host\"} 0\n",
                        "\nsnarkd_resident_key_bytes{device=\"cpu:0\",memory=\"host\"} 0\n"})
    EXPECT_TRUE(has(m, p)) << p;
  EXPECT_FALSE(has(m, "memory=\"vram\"")) << "no device here has VRAM";
  EXPECT_FALSE(has(m, "snarkd_vram_")) << "the ledger metrics are not named VRAM";
  EXPECT_FALSE(has(m, "\nsnarkd_gpu_utilization_ratio{")) << "no GPU, no GPU series";
  if (!nvml_loadable()) {
    EXPECT_TRUE(has(m, "\nsnarkd_nvml_available 0\n"));
  }
  // process_cpu_seconds_total grows with the proving just done (and never goes down).
  const auto value = [&](const std::string& text, const std::string& name) {
    const size_t at = text.find("\n" + name + " ");
    return at == std::string::npos ? -1.0 : std::stod(text.substr(at + name.size() + 2));
  };
  EXPECT_GT(value(m, "process_cpu_seconds_total"), 0);
  EXPECT_GE(value(s->metrics_text(), "process_cpu_seconds_total"), value(m, "process_cpu_seconds_total"));
  EXPECT_GT(value(m, "process_open_fds"), 2);
}

TEST(Service, DebugLogHasALinePerPartition) {
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  auto previous = spdlog::default_logger();
  auto lg = std::make_shared<spdlog::logger>("observe-test", sink);
  lg->set_pattern("%v");
  lg->set_level(spdlog::level::debug);
  spdlog::set_default_logger(lg);
  {
    Env env;
    auto s = env.service();
    const std::vector<uint64_t> xs{env.x(), env.x()};
    const uint64_t id = s->submit(env.job(xs)).job_id();
    expect_valid(s->await(id, std::nullopt), env.fam, xs);
    s->stop();
    const std::string log = out.str();
    for (int k = 0; k < 2; ++k) {
      const std::string head = "partition_finished job=" + std::to_string(id) + " circuit=fam partition=" +
                               std::to_string(k) + " state=done device=sim:0 worker=0 reserved_on=sim:0 queued_s=";
      const size_t at = log.find(head);
      ASSERT_NE(at, std::string::npos) << log;
      const std::string line = log.substr(at, log.find('\n', at) - at);
      for (const char* f : {" wait_vram_s=", " upload_s=", " compute_s=", " finalize_s=", " phases=\""})
        EXPECT_TRUE(has(line, f)) << line;
      EXPECT_TRUE(parse_event(line)) << "the line splits into fields for the JSON log: " << line;
    }
  }
  spdlog::set_default_logger(previous);
}
