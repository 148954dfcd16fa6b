// Recent completed work for Status and the live page: throughput over a sliding window, and
// the median, 95th percentile and maximum of recent job durations (per circuit) and stage
// durations (per stage). The Prometheus histograms hold the same events for a scraper, but
// their factor-2 buckets only bound a quantile within 2×; these are exact over the samples kept.
//
// Times are seconds on one monotonic clock (the Service passes seconds since it started), so
// a wall-clock step cannot move the window. Thread-safe.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace snarkd::server {

struct Quantiles {
  std::string name;
  uint64_t count = 0;
  double median = 0, p95 = 0, max = 0;
};

struct ThroughputStats {
  double window_s = 0;  // the window the rates are over: min(window, now)
  uint64_t jobs = 0, partitions = 0;
  double jobs_per_s = 0, partitions_per_s = 0;
};

// Nearest-rank quantile (the smallest sample with at least q of the samples ≤ it); 0 when
// empty. Sorts `v`.
double nearest_rank(std::vector<double>& v, double q);
Quantiles quantiles_of(std::string name, std::vector<double> v);

class Activity {
 public:
  static constexpr size_t kKeep = 1024;  // samples kept per circuit and per stage
  explicit Activity(double window_s = 300) : window_s_(window_s) {}

  // A job completed at time `t`: its duration, its partition count and, per stage, one
  // duration sample per partition (stage name → samples).
  void record_job(double t, const std::string& circuit, double duration_s, uint32_t partitions,
                  const std::vector<std::pair<std::string, double>>& stage_samples);

  // An evicted circuit's durations go (a daemon that loads and evicts many ids stays bounded).
  void forget_circuit(const std::string& circuit);

  ThroughputStats throughput(double now) const;
  std::vector<Quantiles> job_durations() const;    // by circuit id
  std::vector<Quantiles> stage_durations() const;  // in first-seen order of the stages

 private:
  struct Done {
    double t;
    uint32_t partitions;
  };
  void push(std::deque<double>& d, double v);

  const double window_s_;
  mutable std::mutex mu_;
  mutable std::deque<Done> done_;  // within the window (pruned as it is read)
  std::map<std::string, std::deque<double>> jobs_;
  std::vector<std::pair<std::string, std::deque<double>>> stages_;
};

}  // namespace snarkd::server
