// Counters, gauges and histograms with labels and their Prometheus text exposition, on
// prometheus-cpp (Debian prometheus-cpp-dev 1.0: its core Registry, metric types and
// TextSerializer; the daemon serves the text on its own HTTP port, so prometheus-cpp's civetweb
// Exposer is not used). This adapter keeps the daemon's calls: labels as name/value pairs, set()
// on a counter mirrors a cumulative total kept elsewhere (engine counters, /proc CPU time), and
// clear() drops a family's series (a GPU whose sample failed has no series rather than a stale
// one). The output passes `promtool check metrics` (tests/server/daemon_test.sh).
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace prometheus {
class Registry;
class Counter;
class Gauge;
class Histogram;
template <typename T>
class Family;
}  // namespace prometheus

namespace snarkd::server {

using Labels = std::vector<std::pair<std::string, std::string>>;

enum class MetricType { kCounter, kGauge, kHistogram };

class MetricFamily {
 public:
  // Registered in r under name; buckets (histograms) strictly increasing, else InvalidArgument.
  MetricFamily(prometheus::Registry& r, std::string name, const std::string& help, MetricType type,
               std::vector<double> buckets = {});

  void inc(const Labels& l, double v = 1);  // counters (v ≥ 0) and gauges
  void set(const Labels& l, double v);      // gauges; a counter follows a total that only grows
  void observe(const Labels& l, double v);  // histograms
  void touch(const Labels& l);              // the series exists (0) before its first event
  void clear();                             // gauges recomputed at each scrape
  double value(const Labels& l) const;      // counter/gauge value, or a histogram's count

  const std::string& name() const { return name_; }

 private:
  struct Series {  // the one of the three that matches type_; prometheus-cpp's family owns it
    prometheus::Counter* counter = nullptr;
    prometheus::Gauge* gauge = nullptr;
    prometheus::Histogram* histogram = nullptr;
  };
  Series& series(const Labels& l);  // mu_ held
  [[noreturn]] void wrong_type(const char* call) const;

  const std::string name_;
  const MetricType type_;
  const std::vector<double> bounds_;
  prometheus::Family<prometheus::Counter>* counters_ = nullptr;
  prometheus::Family<prometheus::Gauge>* gauges_ = nullptr;
  prometheus::Family<prometheus::Histogram>* histograms_ = nullptr;
  mutable std::mutex mu_;
  std::map<Labels, Series> series_;
};

class MetricsRegistry {
 public:
  MetricsRegistry();
  ~MetricsRegistry();
  MetricFamily& counter(const std::string& name, const std::string& help);
  MetricFamily& gauge(const std::string& name, const std::string& help);
  MetricFamily& histogram(const std::string& name, const std::string& help, std::vector<double> buckets);
  std::string render() const;  // the text exposition format 0.0.4, by prometheus-cpp

 private:
  MetricFamily& add(const std::string& name, const std::string& help, MetricType type,
                    std::vector<double> buckets = {});
  std::unique_ptr<prometheus::Registry> registry_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<MetricFamily>> families_;
};

// Exponential buckets start·factor^k, k < count.
std::vector<double> exponential_buckets(double start, double factor, size_t count);

}  // namespace snarkd::server
