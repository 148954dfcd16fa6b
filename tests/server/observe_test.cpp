// The daemon's observability parts: /proc parsing, the NVML monitor (a missing library, and a
// fake libnvidia-ml built by this directory), the activity window and quantiles, and the JSON
// log lines.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <random>

#include "common/seed.hpp"
#include "snarkd/server/activity.hpp"
#include "snarkd/server/gpu_monitor.hpp"
#include "snarkd/server/host_stats.hpp"
#include "snarkd/server/log_format.hpp"
#include "snarkd/util/json.hpp"

using namespace snarkd;
using namespace snarkd::server;

// ---- /proc ----------------------------------------------------------------------------------

TEST(HostStats, ParsesMeminfoStatusAndStat) {
  const char* meminfo = "MemTotal:       16384000 kB\nMemFree:  100 kB\nMemAvailable:    8192000 kB\n";
  const HostMemory m = parse_meminfo(meminfo);
  EXPECT_EQ(m.total_bytes, 16384000ull * 1024);
  EXPECT_EQ(m.available_bytes, 8192000ull * 1024);
  EXPECT_EQ(parse_meminfo("MemTotal: 5 kB\n").available_bytes, 0u) << "an absent key is 0";
  const char* status = "Name:\tsnarkd\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\nVmRSSx:\t 9 kB\n";
  EXPECT_EQ(parse_status_kib(status, "VmRSS"), 1024u * 1024);
  EXPECT_EQ(parse_status_kib(status, "VmHWM"), 2048u * 1024);
  EXPECT_EQ(parse_status_kib(status, "VmSwap"), 0u);
  EXPECT_EQ(parse_boot_time("cpu  1 2 3\nbtime 1700000000\nprocesses 5\n"), 1700000000.0);
  // A command name with spaces and parentheses: fields are counted from the last ')'.
  const char* stat =
      "4242 (snarkd (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 17 0 1000 123456789 300 "
      "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0\n";
  ProcessStats p;
  ASSERT_TRUE(parse_proc_stat(stat, 100, 4096, 1700000000.0, p));
  EXPECT_DOUBLE_EQ(p.cpu_seconds, 3.0);  // (250 + 50) ticks / 100
  EXPECT_EQ(p.threads, 17u);
  EXPECT_DOUBLE_EQ(p.start_time_unix_s, 1700000010.0);  // btime + 1000 ticks / 100
  EXPECT_EQ(p.virtual_bytes, 123456789u);
  EXPECT_EQ(p.resident_bytes, 300u * 4096);
  EXPECT_FALSE(parse_proc_stat("no parenthesis", 100, 4096, 0, p));
  EXPECT_FALSE(parse_proc_stat("1 (x) S 1 2", 100, 4096, 0, p)) << "too few fields";
}

TEST(HostStats, ReadsThisProcess) {
  const ProcessStats p = read_process_stats();
  EXPECT_GT(p.resident_bytes, 0u);
  EXPECT_GE(p.peak_resident_bytes, p.resident_bytes / 2);  // sampled at different moments
  EXPECT_GT(p.virtual_bytes, 0u);
  EXPECT_GE(p.open_fds, 3u);  // stdin, stdout, stderr at least
  EXPECT_GE(p.max_fds, p.open_fds);
  EXPECT_GE(p.threads, 1u);
  const double now = double(std::time(nullptr));
  EXPECT_GT(p.start_time_unix_s, now - 86400 * 365.0);
  EXPECT_LE(p.start_time_unix_s, now + 5);  // btime is whole seconds
  const HostMemory m = read_host_memory();
  EXPECT_GT(m.total_bytes, 0u);
  EXPECT_LE(m.available_bytes, m.total_bytes);
}

// ---- NVML -----------------------------------------------------------------------------------

TEST(GpuMonitor, AMissingLibraryIsUnavailableNotAnError) {
  GpuMonitor g({{"cuda:0", "0000:17:00.0"}}, "libnvidia-ml-absent-for-this-test.so.1");
  EXPECT_FALSE(g.available());
  EXPECT_EQ(g.nvml_state().rfind("unavailable: ", 0), 0u) << g.nvml_state();
  EXPECT_NE(g.nvml_state().find("libnvidia-ml-absent-for-this-test.so.1"), std::string::npos) << g.nvml_state();
  const GpuSample s = g.sample("cuda:0");
  EXPECT_FALSE(s.available);
  EXPECT_EQ(s.reason.rfind("NVML unavailable: ", 0), 0u) << s.reason;
  EXPECT_EQ(g.sample("cpu:0").reason, "not a GPU");
  g.refresh();  // no sampler thread: returns at once
  EXPECT_EQ(g.passes(), 1u);
}

TEST(GpuMonitor, SamplesTheGpuAtItsBusIdOnItsOwnThread) {
  // An hour's period: the only passes are the constructor's and the ones refresh() asks for.
  GpuMonitor g({{"cuda:0", "0000:17:00.0"}, {"cuda:1", "0000:99:00.0"}, {"cuda:2", ""}}, SNARKD_FAKE_NVML,
               std::chrono::hours(1));
  ASSERT_TRUE(g.available()) << g.nvml_state();
  EXPECT_EQ(g.nvml_state(), "ok: driver 999.1-fake");
  const GpuSample a = g.sample("cuda:0");
  ASSERT_TRUE(a.available) << a.reason;
  EXPECT_EQ(a.name, "Fake H200");
  EXPECT_EQ(a.memory_total_bytes, 141ull << 30);
  EXPECT_EQ(a.memory_used_bytes, 20ull << 30);
  EXPECT_DOUBLE_EQ(a.memory_utilization, 0.40);
  EXPECT_DOUBLE_EQ(a.temperature_c, 55);
  EXPECT_DOUBLE_EQ(a.power_w, 0) << "not supported by the board: 0, the sample still available";
  EXPECT_EQ(g.sample("cuda:1").reason, "NVML has no device at PCI bus id 0000:99:00.0");
  EXPECT_EQ(g.sample("cuda:2").reason, "the CUDA device's PCI bus id is unknown");
  EXPECT_EQ(g.passes(), 1u);
  g.refresh();
  EXPECT_EQ(g.passes(), 2u);
  const GpuSample b = g.sample("cuda:0");
  EXPECT_NEAR(b.utilization - a.utilization, 0.01, 1e-9) << "a fresh sample (the fake counts queries)";
  EXPECT_GE(b.taken, a.taken);
  g.refresh();
  g.refresh();
  EXPECT_EQ(g.passes(), 4u);
}

TEST(GpuMonitor, AFailingInitIsUnavailableWithNvmlsReason) {
  ::setenv("SNARKD_FAKE_NVML_INIT_FAIL", "1", 1);
  GpuMonitor g({{"cuda:0", "0000:17:00.0"}}, SNARKD_FAKE_NVML);
  ::unsetenv("SNARKD_FAKE_NVML_INIT_FAIL");
  EXPECT_FALSE(g.available());
  EXPECT_EQ(g.nvml_state(), "unavailable: nvmlInit: Driver Not Loaded");
  EXPECT_EQ(g.sample("cuda:0").reason, "NVML unavailable: nvmlInit: Driver Not Loaded");
}

// ---- activity -------------------------------------------------------------------------------

TEST(Activity, NearestRankQuantiles) {
  std::vector<double> v;
  EXPECT_EQ(nearest_rank(v, 0.5), 0);
  v = {3};
  EXPECT_EQ(nearest_rank(v, 0.5), 3);
  EXPECT_EQ(nearest_rank(v, 0.95), 3);
  // 1..100 shuffled: the median is the 50th value, p95 the 95th.
  std::mt19937_64 rng = test::rng("activity");
  v.clear();
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  std::shuffle(v.begin(), v.end(), rng);
  const Quantiles q = quantiles_of("c", v);
  EXPECT_EQ(q.count, 100u);
  EXPECT_EQ(q.median, 50);
  EXPECT_EQ(q.p95, 95);
  EXPECT_EQ(q.max, 100);
  v = {1, 2, 3, 4};
  EXPECT_EQ(nearest_rank(v, 0.5), 2);
  EXPECT_EQ(nearest_rank(v, 0.95), 4);
}

TEST(Activity, ThroughputOverTheWindowAndBoundedSamples) {
  Activity a(60);
  EXPECT_EQ(a.throughput(0).window_s, 0);
  EXPECT_EQ(a.throughput(0).jobs_per_s, 0);
  a.record_job(10, "porep", 30, 10, {{"compute", 1.5}, {"queued", 0}});
  a.record_job(20, "porep", 40, 10, {{"compute", 2.5}, {"queued", 0.5}});
  a.record_job(25, "tiny", 0.5, 1, {});
  ThroughputStats t = a.throughput(30);  // younger than the window: rates over 30 s
  EXPECT_EQ(t.window_s, 30);
  EXPECT_EQ(t.jobs, 3u);
  EXPECT_EQ(t.partitions, 21u);
  EXPECT_DOUBLE_EQ(t.partitions_per_s, 21.0 / 30);
  t = a.throughput(75);  // the job at 10 s left the window [15, 75]
  EXPECT_EQ(t.window_s, 60);
  EXPECT_EQ(t.jobs, 2u);
  EXPECT_EQ(t.partitions, 11u);
  EXPECT_DOUBLE_EQ(t.jobs_per_s, 2.0 / 60);
  EXPECT_EQ(a.throughput(1000).jobs, 0u);
  const auto jobs = a.job_durations();
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].name, "porep");
  EXPECT_EQ(jobs[0].count, 2u);
  EXPECT_EQ(jobs[0].median, 30);
  EXPECT_EQ(jobs[0].max, 40);
  const auto stages = a.stage_durations();
  ASSERT_EQ(stages.size(), 2u);
  EXPECT_EQ(stages[0].name, "compute");
  EXPECT_EQ(stages[1].name, "queued");
  EXPECT_EQ(stages[1].median, 0) << "0 s is a sample (no wait), not a missing one";
  a.forget_circuit("tiny");
  EXPECT_EQ(a.job_durations().size(), 1u);
  for (int i = 0; i < int(Activity::kKeep) + 10; ++i) a.record_job(2000 + i, "porep", i, 1, {});
  EXPECT_EQ(a.job_durations()[0].count, Activity::kKeep) << "only the most recent are kept";
  EXPECT_EQ(a.job_durations()[0].max, double(Activity::kKeep + 9));
}

// ---- logs -----------------------------------------------------------------------------------

TEST(LogFormat, SplitsEventsIntoFields) {
  auto e = parse_event("job_finished job=3 circuit=porep-32g state=done seconds=0.120");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->event, "job_finished");
  ASSERT_EQ(e->fields.size(), 4u);
  EXPECT_EQ(e->fields[1], (std::pair<std::string, std::string>{"circuit", "porep-32g"}));
  e = parse_event("stopped");
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->fields.empty());
  // Error texts are quoted and may hold quotes and '=' themselves; a quote ends the value only
  // before the end or " key=" (a text holding '" k=' splits there: "msg" keeps it whole).
  e = parse_event(R"(journal_finish_failed job=7 error="disk "full" a = b, x=1" path=/x)");
  ASSERT_TRUE(e);
  ASSERT_EQ(e->fields.size(), 3u);
  EXPECT_EQ(e->fields[1].second, R"(disk "full" a = b, x=1)");
  EXPECT_EQ(e->fields[2].second, "/x");
  e = parse_event(R"(ev a="x" b="y")");
  ASSERT_TRUE(e);
  ASSERT_EQ(e->fields.size(), 2u);
  EXPECT_EQ(e->fields[0].second, "x");
  EXPECT_EQ(e->fields[1].second, "y");
  e = parse_event(R"(x empty= quoted="")");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->fields[0].second, "");
  EXPECT_EQ(e->fields[1].second, "");
  for (const char* bad : {"", " lead", "journal: cannot open", "ev key", "ev k=\"unterminated", "ev k=v  two"})
    EXPECT_FALSE(parse_event(bad)) << bad;
}

TEST(LogFormat, EveryLineIsOneValidJsonObject) {
  const auto t = std::chrono::system_clock::time_point(std::chrono::milliseconds(1767323045678));  // 2026-01-02
  const std::string line = json_log_line(t, "info", 42, "job_finished job=3 error=\"a \\\"b\\\"\"");
  EXPECT_EQ(line.find('\n'), std::string::npos);
  const Json j = Json::parse(line);
  EXPECT_EQ(j["ts"].str(), "2026-01-02T03:04:05.678Z");
  EXPECT_EQ(j["level"].str(), "info");
  EXPECT_EQ(j["thread"].as_u64(), 42u);
  EXPECT_EQ(j["event"].str(), "job_finished");
  EXPECT_EQ(j["fields"]["job"].str(), "3") << "values stay strings";
  EXPECT_EQ(j["msg"].str(), "job_finished job=3 error=\"a \\\"b\\\"\"");
  // Messages that are not events, with newlines, control bytes, backslashes and bytes that are
  // not UTF-8 (client text in an error): still one JSON object per line, "msg" kept.
  const std::string nasty[] = {"plain text: no fields", "multi\nline\r\n", std::string("nul\0byte", 8),
                               "tab\tand\\backslash", "bad utf8 \xff\xfe\xc3", "ev k=\"\x01\x1f\""};
  for (const std::string& m : nasty) {
    const std::string l = json_log_line(t, "warning", 1, m);
    EXPECT_EQ(l.find('\n'), std::string::npos) << l;
    Json parsed;
    ASSERT_NO_THROW(parsed = Json::parse(l)) << l;
    EXPECT_TRUE(parsed.find("msg") != nullptr);
    EXPECT_EQ(parsed["level"].str(), "warning");
  }
  EXPECT_EQ(Json::parse(json_log_line(t, "info", 1, "plain text: no fields")).find("event"), nullptr);
}
