// Pairing latency on one core: the full pairing, its two halves, and a 4-pair multi-pairing
// (a Groth16 verification is one 4-pair product). Goal: pairing ≤ 1.0 ms (blst: 0.62 ms here).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "snarkd/ec/g1.hpp"
#include "snarkd/ec/g2.hpp"
#include "snarkd/ff/fr.hpp"
#include "snarkd/pairing/pairing.hpp"

namespace {

using snarkd::pairing::G1G2Pair;

std::vector<G1G2Pair> random_pairs(size_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<G1G2Pair> pairs;
  for (size_t i = 0; i < n; ++i) {
    auto p = snarkd::ec::G1Jacobian::from_affine(snarkd::ec::kG1Generator)
                 .mul_scalar(snarkd::ff::Fr::random(g));
    auto q = snarkd::ec::G2Jacobian::from_affine(snarkd::ec::kG2Generator)
                 .mul_scalar(snarkd::ff::Fr::random(g));
    pairs.emplace_back(p.to_affine(), q.to_affine());
  }
  return pairs;
}

void BM_Pairing(benchmark::State& state) {
  const auto pairs = random_pairs(1, 1);
  for (auto _ : state)
    benchmark::DoNotOptimize(snarkd::pairing::pairing(pairs[0].first, pairs[0].second));
}
void BM_PairingMillerLoop(benchmark::State& state) {
  const auto pairs = random_pairs(1, 2);
  for (auto _ : state)
    benchmark::DoNotOptimize(snarkd::pairing::miller_loop(pairs[0].first, pairs[0].second));
}
void BM_PairingFinalExponentiation(benchmark::State& state) {
  const auto pairs = random_pairs(1, 3);
  const auto f = snarkd::pairing::miller_loop(pairs[0].first, pairs[0].second);
  for (auto _ : state) benchmark::DoNotOptimize(snarkd::pairing::final_exponentiation(f));
}
void BM_PairingMulti4(benchmark::State& state) {
  const auto pairs = random_pairs(4, 4);
  for (auto _ : state) benchmark::DoNotOptimize(snarkd::pairing::multi_pairing(pairs));
}

}  // namespace

BENCHMARK(BM_Pairing)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PairingMillerLoop)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PairingFinalExponentiation)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PairingMulti4)->Unit(benchmark::kMicrosecond);
