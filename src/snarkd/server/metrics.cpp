#include "snarkd/server/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "snarkd/util/error.hpp"

namespace snarkd::server {

std::string escape_label_value(const std::string& v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string metric_number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 9.007199254740992e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

std::vector<double> exponential_buckets(double start, double factor, size_t count) {
  std::vector<double> b;
  for (size_t k = 0; k < count; ++k, start *= factor) b.push_back(start);
  return b;
}

MetricFamily::MetricFamily(std::string name, std::string help, MetricType type, std::vector<double> buckets)
    : name_(std::move(name)), help_(std::move(help)), type_(type), bounds_(std::move(buckets)) {
  if (!std::is_sorted(bounds_.begin(), bounds_.end())) throw InvalidArgument("metric " + name_ + ": unsorted buckets");
}

MetricFamily::Series& MetricFamily::series(const Labels& l) {
  auto [it, fresh] = series_.try_emplace(l);
  if (fresh && type_ == MetricType::kHistogram) it->second.buckets.assign(bounds_.size(), 0);
  return it->second;
}

void MetricFamily::inc(const Labels& l, double v) {
  std::lock_guard g(mu_);
  series(l).value += v;
}

void MetricFamily::set(const Labels& l, double v) {
  std::lock_guard g(mu_);
  series(l).value = v;
}

void MetricFamily::observe(const Labels& l, double v) {
  std::lock_guard g(mu_);
  Series& s = series(l);
  s.value += v;
  ++s.count;
  // The first bound ≥ v (le is inclusive); larger values only reach +Inf.
  const auto it = std::lower_bound(bounds_.begin(), bounds_.end(), v);
  if (it != bounds_.end()) ++s.buckets[size_t(it - bounds_.begin())];
}

void MetricFamily::touch(const Labels& l) {
  std::lock_guard g(mu_);
  series(l);
}

void MetricFamily::clear() {
  std::lock_guard g(mu_);
  series_.clear();
}

double MetricFamily::value(const Labels& l) const {
  std::lock_guard g(mu_);
  const auto it = series_.find(l);
  if (it == series_.end()) return 0;
  return type_ == MetricType::kHistogram ? double(it->second.count) : it->second.value;
}

namespace {

// {a="x",b="y"} with an optional extra label (le) appended; "" for no labels.
std::string label_text(const Labels& l, const char* extra_key = nullptr, const std::string& extra_value = "") {
  if (l.empty() && !extra_key) return "";
  std::string s = "{";
  for (size_t i = 0; i < l.size(); ++i)
    s += (i ? "," : "") + l[i].first + "=\"" + escape_label_value(l[i].second) + "\"";
  if (extra_key) s += std::string(l.empty() ? "" : ",") + extra_key + "=\"" + extra_value + "\"";
  return s + "}";
}

const char* type_name(MetricType t) {
  return t == MetricType::kCounter ? "counter" : t == MetricType::kGauge ? "gauge" : "histogram";
}

}  // namespace

void MetricFamily::render(std::string& out) const {
  std::lock_guard g(mu_);
  out += "# HELP " + name_ + " " + help_ + "\n";
  out += "# TYPE " + name_ + " " + type_name(type_) + "\n";
  for (const auto& [labels, s] : series_) {
    if (type_ != MetricType::kHistogram) {
      out += name_ + label_text(labels) + " " + metric_number(s.value) + "\n";
      continue;
    }
    uint64_t cumulative = 0;
    for (size_t b = 0; b < bounds_.size(); ++b) {
      cumulative += s.buckets[b];
      out += name_ + "_bucket" + label_text(labels, "le", metric_number(bounds_[b])) + " " +
             metric_number(double(cumulative)) + "\n";
    }
    out += name_ + "_bucket" + label_text(labels, "le", "+Inf") + " " + metric_number(double(s.count)) + "\n";
    out += name_ + "_sum" + label_text(labels) + " " + metric_number(s.value) + "\n";
    out += name_ + "_count" + label_text(labels) + " " + metric_number(double(s.count)) + "\n";
  }
}

MetricFamily& MetricsRegistry::add(std::unique_ptr<MetricFamily> f) {
  std::lock_guard g(mu_);
  for (const auto& e : families_)
    if (e->name() == f->name()) throw InvalidArgument("metric " + f->name() + " registered twice");
  families_.push_back(std::move(f));
  return *families_.back();
}

MetricFamily& MetricsRegistry::counter(const std::string& name, const std::string& help) {
  return add(std::make_unique<MetricFamily>(name, help, MetricType::kCounter));
}

MetricFamily& MetricsRegistry::gauge(const std::string& name, const std::string& help) {
  return add(std::make_unique<MetricFamily>(name, help, MetricType::kGauge));
}

MetricFamily& MetricsRegistry::histogram(const std::string& name, const std::string& help,
                                         std::vector<double> buckets) {
  return add(std::make_unique<MetricFamily>(name, help, MetricType::kHistogram, std::move(buckets)));
}

std::string MetricsRegistry::render() const {
  std::lock_guard g(mu_);
  std::string out;
  for (const auto& f : families_) f->render(out);
  return out;
}

}  // namespace snarkd::server
