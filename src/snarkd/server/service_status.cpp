// Status (RPC and /status) and Prometheus metrics; the Service's constructor and destructor,
// which need the metric families complete.
#include <algorithm>
#include <map>

#include "snarkd/server/build_info.hpp"
#include "snarkd/server/host_stats.hpp"
#include "snarkd/server/service.hpp"

namespace snarkd::server {

namespace {

// What a device's ledger manages (DeviceStatus.memory; the ledger metrics' memory label).
const char* memory_kind(const std::string& device) {
  if (device.rfind("cuda:", 0) == 0) return "vram";
  if (device.rfind("sim:", 0) == 0) return "host_arena";
  return "host";
}

std::vector<GpuTarget> gpu_targets(const engine::Engine& e) {
  std::vector<GpuTarget> t;
  for (const auto& d : e.devices())
    if (std::string(memory_kind(d->name())) == "vram") t.push_back({d->name(), d->pci_bus_id()});
  return t;
}

}  // namespace

struct Service::Families {
  explicit Families(MetricsRegistry& r)
      : submitted(r.counter("snarkd_jobs_submitted_total", "Jobs accepted (journaled), by circuit.")),
        completed(r.counter("snarkd_jobs_completed_total", "Jobs finished with every proof verified, by circuit.")),
        failed(r.counter("snarkd_jobs_failed_total", "Jobs that failed, by circuit.")),
        cancelled(r.counter("snarkd_jobs_cancelled_total", "Jobs cancelled, by circuit.")),
        deduplicated(r.counter("snarkd_jobs_deduplicated_total",
                               "Submits answered with an earlier job (same request id and payload), by circuit.")),
        requeued(
            r.counter("snarkd_jobs_requeued_total", "Unfinished jobs re-queued from the journal after a restart.")),
        partitions(r.counter("snarkd_partitions_proven_total", "Partition proofs delivered, by circuit.")),
        rpc(r.counter("snarkd_rpc_requests_total", "gRPC calls by method and status code.")),
        stage(r.histogram("snarkd_stage_duration_seconds",
                          "Time partitions spent in each stage (queued, wait_vram, upload, compute, finalize).",
                          exponential_buckets(0.001, 2, 20))),
        job(r.histogram("snarkd_job_duration_seconds", "Accepted to done, by circuit.",
                        exponential_buckets(0.01, 2, 20))),
        journal(r.histogram("snarkd_journal_commit_seconds", "Spool + journal commit (both fsync'd) per accepted job.",
                            exponential_buckets(0.0001, 2, 16))),
        queue_depth(r.gauge("snarkd_queue_depth_partitions", "Partitions waiting for a worker.")),
        in_flight(r.gauge("snarkd_in_flight_partitions", "Partitions on a device (memory stage to finalize).")),
        jobs(r.gauge("snarkd_jobs", "Jobs the daemon knows, by state (finished ones until the retention time).")),
        // The ledger's figures are labelled with what its bytes are (memory="vram" only on a
        // GPU; "host_arena" on a simulated device, "host" on the CPU device).
        ledger_capacity(r.gauge("snarkd_ledger_capacity_bytes",
                                "Bytes each device's ledger manages, by device and memory (vram, host_arena, host).")),
        ledger_reserved(r.gauge("snarkd_ledger_reserved_bytes", "Working sets reserved on the ledger now.")),
        ledger_peak(r.gauge("snarkd_ledger_peak_reserved_bytes", "Most ledger bytes reserved at once.")),
        ledger_waiting(r.gauge("snarkd_ledger_waiting_reservations", "Partitions waiting for the ledger now.")),
        resident(r.gauge("snarkd_resident_key_bytes", "Resident keys, by device and memory.")),
        host_capacity(r.gauge("snarkd_host_budget_bytes", "Host budget for queued witnesses (0 = unlimited).")),
        host_in_use(r.gauge("snarkd_host_budget_in_use_bytes", "Host budget charged now.")),
        host_peak(r.gauge("snarkd_host_budget_peak_bytes", "Most host budget charged at once.")),
        busy(r.gauge("snarkd_device_compute_busy_seconds", "Compute engine busy time (simulated devices), by device.")),
        workers_busy(r.gauge("snarkd_workers_busy", "Workers carrying a partition, by device.")),
        workers(r.gauge("snarkd_workers", "Workers by device and current stage (idle included).")),
        invalid(r.counter("snarkd_invalid_proofs_total", "Proofs the self-check rejected.")),
        deadlocks(r.counter("snarkd_engine_deadlocks_total", "Watchdog firings (no progress with work in flight).")),
        overcommits(r.counter("snarkd_ledger_overcommits_total", "Ledger audit failures.")),
        keys(r.gauge("snarkd_keys_loaded", "Circuits registered.")),
        uptime(r.gauge("snarkd_uptime_seconds", "Seconds since the daemon started.")),
        draining(r.gauge("snarkd_draining", "1 while draining after SIGTERM.")),
        circuits_failed(r.gauge("snarkd_circuits_failed", "Circuits that failed to load (Status lists them).")),
        awaits(r.gauge("snarkd_awaits_waiting", "Await and Prove calls waiting for their job (they hold no thread).")),
        cancel_stop(r.histogram("snarkd_cancel_stop_seconds",
                                "Cancel of a running job to its partitions leaving their devices.",
                                exponential_buckets(0.001, 2, 16))),
        build(r.gauge("snarkd_build_info", "Always 1; the build in labels (version, commit, cuda, compile_check).")),
        host_total(r.gauge("snarkd_host_memory_total_bytes", "The host's memory (/proc/meminfo MemTotal).")),
        host_available(r.gauge("snarkd_host_memory_available_bytes", "Host memory available (MemAvailable).")),
        nvml(r.gauge("snarkd_nvml_available", "1 when NVML (the NVIDIA driver's management library) is loaded.")),
        gpu_util(r.gauge("snarkd_gpu_utilization_ratio", "Fraction of the last NVML sample period a kernel ran, by device.")),
        gpu_mem_util(r.gauge("snarkd_gpu_memory_utilization_ratio",
                             "Fraction of the last NVML sample period device memory was read or written.")),
        gpu_mem_used(r.gauge("snarkd_gpu_memory_used_bytes", "Device memory in use on the card (every process), by device.")),
        gpu_mem_total(r.gauge("snarkd_gpu_memory_total_bytes", "Device memory of the card, by device.")),
        gpu_temp(r.gauge("snarkd_gpu_temperature_celsius", "GPU temperature, by device.")),
        gpu_power(r.gauge("snarkd_gpu_power_watts", "GPU power draw, by device.")),
        // The process metrics every Prometheus client library exports, under their usual names.
        cpu(r.counter("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.")),
        rss(r.gauge("process_resident_memory_bytes", "Resident memory size in bytes.")),
        vsz(r.gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.")),
        fds(r.gauge("process_open_fds", "Number of open file descriptors.")),
        max_fds(r.gauge("process_max_fds", "Maximum number of open file descriptors.")),
        start_time(r.gauge("process_start_time_seconds", "Start time of the process since unix epoch in seconds.")) {}

  MetricFamily &submitted, &completed, &failed, &cancelled, &deduplicated, &requeued, &partitions, &rpc;
  MetricFamily &stage, &job, &journal;
  MetricFamily &queue_depth, &in_flight, &jobs, &ledger_capacity, &ledger_reserved, &ledger_peak, &ledger_waiting;
  MetricFamily &resident, &host_capacity, &host_in_use, &host_peak, &busy, &workers_busy, &workers;
  MetricFamily &invalid, &deadlocks, &overcommits;
  MetricFamily &keys, &uptime, &draining, &circuits_failed, &awaits, &cancel_stop;
  MetricFamily &build, &host_total, &host_available, &nvml;
  MetricFamily &gpu_util, &gpu_mem_util, &gpu_mem_used, &gpu_mem_total, &gpu_temp, &gpu_power;
  MetricFamily &cpu, &rss, &vsz, &fds, &max_fds, &start_time;
};

// The circuits are registered and the journal replayed by start(), not here.
Service::Service(const ServerConfig& cfg, std::unique_ptr<engine::Engine> engine, std::unique_ptr<Journal> journal)
    : cfg_(cfg), token_(resolve_token(cfg)), engine_(std::move(engine)), journal_(std::move(journal)) {
  for (const auto& d : engine_->devices()) device_names_.push_back(d->name());
  gpus_ = std::make_unique<GpuMonitor>(gpu_targets(*engine_));
  setup_metrics();
}

Service::~Service() {
  stop();
  engine_.reset();  // the watcher is gone: the engine's shutdown cancellations are not journaled
}

void Service::setup_metrics() {
  m_ = std::make_unique<Families>(metrics_);
  m_->requeued.touch({});
  m_->journal.touch({});
  m_->cancel_stop.touch({});
  for (const char* s : {"queued", "wait_vram", "upload", "compute", "finalize"}) m_->stage.touch({{"stage", s}});
  const BuildInfo& b = build_info();
  m_->build.set({{"version", b.version},
                 {"commit", b.git_commit},
                 {"cuda", b.cuda ? "on" : "off"},
                 {"compile_check", b.cuda_compile_check ? "on" : "off"}},
                1);
}

double Service::since_start() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

void Service::metric_submitted(const std::string& c) {
  m_->submitted.inc({{"circuit", c}});
  for (MetricFamily* f : {&m_->completed, &m_->failed, &m_->cancelled}) f->touch({{"circuit", c}});
}
void Service::metric_dedup(const std::string& c) { m_->deduplicated.inc({{"circuit", c}}); }
void Service::metric_journal_commit(double s) { m_->journal.observe({}, s); }
void Service::metric_requeued() { m_->requeued.inc({}); }
void Service::metric_cancel_stop(double s) { m_->cancel_stop.observe({}, s); }
void Service::count_rpc(const std::string& method, const std::string& code) {
  m_->rpc.inc({{"method", method}, {"code", code}});
}

void Service::record_metrics(const v1::JobResult& r) {
  const Labels circuit{{"circuit", r.circuit_id()}};
  switch (r.state()) {
    case v1::JOB_STATE_DONE:
      m_->completed.inc(circuit);
      break;
    case v1::JOB_STATE_FAILED:
      m_->failed.inc(circuit);
      break;
    default:
      m_->cancelled.inc(circuit);
      break;
  }
  const bool done = r.state() == v1::JOB_STATE_DONE;
  const double duration = r.finished_unix_s() - r.submitted_unix_s();
  if (done) {
    m_->partitions.inc(circuit, r.partitions_size());
    m_->job.observe(circuit, duration);
  }
  std::vector<std::pair<std::string, double>> samples;  // a done job's stages, 0 s included
  for (const v1::PartitionResult& p : r.partitions()) {
    const v1::StageTimings& t = p.timings();
    const std::pair<const char*, double> stages[] = {{"queued", t.queued_s()},
                                                     {"wait_vram", t.wait_vram_s()},
                                                     {"upload", t.upload_s()},
                                                     {"compute", t.compute_s()},
                                                     {"finalize", t.finalize_s()}};
    for (auto [name, v] : stages) {
      if (v > 0) m_->stage.observe({{"stage", name}}, v);
      if (done) samples.emplace_back(name, v);
    }
  }
  if (done) activity_.record_job(since_start(), r.circuit_id(), duration, uint32_t(r.partitions_size()), samples);
}

bool Service::token_matches(const std::string& presented) const {
  std::lock_guard l(mu_);
  if (token_.empty() || presented.size() != token_.size()) return false;
  unsigned char diff = 0;  // constant time in the token's length
  for (size_t i = 0; i < token_.size(); ++i) diff |= uint8_t(token_[i] ^ presented[i]);
  return diff == 0;
}

// ---- status ---------------------------------------------------------------------------------

namespace {

v1::JobSummary summary_of(const v1::JobResult& r, double now) {
  v1::JobSummary s;
  s.set_job_id(r.job_id());
  s.set_circuit_id(r.circuit_id());
  s.set_state(r.state());
  s.set_priority(r.priority());
  s.set_partitions(uint32_t(r.partitions_size()));
  uint32_t proven = 0;
  for (const auto& p : r.partitions()) proven += p.stage() == v1::PARTITION_STAGE_PROVEN;
  s.set_partitions_proven(proven);
  s.set_age_s(std::max(0.0, now - r.submitted_unix_s()));
  s.set_error(r.error());
  return s;
}

// Version, engine counters, and per device its ledger's VRAM figures and its workers as the
// engine reports them; `daemon_job` maps an engine job id to ours (0: not known yet, the moment
// between the engine's submit and the daemon recording the id).
void fill_engine_status(v1::StatusReply& s, const engine::Engine& e, const ServerConfig& cfg,
                        const std::function<uint64_t(engine::JobId)>& daemon_job) {
  const engine::EngineStats es = e.stats();
  const double now = e.now();
  s.set_version(build_info().version);
  s.set_queued_partitions(es.queued_partitions);
  s.set_in_flight_partitions(es.in_flight_partitions);
  s.set_host_budget_bytes(cfg.host_budget_bytes);
  s.set_host_in_use_bytes(es.host_in_use_bytes);
  s.set_host_peak_bytes(es.host_peak_bytes);
  s.set_invalid_proofs(es.invalid_proofs);
  s.set_deadlocks(es.deadlocks);
  s.set_vram_overcommits(es.vram_overcommits);
  const auto& devs = e.devices();
  for (size_t d = 0; d < devs.size(); ++d) {
    v1::DeviceStatus* ds = s.add_devices();
    ds->set_name(devs[d]->name());
    ds->set_memory(memory_kind(devs[d]->name()));
    ds->set_resident_bytes(devs[d]->resident_bytes());
    ds->set_compute_busy_s(d < es.compute_busy_s.size() ? es.compute_busy_s[d] : 0);
    if (d < es.ledgers.size()) {
      const engine::LedgerStats& l = es.ledgers[d];
      ds->set_pool_bytes(l.capacity);
      ds->set_reserved_bytes(l.in_use);
      ds->set_peak_reserved_bytes(l.peak_in_use);
      ds->set_vram_waiting(l.waiting);
    }
  }
  for (const engine::WorkerStatus& w : es.workers) {
    if (w.device >= devs.size()) continue;
    v1::WorkerStatus* ws = s.mutable_devices(int(w.device))->add_workers();
    ws->set_index(w.worker);
    ws->set_stage(w.stage);
    if (w.job != 0) {
      ws->set_job_id(daemon_job(w.job));
      ws->set_partition(w.partition);
    }
    ws->set_stage_s(std::max(0.0, now - w.since_s));
  }
}

}  // namespace

v1::StatusReply Service::status(uint32_t recent) const {
  recent = std::min<uint32_t>(recent == 0 ? 20 : recent, 1000);
  v1::StatusReply s;
  fill_engine_status(s, *engine_, cfg_, [this](engine::JobId eid) -> uint64_t {
    std::lock_guard l(mu_);
    const auto it = by_engine_.find(eid);
    return it == by_engine_.end() ? 0 : it->second;
  });
  s.set_uptime_s(since_start());
  s.set_draining(draining_);
  fill_observations(s);
  std::vector<std::shared_ptr<Record>> active;
  std::vector<std::shared_ptr<Record>> latest;
  {
    std::lock_guard l(mu_);
    for (const auto& [id, c] : circuits_) *s.add_keys() = key_info(*c);
    fill_failed_circuits(s);
    for (const auto& [id, r] : records_) {
      if (!r->terminal)
        active.push_back(r);
      else if (r->result.state() == v1::JOB_STATE_DONE)
        s.set_jobs_done(s.jobs_done() + 1);
      else if (r->result.state() == v1::JOB_STATE_FAILED)
        s.set_jobs_failed(s.jobs_failed() + 1);
      else
        s.set_jobs_cancelled(s.jobs_cancelled() + 1);
    }
    for (auto it = records_.rbegin(); it != records_.rend() && latest.size() < recent; ++it)
      latest.push_back(it->second);
  }
  const double now_unix = unix_now();
  std::map<uint64_t, v1::JobResult> live;
  for (const auto& rec : active) {
    v1::JobResult p = progress(*rec);
    if (p.state() == v1::JOB_STATE_RUNNING)
      s.set_jobs_running(s.jobs_running() + 1);
    else if (p.state() == v1::JOB_STATE_QUEUED)
      s.set_jobs_queued(s.jobs_queued() + 1);
    live[rec->id] = std::move(p);
  }
  for (const auto& rec : latest) {
    const auto it = live.find(rec->id);
    *s.add_recent_jobs() = summary_of(it != live.end() ? it->second : progress(*rec), now_unix);
  }
  if (cluster_) cluster_->fill_status(s, recent);  // cluster mode: the whole cluster's jobs, hosts
  return s;
}

namespace {

void fill_gpu(v1::GpuStatus& g, const GpuSample& x, std::chrono::steady_clock::time_point now) {
  g.set_available(x.available);
  g.set_reason(x.reason);
  g.set_name(x.name);
  g.set_utilization(x.utilization);
  g.set_memory_utilization(x.memory_utilization);
  g.set_memory_used_bytes(x.memory_used_bytes);
  g.set_memory_total_bytes(x.memory_total_bytes);
  g.set_temperature_c(x.temperature_c);
  g.set_power_w(x.power_w);
  if (x.available) g.set_sample_age_s(std::max(0.0, std::chrono::duration<double>(now - x.taken).count()));
}

void fill_quantiles(v1::DurationStats& d, const Quantiles& q) {
  d.set_name(q.name);
  d.set_count(q.count);
  d.set_median_s(q.median);
  d.set_p95_s(q.p95);
  d.set_max_s(q.max);
}

}  // namespace

void Service::fill_observations(v1::StatusReply& s) const {
  const BuildInfo& b = build_info();
  v1::BuildInfo& bi = *s.mutable_build();
  bi.set_version(b.version);
  bi.set_git_commit(b.git_commit);
  bi.set_cuda(b.cuda);
  bi.set_cuda_compile_check(b.cuda_compile_check);
  const HostMemory hm = read_host_memory();
  const ProcessStats ps = read_process_stats();
  v1::HostStatus& h = *s.mutable_host();
  h.set_memory_total_bytes(hm.total_bytes);
  h.set_memory_available_bytes(hm.available_bytes);
  h.set_process_resident_bytes(ps.resident_bytes);
  h.set_process_peak_resident_bytes(ps.peak_resident_bytes);
  h.set_process_cpu_s(ps.cpu_seconds);
  h.set_process_open_fds(ps.open_fds);
  h.set_process_threads(ps.threads);
  s.set_nvml(gpus_->nvml_state());
  const ThroughputStats t = activity_.throughput(since_start());
  v1::Throughput& th = *s.mutable_throughput();
  th.set_window_s(t.window_s);
  th.set_jobs(t.jobs);
  th.set_partitions(t.partitions);
  th.set_jobs_per_s(t.jobs_per_s);
  th.set_partitions_per_s(t.partitions_per_s);
  for (const Quantiles& q : activity_.job_durations()) fill_quantiles(*s.add_job_durations(), q);
  for (const Quantiles& q : activity_.stage_durations()) fill_quantiles(*s.add_stage_durations(), q);
  const auto now = std::chrono::steady_clock::now();
  for (v1::DeviceStatus& d : *s.mutable_devices()) fill_gpu(*d.mutable_gpu(), gpus_->sample(d.name()), now);
}

// ---- metrics --------------------------------------------------------------------------------

void Service::refresh_gauges(const v1::StatusReply& s) const {
  m_->queue_depth.set({}, double(s.queued_partitions()));
  m_->in_flight.set({}, double(s.in_flight_partitions()));
  const std::pair<const char*, uint64_t> states[] = {{"queued", s.jobs_queued()},
                                                     {"running", s.jobs_running()},
                                                     {"done", s.jobs_done()},
                                                     {"failed", s.jobs_failed()},
                                                     {"cancelled", s.jobs_cancelled()}};
  for (auto [name, n] : states) m_->jobs.set({{"state", name}}, double(n));
  for (MetricFamily* f : {&m_->gpu_util, &m_->gpu_mem_util, &m_->gpu_mem_used, &m_->gpu_mem_total, &m_->gpu_temp,
                          &m_->gpu_power})
    f->clear();  // a GPU whose sample failed has no series rather than a stale one
  for (const v1::DeviceStatus& d : s.devices()) {
    const Labels dev{{"device", d.name()}};
    const Labels mem{{"device", d.name()}, {"memory", d.memory()}};
    m_->ledger_capacity.set(mem, double(d.pool_bytes()));
    m_->ledger_reserved.set(mem, double(d.reserved_bytes()));
    m_->ledger_peak.set(mem, double(d.peak_reserved_bytes()));
    m_->ledger_waiting.set(mem, double(d.vram_waiting()));
    m_->resident.set(mem, double(d.resident_bytes()));
    m_->busy.set(dev, d.compute_busy_s());
    if (const v1::GpuStatus& g = d.gpu(); g.available()) {
      m_->gpu_util.set(dev, g.utilization());
      m_->gpu_mem_util.set(dev, g.memory_utilization());
      m_->gpu_mem_used.set(dev, double(g.memory_used_bytes()));
      m_->gpu_mem_total.set(dev, double(g.memory_total_bytes()));
      m_->gpu_temp.set(dev, g.temperature_c());
      m_->gpu_power.set(dev, g.power_w());
    }
    // Every stage gets a sample (0 included), so a stage's series never vanishes between scrapes.
    std::map<std::string, double> by_stage{{"idle", 0}, {"wait_vram", 0}, {"upload", 0},
                                           {"wait_compute", 0}, {"compute", 0}, {"finalize", 0}};
    for (const auto& w : d.workers()) by_stage[w.stage()] += 1;
    for (const auto& [stage, n] : by_stage) m_->workers.set({{"device", d.name()}, {"stage", stage}}, n);
    m_->workers_busy.set(dev, double(d.workers_size()) - by_stage["idle"]);
  }
  m_->host_capacity.set({}, double(s.host_budget_bytes()));
  m_->host_in_use.set({}, double(s.host_in_use_bytes()));
  m_->host_peak.set({}, double(s.host_peak_bytes()));
  m_->invalid.set({}, double(s.invalid_proofs()));
  m_->deadlocks.set({}, double(s.deadlocks()));
  m_->overcommits.set({}, double(s.vram_overcommits()));
  m_->keys.set({}, double(s.keys_size()));
  m_->uptime.set({}, s.uptime_s());
  m_->draining.set({}, s.draining() ? 1 : 0);
  m_->circuits_failed.set({}, double(s.failed_circuits_size()));
  m_->host_total.set({}, double(s.host().memory_total_bytes()));
  m_->host_available.set({}, double(s.host().memory_available_bytes()));
  m_->nvml.set({}, s.nvml().rfind("ok", 0) == 0 ? 1 : 0);
  refresh_process_gauges();
}

void Service::refresh_process_gauges() const {
  const ProcessStats p = read_process_stats();
  m_->cpu.set({}, p.cpu_seconds);
  m_->rss.set({}, double(p.resident_bytes));
  m_->vsz.set({}, double(p.virtual_bytes));
  m_->fds.set({}, double(p.open_fds));
  m_->max_fds.set({}, double(p.max_fds));
  m_->start_time.set({}, p.start_time_unix_s);
}

std::string Service::metrics_text() const {
  refresh_gauges(status(1));
  {
    std::lock_guard l(mu_);
    m_->awaits.set({}, double(waiters_.size()));
  }
  return metrics_.render();
}

}  // namespace snarkd::server
