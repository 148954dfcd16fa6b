// Claim throughput of one PostgreSQL: C claimer processes, each running the daemon's own
// ClusterStore code (claim → witness fetch → complete with the fencing token; the last partition
// of a job finishes it) against a queue of pre-submitted partitions, with the proving replaced by
// a fixed 192-byte result (a simulated device taking no time: the database's worst case).
//
//   cluster_bench --database URL [--claimers 16] [--jobs 2000] [--partitions-per-job 10]
//                 [--batch 4] [--batched] [--witness-bytes 1024] [--schema snarkd_bench] [--json OUT]
//   cluster_bench --database URL --check-fencing    (complete_many's fencing, step by step)
//
// Prints partitions claimed + completed per second over the whole run (first claim to the
// queue's end), the medians of each step, and checks the result: every partition completed once.
// tests/server/cluster_bench.sh starts a throwaway database and runs it (docs/SCALING.md).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "snarkd/server/cluster_store.hpp"

using namespace snarkd::server;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  std::string database, schema = "snarkd_bench", json;
  uint32_t claimers = 16, jobs = 2000, per_job = 10, batch = 4, witness_bytes = 1024;
  bool batched = false;
};

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + long(v.size() / 2), v.end());
  return v[v.size() / 2];
}

ClusterStore::Options store_options(const Options& o, const std::string& name) {
  ClusterStore::Options s;
  s.conninfo = o.database;
  s.schema = o.schema;
  s.application_name = name;
  s.pool_size = 2;
  return s;
}

// A fresh schema and the queue: jobs × per_job partitions, witnesses in the database.
void prepare(const Options& o, const std::string& witness_file) {
  {
    ClusterStore s(store_options(o, "cluster_bench setup"));
    s.with([&](snarkd::server::pg::Conn& c) { c.exec("DROP SCHEMA IF EXISTS " + o.schema + " CASCADE"); });
    s.migrate();
    const int64_t host = s.register_host({"submitter", "bench", "-", "", ::getpid(), 0, 0});
    const auto t0 = Clock::now();
    for (uint32_t j = 0; j < o.jobs; ++j) {
      ClusterNewJob nj;
      nj.request_id = "bench-" + std::to_string(j);
      nj.circuit_id = "bench";
      nj.key_hash = "bench-key";
      nj.priority = 1 + int(j % 4);
      nj.host = host;
      for (uint32_t k = 0; k < o.per_job; ++k)
        nj.partitions.push_back({WitnessFormat::kFrMontgomery, o.witness_bytes, witness_file});
      s.accept(nj);
    }
    std::printf("queued %u jobs × %u partitions in %.1f s\n", o.jobs, o.per_job, ms_since(t0) / 1e3);
  }
}

// One claimer: until the queue is empty. Writes "claims completes claim_ms fetch_ms complete_ms".
void claimer(const Options& o, int id, int start_fd, int out_fd) {
  ClusterStore s(store_options(o, "cluster_bench " + std::to_string(id)));
  const int64_t host = s.register_host({"claimer-" + std::to_string(id), "bench", "sim", "bench", ::getpid(), 1, 0});
  s.with([](snarkd::server::pg::Conn&) {});  // connected before the start
  char go;
  if (::read(start_fd, &go, 1) != 1) _exit(3);
  snarkd::v1::PartitionResult r;
  r.set_stage(snarkd::v1::PARTITION_STAGE_PROVEN);
  r.set_proof(std::string(192, '\x5a'));
  r.add_public_inputs("33");
  r.set_device("claimer-" + std::to_string(id) + "/sim:0");
  const std::string blob = r.SerializeAsString();
  std::vector<double> claim_ms, fetch_ms, complete_ms;
  uint64_t completes = 0, fenced = 0;
  for (;;) {
    auto t0 = Clock::now();
    const std::vector<ClusterClaim> got = s.claim(host, {"bench-key"}, o.batch, 60);
    claim_ms.push_back(ms_since(t0));
    if (got.empty()) break;
    if (o.batched) {  // the daemon's path: one round trip for the witnesses, one transaction for the results
      t0 = Clock::now();
      if (s.witnesses(got).size() != got.size()) _exit(4);
      fetch_ms.push_back(ms_since(t0));
      std::vector<ClusterResult> rs;
      for (const ClusterClaim& c : got) rs.push_back(ClusterResult{c, blob, true});
      t0 = Clock::now();
      for (ClusterOutcome x : s.complete_many(host, rs, nullptr)) fenced += x == ClusterOutcome::kFenced;
      complete_ms.push_back(ms_since(t0));
      completes += got.size();
      continue;
    }
    for (const ClusterClaim& c : got) {
      t0 = Clock::now();
      const std::string w = s.witness(c);
      fetch_ms.push_back(ms_since(t0));
      t0 = Clock::now();
      fenced += s.complete(host, c, blob, true, nullptr) == ClusterOutcome::kFenced;
      complete_ms.push_back(ms_since(t0));
      ++completes;
    }
  }
  const std::string line = std::to_string(claim_ms.size()) + " " + std::to_string(completes) + " " +
                           std::to_string(fenced) + " " + std::to_string(median(claim_ms)) + " " +
                           std::to_string(median(fetch_ms)) + " " + std::to_string(median(complete_ms)) + "\n";
  (void)!::write(out_fd, line.data(), line.size());
}

// --check-fencing: complete_many's guarantees on a fresh schema, step by step (no clock): a batch
// holding two live claims and one whose lease another host took over records only the live two;
// the job finishes only when its last partition lands; replaying the batch (a commit whose answer
// was lost) is recognised, not counted again. cluster_test.sh runs it.
int check_fencing(const Options& o, const std::string& witness_file) {
  ClusterStore s(store_options(o, "cluster_bench check"));
  s.with([&](snarkd::server::pg::Conn& c) { c.exec("DROP SCHEMA IF EXISTS " + o.schema + " CASCADE"); });
  s.migrate();
  const int64_t a = s.register_host({"a", "bench", "-", "", ::getpid(), 1, 0});
  const int64_t b = s.register_host({"b", "bench", "-", "", ::getpid(), 1, 0});
  ClusterNewJob nj;
  nj.request_id = "fencing";
  nj.circuit_id = "bench";
  nj.key_hash = "bench-key";
  nj.priority = 2;
  nj.host = a;
  for (int k = 0; k < 3; ++k) nj.partitions.push_back({WitnessFormat::kFrMontgomery, o.witness_bytes, witness_file});
  const uint64_t id = s.accept(nj).id;
  int bad = 0;
  auto expect = [&](bool ok, const std::string& what) {
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
    bad += !ok;
  };
  const std::vector<ClusterClaim> ca = s.claim(a, {"bench-key"}, 3, 60);
  expect(ca.size() == 3 && s.witnesses(ca).size() == 3, "a claims the job's 3 partitions, their witnesses in one fetch");
  if (ca.size() != 3) return 1;
  s.with([&](snarkd::server::pg::Conn& c) {  // partition 2's lease runs out
    c.query("UPDATE partitions SET lease_until = now() - interval '1 second' WHERE job_id = $1 AND k = $2",
            snarkd::server::pg::Params().i64(int64_t(id)).i64(ca[2].k));
  });
  expect(s.reap_expired() == 1, "its lease expired: back to the queue");
  const std::vector<ClusterClaim> cb = s.claim(b, {"bench-key"}, 3, 60);
  expect(cb.size() == 1 && cb[0].k == ca[2].k && cb[0].token > ca[2].token, "b claims it under a newer token");
  snarkd::v1::PartitionResult r;
  r.set_stage(snarkd::v1::PARTITION_STAGE_PROVEN);
  r.set_proof(std::string(192, '\x5a'));
  std::vector<ClusterResult> rs;
  for (const ClusterClaim& c : ca) rs.push_back(ClusterResult{c, r.SerializeAsString(), true});
  using O = ClusterOutcome;
  const std::vector<O> want = {O::kRecorded, O::kRecorded, O::kFenced};
  expect(s.complete_many(a, rs, nullptr) == want, "a's batch of 3: 2 recorded, the stale one fenced");
  const auto mid = s.job(id);
  const auto proven = std::count_if(mid->partitions().begin(), mid->partitions().end(), [](const auto& p) {
    return p.stage() == snarkd::v1::PARTITION_STAGE_PROVEN;
  });
  expect(mid->state() == snarkd::v1::JOB_STATE_RUNNING && proven == 2, "the job runs on, 2 of 3 proven");
  expect(s.complete_many(a, rs, nullptr) == want, "the batch replayed: the same answers");
  if (cb.size() == 1)
    expect(s.complete_many(b, {ClusterResult{cb[0], r.SerializeAsString(), true}}, nullptr) == std::vector<O>{O::kJobEnded},
           "b's result ends the job");
  const auto j = s.job(id);
  expect(j && j->state() == snarkd::v1::JOB_STATE_DONE && j->partitions_size() == 3, "job done, 3 partitions");
  const std::string counts = s.with([&](snarkd::server::pg::Conn& c) {
    const auto q = c.query(
        "SELECT count(*) FILTER (WHERE event = 'partition_done') || ' ' || count(*) FILTER (WHERE event = 'fenced') "
        "FROM events WHERE job_id = $1",
        snarkd::server::pg::Params().i64(int64_t(id)));
    return q.text(0, 0);
  });
  expect(counts == "3 2", "events: 3 partition_done, 2 fenced (got " + counts + ")");
  s.with([&](snarkd::server::pg::Conn& c) { c.exec("DROP SCHEMA " + o.schema + " CASCADE"); });
  return bad ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"claim throughput of the cluster job table (docs/SCALING.md)"};
  app.add_option("--database", o.database, "libpq connection string or URI")->required();
  app.add_option("--schema", o.schema, "schema to (re)create for the run");
  app.add_option("--claimers", o.claimers, "claimer processes (one per simulated host)");
  app.add_option("--jobs", o.jobs, "jobs queued before the run");
  app.add_option("--partitions-per-job", o.per_job, "partitions per job (PoRep: 10)");
  app.add_option("--batch", o.batch, "partitions per claim (a host's free workers)");
  app.add_flag("--batched", o.batched,
               "fetch a claim's witnesses in one round trip and record its results in one transaction "
               "(medians of fetch and complete are then per claim)");
  bool fencing = false;
  app.add_flag("--check-fencing", fencing, "only check complete_many's fencing on a fresh schema, then exit");
  app.add_option("--witness-bytes", o.witness_bytes, "bytes of each witness, stored in the database");
  app.add_option("--json", o.json, "write the figures as JSON here");
  CLI11_PARSE(app, argc, argv);

  char tmpl[] = "/tmp/cluster-bench-XXXXXX";
  const int wfd = ::mkstemp(tmpl);
  const std::string witness(o.witness_bytes, '\x01');
  if (wfd < 0 || ::write(wfd, witness.data(), witness.size()) != ssize_t(witness.size())) return 2;
  ::close(wfd);
  if (fencing) {
    int rc = 2;
    try {
      o.schema += "_fencing";
      rc = check_fencing(o, tmpl);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cluster_bench: %s\n", e.what());
    }
    ::unlink(tmpl);
    return rc;
  }
  try {
    prepare(o, tmpl);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cluster_bench: %s\n", e.what());
    ::unlink(tmpl);
    return 2;
  }
  ::unlink(tmpl);
  int start[2], out[2];
  if (::pipe(start) != 0 || ::pipe(out) != 0) return 2;
  std::vector<pid_t> kids;
  for (uint32_t i = 0; i < o.claimers; ++i) {
    const pid_t p = ::fork();
    if (p == 0) {
      ::close(start[1]);
      ::close(out[0]);
      try {
        claimer(o, int(i), start[0], out[1]);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "claimer %u: %s\n", i, e.what());
        _exit(1);
      }
      _exit(0);
    }
    kids.push_back(p);
  }
  ::close(start[0]);
  ::close(out[1]);
  const auto t0 = Clock::now();
  const std::string go(o.claimers, 'g');
  (void)!::write(start[1], go.data(), go.size());
  int bad = 0;
  for (pid_t p : kids) {
    int st = 0;
    ::waitpid(p, &st, 0);
    bad += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  const double wall_s = ms_since(t0) / 1e3;
  std::string lines;
  char buf[4096];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) lines.append(buf, size_t(n));
  uint64_t claims = 0, completes = 0, fenced = 0;
  std::vector<double> cm, fm, pm;
  for (size_t at = 0; at < lines.size();) {
    const size_t nl = lines.find('\n', at);
    unsigned long long a, b, f;
    double x, y, z;
    if (std::sscanf(lines.c_str() + at, "%llu %llu %llu %lf %lf %lf", &a, &b, &f, &x, &y, &z) == 6) {
      claims += a, completes += b, fenced += f;
      cm.push_back(x), fm.push_back(y), pm.push_back(z);
    }
    at = nl == std::string::npos ? lines.size() : nl + 1;
  }
  ClusterStore s(store_options(o, "cluster_bench check"));
  const auto check = s.with([](snarkd::server::pg::Conn& c) {
    return c.exec(
        "SELECT (SELECT count(*) FROM jobs WHERE state = 'done'), "
        "(SELECT count(*) FROM (SELECT job_id, k FROM events WHERE event = 'partition_done' GROUP BY 1, 2 "
        "HAVING count(*) <> 1) x), (SELECT count(*) FROM events WHERE event = 'partition_done')");
  });
  const uint64_t total = uint64_t(o.jobs) * o.per_job;
  const bool ok = bad == 0 && fenced == 0 && completes == total && uint64_t(check.i64(0, 0)) == o.jobs &&
                  check.i64(0, 1) == 0 && uint64_t(check.i64(0, 2)) == total;
  const double rate = double(completes) / wall_s;
  std::printf("%u claimers, batch %u: %llu partitions claimed and completed in %.2f s = %.0f partitions/s "
              "(%.0f claim+complete operations/s; %llu claim transactions)\n",
              o.claimers, o.batch, (unsigned long long)completes, wall_s, rate, 2 * rate, (unsigned long long)claims);
  std::printf("medians over claimers: claim %.2f ms, witness fetch %.2f ms, complete %.2f ms; jobs done %lld; %s\n",
              median(cm), median(fm), median(pm), (long long)check.i64(0, 0),
              ok ? "every partition completed exactly once" : "CHECK FAILED");
  if (!o.json.empty())
    std::ofstream(o.json) << "{\"claimers\": " << o.claimers << ", \"batch\": " << o.batch
                          << ", \"partitions\": " << completes << ", \"wall_s\": " << wall_s
                          << ", \"partitions_per_s\": " << rate << ", \"claim_ms_median\": " << median(cm)
                          << ", \"fetch_ms_median\": " << median(fm) << ", \"complete_ms_median\": " << median(pm)
                          << ", \"exactly_once\": " << (ok ? "true" : "false") << "}\n";
  return ok ? 0 : 1;
}
