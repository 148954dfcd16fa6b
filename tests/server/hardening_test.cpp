// What an attacker or an unlucky operator found (issue 17), in-process: awaits that hold no
// thread, cancel that stops running work (and lets evict and drain go on at once), key and
// witness files only from their directories and only regular files (one answer for missing and
// not allowed), capped strings, key/circuit counts checked before allocating, private file
// modes whatever the umask, a config whose circuit fails to load, the bounded RPC pool and the
// HTTP port's whole-request deadline. Simulated stages here last 10 minutes: a test that waited
// one out would hit ctest's limit instead of passing.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include "common/seed.hpp"
#include "engine/fixture.hpp"
#include "snarkd/engine/devices.hpp"
#include "snarkd/groth16/bellperson_io.hpp"
#include "snarkd/r1cs/checksum.hpp"
#include "snarkd/r1cs/csr_file.hpp"
#include "snarkd/server/files.hpp"
#include "snarkd/server/http.hpp"
#include "snarkd/server/rpc_pool.hpp"
#include "snarkd/server/service.hpp"
#include "snarkd/server/spool.hpp"

namespace fs = std::filesystem;
using namespace snarkd;
using namespace snarkd::server;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

constexpr double kForeverMs = 600e3;

struct Env {
  std::string dir;
  test::Family fam = test::make_family(6, 11);
  ServerConfig cfg;
  std::mt19937_64 rng = test::rng("hardening");

  explicit Env(double sim_compute_ms = 0) {
    char t[] = "/tmp/snarkd-hardening-test-XXXXXX";
    dir = ::mkdtemp(t);
    fs::create_directories(dir + "/keys");
    r1cs::write_csr_file(dir + "/keys/c.csr", *fam.circuit);
    groth16::write_params(dir + "/keys/k.params", *fam.pk);
    cfg.state_dir = dir + "/state";
    cfg.devices = "sim";
    cfg.sim_compute_ms = sim_compute_ms;
    cfg.submit_wait_ms = 1000;
    cfg.circuits = {CircuitSpec{"fam", dir + "/keys/k.params", dir + "/keys/c.csr", "", false}};
  }
  ~Env() { fs::remove_all(dir); }

  std::unique_ptr<Service> service() {
    engine::DeviceOptions d;
    d.sim.compute_s = cfg.sim_compute_ms / 1e3;
    engine::EngineConfig e;
    e.workers_per_device = 1;
    e.record_timeline = false;
    auto s = std::make_unique<Service>(cfg, std::make_unique<engine::Engine>(engine::make_devices("sim", d), e),
                                       std::make_unique<Journal>(cfg.state_dir));
    s->start();
    return s;
  }
  v1::SubmitRequest job(uint64_t x) {
    v1::SubmitRequest r;
    r.set_circuit_id("fam");
    const auto bytes = encode_fr_montgomery(fam.witness(x));
    r.add_partitions()->set_data(std::string(bytes.begin(), bytes.end()));
    return r;
  }
  uint64_t x() { return rng() % 60000 + 1; }
};

std::pair<Code, std::string> error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return {classify(e), e.what()};
  }
  return {Code::kInternal, "(no error)"};
}

void wait_stage(Service& s, const std::string& stage) {
  const auto end = Clock::now() + 60s;
  while (Clock::now() < end) {
    const v1::StatusReply st = s.status(1);
    if (!st.devices(0).workers().empty() && st.devices(0).workers(0).stage() == stage) return;
    std::this_thread::sleep_for(2ms);
  }
  FAIL() << "no worker reached " << stage;
}

mode_t mode_of(const std::string& p) {
  struct stat st;
  EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
  return st.st_mode & 07777;
}

}  // namespace

// ---- item 3: cancel stops running work ------------------------------------------------------

TEST(Hardening, CancelStopsTheRunningPartitionSoEvictAndDrainGoOn) {
  Env env(kForeverMs);
  auto s = env.service();
  const uint64_t id = s->submit(env.job(env.x())).job_id();
  wait_stage(*s, "compute");
  const auto t0 = Clock::now();
  EXPECT_EQ(s->cancel(id).state(), v1::JOB_STATE_CANCELLED);
  EXPECT_LT(Clock::now() - t0, 60s) << "Cancel waited for the stage to end";
  const v1::StatusReply st = s->status(1);
  EXPECT_EQ(st.in_flight_partitions(), 0u) << "the partition computes on after Cancel replied";
  EXPECT_EQ(st.devices(0).reserved_bytes(), 0u);
  s->evict("fam");  // right after the cancel: nothing of the circuit is in use
  const std::string m = s->metrics_text();
  EXPECT_NE(m.find("snarkd_cancel_stop_seconds_count 1\n"), std::string::npos) << m;
}

TEST(Hardening, DrainDoesNotWaitForCancelledWork) {
  Env env(kForeverMs);
  auto s = env.service();
  const uint64_t id = s->submit(env.job(env.x())).job_id();
  wait_stage(*s, "compute");
  s->begin_drain();
  std::string why;
  EXPECT_FALSE(s->ready(&why));
  EXPECT_EQ(why, "draining");
  s->cancel(id);
  EXPECT_TRUE(s->drain(60));
}

// ---- item 4: awaits hold no thread ----------------------------------------------------------

TEST(Hardening, AwaitsAreAnsweredWithoutWaitingThreads) {
  Env env(kForeverMs);
  auto s = env.service();
  const uint64_t id = s->submit(env.job(env.x())).job_id();
  wait_stage(*s, "compute");
  std::atomic<int> answered{0}, cancelled{0};
  std::vector<uint64_t> tickets;
  for (int k = 0; k < 500; ++k)  // each registers and returns at once on this one thread
    tickets.push_back(s->await_async(id, std::nullopt, [&](v1::JobResult r) {
      ++answered;
      cancelled += r.state() == v1::JOB_STATE_CANCELLED;
    }));
  for (size_t k = 0; k < 100; ++k) s->forget_await(tickets[k]);  // those clients went away
  std::promise<v1::JobResult> timed;
  s->await_async(id, 20ms, [&](v1::JobResult r) { timed.set_value(std::move(r)); });
  EXPECT_EQ(timed.get_future().get().state(), v1::JOB_STATE_RUNNING) << "the timer answers at the deadline";
  EXPECT_EQ(answered.load(), 0);
  s->cancel(id);  // the end is journaled (by Cancel or the watcher): every remaining waiter is answered
  const auto end = Clock::now() + 60s;  // by the thread that journaled it, maybe still at it
  while (answered < 400 && Clock::now() < end) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(answered.load(), 400);
  EXPECT_EQ(cancelled.load(), 400);
  EXPECT_EQ(error_of([&] { s->await_async(999999, std::nullopt, [](v1::JobResult) {}); }).first, Code::kNotFound);
}

TEST(Hardening, StopAnswersEveryWaiter) {
  Env env(kForeverMs);
  auto s = env.service();
  const uint64_t id = s->submit(env.job(env.x())).job_id();
  std::promise<v1::JobResult> p;
  s->await_async(id, std::nullopt, [&](v1::JobResult r) { p.set_value(std::move(r)); });
  s->stop();
  EXPECT_LT(p.get_future().get().state(), v1::JOB_STATE_DONE);
}

TEST(Hardening, RpcPoolIsBoundedAndRunsWhatItAccepted) {
  std::promise<void> release;
  std::shared_future<void> gate = release.get_future().share();
  std::atomic<int> ran{0};
  {
    RpcPool pool("test-rpc", 2, 1);
    EXPECT_TRUE(pool.try_post([&] { gate.wait(), ++ran; }));
    EXPECT_TRUE(pool.try_post([&] { gate.wait(), ++ran; }));
    EXPECT_TRUE(pool.try_post([&] { ++ran; }));   // the one queue place
    EXPECT_FALSE(pool.try_post([&] { ++ran; }));  // two busy, one waiting: refused at once
    release.set_value();
  }
  EXPECT_EQ(ran.load(), 3);
}

// ---- item 5: files only from their directories, one answer ----------------------------------

TEST(Hardening, PreloadReadsOnlyRegularFilesUnderKeyDirs) {
  Env env;
  auto s0 = env.service();
  v1::PreloadKeyRequest p;
  p.set_circuit_id("k2");
  p.set_params_path(env.dir + "/keys/k.params");
  p.set_circuit_path(env.dir + "/keys/c.csr");
  EXPECT_EQ(error_of([&] { s0->preload(p); }).first, Code::kPermissionDenied) << "no key_dirs: PreloadKey is off";
  s0.reset();
  env.cfg.key_dirs = {env.dir + "/keys"};
  auto s = env.service();
  ASSERT_EQ(::mkfifo((env.dir + "/keys/fifo").c_str(), 0600), 0);
  std::ofstream(env.dir + "/outside.params") << "x";
  const std::string shape = "is not a readable regular file under server.key_dirs";
  for (const std::string& bad : {env.dir + "/outside.params", env.dir + "/keys/missing.params", env.dir + "/keys/fifo",
                                 env.dir + "/keys/../outside.params", std::string("/proc/self/environ"),
                                 std::string("/etc/shadow"), std::string("/dev/zero"), env.dir + "/keys"}) {
    p.set_params_path(bad);
    const auto t0 = Clock::now();
    const auto [code, msg] = error_of([&] { s->preload(p); });
    EXPECT_LT(Clock::now() - t0, 30s) << bad << " blocked the call";
    EXPECT_EQ(code, Code::kNotFound) << bad;
    EXPECT_EQ(msg, "key file '" + bad + "' " + shape) << "one answer for every way to fail";
  }
  p.set_params_path(env.dir + "/keys/k.params");
  EXPECT_EQ(s->preload(p).num_vars(), env.fam.circuit->num_vars());
  // A restart re-checks the journaled key against key_dirs: moved out of them, it fails to load.
  s.reset();
  env.cfg.key_dirs = {env.dir + "/state"};
  s = env.service();
  const v1::StatusReply st = s->status(1);
  ASSERT_EQ(st.failed_circuits_size(), 1);
  EXPECT_EQ(st.failed_circuits(0).circuit_id(), "k2");
  EXPECT_FALSE(st.failed_circuits(0).from_config());
}

TEST(Hardening, WitnessPathsGiveOneAnswerAndNeverBlock) {
  Env env;
  env.cfg.witness_dirs = {env.dir + "/allowed"};
  fs::create_directories(env.dir + "/allowed");
  ASSERT_EQ(::mkfifo((env.dir + "/allowed/fifo").c_str(), 0600), 0);
  const auto bytes = encode_fr_montgomery(env.fam.witness(5));
  std::ofstream(env.dir + "/outside.fr", std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  auto s = env.service();
  std::string first;
  for (const std::string& bad : {env.dir + "/outside.fr", env.dir + "/allowed/missing.fr", env.dir + "/allowed/fifo",
                                 env.dir + "/allowed", std::string("/proc/self/environ")}) {
    v1::SubmitRequest r = env.job(1);
    r.mutable_partitions(0)->set_path(bad);
    const auto [code, msg] = error_of([&] { s->submit(r); });
    EXPECT_EQ(code, Code::kNotFound) << bad;
    EXPECT_EQ(msg, "witness path '" + bad + "' is not a readable regular file under server.witness_dirs");
  }
  EXPECT_TRUE(fs::is_empty(env.cfg.state_dir + "/spool/.staging"));
}

// ---- item 6: capped strings, counts checked before allocating --------------------------------

TEST(Hardening, EveryStringFieldIsCapped) {
  Env env;
  env.cfg.witness_dirs = {env.dir};
  env.cfg.key_dirs = {env.dir};
  auto s = env.service();
  v1::SubmitRequest r = env.job(3);
  r.set_circuit_id(std::string(8000, 'c'));
  auto [code, msg] = error_of([&] { s->submit(r); });
  EXPECT_EQ(code, Code::kInvalidArgument);
  EXPECT_LT(msg.size(), 200u) << "the message must not echo the 8,000 bytes";
  r.set_circuit_id("fam\nforged_log_line=1");
  EXPECT_EQ(error_of([&] { s->submit(r); }).first, Code::kInvalidArgument);
  r.set_circuit_id("fam");
  r.set_request_id(std::string(129, 'r'));
  EXPECT_EQ(error_of([&] { s->submit(r); }).first, Code::kInvalidArgument);
  r.set_request_id("");
  r.mutable_partitions(0)->set_path("/" + std::string(5000, 'p'));
  std::tie(code, msg) = error_of([&] { s->submit(r); });
  EXPECT_EQ(code, Code::kInvalidArgument);
  EXPECT_LT(msg.size(), 200u);
  EXPECT_EQ(error_of([&] { s->evict(std::string(300, 'e')); }).first, Code::kInvalidArgument);
  v1::PreloadKeyRequest p;
  p.set_circuit_id(std::string(129, 'k'));
  p.set_zkey_path(env.dir + "/k.zkey");
  EXPECT_EQ(error_of([&] { s->preload(p); }).first, Code::kInvalidArgument);
  p.set_circuit_id("k");
  p.set_zkey_path(env.dir + "/" + std::string(5000, 'z'));
  EXPECT_EQ(error_of([&] { s->preload(p); }).first, Code::kInvalidArgument);
  p.set_zkey_path(env.dir + "/a\x01.zkey");
  EXPECT_EQ(error_of([&] { s->preload(p); }).first, Code::kInvalidArgument);
}

// A 1 KiB circuit file claiming 2^32 variables: refused from the key's own counts before the
// per-variable density bitmaps (1 GiB at 2^32) are allocated.
TEST(Hardening, HugeCircuitCountsAreRefusedBeforeAllocating) {
  Env env;
  env.cfg.key_dirs = {env.dir + "/keys"};
  std::vector<char> b;
  {
    std::ifstream f(env.dir + "/keys/c.csr", std::ios::binary);
    b.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  const uint64_t num_aux = (uint64_t(1) << 32) - 1 - env.fam.circuit->num_inputs;  // header: u64 at offset 32
  std::memcpy(b.data() + 32, &num_aux, 8);
  const uint64_t sum = r1cs::checksum64(b.data(), 72);
  std::memcpy(b.data() + 72, &sum, 8);
  std::ofstream(env.dir + "/keys/huge.csr", std::ios::binary).write(b.data(), std::streamsize(b.size()));
  auto s = env.service();
  rusage before{}, after{};
  ::getrusage(RUSAGE_SELF, &before);
  v1::PreloadKeyRequest p;
  p.set_circuit_id("huge");
  p.set_params_path(env.dir + "/keys/k.params");
  p.set_circuit_path(env.dir + "/keys/huge.csr");
  const auto [code, msg] = error_of([&] { s->preload(p); });
  ::getrusage(RUSAGE_SELF, &after);
  EXPECT_EQ(code, Code::kInvalidArgument) << msg;
  EXPECT_NE(msg.find("the circuit claims"), std::string::npos) << msg;
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 128 * 1024) << "KiB of peak RSS added by a refused load";
}

// ---- item 7: modes whatever the umask --------------------------------------------------------

TEST(Hardening, StateFilesArePrivateWhateverTheUmask) {
  Env env;
  const mode_t old = ::umask(0);
  {
    Journal j(env.cfg.state_dir);
    const uint64_t id = j.allocate_job_id();
    JournalJob jj;
    jj.id = id;
    jj.circuit_id = "c";
    jj.formats = {WitnessFormat::kWtns};
    j.insert_job(jj);
    const std::string staging = j.new_staging_dir();
    spool_write(staging + "/0.wtns", "abc");
    EXPECT_EQ(mode_of(staging), 0700u);
    EXPECT_EQ(mode_of(staging + "/0.wtns"), 0600u);
    j.commit_spool(staging, id);
    for (const char* d : {"", "/spool", "/spool/.staging"}) EXPECT_EQ(mode_of(env.cfg.state_dir + d), 0700u) << d;
    for (const char* f : {"/journal.db", "/journal.db-wal", "/journal.db-shm"})
      EXPECT_EQ(mode_of(env.cfg.state_dir + f), 0600u) << f;
  }
  write_file_atomically(env.dir + "/ports.json", "{}", 0600);
  EXPECT_EQ(mode_of(env.dir + "/ports.json"), 0600u);
  std::ofstream(env.dir + "/old.log") << "x";  // created 0666 under umask 0
  ensure_file_mode(env.dir + "/old.log", 0640);
  EXPECT_EQ(mode_of(env.dir + "/old.log"), 0640u);
  ::chmod(env.cfg.state_dir.c_str(), 0755);  // an existing state dir is tightened at open
  Journal again(env.cfg.state_dir);
  EXPECT_EQ(mode_of(env.cfg.state_dir), 0700u);
  ::umask(old);
}

// ---- item 9: a circuit that fails to load is visible and keeps the daemon not ready ----------

TEST(Hardening, AFailedCircuitIsListedUntilReloadOrEvict) {
  Env env;
  env.cfg.circuits.push_back(CircuitSpec{"late", "", "", env.dir + "/keys/late.zkey", false});
  auto s = env.service();
  v1::StatusReply st = s->status(1);
  ASSERT_EQ(st.failed_circuits_size(), 1);
  EXPECT_EQ(st.failed_circuits(0).circuit_id(), "late");
  EXPECT_TRUE(st.failed_circuits(0).from_config());
  EXPECT_NE(st.failed_circuits(0).error().find("late.zkey"), std::string::npos);
  std::string why;
  EXPECT_FALSE(s->ready(&why));
  EXPECT_NE(why.find("circuit late failed to load"), std::string::npos) << why;
  EXPECT_NE(s->metrics_text().find("snarkd_circuits_failed 1\n"), std::string::npos);
  v1::SubmitRequest r = env.job(2);
  r.set_circuit_id("late");
  const auto [code, msg] = error_of([&] { s->submit(r); });
  EXPECT_EQ(code, Code::kFailedPrecondition);
  EXPECT_NE(msg.find("failed to load"), std::string::npos) << msg;
  // The other circuit serves meanwhile.
  EXPECT_EQ(s->await(s->submit(env.job(7)).job_id(), std::nullopt).state(), v1::JOB_STATE_DONE);
  // Fixed on disk (here: declared with files that load) and reloaded: ready.
  ServerConfig next = env.cfg;
  next.circuits[1] = CircuitSpec{"late", env.dir + "/keys/k.params", env.dir + "/keys/c.csr", "", false};
  EXPECT_TRUE(s->reload(next).empty());
  EXPECT_TRUE(s->ready(nullptr));
  EXPECT_EQ(s->status(1).failed_circuits_size(), 0);
  // Broken again under a new id, then evicted: ready again.
  next.circuits.push_back(CircuitSpec{"gone", "", "", env.dir + "/keys/gone.zkey", false});
  EXPECT_EQ(s->reload(next).size(), 1u);
  EXPECT_FALSE(s->ready(nullptr));
  s->evict("gone");
  EXPECT_TRUE(s->ready(nullptr));
}

// ---- item 4: the HTTP port ------------------------------------------------------------------

namespace {

int connect_to(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  return fd;
}

std::string get(uint16_t port, const std::string& path) {
  const int fd = connect_to(port);
  const std::string req = "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n";
  (void)!::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) out.append(buf, size_t(n));
  ::close(fd);
  return out;
}

}  // namespace

// More slow clients than threads, each sending a header byte well within any per-read timeout:
// the whole-request deadline closes them, and a scrape is answered.
TEST(Hardening, SlowHttpClientsAreCutOffAtTheDeadline) {
  HttpOptions opt;
  opt.workers = 2;
  opt.queue = 8;
  opt.deadline = 1500ms;
  const HttpHandler h = [](const std::string& p) { return HttpResponse{200, "text/plain", "ok " + p}; };
  HttpServer server("127.0.0.1:0", h, opt);
  std::atomic<bool> stop{false};
  std::atomic<int> closed_by_server{0};
  std::vector<std::thread> slow;
  for (int k = 0; k < 4; ++k)
    slow.emplace_back([&] {
      const int fd = connect_to(server.port());
      const std::string head = "GET /slow HTTP/1.1\r\nX-Slow: " + std::string(1000, 'a');
      for (size_t i = 0; i < head.size() && !stop; ++i) {
        if (::send(fd, &head[i], 1, MSG_NOSIGNAL) != 1) {
          ++closed_by_server;
          break;
        }
        std::this_thread::sleep_for(100ms);
      }
      ::close(fd);
    });
  std::this_thread::sleep_for(200ms);  // the slow ones hold both threads first (not required to pass)
  const std::string reply = get(server.port(), "/metrics");
  EXPECT_NE(reply.find("200 OK"), std::string::npos) << reply;
  EXPECT_NE(reply.find("ok /metrics"), std::string::npos) << reply;
  for (int i = 0; i < 600 && closed_by_server < 4; ++i) std::this_thread::sleep_for(100ms);
  stop = true;
  for (auto& t : slow) t.join();
  EXPECT_EQ(closed_by_server.load(), 4) << "slow clients kept their connections past the deadline";
}

TEST(Hardening, HttpParsesWithHttplibAndRefusesOtherMethods) {
  const HttpHandler h = [](const std::string& p) { return HttpResponse{200, "text/plain", "p=" + p}; };
  const std::string ok = http_response_for("GET /status?x=1 HTTP/1.1\r\nHost: a\r\n\r\n", h);
  EXPECT_EQ(ok.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << ok;
  EXPECT_NE(ok.find("Cache-Control: no-store\r\n"), std::string::npos) << ok;
  EXPECT_EQ(ok.substr(ok.size() - 9), "p=/status");
  EXPECT_EQ(http_response_for("DELETE /x HTTP/1.1\r\n\r\n", h).rfind("HTTP/1.1 405", 0), 0u);
  const std::string big = http_response_for("GET /x HTTP/1.1\r\nX: " + std::string(20000, 'a') + "\r\n\r\n", h);
  EXPECT_EQ(big.rfind("HTTP/1.1 200", 0), std::string::npos) << "a head over the limit is not served";
}
