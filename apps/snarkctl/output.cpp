#include "output.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "snarkd/groth16/any_curve.hpp"
#include "snarkd/groth16/snarkjs_json.hpp"
#include "snarkd/server/proto_json.hpp"
#include "snarkd/util/file.hpp"
#include "snarkd/util/json.hpp"

namespace snarkd::ctl {

bool is_finished(const v1::JobResult& r) { return r.state() >= v1::JOB_STATE_DONE; }

std::string state_name(v1::JobState s) {
  std::string n = v1::JobState_Name(s);
  n = n.substr(n.rfind('_') + 1);
  for (char& c : n) c = char(std::tolower(static_cast<unsigned char>(c)));
  return n;
}

namespace {

std::string stage_name(v1::PartitionStage s) {
  std::string n = v1::PartitionStage_Name(s).substr(std::string("PARTITION_STAGE_").size());
  for (char& c : n) c = char(std::tolower(static_cast<unsigned char>(c)));
  return n;
}

// "3/10 proven · compute 2 · queued 5"
std::string partition_summary(const v1::JobResult& r) {
  std::map<std::string, int> by_stage;
  int proven = 0;
  for (const auto& p : r.partitions()) {
    if (p.stage() == v1::PARTITION_STAGE_PROVEN)
      ++proven;
    else
      ++by_stage[stage_name(p.stage())];
  }
  std::string s = std::to_string(proven) + "/" + std::to_string(r.partitions_size()) + " proven";
  for (const auto& [k, n] : by_stage) s += " · " + k + " " + std::to_string(n);
  return s;
}

}  // namespace

void print_result(const v1::JobResult& r, bool json) {
  if (json) {
    std::printf("%s\n", server::proto_to_json(r).dump(2).c_str());
    return;
  }
  std::printf("job %llu %s: circuit %s, %s", (unsigned long long)r.job_id(), state_name(r.state()).c_str(),
              r.circuit_id().c_str(), partition_summary(r).c_str());
  if (r.state() == v1::JOB_STATE_DONE) std::printf(", %s", r.verified() ? "verified" : "not self-checked");
  if (r.finished_unix_s() > 0) std::printf(", %.3f s", r.finished_unix_s() - r.submitted_unix_s());
  std::printf("\n");
  if (!r.error().empty()) std::printf("  error: %s\n", r.error().c_str());
  for (int k = 0; k < r.partitions_size(); ++k) {
    const auto& p = r.partitions(k);
    if (p.device().empty()) continue;
    const auto& t = p.timings();
    std::printf(
        "  partition %d on %s worker %u: queued %.3f s, wait_vram %.3f s, upload %.3f s, compute %.3f s, finalize %.3f "
        "s\n",
        k, p.device().c_str(), p.worker(), t.queued_s(), t.wait_vram_s(), t.upload_s(), t.compute_s(), t.finalize_s());
  }
}

void print_status(const v1::StatusReply& s, bool json) {
  if (json) {
    std::printf("%s\n", server::proto_to_json(s).dump(2).c_str());
    return;
  }
  std::printf("snarkd %s, up %.0f s%s\n", s.version().c_str(), s.uptime_s(), s.draining() ? ", DRAINING" : "");
  std::printf(
      "jobs: %llu queued, %llu running, %llu done, %llu failed, %llu cancelled; partitions: %llu queued, %llu in "
      "flight\n",
      (unsigned long long)s.jobs_queued(), (unsigned long long)s.jobs_running(), (unsigned long long)s.jobs_done(),
      (unsigned long long)s.jobs_failed(), (unsigned long long)s.jobs_cancelled(),
      (unsigned long long)s.queued_partitions(), (unsigned long long)s.in_flight_partitions());
  const double gib = double(1 << 30);
  const auto& h = s.host();
  std::printf("build %s, CUDA %s%s; NVML %s\n", s.build().git_commit().c_str(), s.build().cuda() ? "on" : "off",
              s.build().cuda_compile_check() ? " (compile check)" : "", s.nvml().c_str());
  std::printf("host: %.3f of %.3f GiB available; snarkd %.3f GiB resident (peak %.3f), %.1f s CPU, %u threads\n",
              double(h.memory_available_bytes()) / gib, double(h.memory_total_bytes()) / gib,
              double(h.process_resident_bytes()) / gib, double(h.process_peak_resident_bytes()) / gib,
              h.process_cpu_s(), h.process_threads());
  const auto& t = s.throughput();
  std::printf("throughput: %.3g partitions/s, %.3g jobs/s over the last %.0f s\n", t.partitions_per_s(),
              t.jobs_per_s(), t.window_s());
  for (const auto& q : s.job_durations())
    std::printf("jobs of %s: median %.3f s, p95 %.3f s, max %.3f s (%llu jobs)\n", q.name().c_str(), q.median_s(),
                q.p95_s(), q.max_s(), (unsigned long long)q.count());
  for (const auto& d : s.devices()) {
    // Only a GPU's ledger holds VRAM; a simulated device's is a host arena, the CPU device's host RAM.
    const std::string what = d.memory() == "vram"         ? "VRAM"
                             : d.memory() == "host_arena" ? "simulated VRAM (host arena)"
                                                          : "host RAM for working sets";
    std::printf("device %s: %s %.3f of %.3f GiB reserved (peak %.3f GiB), %llu waiting\n", d.name().c_str(),
                what.c_str(), double(d.reserved_bytes()) / gib, double(d.pool_bytes()) / gib,
                double(d.peak_reserved_bytes()) / gib, (unsigned long long)d.vram_waiting());
    if (d.memory() == "vram" && d.gpu().available())
      std::printf("  GPU %.0f%% busy, %.3f of %.3f GiB used on the card, %.0f C, %.0f W\n", 100 * d.gpu().utilization(),
                  double(d.gpu().memory_used_bytes()) / gib, double(d.gpu().memory_total_bytes()) / gib,
                  d.gpu().temperature_c(), d.gpu().power_w());
    else if (d.memory() == "vram")
      std::printf("  GPU figures unavailable: %s\n", d.gpu().reason().c_str());
    for (const auto& w : d.workers())
      if (w.stage() == "idle")
        std::printf("  worker %u: idle\n", w.index());
      else
        std::printf("  worker %u: %s job %llu partition %u (%.1f s)\n", w.index(), w.stage().c_str(),
                    (unsigned long long)w.job_id(), w.partition(), w.stage_s());
  }
  for (const auto& k : s.keys())
    std::printf("key %s: %s %s, %llu constraints, %llu unfinished jobs (%s)\n", k.circuit_id().c_str(),
                k.flavour().c_str(), k.curve().c_str(), (unsigned long long)k.constraints(),
                (unsigned long long)k.unfinished_jobs(), k.source().c_str());
}

namespace {

// The job's curve: JobResult.curve, else its first proof's, else BLS12-381 (daemons from before
// BN254 set neither). A name this client does not know is refused rather than mis-decoded.
groth16::CurveId result_curve(const v1::JobResult& r) {
  std::string name = r.curve();
  if (name.empty() && r.partitions_size() > 0) name = r.partitions(0).curve();
  if (name.empty()) return groth16::CurveId::kBls12_381;
  for (const groth16::CurveId c : {groth16::CurveId::kBls12_381, groth16::CurveId::kBn254})
    if (name == r1cs::curve_name(c)) return c;
  throw std::runtime_error("the job's proofs are of curve '" + name + "', which this snarkctl does not know");
}

// Partition k's proof as snarkjs's proof.json object over curve E.
template <class E>
Json snarkjs_proof(const v1::JobResult& r, int k) {
  const std::string& raw = r.partitions(k).proof();
  const std::string what = "partition " + std::to_string(k) + "'s proof";
  const groth16::AnyProof proof = groth16::proof_from_bytes(
      E::kId, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(raw.data()), raw.size()), what);
  return groth16::proof_to_snarkjs_json<E>(groth16::as_curve<E>(proof, what));
}

// "{k}" in an output path: one file per partition, "{k}" replaced by the partition's index.
constexpr std::string_view kPartitionMark = "{k}";
bool per_partition(const std::string& path) { return path.find(kPartitionMark) != std::string::npos; }
std::string partition_path(std::string path, int k) {
  return path.replace(path.find(kPartitionMark), kPartitionMark.size(), std::to_string(k));
}

// Partitions `ks`' proofs into `path`: snarkjs's proof.json when it ends in ".json" (the same
// three points, decimal affine coordinates, the job's curve; it holds one proof), otherwise the
// proofs concatenated in their wire form (192 bytes each for BLS12-381, as `snarkd verify`
// reads them; 256 for BN254).
void write_proofs(const v1::JobResult& r, const std::vector<int>& ks, const std::string& path) {
  const bool snarkjs = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
  if (!snarkjs) {
    std::string bytes;
    for (int k : ks) bytes += r.partitions(k).proof();
    write_file(path, bytes);
    return;
  }
  if (ks.size() != 1)
    throw std::runtime_error(path + ": a snarkjs proof.json holds one proof, the job has " + std::to_string(ks.size()) +
                             " partitions (put {k} in the path for a file per partition, e.g. proof{k}.json; a " +
                             "path not ending in .json gets the proofs' bytes)");
  groth16::with_curve(result_curve(r), [&](auto e) { snarkjs_proof<decltype(e)>(r, ks[0]).save(path, 1); });
}

Json public_inputs(const v1::PartitionResult& p) {
  Json a = Json::array();
  for (const auto& x : p.public_inputs()) a.push_back(Json::string(x));
  return a;
}

}  // namespace

void write_outputs(const v1::JobResult& r, const std::string& proof_path, const std::string& public_path) {
  if ((!proof_path.empty() || !public_path.empty()) && r.state() != v1::JOB_STATE_DONE)
    throw std::runtime_error("nothing to write: the job is " + state_name(r.state()));
  std::vector<int> all(size_t(r.partitions_size()));
  for (int k = 0; k < r.partitions_size(); ++k) all[size_t(k)] = k;
  if (!proof_path.empty() && per_partition(proof_path))
    for (int k : all) write_proofs(r, {k}, partition_path(proof_path, k));
  else if (!proof_path.empty())
    write_proofs(r, all, proof_path);
  if (public_path.empty()) return;
  if (per_partition(public_path)) {
    for (int k : all) public_inputs(r.partitions(k)).save(partition_path(public_path, k), 1);
    return;
  }
  Json out = Json::array();
  if (r.partitions_size() == 1)
    out = public_inputs(r.partitions(0));
  else
    for (const auto& p : r.partitions()) out.push_back(public_inputs(p));
  out.save(public_path, 1);
}

ProgressLine::ProgressLine(bool enabled) : enabled_(enabled), tty_(::isatty(2)) {}

ProgressLine::~ProgressLine() {
  if (enabled_ && tty_ && !last_.empty()) std::fprintf(stderr, "\r\033[K");
}

void ProgressLine::update(const v1::JobResult& r) {
  if (!enabled_) return;
  const std::string line =
      "job " + std::to_string(r.job_id()) + " " + state_name(r.state()) + ": " + partition_summary(r);
  const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (tty_) {
    std::fprintf(stderr, "\r\033[K%s  %.1f s", line.c_str(), t);
  } else if (line != last_) {
    std::fprintf(stderr, "%s  (%.1f s)\n", line.c_str(), t);
  }
  std::fflush(stderr);
  last_ = line;
}

}  // namespace snarkd::ctl
