#include "snarkd/server/activity.hpp"

#include <algorithm>
#include <cmath>

namespace snarkd::server {

double nearest_rank(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double rank = std::ceil(std::clamp(q, 0.0, 1.0) * double(v.size()));
  return v[size_t(std::max(rank, 1.0)) - 1];
}

Quantiles quantiles_of(std::string name, std::vector<double> v) {
  Quantiles q;
  q.name = std::move(name);
  q.count = v.size();
  q.median = nearest_rank(v, 0.5);
  q.p95 = nearest_rank(v, 0.95);
  q.max = v.empty() ? 0 : v.back();  // sorted by nearest_rank
  return q;
}

void Activity::push(std::deque<double>& d, double v) {
  d.push_back(v);
  if (d.size() > kKeep) d.pop_front();
}

void Activity::record_job(double t, const std::string& circuit, double duration_s, uint32_t partitions,
                          const std::vector<std::pair<std::string, double>>& stage_samples) {
  std::lock_guard l(mu_);
  done_.push_back({t, partitions});
  while (!done_.empty() && done_.front().t < t - window_s_) done_.pop_front();
  push(jobs_[circuit], duration_s);
  for (const auto& [stage, v] : stage_samples) {
    auto it = std::find_if(stages_.begin(), stages_.end(), [&](const auto& e) { return e.first == stage; });
    if (it == stages_.end()) it = stages_.insert(stages_.end(), {stage, {}});
    push(it->second, v);
  }
}

void Activity::forget_circuit(const std::string& circuit) {
  std::lock_guard l(mu_);
  jobs_.erase(circuit);
}

ThroughputStats Activity::throughput(double now) const {
  std::lock_guard l(mu_);
  while (!done_.empty() && done_.front().t < now - window_s_) done_.pop_front();
  ThroughputStats s;
  s.window_s = std::clamp(now, 0.0, window_s_);
  for (const Done& d : done_) {
    ++s.jobs;
    s.partitions += d.partitions;
  }
  if (s.window_s > 0) {
    s.jobs_per_s = double(s.jobs) / s.window_s;
    s.partitions_per_s = double(s.partitions) / s.window_s;
  }
  return s;
}

std::vector<Quantiles> Activity::job_durations() const {
  std::lock_guard l(mu_);
  std::vector<Quantiles> out;
  for (const auto& [circuit, d] : jobs_) out.push_back(quantiles_of(circuit, {d.begin(), d.end()}));
  return out;
}

std::vector<Quantiles> Activity::stage_durations() const {
  std::lock_guard l(mu_);
  std::vector<Quantiles> out;
  for (const auto& [stage, d] : stages_) out.push_back(quantiles_of(stage, {d.begin(), d.end()}));
  return out;
}

}  // namespace snarkd::server
