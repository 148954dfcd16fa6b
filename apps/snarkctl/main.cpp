// snarkctl: the command-line client of the snarkd daemon (proto/snarkd/v1/snarkd.proto).
// Exit codes: 0 success (a job: done), 1 the job failed, was cancelled or did not finish within
// --timeout, 2 usage or local input error, 3 the daemon refused the call or could not be reached
// (stderr: "snarkctl <verb>: <CODE>: <the daemon's message>").
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/options.hpp"
#include "client.hpp"
#include "output.hpp"
#include "snarkd/server/proto_json.hpp"
#include "snarkd/util/json.hpp"

namespace snarkd::ctl {
namespace {

using cli::Options;
using cli::UsageError;

// The connection and output options: the binary's own, so they go before or after the verb
// (CLI11 passes a verb's unknown options up). Read through `global`, set in main.
const Options* global = nullptr;

void declare_connection(Options& o) {
  o.value("socket", "the daemon's unix socket (default $SNARKD_SOCKET or /run/snarkd/snarkd.sock)", "PATH")
      .value("addr", "TCP instead ($SNARKD_ADDR), with the bearer token", "HOST:PORT")
      .value("token-file", "the token's file (default $SNARKD_TOKEN holds the token)", "F")
      .flag("json", "replies as JSON on stdout")
      .flag("progress", "progress lines on stderr also when it is not a terminal")
      .flag("no-progress", "no progress display");
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

Endpoint endpoint() {
  const Options& a = *global;
  Endpoint e;
  const std::string addr = a.get("addr").value_or(env_or("SNARKD_ADDR", ""));
  if (addr.empty()) {
    e.target = "unix:" + a.get("socket").value_or(env_or("SNARKD_SOCKET", "/run/snarkd/snarkd.sock"));
    return e;
  }
  e.target = addr;
  if (auto f = a.get("token-file")) {
    std::ifstream in(*f);
    if (!in) throw UsageError("--token-file: cannot read " + *f);
    std::getline(in, e.token);
    while (!e.token.empty() && std::isspace(static_cast<unsigned char>(e.token.back()))) e.token.pop_back();
  } else {
    e.token = env_or("SNARKD_TOKEN", "");
  }
  return e;
}

bool progress_enabled() {
  const Options& a = *global;
  if (a.has("no-progress") || a.has("json")) return a.has("progress");
  return a.has("progress") || ::isatty(2);
}

uint64_t parse_job_id(const std::string& s) {
  uint64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) throw UsageError("'" + s + "' is not a job id");
  return v;
}

std::optional<double> timeout_s(const Options& a) {
  const auto t = a.get("timeout");
  if (!t) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(t->c_str(), &end);
  if (end == t->c_str() || *end || !(v >= 0) || !std::isfinite(v)) throw UsageError("--timeout expects seconds ≥ 0");
  return v;
}

int enum_value(const std::string& s, const std::vector<std::pair<const char*, int>>& names, const char* option) {
  for (auto [n, v] : names)
    if (s == n) return v;
  if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos) return std::stoi(s);  // raw (tests)
  throw UsageError("--" + std::string(option) + ": unknown value '" + s + "'");
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UsageError(path + ": cannot open the witness file");
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

v1::SubmitRequest build_job(const Options& a) {
  v1::SubmitRequest req;
  req.set_circuit_id(a.require("circuit"));
  req.set_priority(v1::Priority(enum_value(a.get("priority").value_or("normal"),
                                           {{"low", 1}, {"normal", 2}, {"high", 3}, {"critical", 4}}, "priority")));
  req.set_request_id(a.get("request-id").value_or(""));
  const int format = enum_value(a.get("format").value_or("auto"), {{"auto", 0}, {"fr", 1}, {"wtns", 2}}, "format");
  if (a.positional().empty()) throw UsageError("give one witness file per partition");
  for (const std::string& file : a.positional()) {
    v1::Witness* w = req.add_partitions();
    w->set_format(v1::WitnessFormat(format));
    if (a.has("by-path"))
      w->set_path(std::filesystem::absolute(file).string());
    else
      w->set_data(read_file(file));
  }
  return req;
}

// Await in one-second slices (progress between them) until finished or the timeout passes.
v1::JobResult wait_for(Client& c, v1::JobResult r, std::optional<double> timeout, bool progress) {
  ProgressLine line(progress);
  const auto start = std::chrono::steady_clock::now();
  while (!is_finished(r)) {
    const double left =
        timeout ? *timeout - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() : 1e18;
    if (left <= 0) break;
    line.update(r);
    const uint64_t slice_ms = uint64_t(std::min(left, progress ? 1.0 : 3600.0) * 1000);
    r = c.await(r.job_id(), slice_ms, slice_ms / 1000.0 + 60);
  }
  return r;
}

bool json() { return global->has("json"); }

int finish(const Options& a, const v1::JobResult& r) {
  print_result(r, json());
  if (r.state() == v1::JOB_STATE_DONE) write_outputs(r, a.get("proof").value_or(""), a.get("public").value_or(""));
  return r.state() == v1::JOB_STATE_DONE ? 0 : 1;
}

void declare_job(Options& o) {
  o.positionals("WITNESS", "one witness file per partition (.wtns, or --format fr)")
      .value("circuit", "the circuit id the daemon knows", "ID")
      .value("priority", "low, normal (default), high or critical", "P")
      .value("request-id", "deduplicates: the same id and payload give the same job", "R")
      .value("format", "auto (default), wtns, or fr (num_vars × 32-byte little-endian Montgomery Fr)", "F")
      .flag("by-path", "send the files' absolute paths (under the daemon's witness_dirs) instead of their bytes");
}

void declare_outputs(Options& o) {
  o.value("timeout", "stop waiting after S seconds (exit 1; the job goes on)", "S")
      .value("proof",
             "write the proofs: OUT.json → snarkjs proof.json (one partition), else the wire bytes (BLS12-381: 192 "
             "per proof, BN254: 256); {k} in the path: one file per partition",
             "OUT")
      .value("public",
             "write public.json (one array per partition when there are several); {k} in the path: one file per "
             "partition",
             "PUB.json");
}

void declare_submit(Options& o) { declare_job(o); }

int cmd_submit(const Options& a) {
  Client c(endpoint());
  const v1::SubmitReply r = c.submit(build_job(a));
  if (json())
    std::printf("%s\n", server::proto_to_json(r).dump(2).c_str());
  else
    std::printf("%llu%s\n", (unsigned long long)r.job_id(), r.deduplicated() ? " (deduplicated)" : "");
  return 0;
}

void declare_await(Options& o) {
  o.positionals("JOB", "the job id");
  declare_outputs(o);
}

int cmd_await(const Options& a) {
  if (a.positional().size() != 1) throw UsageError("give one job id");
  Client c(endpoint());
  const uint64_t id = parse_job_id(a.positional()[0]);
  return finish(a, wait_for(c, c.await(id, 0, 60), timeout_s(a), progress_enabled()));
}

void declare_prove(Options& o) {
  declare_job(o);
  declare_outputs(o);
}

int cmd_prove(const Options& a) {
  Client c(endpoint());
  v1::ProveRequest req;
  *req.mutable_job() = build_job(a);
  const auto timeout = timeout_s(a);
  const bool progress = progress_enabled();
  // With progress: Prove for up to a second, then Await in slices; without: one Prove call.
  if (progress || timeout) req.set_timeout_ms(uint64_t(std::min(timeout.value_or(1e9), progress ? 1.0 : 1e9) * 1000));
  const auto t0 = std::chrono::steady_clock::now();
  v1::JobResult r = c.prove(req, std::nullopt);
  std::optional<double> left;
  if (timeout) left = *timeout - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return finish(a, wait_for(c, r, left, progress));
}

void declare_cancel(Options& o) { o.positionals("JOB", "the job id"); }

int cmd_cancel(const Options& a) {
  if (a.positional().size() != 1) throw UsageError("give one job id");
  Client c(endpoint());
  const v1::JobResult r = c.cancel(parse_job_id(a.positional()[0]));
  print_result(r, json());
  return r.state() == v1::JOB_STATE_CANCELLED ? 0 : 1;
}

void declare_status(Options& o) { o.value("recent", "list the N most recent jobs (default 20, at most 1000)", "N"); }

int cmd_status(const Options& a) {
  Client c(endpoint());
  print_status(c.status(uint32_t(std::min<uint64_t>(a.get_u64("recent", 20), 1000))), json());
  return 0;
}

void declare_metrics(Options&) {}

int cmd_metrics(const Options&) {
  Client c(endpoint());
  const std::string text = c.metrics();
  if (json())
    std::printf("{\"metrics\": %s}\n", Json::string(text).dump().c_str());
  else
    std::fputs(text.c_str(), stdout);
  return 0;
}

void declare_preload(Options& o) {
  o.value("id", "the circuit id to register", "ID")
      .value("params", "bellperson proving key (with --circuit)", "P.params")
      .value("circuit", "the circuit: circom .r1cs or snarkd CSR", "C.r1cs")
      .value("zkey", "or a snarkjs proving key", "K.zkey")
      .flag("check-key", "check every key point's subgroup at load");
}

int cmd_preload(const Options& a) {
  v1::PreloadKeyRequest req;
  req.set_circuit_id(a.require("id"));
  auto abs = [&](const char* o) { return a.has(o) ? std::filesystem::absolute(*a.get(o)).string() : std::string(); };
  req.set_params_path(abs("params"));
  req.set_circuit_path(abs("circuit"));
  req.set_zkey_path(abs("zkey"));
  req.set_check_key(a.has("check-key"));
  Client c(endpoint());
  const v1::KeyInfo k = c.preload(req);
  if (json())
    std::printf("%s\n", server::proto_to_json(k).dump(2).c_str());
  else
    std::printf("loaded %s: %s %s, %llu constraints, %llu variables, %.3f s\n", k.circuit_id().c_str(),
                k.flavour().c_str(), k.curve().c_str(), (unsigned long long)k.constraints(),
                (unsigned long long)k.num_vars(), k.load_s());
  return 0;
}

void declare_evict(Options& o) { o.positionals("ID", "the circuit id"); }

int cmd_evict(const Options& a) {
  if (a.positional().size() != 1) throw UsageError("give one circuit id");
  Client c(endpoint());
  c.evict(a.positional()[0]);
  if (json())
    std::printf("{\"evicted\": %s}\n", Json::string(a.positional()[0]).dump().c_str());
  else
    std::printf("evicted %s\n", a.positional()[0].c_str());
  return 0;
}

int report_error(const std::string& context, const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const RpcError& ex) {
    std::fprintf(stderr, "%s: %s: %s\n", context.c_str(), status_code_name(ex.code()), ex.what());
    return 3;
  } catch (...) {
    return cli::report_exception(context, std::current_exception());
  }
}

}  // namespace
}  // namespace snarkd::ctl

int main(int argc, char** argv) {
  using namespace snarkd::ctl;
  using snarkd::cli::Verb;
  if (argc == 2 && !std::strcmp(argv[1], "help")) argv[1] = const_cast<char*>("--help");
  CLI::App app("snarkctl: the client of the snarkd daemon (proto/snarkd/v1/snarkd.proto)", "snarkctl");
  app.set_version_flag("--version", "snarkctl " SNARKD_VERSION);
  app.footer(
      "snarkctl VERB --help shows a verb's options; connection options go before or after the verb.\n"
      "exit codes: 0 ok/done, 1 job failed/cancelled/unfinished, 2 usage or input error, 3 daemon error");
  Options connection(&app);
  declare_connection(connection);
  global = &connection;
  const std::vector<Verb> verbs = {
      {"submit", "submit a job (one witness file per partition); prints the job id", declare_submit, cmd_submit},
      {"await", "wait for a job and write its proof and public inputs", declare_await, cmd_await},
      {"prove", "submit and await in one call", declare_prove, cmd_prove},
      {"cancel", "cancel a job", declare_cancel, cmd_cancel},
      {"status", "devices, workers, keys and recent jobs", declare_status, cmd_status},
      {"metrics", "the Prometheus metrics text", declare_metrics, cmd_metrics},
      {"preload", "load a key (and circuit) under an id", declare_preload, cmd_preload},
      {"evict", "unload a key", declare_evict, cmd_evict},
  };
  return snarkd::cli::run_verbs(app, "snarkctl", verbs, argc, argv, report_error);
}
