// snarkd_bench: Google Benchmark runner. `--quick` runs every benchmark whose name does not
// contain "Large" with a short minimum time (the README's smoke run); other flags pass through.
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>
#include <vector>

#include "snarkd/util/thread_pool.hpp"

int main(int argc, char** argv) {
  std::vector<char*> args;
  static std::string quick_filter = "--benchmark_filter=-Large";
  static std::string quick_time = "--benchmark_min_time=0.05";
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      args.push_back(quick_filter.data());
      args.push_back(quick_time.data());
    } else if (std::strncmp(argv[i], "--threads=", 10) == 0) {
      snarkd::ThreadPool::set_default_threads(std::stoul(argv[i] + 10));
    } else {
      args.push_back(argv[i]);
    }
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
