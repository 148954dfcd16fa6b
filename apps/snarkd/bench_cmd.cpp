// `snarkd bench`: the engine end to end on simulated or CUDA devices — J jobs of P partitions
// of one circuit, W workers per device — with a human table, a JSON report and a timeline SVG.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "snarkd/engine/devices.hpp"
#include "snarkd/engine/engine.hpp"
#include "snarkd/engine/timeline.hpp"
#include "snarkd/groth16/bellperson_io.hpp"
#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/r1cs/circom.hpp"
#include "snarkd/r1cs/csr_file.hpp"
#include "snarkd/r1cs/synthetic.hpp"
#include "snarkd/util/file.hpp"
#include "snarkd/util/json.hpp"
#include "snarkd/util/proc_stats.hpp"
#include "snarkd/util/thread_pool.hpp"
#include "snarkd/util/threads.hpp"
#ifdef SNARKD_ENGINE_CUDA
#include "snarkd/cuda/setup_gpu.hpp"
#endif

namespace snarkd::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct BenchCircuit {
  std::shared_ptr<const groth16::BoundKey> key;
  std::shared_ptr<const r1cs::Circuit> circuit;   // key->shared_circuit()
  std::shared_ptr<const groth16::ProvingKey> pk;  // key->shared_pk()
  std::vector<ff::Fr> witness;
  double setup_s = 0;
};

BenchCircuit load_bench_circuit(const Options& a) {
  BenchCircuit b;
  const std::string which = a.require("circuit");
  r1cs::Circuit circuit;
  if (which == "porep-shaped") {
    r1cs::SyntheticParams p;
    p.num_constraints = a.get_u64("constraints", uint64_t{1} << 14);
    p.seed = a.get_u64("seed", 1);
    r1cs::SyntheticCircuit sc = r1cs::generate_synthetic(p);
    circuit = std::move(sc.circuit);
    b.witness = std::move(sc.witness);
  } else {
    circuit = r1cs::read_csr_file(which);
    b.witness = r1cs::read_wtns(a.require("witness"));
  }
  const auto t0 = Clock::now();
  groth16::ProvingKey pk;
  if (auto params = a.get("params")) {
    pk = groth16::read_params(*params, groth16::PointCheck::kTrusted);
  } else {
    const std::string where = a.get("setup").value_or(a.require("device").rfind("cuda:", 0) == 0 ? "gpu" : "cpu");
    if (where != "cpu" && where != "gpu") throw UsageError("--setup must be cpu or gpu");
    std::fprintf(stderr, "snarkd bench: INSECURE development setup on the %s for %llu constraints (--params loads a key)\n",
                 where.c_str(), (unsigned long long)circuit.num_constraints());
    const auto toxic = groth16::toxic_waste_from_seed(a.get_u64("seed", 1));
#ifdef SNARKD_ENGINE_CUDA
    if (where == "gpu") pk = cuda::setup_insecure_gpu(0, circuit, toxic);
#else
    if (where == "gpu") throw UsageError("--setup gpu: this build has no CUDA backend");
#endif
    if (where == "cpu") pk = groth16::setup_insecure(circuit, toxic);
  }
  b.key = groth16::BoundKey::bind(std::move(pk), std::move(circuit));
  b.setup_s = std::chrono::duration<double>(Clock::now() - t0).count();
  b.circuit = b.key->shared_circuit();
  b.pk = b.key->shared_pk();
  return b;
}

// Seconds of [spans of `a`] during which at least `k` spans of `b` (other workers' when
// `others`) are active, and the length of the union of `a`'s spans. A sweep over the edges.
std::pair<double, double> covered_s(const engine::Timeline& tl, uint32_t device, engine::Stage a, engine::Stage b,
                                    uint32_t k, bool others) {
  double covered = 0, total = 0;
  for (const auto& sa : tl.spans) {
    if (sa.device != device || sa.stage != a || !(sa.end_s > sa.begin_s)) continue;
    std::vector<std::pair<double, int>> edges;
    for (const auto& sb : tl.spans)
      if (sb.device == device && sb.stage == b && (!others || sb.worker != sa.worker) && sb.end_s > sa.begin_s &&
          sb.begin_s < sa.end_s && &sb != &sa)
        edges.push_back({std::max(sb.begin_s, sa.begin_s), 1}), edges.push_back({std::min(sb.end_s, sa.end_s), -1});
    std::sort(edges.begin(), edges.end());
    int active = 0;
    double last = sa.begin_s;
    for (const auto& [t, d] : edges) {
      if (active + (others ? 0 : 1) >= int(k)) covered += t - last;
      active += d, last = t;
    }
    total += sa.end_s - sa.begin_s;
  }
  return {covered, total};
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

struct Report {
  uint64_t proofs = 0, partitions = 0, invalid = 0, failed = 0;
  uint64_t cross_device = 0;  // partitions that ran on a device other than the one that reserved
  double wall_s = 0, busy = 0, busy_wall = 0;
  // Overlap of partitions on a device (issue 18): of the time some worker computes, the share
  // in which two or more do; of the upload time, the share in which another worker computes.
  double compute_overlap = 0, upload_overlap = 0;
  double steady_s_per_partition = 0;  // between the first and the last partition finished
  // Seconds after the first submit at which the first and the last job had all partitions
  // finalized, and the workers' busy time (Σ upload + compute + finalize): the same figures as
  // tests/server/daemon_bench prints for the daemon path (overhead.sh compares the two).
  double first_job_done_s = 0, last_job_done_s = 0, busy_sum_s = 0;
  std::vector<uint64_t> partitions_per_device;
  std::vector<std::pair<std::string, double>> phase_median;  // compute-stage phases (CUDA)
  std::vector<double> busy_per_device;
  std::array<double, engine::kNumStages> stage_median{};
  double queue_wait_median = 0;
  double prepare_median = 0;  // host seconds a partition's witness took to compact, before its reservation
  engine::EngineStats stats;
  // Key residency and the copy engine, summed over devices (the key streaming of issue 18).
  engine::StreamStats stream;
  std::string residency;  // device 0's plan for the circuit
};

// Copy-engine figures per partition: key bytes streamed, all host-to-device bytes, the copy
// engine's achieved bandwidth on streamed chunks, and the PCIe floor they imply.
struct CopyFigures {
  double streamed_per_partition = 0, h2d_per_partition = 0, bandwidth = 0, floor_s = 0;
};
CopyFigures copy_figures(const Report& r) {
  CopyFigures f;
  if (r.partitions == 0) return f;
  f.streamed_per_partition = double(r.stream.streamed_bytes) / double(r.partitions);
  f.h2d_per_partition = double(r.stream.streamed_bytes + r.stream.witness_bytes) / double(r.partitions);
  if (r.stream.copy_busy_s > 0) f.bandwidth = double(r.stream.streamed_bytes) / r.stream.copy_busy_s;
  if (f.bandwidth > 0) f.floor_s = f.h2d_per_partition / f.bandwidth;
  return f;
}

Report summarise(const engine::Engine& e, const std::vector<engine::JobResult>& results, double t0, double wall_s) {
  Report r;
  r.wall_s = wall_s;
  r.stats = e.stats();
  std::vector<double> queue_wait, finished, job_done, prepare;
  std::vector<std::pair<std::string, std::vector<double>>> phases;  // in first-seen order
  r.partitions_per_device.assign(e.devices().size(), 0);
  for (const auto& res : results) {
    if (res.state == engine::JobState::kDone) r.proofs += res.proofs.size();
    else ++r.failed;
    r.partitions += res.timings.size();
    job_done.push_back(0);
    for (const auto& t : res.timings) {
      job_done.back() = std::max(job_done.back(), t.finalized_s - t0);
      if (t.reserved_s > 0 && t.finalized_s > 0) r.busy_sum_s += t.finalized_s - t.reserved_s;
      queue_wait.push_back(t.dequeued_s - t.submitted_s);
      prepare.push_back(t.prepare_seconds);
      if (t.finalized_s > 0) finished.push_back(t.finalized_s), ++r.partitions_per_device.at(t.device);
      if (t.finalized_s > 0 && t.reserved_device != t.device) ++r.cross_device;
      for (const auto& ph : t.phases) {
        auto it = std::find_if(phases.begin(), phases.end(), [&](const auto& p) { return p.first == ph.name; });
        if (it == phases.end()) it = phases.insert(phases.end(), {ph.name, {}});
        it->second.push_back(ph.seconds);
      }
    }
  }
  if (!job_done.empty()) {
    const auto [lo, hi] = std::minmax_element(job_done.begin(), job_done.end());
    r.first_job_done_s = *lo, r.last_job_done_s = *hi;
  }
  for (const auto& [name, v] : phases) r.phase_median.emplace_back(name, median(v));
  // Steady-state throughput: the partitions finished after the first one, over the time they
  // took (excludes the pipeline's fill: the first upload and compute with an idle device).
  std::sort(finished.begin(), finished.end());
  if (finished.size() >= 2)
    r.steady_s_per_partition = (finished.back() - finished.front()) / double(finished.size() - 1);
  r.invalid = r.stats.invalid_proofs;
  r.queue_wait_median = median(queue_wait);
  r.prepare_median = median(prepare);
  const engine::Timeline tl = e.timeline();
  r.stage_median = engine::stage_medians(tl);
  for (uint32_t d = 0; d < tl.devices; ++d) {
    double first = INFINITY, last = 0;  // the device's steady state: first to last compute
    for (const auto& s : tl.spans)
      if (s.device == d && s.stage == engine::Stage::kCompute) first = std::min(first, s.begin_s), last = std::max(last, s.end_s);
    r.busy_per_device.push_back(last > first ? engine::busy_fraction(tl, d, first, last) : 0);
    r.busy_wall += engine::busy_fraction(tl, d, 0, tl.wall_s) / tl.devices;
  }
  for (double b : r.busy_per_device) r.busy += b / double(r.busy_per_device.size());
  {  // compute beside another worker's compute; uploads beside another worker's compute
    double c_cov = 0, c_tot = 0, u_cov = 0, u_tot = 0;
    for (uint32_t d = 0; d < tl.devices; ++d) {
      const auto [cc, ct] = covered_s(tl, d, engine::Stage::kCompute, engine::Stage::kCompute, 1, true);
      const auto [uc, ut] = covered_s(tl, d, engine::Stage::kUpload, engine::Stage::kCompute, 1, true);
      c_cov += cc, c_tot += ct, u_cov += uc, u_tot += ut;
    }
    r.compute_overlap = c_tot > 0 ? c_cov / c_tot : 0;
    r.upload_overlap = u_tot > 0 ? u_cov / u_tot : 0;
  }
  for (const auto& d : e.devices()) {
    const engine::StreamStats s = d->stream_stats();
    r.stream.key_resident_bytes += s.key_resident_bytes;
    r.stream.slot_bytes += s.slot_bytes;
    r.stream.streamed_bytes += s.streamed_bytes;
    r.stream.witness_bytes += s.witness_bytes;
    r.stream.fills += s.fills;
    r.stream.leases += s.leases;
    r.stream.copy_busy_s += s.copy_busy_s;
    r.stream.pinned_host_bytes = std::max(r.stream.pinned_host_bytes, s.pinned_host_bytes);  // per host
  }
  if (!e.devices().empty()) r.residency = e.devices()[0]->residency("bench");
  return r;
}

// A benchmark figure as a JSON number, 9 significant digits; null when not finite.
Json json_num(double v) {
  if (!std::isfinite(v)) return Json();
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return Json::number_text(buf);
}

// One member per line (scripts/gpu/ffi_porep.sh reads fields with sed), written by nlohmann-json
// behind util/json.hpp.
void write_json(const std::string& path, const std::string& device, const Options& a, const BenchCircuit& bc,
                const Report& r, uint32_t workers, uint64_t run_vram_bytes) {
  auto list = [](const auto& values) {
    Json l = Json::array();
    for (const auto v : values) l.push_back(json_num(double(v)));
    return l;
  };
  Json j = Json::object();
  j.set("device", Json::string(device));
  j.set("circuit", Json::string(a.get("circuit").value_or("") == "porep-shaped" ? "porep-shaped" : "file"));
  j.set("constraints", Json::number(bc.circuit->num_constraints()));
  j.set("domain_log2", Json::number(bc.pk->log_domain));
  j.set("workers_per_device", Json::number(workers));
  j.set("proofs", Json::number(r.proofs));
  j.set("partitions", Json::number(r.partitions));
  j.set("failed_jobs", Json::number(r.failed));
  j.set("wall_s", json_num(r.wall_s));
  j.set("s_per_partition", json_num(r.partitions ? r.wall_s / double(r.partitions) : 0));
  j.set("s_per_partition_steady", json_num(r.steady_s_per_partition));
  j.set("first_job_done_s", json_num(r.first_job_done_s));
  j.set("last_job_done_s", json_num(r.last_job_done_s));
  j.set("busy_sum_s", json_num(r.busy_sum_s));
  j.set("devices", Json::number(r.partitions_per_device.size()));
  j.set("partitions_per_device", list(r.partitions_per_device));
  j.set("cross_device_partitions", Json::number(r.cross_device));
  j.set("gpu_busy_fraction", json_num(r.busy));
  j.set("gpu_busy_fraction_of_wall", json_num(r.busy_wall));
  j.set("compute_overlap_fraction", json_num(r.compute_overlap));
  j.set("upload_overlap_fraction", json_num(r.upload_overlap));
  j.set("gpu_busy_fraction_per_device", list(r.busy_per_device));
  j.set("invalid_proofs", Json::number(r.invalid));
  j.set("deadlocks", Json::number(r.stats.deadlocks));
  j.set("vram_overcommits", Json::number(r.stats.vram_overcommits));
  j.set("peak_vram_bytes", Json::number(r.stats.peak_vram_bytes));
  j.set("peak_host_rss_bytes", Json::number(peak_rss_bytes()));
  j.set("host_budget_peak_bytes", Json::number(r.stats.host_peak_bytes));
  j.set("setup_s", json_num(bc.setup_s));
  j.set("queue_wait_median_s", json_num(r.queue_wait_median));
  j.set("witness_prepare_median_s", json_num(r.prepare_median));
  const CopyFigures cf = copy_figures(r);
  j.set("key_residency", Json::string(r.residency));
  j.set("vram_cap_bytes", Json::number(run_vram_bytes));
  j.set("key_resident_bytes", Json::number(r.stream.key_resident_bytes));
  j.set("streaming_slot_bytes", Json::number(r.stream.slot_bytes));
  j.set("key_streamed_bytes_per_partition", json_num(cf.streamed_per_partition));
  j.set("h2d_bytes_per_partition", json_num(cf.h2d_per_partition));
  j.set("copy_bandwidth_bytes_per_s", json_num(cf.bandwidth));
  j.set("pcie_floor_s_per_partition", json_num(cf.floor_s));
  j.set("chunk_fills", Json::number(r.stream.fills));
  j.set("chunk_uses", Json::number(r.stream.leases));
  j.set("pinned_host_bytes", Json::number(r.stream.pinned_host_bytes));
  Json stages = Json::object();
  for (size_t s = 0; s < engine::kNumStages; ++s)  // a stage no partition went through: 0
    stages.set(engine::stage_name(engine::Stage(s)), json_num(std::isnan(r.stage_median[s]) ? 0.0 : r.stage_median[s]));
  j.set("stage_median_s", std::move(stages));
  Json phases = Json::object();
  for (const auto& [name, v] : r.phase_median) phases.set(name, json_num(v));
  j.set("compute_phase_median_s", std::move(phases));
  write_file(path, j.dump(2) + "\n");  // errors name the path
}

void print_table(const Report& r, uint32_t devices, uint32_t workers) {
  std::printf("devices %u × workers %u: %llu proofs (%llu partitions) in %.3f s → %.3f s/partition\n", devices, workers,
              (unsigned long long)r.proofs, (unsigned long long)r.partitions, r.wall_s,
              r.partitions ? r.wall_s / double(r.partitions) : 0.0);
  std::printf("  device busy %.1f %% (steady state), %.1f %% of wall; invalid proofs %llu, failed jobs %llu, deadlocks %llu, "
              "VRAM over-commits %llu\n",
              100 * r.busy, 100 * r.busy_wall, (unsigned long long)r.invalid, (unsigned long long)r.failed,
              (unsigned long long)r.stats.deadlocks, (unsigned long long)r.stats.vram_overcommits);
  std::printf("  overlap: %.1f %% of compute time beside another worker's compute, %.1f %% of upload time beside "
              "another worker's compute\n",
              100 * r.compute_overlap, 100 * r.upload_overlap);
  std::printf("  peak VRAM (ledger) %.3f GiB, peak host RSS %.3f GiB\n", double(r.stats.peak_vram_bytes) / (1 << 30),
              double(peak_rss_bytes()) / (1 << 30));
  std::printf("  stage medians:");
  for (size_t s = 0; s < engine::kNumStages; ++s)
    if (!std::isnan(r.stage_median[s])) std::printf(" %s %.4f s", engine::stage_name(engine::Stage(s)), r.stage_median[s]);
  std::printf("; queue wait %.4f s; witness compaction (host, before the reservation) %.4f s\n",
              r.queue_wait_median, r.prepare_median);
  std::printf("  steady state %.3f s/partition; partitions per device:", r.steady_s_per_partition);
  for (uint64_t n : r.partitions_per_device) std::printf(" %llu", (unsigned long long)n);
  std::printf(" (%llu on a device other than the one that reserved)\n", (unsigned long long)r.cross_device);
  if (!r.phase_median.empty()) {
    std::printf("  compute phases (device time, medians):");
    for (const auto& [name, v] : r.phase_median) std::printf(" %s %.4f", name.c_str(), v);
    std::printf(" s\n");
  }
  std::printf("  key: %s\n", r.residency.c_str());
  const CopyFigures cf = copy_figures(r);
  if (r.stream.fills > 0)
    std::printf("  streamed %.3f GB/partition (%llu fills, %llu uses), host-to-device %.3f GB/partition at %.2f GB/s: "
                "PCIe floor %.3f s/partition\n",
                cf.streamed_per_partition / 1e9, (unsigned long long)r.stream.fills, (unsigned long long)r.stream.leases,
                cf.h2d_per_partition / 1e9, cf.bandwidth / 1e9, cf.floor_s);
  if (r.stream.pinned_host_bytes > 0)
    std::printf("  pinned host memory for keys %.3f GiB (one copy per host)\n", double(r.stream.pinned_host_bytes) / (1 << 30));
}

// The witness of each partition as a fresh copy (the engine takes ownership). A PoRep-size copy
// is 4.2 GB of fresh pages: one thread manages ~2 GB/s, so a 6-partition job took ~12 s to
// build and the devices sat idle waiting for it (measured on the 2-GPU H200 host); the copies
// are made in parallel, one thread per partition.
std::vector<groth16::AnyScalars> copy_witnesses(const std::vector<ff::Fr>& w, uint64_t parts) {
  std::vector<groth16::AnyScalars> out(parts);
  run_on_threads(parts, [&](size_t k) { out[k] = w; });  // out of memory: reported by the submitter
  return out;
}

std::vector<engine::JobResult> run_jobs(engine::Engine& e, const BenchCircuit& bc, uint64_t jobs, uint64_t parts,
                                        uint64_t host_budget) {
  std::vector<engine::JobId> ids(jobs);
  std::exception_ptr submit_error;
  const uint64_t job_bytes = parts * bc.witness.size() * sizeof(ff::Fr);
  std::thread submitter([&] {  // blocks on the host budget while the engine works
    try {
      for (uint64_t j = 0; j < jobs; ++j) {
        // With a host budget, the copies are made once the budget has room for them: made
        // first, a PoRep job's 10 copies (42 GB) would sit beside the previous job's and the
        // 2^27 key in host RAM (the H200 host has 125 GiB). The bench watches the budget.
        while (host_budget && e.stats().host_in_use_bytes + job_bytes > host_budget)
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        engine::JobRequest req;
        req.circuit_id = "bench";
        req.witnesses = copy_witnesses(bc.witness, parts);
        ids[j] = e.submit(std::move(req));
      }
    } catch (...) {
      submit_error = std::current_exception();
    }
  });
  submitter.join();
  if (submit_error) std::rethrow_exception(submit_error);
  std::vector<engine::JobResult> results;
  for (engine::JobId id : ids) results.push_back(*e.await(id));
  return results;
}

// "a,,b" → {"a", "", "b"}: every comma splits, so the parsers below see (and refuse) empty items.
std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> v;
  for (size_t start = 0;;) {
    const size_t comma = s.find(',', start);
    v.push_back(s.substr(start, comma - start));
    if (comma == std::string::npos) return v;
    start = comma + 1;
  }
}

// "1,2,3" → {1, 2, 3}: one engine per count over the same circuit and key (the setup dominates
// at large sizes, so a worker sweep should not repeat it).
std::vector<uint32_t> parse_counts(const char* flag, const std::string& s) {
  std::vector<uint32_t> v;
  for (const std::string& item : split_list(s)) {
    char* end = nullptr;
    const unsigned long w = std::strtoul(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || w == 0 || w > 64) throw UsageError(std::string(flag) + ": '" + item + "' is not 1..64");
    v.push_back(uint32_t(w));
  }
  return v;
}

// "16,24,0.02" → bytes per entry (GiB, fractions allowed; 0 = the device's default).
std::vector<uint64_t> parse_gib_list(const char* flag, const std::string& s) {
  std::vector<uint64_t> v;
  for (const std::string& item : split_list(s)) {
    char* end = nullptr;
    const double g = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || !(g >= 0) || g > 1e6)
      throw UsageError(std::string(flag) + ": '" + item + "' is not a number of GiB");
    v.push_back(uint64_t(g * double(uint64_t{1} << 30)));
  }
  return v;
}

// A non-negative number (fractions allowed); UsageError naming the option otherwise.
double parse_number(const char* flag, const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !(v >= 0) || v > 1e9)
    throw UsageError(std::string(flag) + ": '" + s + "' is not a number");
  return v;
}

// 16 GiB → "16", 0.02 GiB → "0.02", the default → "0" (file name suffixes).
std::string gib_label(uint64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", double(bytes) / double(uint64_t{1} << 30));
  return b;
}

// OUT.json → OUT-w2.json when sweeping several worker counts (OUT-d2-w2.json with device counts).
std::string with_suffix(const std::string& path, const std::string& suffix) {
  const size_t dot = path.rfind('.');
  const size_t slash = path.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return path + suffix;
  return path.substr(0, dot) + suffix + path.substr(dot);
}

struct BenchRun {
  std::string device;
  uint64_t jobs, parts;
  uint64_t vram_bytes = 0;  // this run's cap (0: the device's default)
  engine::DeviceOptions dopt;
  engine::EngineConfig ec;
};

// "2026/12/02 10:31:05.123": nvidia-smi's timestamp format, so a memory trace sampled beside
// the bench can be cut at the runs' boundaries.
std::string wall_stamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  localtime_r(&t, &tm);
  char b[64];
  std::strftime(b, sizeof b, "%Y/%m/%d %H:%M:%S", &tm);
  return std::string(b) + "." + (ms < 10 ? "00" : ms < 100 ? "0" : "") + std::to_string(ms);
}

int run_engine(const Options& a, const BenchRun& run, const BenchCircuit& bc, uint32_t workers,
               const std::string& suffix);

int run_once(const Options& a, const BenchRun& run, const BenchCircuit& bc, uint32_t workers,
             const std::string& suffix) {
  std::printf("run start %s (cap %s GiB, %u workers)\n", wall_stamp().c_str(),
              run.vram_bytes ? gib_label(run.vram_bytes).c_str() : "no", workers);
  // SNARKD_PROFILE_RUNS=1: the profiler collects during the runs only, not the set-up
  // (ncu --profile-from-start off).
  const bool profile = std::getenv("SNARKD_PROFILE_RUNS") != nullptr && run.device.rfind("cuda:", 0) == 0;
  try {
    if (profile) engine::cuda_profile(true);
    const int rc = run_engine(a, run, bc, workers, suffix);
    if (profile) engine::cuda_profile(false);
    std::printf("run end %s\n", wall_stamp().c_str());
    // The engine is gone (pool freed, no worker computing): what is left is the CUDA context
    // with the kernels loaded so far, the "context" a memory cap is measured against.
    if (run.device.rfind("cuda:", 0) == 0)
      std::printf("device memory in use between runs (GPU 0, the CUDA context and its loaded kernels): %.1f MiB\n",
                  double(engine::cuda_memory_used(0)) / double(1 << 20));
    return rc;
  } catch (const std::exception& e) {  // a run that cannot start (e.g. a cap too small) ends alone
    if (profile) engine::cuda_profile(false);
    std::printf("run end %s\n", wall_stamp().c_str());
    std::fprintf(stderr, "snarkd bench: run with cap %s GiB, %u workers failed: %s\n",
                 run.vram_bytes ? gib_label(run.vram_bytes).c_str() : "no", workers, e.what());
    return 1;
  }
}

int run_engine(const Options& a, const BenchRun& run, const BenchCircuit& bc, uint32_t workers,
               const std::string& suffix) {
  auto devices = engine::make_devices(run.device, run.dopt);
  const uint32_t num_devices = uint32_t(devices.size());
  engine::EngineConfig ec = run.ec;
  ec.workers_per_device = workers;
  engine::Engine e(std::move(devices), ec);
  e.register_circuit("bench", bc.key);
  std::printf("%s, vram cap %s GiB: key %s\n", e.devices()[0]->name().c_str(),
              run.vram_bytes ? gib_label(run.vram_bytes).c_str() : "no", e.devices()[0]->residency("bench").c_str());
  const double t0 = e.now();
  const std::vector<engine::JobResult> results = run_jobs(e, bc, run.jobs, run.parts, ec.host_budget_bytes);
  const Report r = summarise(e, results, t0, e.now() - t0);
  print_table(r, num_devices, workers);
  for (const auto& res : results)
    if (res.state != engine::JobState::kDone)
      std::fprintf(stderr, "job %llu: %s: %s\n", (unsigned long long)res.id, engine::job_state_name(res.state),
                   res.error.c_str());
  if (auto path = a.get("json")) write_json(with_suffix(*path, suffix), run.device, a, bc, r, workers, run.vram_bytes);
  if (auto path0 = a.get("timeline")) {
    const std::string path = with_suffix(*path0, suffix);
    const std::string title = run.device + ", " + std::to_string(workers) + " workers/device, " +
                              std::to_string(bc.circuit->num_constraints()) + " constraints";
    std::ofstream(path) << engine::timeline_svg(e.timeline(), title);
    const std::string png = with_suffix(path.substr(0, path.rfind('.')), "") + ".png";
    if (engine::write_png_if_possible(path, png)) std::printf("  timeline: %s, %s\n", path.c_str(), png.c_str());
    else std::printf("  timeline: %s\n", path.c_str());
  }
  return r.invalid == 0 && r.failed == 0 && r.stats.deadlocks == 0 && r.stats.vram_overcommits == 0 && r.cross_device == 0
             ? 0
             : 1;
}

}  // namespace

void declare_bench(Options& o) {
  o.value("device", "sim, sim:K, cpu, cuda:N, cuda:N,M or cuda:all", "D")
      .value("circuit", "porep-shaped (synthetic) or a snarkd CSR file", "C")
      .value("constraints", "porep-shaped: the circuit's constraints (default 2^14)", "N")
      .value("witness", "with a CSR circuit: its witness", "W.wtns")
      .value("params", "a proving key to load instead of the development setup", "P.params")
      .value("seed", "synthetic circuit and development setup seed (default 1)", "S")
      .value("jobs", "jobs to submit (default 4)", "J")
      .value("partitions-per-job", "partitions per job (default 1)", "P")
      .value("workers", "workers per device; a list runs once per count (default 2)", "W[,W2..]")
      .value("vram-gib",
             "the device's whole memory for the engine, GiB (fractions allowed); a list runs once per cap over "
             "one set-up (0: the device's default)",
             "G[,G2..]")
      .value("host-gib", "host budget for queued witnesses", "H")
      .value("json", "write the report as JSON", "OUT.json")
      .value("timeline", "write the timeline picture (SVG, and PNG when a converter is installed)", "OUT.svg")
      .value("sim-upload-ms", "simulated devices: upload stage time", "U")
      .value("sim-compute-ms", "simulated devices: compute stage time", "C")
      .value("sim-step-ms", "simulated devices, streamed keys: the two steps' compute times (QAP+H+H MSM, witness MSMs)",
             "Q,M")
      .value("sim-steps", "simulated devices, streamed keys: 1 step per partition (default) or the old 2", "1|2")
      .value("sim-lanes", "simulated devices: 2 runs the witness MSMs on a lane of their own (default 1)", "1|2")
      .value("sim-copy-gbps", "simulated devices: copy-engine bandwidth for witnesses and streamed key chunks", "B")
      .value("watchdog-s", "seconds without progress counted as a stall (default 120)", "S")
      .value("threads", "CPU threads", "N")
      .value("setup", "where the development setup runs: cpu or gpu (default: gpu for cuda devices)", "cpu|gpu")
      .value("device-counts", "one run on the first k devices of --device for each k (scaling)", "1,2")
      .value("runs", "these (GiB cap, workers) pairs instead of every --vram-gib cap × every --workers count",
             "CAP:W[,CAP:W..]");
  o.app().footer("Every proof is verified before its job counts as done. exit code 1: a proof was invalid or a job failed.");
}

int cmd_bench(const Options& a) {
  if (a.has("threads")) ThreadPool::set_default_threads(a.get_u64("threads", 1));
  BenchRun run;
  run.device = a.require("device");
  run.jobs = a.get_u64("jobs", 4);
  run.parts = a.get_u64("partitions-per-job", 1);
  const std::vector<uint32_t> workers = parse_counts("--workers", a.get("workers").value_or("2"));
  if (run.jobs == 0 || run.parts == 0) throw UsageError("--jobs and --partitions-per-job must be ≥ 1");
  // "16,24,0": one run per cap over the same circuit and key (0: the device's default).
  std::vector<uint64_t> caps{0};
  if (auto g = a.get("vram-gib")) caps = parse_gib_list("--vram-gib", *g);
  run.dopt.sim.upload_s = double(a.get_u64("sim-upload-ms", 0)) / 1e3;
  run.dopt.sim.compute_s = double(a.get_u64("sim-compute-ms", 0)) / 1e3;
  run.dopt.sim.compute_lanes = uint32_t(a.get_u64("sim-lanes", 1));
  run.dopt.sim.one_step = a.get_u64("sim-steps", 1) == 1;
  if (run.dopt.sim.compute_lanes < 1 || run.dopt.sim.compute_lanes > 2) throw UsageError("--sim-lanes: 1 or 2");
  if (auto g = a.get("sim-step-ms")) {
    const std::vector<std::string> v = split_list(*g);
    if (v.size() != 2) throw UsageError("--sim-step-ms: '" + *g + "' is not Q_MS,M_MS");
    run.dopt.sim.step0_s = parse_number("--sim-step-ms", v[0]) / 1e3;
    run.dopt.sim.step1_s = parse_number("--sim-step-ms", v[1]) / 1e3;
  }
  if (auto g = a.get("sim-copy-gbps"))
    run.dopt.sim.copy_bytes_per_s = run.dopt.sim.upload_bytes_per_s = parse_number("--sim-copy-gbps", *g) * 1e9;
  if (auto g = a.get("host-gib")) run.ec.host_budget_bytes = uint64_t(std::stod(*g) * double(uint64_t{1} << 30));
  run.ec.watchdog_s = double(a.get_u64("watchdog-s", 120));
  engine::device_list(run.device);  // a bad spec fails before the (long) setup
#ifdef SNARKD_CUDA_COMPILE_CHECK
  if (run.device.rfind("cuda:", 0) == 0)
    std::fprintf(stderr, "warning: this build's device code is PTX at -O0 (SNARKD_CUDA_COMPILE_CHECK): GPU timings "
                         "mean nothing; rebuild without it to measure\n");
#endif
  std::vector<uint32_t> counts{uint32_t(engine::device_list(run.device).size())};
  if (auto c = a.get("device-counts")) counts = parse_counts("--device-counts", *c);
  for (uint32_t k : counts) engine::first_devices(run.device, k);
  // "--runs 16:1,16:2,24:3,0:3": (cap GiB, workers) pairs instead of every cap × every count.
  std::vector<std::pair<uint64_t, uint32_t>> pairs;
  if (auto r = a.get("runs")) {
    for (const std::string& item : split_list(*r)) {
      const size_t colon = item.find(':');
      if (colon == std::string::npos) throw UsageError("--runs: '" + item + "' is not CAP_GIB:WORKERS");
      pairs.emplace_back(parse_gib_list("--runs", item.substr(0, colon)).at(0),
                         parse_counts("--runs", item.substr(colon + 1)).at(0));
    }
  } else {
    for (uint64_t cap : caps)
      for (uint32_t w : workers) pairs.emplace_back(cap, w);
  }
  if (run.device.rfind("cuda:", 0) == 0)  // before anything of ours is on the device
    std::printf("device memory in use at start-up (GPU 0, the CUDA context): %.1f MiB\n",
                double(engine::cuda_memory_used(0)) / double(1 << 20));
  const BenchCircuit bc = load_bench_circuit(a);
  std::printf("circuit: %llu constraints, domain 2^%u, setup %.1f s\n", (unsigned long long)bc.circuit->num_constraints(),
              bc.pk->log_domain, bc.setup_s);
  // Pinned once for every run (each run's engine loads the key again).
  const bool on_gpu = run.device.rfind("cuda:", 0) == 0;
  const auto pinned = on_gpu ? engine::keep_host_key_pinned(engine::CircuitEntry::bound("bench", bc.key)) : nullptr;
  const bool many_caps = std::any_of(pairs.begin(), pairs.end(), [&](const auto& p) { return p.first != pairs[0].first; });
  const bool many_workers =
      std::any_of(pairs.begin(), pairs.end(), [&](const auto& p) { return p.second != pairs[0].second; });
  int rc = 0;
  for (const auto& [cap, w] : pairs) {
    BenchRun capped = run;
    capped.vram_bytes = capped.dopt.vram_bytes = cap;
    const std::string vsuffix = many_caps ? "-v" + gib_label(cap) : "";
    for (uint32_t k : counts) {
      BenchRun sub = capped;
      sub.device = engine::first_devices(run.device, k);
      const std::string dsuffix = vsuffix + (counts.size() > 1 ? "-d" + std::to_string(k) : "");
      rc = std::max(rc, run_once(a, sub, bc, w, dsuffix + (many_workers ? "-w" + std::to_string(w) : "")));
    }
  }
  return rc;
}

}  // namespace snarkd::cli
