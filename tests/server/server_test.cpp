// Unit tests of the daemon's parts: Prometheus text, the HTTP request handling, the TOML config,
// the journal (exactly-once finish, ids never reused, orphaned spools) and witness decoding.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>

#include "common/seed.hpp"
#include "snarkd/r1cs/circom.hpp"
#include "snarkd/server/config.hpp"
#include "snarkd/server/digest.hpp"
#include "snarkd/server/http.hpp"
#include "snarkd/server/journal.hpp"
#include "snarkd/server/metrics.hpp"
#include "snarkd/server/witness.hpp"
#include "snarkd/util/error.hpp"

namespace fs = std::filesystem;
using namespace snarkd;
using namespace snarkd::server;

namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char t[] = "/tmp/snarkd-server-test-XXXXXX";
    path = ::mkdtemp(t);
  }
  ~TempDir() { fs::remove_all(path); }
};

void write_bytes(const std::string& path, const std::vector<uint8_t>& b) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

// ---- metrics --------------------------------------------------------------------------------

// prometheus-cpp writes the text; these check what the daemon relies on. Series of one family
// come out in no fixed order, so lines are looked for, not the whole text compared.
namespace {
bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}
}  // namespace

TEST(Metrics, CounterGaugeAndEscaping) {
  MetricsRegistry r;
  auto& c = r.counter("x_total", "Things.");
  c.inc({{"circuit", "a\"b\\c\nd"}}, 2);
  c.inc({{"circuit", "a\"b\\c\nd"}});
  c.inc({{"circuit", "b"}}, -1);  // a counter never goes down
  r.gauge("g", "A gauge.").set({}, 0.25);
  const std::string m = r.render();
  for (const char* line : {"# HELP x_total Things.", "# TYPE x_total counter", "x_total{circuit=\"a\\\"b\\\\c\\nd\"} 3",
                           "x_total{circuit=\"b\"} 0", "# TYPE g gauge", "g 0.25"})
    EXPECT_TRUE(has_line(m, line)) << line << "\n" << m;
  EXPECT_EQ(c.value({{"circuit", "a\"b\\c\nd"}}), 3);
}

TEST(Metrics, CounterSetFollowsAGrowingTotal) {
  MetricsRegistry r;
  auto& c = r.counter("cpu_seconds_total", "CPU.");
  c.set({}, 2.5);
  c.set({}, 4);
  c.set({}, 1);  // a total that went down is not followed
  EXPECT_EQ(c.value({}), 4);
  EXPECT_TRUE(has_line(r.render(), "cpu_seconds_total 4"));
  EXPECT_THROW(c.observe({}, 1), InvalidArgument);
}

TEST(Metrics, HistogramBucketsAreCumulativeAndInclusive) {
  MetricsRegistry r;
  auto& h = r.histogram("d_seconds", "Durations.", {0.1, 1, 10});
  for (double v : {0.05, 0.1, 0.5, 1.0, 20.0}) h.observe({{"stage", "compute"}}, v);
  const std::string m = r.render();
  for (const char* line :
       {"# TYPE d_seconds histogram", "d_seconds_bucket{stage=\"compute\",le=\"0.1\"} 2",
        "d_seconds_bucket{stage=\"compute\",le=\"1\"} 4", "d_seconds_bucket{stage=\"compute\",le=\"10\"} 4",
        "d_seconds_bucket{stage=\"compute\",le=\"+Inf\"} 5", "d_seconds_sum{stage=\"compute\"} 21.65",
        "d_seconds_count{stage=\"compute\"} 5"})
    EXPECT_TRUE(has_line(m, line)) << line << "\n" << m;
  EXPECT_EQ(h.value({{"stage", "compute"}}), 5);
  EXPECT_THROW(h.set({}, 1), InvalidArgument);
  EXPECT_THROW(r.histogram("e_seconds", "x", {1, 1}), InvalidArgument) << "bounds strictly increasing";
}

TEST(Metrics, NumbersClearAndDuplicates) {
  MetricsRegistry r;
  auto& g = r.gauge("g", "x");
  g.set({{"k", "int"}}, 3);
  g.set({{"k", "big"}}, 1e20);
  g.set({{"k", "unix"}}, 1796214540.375);
  g.set({{"k", "sum"}}, 0.1 + 0.2);
  g.set({{"k", "inf"}}, std::numeric_limits<double>::infinity());
  std::string m = r.render();
  for (const char* line : {"g{k=\"int\"} 3", "g{k=\"big\"} 1e+20", "g{k=\"unix\"} 1796214540.375", "g{k=\"sum\"} 0.3",
                           "g{k=\"inf\"} +Inf"})
    EXPECT_TRUE(has_line(m, line)) << line << "\n" << m;  // a unix time keeps its fraction
  g.clear();
  m = r.render();
  EXPECT_EQ(m.find("g{"), std::string::npos) << m;
  g.set({{"k", "int"}}, 4);
  EXPECT_TRUE(has_line(r.render(), "g{k=\"int\"} 4")) << "a cleared family takes new series";
  r.counter("a", "x");
  EXPECT_THROW(r.gauge("a", "y"), InvalidArgument);
  EXPECT_THROW(r.counter("a", "y"), InvalidArgument);
  EXPECT_THROW(r.gauge("bad name", "y"), InvalidArgument);
}

// ---- HTTP -----------------------------------------------------------------------------------

TEST(Http, RoutesMethodsAndMalformedRequests) {
  const HttpHandler h = [](const std::string& path) -> HttpResponse {
    if (path == "/boom") throw std::runtime_error("kaput");
    return {path == "/x" ? 200 : 404, "text/plain", "path=" + path};
  };
  const std::string ok = http_response_for("GET /x?y=1 HTTP/1.1\r\nHost: a\r\n\r\n", h);
  EXPECT_EQ(ok.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << ok;
  EXPECT_NE(ok.find("Content-Length: 7\r\n"), std::string::npos);
  EXPECT_EQ(ok.substr(ok.size() - 7), "path=/x");
  const std::string head = http_response_for("HEAD /x HTTP/1.1\r\n\r\n", h);
  EXPECT_EQ(head.substr(head.size() - 4), "\r\n\r\n");  // no body, same length header
  EXPECT_NE(head.find("Content-Length: 7\r\n"), std::string::npos);
  EXPECT_EQ(http_response_for("POST /x HTTP/1.1\r\n\r\n", h).rfind("HTTP/1.1 405", 0), 0u);
  EXPECT_EQ(http_response_for("garbage\r\n\r\n", h).rfind("HTTP/1.1 400", 0), 0u);
  EXPECT_EQ(http_response_for("GET /nope HTTP/1.1\r\n\r\n", h).rfind("HTTP/1.1 404", 0), 0u);
  const std::string boom = http_response_for("GET /boom HTTP/1.1\r\n\r\n", h);
  EXPECT_EQ(boom.rfind("HTTP/1.1 500", 0), 0u);
  EXPECT_NE(boom.find("kaput"), std::string::npos);
}

TEST(Http, HostPort) {
  EXPECT_EQ(split_host_port("127.0.0.1:80"), std::make_pair(std::string("127.0.0.1"), std::string("80")));
  EXPECT_EQ(split_host_port("[::1]:9"), std::make_pair(std::string("::1"), std::string("9")));
  EXPECT_THROW(split_host_port("nocolon"), std::runtime_error);
}

TEST(Http, ServesOverASocket) {
  HttpServer s("127.0.0.1:0", [](const std::string& p) { return HttpResponse{200, "text/plain", "hi " + p}; });
  ASSERT_NE(s.port(), 0);
  const std::string cmd = "curl -s --max-time 5 http://127.0.0.1:" + std::to_string(s.port()) + "/abc";
  FILE* f = ::popen(cmd.c_str(), "r");
  ASSERT_NE(f, nullptr);
  char buf[64] = {};
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  ::pclose(f);
  EXPECT_EQ(std::string(buf, n), "hi /abc");
}

// ---- config ---------------------------------------------------------------------------------

TEST(Config, ReadsEveryTable) {
  const ServerConfig c = parse_config(R"(
[server]
socket = "/tmp/x.sock"
socket_mode = "0660"
tcp_listen = "0.0.0.0:7000"
token = "t"
max_message_mib = 2
witness_dirs = ["/data"]
key_dirs = ["/keys", "/more"]
[engine]
devices = "sim:2"
workers_per_device = 3
host_budget_gib = 0.5
[journal]
state_dir = "/var/x"
retention_s = 10
[log]
level = "debug"
[[circuit]]
id = "a"
zkey = "/k.zkey"
)",
                                      "t.toml");
  EXPECT_EQ(c.socket_mode, 0660u);
  EXPECT_EQ(c.max_message_bytes, uint64_t{2} << 20);
  EXPECT_EQ(c.host_budget_bytes, uint64_t{1} << 29);
  EXPECT_EQ(c.workers_per_device, 3u);
  EXPECT_EQ(c.witness_dirs, std::vector<std::string>{"/data"});
  EXPECT_EQ(c.key_dirs, (std::vector<std::string>{"/keys", "/more"}));
  ASSERT_EQ(c.circuits.size(), 1u);
  EXPECT_EQ(c.circuits[0].zkey, "/k.zkey");
  EXPECT_EQ(resolve_token(c), "t");
}

TEST(Config, RefusesWhatItDoesNotKnow) {
  EXPECT_EQ(error_of([] { parse_config("[server]\nsockett = \"x\"\n", "c.toml"); }),
            "c.toml: unknown key 'server.sockett'");
  EXPECT_EQ(error_of([] { parse_config("[engine]\nworkers_per_device = \"2\"\n", "c.toml"); }),
            "c.toml: engine.workers_per_device: expected a number");
  EXPECT_EQ(error_of([] { parse_config("[engine]\nworkers_per_device = 0\n", "c.toml"); }),
            "c.toml: engine.workers_per_device: must be between 1 and 64");
  EXPECT_EQ(error_of([] { parse_config("[server]\ntcp_listen = \"127.0.0.1:1\"\n", "c.toml"); }),
            "c.toml: server.tcp_listen needs server.token or server.token_file (TCP calls must carry it)");
  EXPECT_EQ(error_of([] { parse_config("[bogus]\n", "c.toml"); }), "c.toml: unknown table or key 'bogus'");
  EXPECT_EQ(error_of([] { parse_config("[[circuit]]\nid = \"a\"\nparams = \"p\"\n", "c.toml"); }),
            "c.toml: circuit[0].id: give either zkey, or params and circuit");
  EXPECT_NE(error_of([] { parse_config("[server\n", "c.toml"); }).find("c.toml:1:"), std::string::npos);
  EXPECT_EQ(error_of([] { parse_config("[[circuit]]\nid = \"a b\"\nzkey = \"z\"\n", "c.toml"); }),
            "c.toml: circuit[0].id: 'a b' is not 1 to 128 printable ASCII characters without spaces");
  EXPECT_EQ(error_of([] { parse_config("[log]\nlevel = \"loud\"\n", "c.toml"); }),
            "c.toml: log.level: 'loud' is not one of trace debug info warn error");
}

TEST(Config, TokenFile) {
  TempDir d;
  std::ofstream(d.path + "/tok") << "  s3cret \n";
  ServerConfig c;
  c.token_file = d.path + "/tok";
  EXPECT_EQ(resolve_token(c), "s3cret");
  c.token_file = d.path + "/missing";
  EXPECT_THROW(resolve_token(c), InvalidArgument);
}

// ---- journal --------------------------------------------------------------------------------

namespace {

JournalJob job(uint64_t id, const std::string& rid) {
  JournalJob j;
  j.id = id;
  j.request_id = rid;
  j.payload_sha256[0] = uint8_t(id);
  j.circuit_id = "c";
  j.priority = 2;
  j.formats = {WitnessFormat::kWtns, WitnessFormat::kFrMontgomery};
  j.submitted_at = 100;
  return j;
}

}  // namespace

TEST(Journal, FinishesExactlyOnceAndSurvivesReopen) {
  TempDir d;
  uint64_t a, b;
  {
    Journal j(d.path);
    a = j.allocate_job_id();
    b = j.allocate_job_id();
    j.insert_job(job(a, "r1"));
    j.insert_job(job(b, ""));
    EXPECT_TRUE(j.finish_job(a, "done", 200, "", "result-bytes"));
    EXPECT_FALSE(j.finish_job(a, "failed", 201, "again", ""));  // the exactly-once guard
    j.job_restarted(b, 2);
  }
  Journal j(d.path);
  const auto jobs = j.load_jobs();
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].state, "done");
  EXPECT_EQ(jobs[0].result, "result-bytes");
  EXPECT_EQ(jobs[0].request_id, "r1");
  EXPECT_EQ(jobs[0].payload_sha256[0], uint8_t(a));
  EXPECT_EQ(jobs[1].state, "queued");
  EXPECT_EQ(jobs[1].attempts, 2u);
  EXPECT_EQ(jobs[1].formats, (std::vector<WitnessFormat>{WitnessFormat::kWtns, WitnessFormat::kFrMontgomery}));
  EXPECT_GT(j.allocate_job_id(), b);
}

TEST(Journal, IdsAreNeverReusedAfterPurge) {
  TempDir d;
  uint64_t last;
  {
    Journal j(d.path);
    last = j.allocate_job_id();
    j.insert_job(job(last, "r"));
    j.finish_job(last, "done", 10, "", "");
    EXPECT_EQ(j.purge_finished(11), std::vector<uint64_t>{last});
    EXPECT_TRUE(j.load_jobs().empty());
  }
  Journal j(d.path);
  EXPECT_GT(j.allocate_job_id(), last);
}

TEST(Journal, SpoolCommitAndOrphans) {
  TempDir d;
  Journal j(d.path);
  const uint64_t id = j.allocate_job_id();
  std::string staging = j.new_staging_dir();
  write_bytes(staging + "/0.wtns", {1, 2, 3});
  j.commit_spool(staging, id);
  EXPECT_TRUE(fs::exists(j.spool_file(id, 0, WitnessFormat::kWtns)));
  EXPECT_FALSE(fs::exists(staging));
  // Not journaled: a restart treats it as a crash between spooling and committing.
  const std::string half = j.new_staging_dir();
  Journal reopened(d.path);
  EXPECT_FALSE(fs::exists(j.spool_file(id, 0, WitnessFormat::kWtns)));
  EXPECT_FALSE(fs::exists(half));
}

TEST(Journal, Circuits) {
  TempDir d;
  Journal j(d.path);
  j.put_circuit({"a", "/p", "/c", "", true});
  j.put_circuit({"b", "", "", "/z", false});
  j.remove_circuit("a");
  const auto c = j.load_circuits();
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0], (CircuitSpec{"b", "", "", "/z", false}));
}

// ---- witnesses ------------------------------------------------------------------------------

constexpr auto kBls = groth16::CurveId::kBls12_381;
constexpr auto kBn = groth16::CurveId::kBn254;

// The spool-file decoder (a path witness, a restarted daemon) and the bytes decoder (an inline
// witness at Submit) must agree on values and on every error message: returns the message,
// or "(no error)" when both decoded the same values.
std::string decode_both(const std::string& path, WitnessFormat f, uint64_t n, const std::string& label,
                        groth16::CurveId curve = kBls) {
  groth16::AnyScalars from_file, from_bytes;
  const std::string e_file = error_of([&] { from_file = read_witness_file(path, f, curve, n, label); });
  const std::vector<uint8_t> bytes = read_bytes(path);
  const std::string e_bytes = error_of([&] { from_bytes = decode_witness(bytes, f, curve, n, label); });
  EXPECT_EQ(e_file, e_bytes) << path;
  EXPECT_EQ(from_file, from_bytes) << path;
  if (e_file == "(no error)") {
    EXPECT_EQ(groth16::curve_of(from_file), curve) << path;
  }
  return e_file;
}

template <class F>
std::vector<F> decoded(const std::string& path, WitnessFormat f, uint64_t n) {
  const groth16::AnyScalars w = read_witness_file(path, f, r1cs::FieldTraits<F>::kCurve, n, "p");
  return std::get<std::vector<F>>(w);
}

TEST(Witness, MontgomeryLayoutRoundTripAndChecks) {
  TempDir d;
  auto rng = test::rng("witness");
  std::vector<ff::Fr> w{ff::Fr::one()};
  for (int i = 0; i < 9; ++i) w.push_back(ff::Fr::random(rng));
  write_bytes(d.path + "/w.fr", encode_fr_montgomery(w));
  EXPECT_EQ(decoded<ff::Fr>(d.path + "/w.fr", WitnessFormat::kFrMontgomery, 10), w);
  EXPECT_EQ(decode_both(d.path + "/w.fr", WitnessFormat::kFrMontgomery, 10, "p0"), "(no error)");
  EXPECT_EQ(decode_both(d.path + "/w.fr", WitnessFormat::kFrMontgomery, 11, "p0"),
            "p0: has 10 values, the circuit has 11 variables");
  std::vector<uint8_t> bytes = encode_fr_montgomery(w);
  bytes.pop_back();
  write_bytes(d.path + "/short.fr", bytes);
  EXPECT_EQ(decode_both(d.path + "/short.fr", WitnessFormat::kFrMontgomery, 10, "p1"),
            "p1: 319 bytes is not a whole number of 32-byte Fr values");
  bytes = encode_fr_montgomery(w);
  std::fill(bytes.begin() + 32 * 4, bytes.begin() + 32 * 5, 0xff);  // value 4 ≥ r
  write_bytes(d.path + "/big.fr", bytes);
  EXPECT_EQ(decode_both(d.path + "/big.fr", WitnessFormat::kFrMontgomery, 10, "p2"),
            "p2: value 4 is not below the BLS12-381 Fr modulus (expected fully reduced Montgomery limbs)");
  w[0] = ff::Fr::from_u64(2);
  write_bytes(d.path + "/two.fr", encode_fr_montgomery(w));
  EXPECT_EQ(decode_both(d.path + "/two.fr", WitnessFormat::kFrMontgomery, 10, "p3"),
            "p3: value 0 (the constant ONE) is not 1");
  write_bytes(d.path + "/empty.fr", {});
  EXPECT_EQ(decode_both(d.path + "/empty.fr", WitnessFormat::kFrMontgomery, 0, "p4"),
            "p4: value 0 (the constant ONE) is not 1");
}

// The same bytes over BN254: values are checked against BN254's r, which is below BLS12-381's,
// so a value in between is refused over BN254 and accepted over BLS12-381.
TEST(Witness, MontgomeryLayoutOverBn254) {
  TempDir d;
  auto rng = test::rng("witness-bn254");
  std::vector<ff::bn254::Fr> w{ff::bn254::Fr::one()};
  for (int i = 0; i < 9; ++i) w.push_back(ff::bn254::Fr::random(rng));
  write_bytes(d.path + "/w.fr", encode_fr_montgomery(w));
  EXPECT_EQ(decoded<ff::bn254::Fr>(d.path + "/w.fr", WitnessFormat::kFrMontgomery, 10), w);
  EXPECT_EQ(decode_both(d.path + "/w.fr", WitnessFormat::kFrMontgomery, 10, "p0", kBn), "(no error)");
  std::vector<uint8_t> bytes = encode_fr_montgomery(w);
  const auto& r = ff::bn254::Fr::kModulus;  // value 3 = BN254's r exactly: not below it
  for (size_t i = 0; i < 4; ++i)
    for (size_t b = 0; b < 8; ++b) bytes[32 * 3 + 8 * i + b] = uint8_t(r.limb[i] >> (8 * b));
  write_bytes(d.path + "/r.fr", bytes);
  EXPECT_EQ(decode_both(d.path + "/r.fr", WitnessFormat::kFrMontgomery, 10, "p1", kBn),
            "p1: value 3 is not below the BN254 Fr modulus (expected fully reduced Montgomery limbs)");
  // Over BLS12-381 every value passes the range check; what fails is ONE (BN254's Montgomery 1
  // is another number there).
  EXPECT_EQ(decode_both(d.path + "/r.fr", WitnessFormat::kFrMontgomery, 10, "p1", kBls),
            "p1: value 0 (the constant ONE) is not 1");
}

TEST(Witness, WtnsAndDetection) {
  TempDir d;
  std::vector<ff::Fr> w{ff::Fr::one(), ff::Fr::from_u64(5), ff::Fr::from_u64(7)};
  r1cs::write_wtns(d.path + "/w.wtns", w);
  EXPECT_EQ(decoded<ff::Fr>(d.path + "/w.wtns", WitnessFormat::kWtns, 3), w);
  EXPECT_EQ(decode_both(d.path + "/w.wtns", WitnessFormat::kWtns, 3, "p0"), "(no error)");
  EXPECT_EQ(decode_both(d.path + "/w.wtns", WitnessFormat::kWtns, 4, "p0"),
            "p0: has 3 witness values, the circuit has 4 variables");
  write_bytes(d.path + "/bad.wtns", {'x', 't', 'n', 's', 0, 0, 0, 0});
  const std::string e = decode_both(d.path + "/bad.wtns", WitnessFormat::kWtns, 3, "p1");
  EXPECT_EQ(e.rfind("p1 (.wtns): ", 0), 0u) << e;
  EXPECT_EQ(e.find(d.path), std::string::npos) << "the spool path must not leak: " << e;
  w[0] = ff::Fr::zero();
  r1cs::write_wtns(d.path + "/zero.wtns", w);
  EXPECT_EQ(decode_both(d.path + "/zero.wtns", WitnessFormat::kWtns, 3, "p2"),
            "p2: value 0 (the constant ONE) is not 1");
  const uint8_t magic[] = {'w', 't', 'n', 's', 2};
  EXPECT_EQ(detect_witness_format(magic), WitnessFormat::kWtns);
  EXPECT_EQ(detect_witness_format(std::span<const uint8_t>(magic, 3)), WitnessFormat::kFrMontgomery);
}

// A .wtns is decoded over the circuit's curve: the other curve's file is refused naming both.
TEST(Witness, WtnsOfTheOtherCurve) {
  TempDir d;
  const std::vector<ff::bn254::Fr> bn{ff::bn254::Fr::one(), ff::bn254::Fr::from_u64(5)};
  r1cs::write_wtns(d.path + "/bn.wtns", bn);
  EXPECT_EQ(decoded<ff::bn254::Fr>(d.path + "/bn.wtns", WitnessFormat::kWtns, 2), bn);
  const std::string e = decode_both(d.path + "/bn.wtns", WitnessFormat::kWtns, 2, "p0", kBls);
  EXPECT_EQ(e.rfind("p0 (.wtns): ", 0), 0u) << e;
  EXPECT_NE(e.find("is not BLS12-381's r"), std::string::npos) << e;
  EXPECT_NE(e.find("it is BN254's"), std::string::npos) << e;
  const std::vector<ff::Fr> bls{ff::Fr::one(), ff::Fr::from_u64(5)};
  r1cs::write_wtns(d.path + "/bls.wtns", bls);
  const std::string e2 = decode_both(d.path + "/bls.wtns", WitnessFormat::kWtns, 2, "p1", kBn);
  EXPECT_NE(e2.find("is not BN254's r"), std::string::npos) << e2;
  EXPECT_NE(e2.find("it is BLS12-381's"), std::string::npos) << e2;
}

TEST(Digest, Sha256KnownAnswer) {
  Sha256 h;
  h.update("abc", 3);
  const Digest d = h.finish();
  EXPECT_EQ(to_hex(d), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
