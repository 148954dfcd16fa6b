// A small Prometheus registry and the text exposition format 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/): counters, gauges and
// histograms (cumulative _bucket{le=…} series, then _sum and _count), label values escaped.
// Written here because prometheus-cpp, the library that would do it, is not packaged for
// Debian 12 (`apt-cache policy libprometheus-cpp-dev`: no such package) and vendoring it is not
// worth 200 lines; the output passes `promtool check metrics` (tests/server/daemon_test.sh).
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace snarkd::server {

using Labels = std::vector<std::pair<std::string, std::string>>;

enum class MetricType { kCounter, kGauge, kHistogram };

class MetricFamily {
 public:
  MetricFamily(std::string name, std::string help, MetricType type, std::vector<double> buckets = {});

  void inc(const Labels& l, double v = 1);  // counters (v ≥ 0) and gauges
  void set(const Labels& l, double v);      // gauges
  void observe(const Labels& l, double v);  // histograms
  void touch(const Labels& l);              // the series exists (0) before its first event
  void clear();                             // gauges recomputed at each scrape
  double value(const Labels& l) const;      // counter/gauge value, or a histogram's count

  const std::string& name() const { return name_; }
  void render(std::string& out) const;

 private:
  struct Series {
    double value = 0;               // counter / gauge; histogram: the sum
    uint64_t count = 0;             // histogram
    std::vector<uint64_t> buckets;  // histogram: per upper bound, not cumulative
  };
  Series& series(const Labels& l);  // mu_ held

  const std::string name_, help_;
  const MetricType type_;
  const std::vector<double> bounds_;
  mutable std::mutex mu_;
  std::map<Labels, Series> series_;
};

class MetricsRegistry {
 public:
  MetricFamily& counter(const std::string& name, const std::string& help);
  MetricFamily& gauge(const std::string& name, const std::string& help);
  MetricFamily& histogram(const std::string& name, const std::string& help, std::vector<double> buckets);
  std::string render() const;  // every family, in registration order

 private:
  MetricFamily& add(std::unique_ptr<MetricFamily> f);
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<MetricFamily>> families_;
};

// "a\"b" for the label value a"b (backslash, double quote and newline escaped).
std::string escape_label_value(const std::string& v);
// Prometheus number text: integers exactly, others with 15 significant digits (what a double
// holds exactly in decimal: a unix time keeps its milliseconds), +Inf/-Inf/NaN.
std::string metric_number(double v);
// Exponential buckets start·factor^k, k < count.
std::vector<double> exponential_buckets(double start, double factor, size_t count);

}  // namespace snarkd::server
