#include "snarkd/server/metrics.hpp"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <functional>
#include <stdexcept>

#include "snarkd/util/error.hpp"

namespace snarkd::server {

std::vector<double> exponential_buckets(double start, double factor, size_t count) {
  std::vector<double> b;
  for (size_t k = 0; k < count; ++k, start *= factor) b.push_back(start);
  return b;
}

MetricFamily::MetricFamily(prometheus::Registry& r, std::string name, const std::string& help, MetricType type,
                           std::vector<double> buckets)
    : name_(std::move(name)), type_(type), bounds_(std::move(buckets)) {
  // prometheus-cpp checks the bounds only when a series is added; checked here, at start-up.
  if (std::adjacent_find(bounds_.begin(), bounds_.end(), std::greater_equal<>()) != bounds_.end())
    throw InvalidArgument("metric " + name_ + ": buckets not strictly increasing");
  try {
    if (type_ == MetricType::kCounter)
      counters_ = &prometheus::BuildCounter().Name(name_).Help(help).Register(r);
    else if (type_ == MetricType::kGauge)
      gauges_ = &prometheus::BuildGauge().Name(name_).Help(help).Register(r);
    else
      histograms_ = &prometheus::BuildHistogram().Name(name_).Help(help).Register(r);
  } catch (const std::invalid_argument& e) {  // a bad name, or one registered twice
    throw InvalidArgument("metric " + name_ + ": " + e.what());
  }
}

void MetricFamily::wrong_type(const char* call) const {
  throw InvalidArgument("metric " + name_ + ": " + call + " does not fit its type");
}

MetricFamily::Series& MetricFamily::series(const Labels& l) {
  auto [it, fresh] = series_.try_emplace(l);
  if (!fresh) return it->second;
  try {
    const prometheus::Labels labels(l.begin(), l.end());
    if (counters_) it->second.counter = &counters_->Add(labels);
    if (gauges_) it->second.gauge = &gauges_->Add(labels);
    if (histograms_) it->second.histogram = &histograms_->Add(labels, prometheus::Histogram::BucketBoundaries(bounds_));
  } catch (const std::invalid_argument& e) {  // a bad label name
    series_.erase(it);
    throw InvalidArgument("metric " + name_ + ": " + e.what());
  }
  return it->second;
}

void MetricFamily::inc(const Labels& l, double v) {
  std::lock_guard g(mu_);
  Series& s = series(l);
  if (s.counter)
    s.counter->Increment(v);
  else if (s.gauge)
    s.gauge->Increment(v);
  else
    wrong_type("inc");
}

void MetricFamily::set(const Labels& l, double v) {
  std::lock_guard g(mu_);
  Series& s = series(l);
  if (s.gauge) {
    s.gauge->Set(v);
  } else if (s.counter) {
    // A counter has no Set: it moves up by the difference (mu_ makes the read and the add one
    // step). A total that went down (its source restarted) is not followed.
    const double now = s.counter->Value();
    if (v > now) s.counter->Increment(v - now);
  } else {
    wrong_type("set");
  }
}

void MetricFamily::observe(const Labels& l, double v) {
  std::lock_guard g(mu_);
  Series& s = series(l);
  if (!s.histogram) wrong_type("observe");
  s.histogram->Observe(v);  // le is inclusive: v lands in the first bound ≥ v
}

void MetricFamily::touch(const Labels& l) {
  std::lock_guard g(mu_);
  series(l);
}

void MetricFamily::clear() {
  std::lock_guard g(mu_);
  for (auto& [labels, s] : series_) {
    if (s.counter) counters_->Remove(s.counter);
    if (s.gauge) gauges_->Remove(s.gauge);
    if (s.histogram) histograms_->Remove(s.histogram);
  }
  series_.clear();
}

double MetricFamily::value(const Labels& l) const {
  std::lock_guard g(mu_);
  const auto it = series_.find(l);
  if (it == series_.end()) return 0;
  const Series& s = it->second;
  if (s.counter) return s.counter->Value();
  if (s.gauge) return s.gauge->Value();
  return double(s.histogram->Collect().histogram.sample_count);
}

// Throw: a name registered twice is a bug, not a family to share (Merge would hand it back).
MetricsRegistry::MetricsRegistry()
    : registry_(std::make_unique<prometheus::Registry>(prometheus::Registry::InsertBehavior::Throw)) {}

MetricsRegistry::~MetricsRegistry() {
  families_.clear();  // they point into registry_
}

MetricFamily& MetricsRegistry::add(const std::string& name, const std::string& help, MetricType type,
                                   std::vector<double> buckets) {
  std::lock_guard g(mu_);
  families_.push_back(std::make_unique<MetricFamily>(*registry_, name, help, type, std::move(buckets)));
  return *families_.back();
}

MetricFamily& MetricsRegistry::counter(const std::string& name, const std::string& help) {
  return add(name, help, MetricType::kCounter);
}

MetricFamily& MetricsRegistry::gauge(const std::string& name, const std::string& help) {
  return add(name, help, MetricType::kGauge);
}

MetricFamily& MetricsRegistry::histogram(const std::string& name, const std::string& help,
                                         std::vector<double> buckets) {
  return add(name, help, MetricType::kHistogram, std::move(buckets));
}

std::string MetricsRegistry::render() const { return prometheus::TextSerializer().Serialize(registry_->Collect()); }

}  // namespace snarkd::server
