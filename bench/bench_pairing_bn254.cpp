// BN254 pairing latency on one core (the EIP-197 / snarkjs curve): the full pairing, its two
// halves, and the 4-pair product of a Groth16 verification.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "snarkd/ec/bn254.hpp"
#include "snarkd/pairing/bn254.hpp"

namespace {

namespace ec = snarkd::ec::bn254;
namespace bn = snarkd::pairing::bn254;

std::vector<bn::G1G2Pair> random_pairs(size_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<bn::G1G2Pair> pairs;
  for (size_t i = 0; i < n; ++i) {
    auto p = ec::G1Jacobian::from_affine(ec::kG1Generator).mul_scalar(snarkd::ff::bn254::Fr::random(g));
    auto q = ec::G2Jacobian::from_affine(ec::kG2Generator).mul_scalar(snarkd::ff::bn254::Fr::random(g));
    pairs.emplace_back(p.to_affine(), q.to_affine());
  }
  return pairs;
}

void BM_Bn254Pairing(benchmark::State& state) {
  const auto pairs = random_pairs(1, 1);
  for (auto _ : state) benchmark::DoNotOptimize(bn::pairing(pairs[0].first, pairs[0].second));
}
void BM_Bn254PairingMillerLoop(benchmark::State& state) {
  const auto pairs = random_pairs(1, 2);
  for (auto _ : state) benchmark::DoNotOptimize(bn::miller_loop(pairs[0].first, pairs[0].second));
}
void BM_Bn254PairingFinalExponentiation(benchmark::State& state) {
  const auto pairs = random_pairs(1, 3);
  const auto f = bn::miller_loop(pairs[0].first, pairs[0].second);
  for (auto _ : state) benchmark::DoNotOptimize(bn::final_exponentiation(f));
}
void BM_Bn254PairingMulti4(benchmark::State& state) {
  const auto pairs = random_pairs(4, 4);
  for (auto _ : state) benchmark::DoNotOptimize(bn::multi_pairing(pairs));
}
void BM_Bn254G2SubgroupCheck(benchmark::State& state) {
  const auto pairs = random_pairs(1, 5);
  for (auto _ : state) benchmark::DoNotOptimize(ec::is_in_subgroup(pairs[0].second));
}

}  // namespace

BENCHMARK(BM_Bn254Pairing)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Bn254PairingMillerLoop)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Bn254PairingFinalExponentiation)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Bn254PairingMulti4)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Bn254G2SubgroupCheck)->Unit(benchmark::kMicrosecond);
