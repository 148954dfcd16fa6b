// Shared helpers for the benchmark files.
#pragma once
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>

namespace snarkd::bench {

// Runs `chain` dependent steps x = step(x) per iteration (each result feeds the next, so the
// figure is latency, the number that bounds serial code such as inversion chains and Miller
// loops). The "per_op" counter is seconds per step, printed with an SI prefix ("39n").
template <class T, class Step>
void run_chain(benchmark::State& state, T x, size_t chain, Step step) {
  for (auto _ : state) {
    for (size_t i = 0; i < chain; ++i) x = step(x);
    benchmark::DoNotOptimize(x);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * chain));
  state.counters["per_op"] =
      benchmark::Counter(static_cast<double>(chain), benchmark::Counter::kIsIterationInvariantRate |
                                                         benchmark::Counter::kInvert);
}

}  // namespace snarkd::bench
