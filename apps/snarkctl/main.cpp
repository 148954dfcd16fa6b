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

#include "../snarkd/args.hpp"
#include "client.hpp"
#include "output.hpp"
#include "snarkd/server/proto_json.hpp"

namespace snarkd::ctl {
namespace {

using cli::Args;
using cli::OptionSpec;
using cli::UsageError;

constexpr const char* kUsage =
    "usage: snarkctl VERB [options]\n"
    "  submit  --circuit ID [--priority low|normal|high|critical] [--request-id R] [--format auto|fr|wtns]\n"
    "          [--by-path] WITNESS...          (one witness file per partition; prints the job id)\n"
    "  await   JOB [--timeout S] [--proof OUT.bin] [--public OUT.json]\n"
    "  prove   (submit's options) [--timeout S] [--proof OUT.bin] [--public OUT.json]\n"
    "  cancel  JOB\n"
    "  status  [--recent N]\n"
    "  metrics\n"
    "  preload --id ID (--params P.params --circuit C.r1cs|C.csr | --zkey K.zkey) [--check-key]\n"
    "  evict   ID\n"
    "connection: --socket PATH (default $SNARKD_SOCKET or /run/snarkd/snarkd.sock), or --addr HOST:PORT\n"
    "  ($SNARKD_ADDR) with --token-file F ($SNARKD_TOKEN); output: --json, --progress (progress lines on\n"
    "  stderr also when it is not a terminal), --no-progress\n"
    "--by-path sends the witness files' absolute paths (the daemon reads them; they must lie under its\n"
    "witness_dirs) instead of their bytes. --format fr: num_vars × 32-byte little-endian Montgomery Fr.\n"
    "exit codes: 0 ok/done, 1 job failed/cancelled/unfinished, 2 usage or input error, 3 daemon error\n";

std::vector<OptionSpec> with_common(std::vector<OptionSpec> s) {
  for (const char* o : {"socket", "addr", "token-file"}) s.push_back({o, true});
  for (const char* f : {"json", "progress", "no-progress"}) s.push_back({f, false});
  return s;
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

Endpoint endpoint(const Args& a) {
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

bool progress_enabled(const Args& a) {
  if (a.has("no-progress") || a.has("json")) return a.has("progress");
  return a.has("progress") || ::isatty(2);
}

uint64_t parse_job_id(const std::string& s) {
  uint64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) throw UsageError("'" + s + "' is not a job id");
  return v;
}

std::optional<double> timeout_s(const Args& a) {
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

v1::SubmitRequest build_job(const Args& a) {
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

int finish(const Args& a, const v1::JobResult& r) {
  print_result(r, a.has("json"));
  if (r.state() == v1::JOB_STATE_DONE) write_outputs(r, a.get("proof").value_or(""), a.get("public").value_or(""));
  return r.state() == v1::JOB_STATE_DONE ? 0 : 1;
}

const std::vector<OptionSpec> kJobOptions = {
    {"circuit", true}, {"priority", true}, {"request-id", true}, {"format", true}, {"by-path", false}};

int cmd_submit(int argc, char** argv) {
  const Args a(argc, argv, 2, with_common(kJobOptions));
  Client c(endpoint(a));
  const v1::SubmitReply r = c.submit(build_job(a));
  if (a.has("json"))
    std::printf("%s\n", server::proto_to_json(r).dump(2).c_str());
  else
    std::printf("%llu%s\n", (unsigned long long)r.job_id(), r.deduplicated() ? " (deduplicated)" : "");
  return 0;
}

int cmd_await(int argc, char** argv) {
  const Args a(argc, argv, 2, with_common({{"timeout", true}, {"proof", true}, {"public", true}}));
  if (a.positional().size() != 1) throw UsageError("give one job id");
  Client c(endpoint(a));
  const uint64_t id = parse_job_id(a.positional()[0]);
  return finish(a, wait_for(c, c.await(id, 0, 60), timeout_s(a), progress_enabled(a)));
}

int cmd_prove(int argc, char** argv) {
  auto spec = kJobOptions;
  for (const char* o : {"timeout", "proof", "public"}) spec.push_back({o, true});
  const Args a(argc, argv, 2, with_common(spec));
  Client c(endpoint(a));
  v1::ProveRequest req;
  *req.mutable_job() = build_job(a);
  const auto timeout = timeout_s(a);
  const bool progress = progress_enabled(a);
  // With progress: Prove for up to a second, then Await in slices; without: one Prove call.
  if (progress || timeout) req.set_timeout_ms(uint64_t(std::min(timeout.value_or(1e9), progress ? 1.0 : 1e9) * 1000));
  const auto t0 = std::chrono::steady_clock::now();
  v1::JobResult r = c.prove(req, std::nullopt);
  std::optional<double> left;
  if (timeout) left = *timeout - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return finish(a, wait_for(c, r, left, progress));
}

int cmd_cancel(int argc, char** argv) {
  const Args a(argc, argv, 2, with_common({}));
  if (a.positional().size() != 1) throw UsageError("give one job id");
  Client c(endpoint(a));
  const v1::JobResult r = c.cancel(parse_job_id(a.positional()[0]));
  print_result(r, a.has("json"));
  return r.state() == v1::JOB_STATE_CANCELLED ? 0 : 1;
}

int cmd_status(int argc, char** argv) {
  const Args a(argc, argv, 2, with_common({{"recent", true}}));
  Client c(endpoint(a));
  print_status(c.status(uint32_t(std::min<uint64_t>(a.get_u64("recent", 20), 1000))), a.has("json"));
  return 0;
}

int cmd_metrics(int argc, char** argv) {
  const Args a(argc, argv, 2, with_common({}));
  Client c(endpoint(a));
  std::fputs(c.metrics().c_str(), stdout);
  return 0;
}

int cmd_preload(int argc, char** argv) {
  const Args a(argc, argv, 2,
               with_common({{"id", true}, {"params", true}, {"circuit", true}, {"zkey", true}, {"check-key", false}}));
  v1::PreloadKeyRequest req;
  req.set_circuit_id(a.require("id"));
  auto abs = [&](const char* o) { return a.has(o) ? std::filesystem::absolute(*a.get(o)).string() : std::string(); };
  req.set_params_path(abs("params"));
  req.set_circuit_path(abs("circuit"));
  req.set_zkey_path(abs("zkey"));
  req.set_check_key(a.has("check-key"));
  Client c(endpoint(a));
  const v1::KeyInfo k = c.preload(req);
  if (a.has("json"))
    std::printf("%s\n", server::proto_to_json(k).dump(2).c_str());
  else
    std::printf("loaded %s: %s, %llu constraints, %llu variables, %.3f s\n", k.circuit_id().c_str(),
                k.flavour().c_str(), (unsigned long long)k.constraints(), (unsigned long long)k.num_vars(), k.load_s());
  return 0;
}

int cmd_evict(int argc, char** argv) {
  const Args a(argc, argv, 2, with_common({}));
  if (a.positional().size() != 1) throw UsageError("give one circuit id");
  Client c(endpoint(a));
  c.evict(a.positional()[0]);
  if (!a.has("json"))
    std::printf("evicted %s\n", a.positional()[0].c_str());
  else
    std::printf("{\"evicted\": \"%s\"}\n", a.positional()[0].c_str());
  return 0;
}

int dispatch(const std::string& verb, int argc, char** argv) {
  if (verb == "submit") return cmd_submit(argc, argv);
  if (verb == "await") return cmd_await(argc, argv);
  if (verb == "prove") return cmd_prove(argc, argv);
  if (verb == "cancel") return cmd_cancel(argc, argv);
  if (verb == "status") return cmd_status(argc, argv);
  if (verb == "metrics") return cmd_metrics(argc, argv);
  if (verb == "preload") return cmd_preload(argc, argv);
  if (verb == "evict") return cmd_evict(argc, argv);
  throw UsageError("unknown command '" + verb + "'");
}

}  // namespace
}  // namespace snarkd::ctl

int main(int argc, char** argv) {
  using namespace snarkd::ctl;
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  try {
    return dispatch(argv[1], argc, argv);
  } catch (const snarkd::cli::UsageError& e) {
    std::fprintf(stderr, "snarkctl %s: %s\n%s", argv[1], e.what(), kUsage);
    return 2;
  } catch (const RpcError& e) {
    std::fprintf(stderr, "snarkctl %s: %s: %s\n", argv[1], status_code_name(e.code()), e.what());
    return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "snarkctl %s: error: %s\n", argv[1], e.what());
    return 2;
  }
}
