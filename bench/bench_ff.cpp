// Field arithmetic latency: every benchmark runs a dependent chain (each result feeds the next
// operation), so the "per_op" counter (seconds, SI-prefixed: "38n" = 38 ns) is the latency of
// one operation, the number that bounds serial code such as inversion chains and Miller loops.
// Reference: blst's Fp mul takes 30–38 ns on the Zen 5 dev VM (docs/PERFORMANCE.md).
#include <benchmark/benchmark.h>

#include <cstddef>
#include <random>

#include "bench_util.hpp"
#include "snarkd/ff/fp.hpp"
#include "snarkd/ff/fp2.hpp"
#include "snarkd/ff/fr.hpp"
#include "snarkd/ff/inverse.hpp"

namespace {

using snarkd::ff::Fp;
using snarkd::ff::Fp2;
using snarkd::ff::Fr;

using snarkd::bench::run_chain;

template <class T>
T random_element(uint64_t seed) {
  std::mt19937_64 g(seed);
  return T::random(g);
}

constexpr size_t kShortChain = 256;  // cheap ops: amortises the loop and DoNotOptimize store
constexpr size_t kLongChain = 4;     // inversions: ~µs each

void BM_FpMul(benchmark::State& state) {
  const Fp y = random_element<Fp>(1);
  run_chain(state, random_element<Fp>(2), kShortChain, [&](const Fp& x) { return x * y; });
}
void BM_FpSquare(benchmark::State& state) {
  run_chain(state, random_element<Fp>(3), kShortChain, [](const Fp& x) { return x.square(); });
}
// The same chain through the product kernel (x·x), for an A/B in one process against
// BM_FpSquare's dedicated square (21 limb products in the rows instead of 36).
void BM_FpSquareByMul(benchmark::State& state) {
  run_chain(state, random_element<Fp>(3), kShortChain, [](const Fp& x) { return x * x; });
}
void BM_FpAdd(benchmark::State& state) {
  const Fp y = random_element<Fp>(4);
  run_chain(state, random_element<Fp>(5), kShortChain, [&](const Fp& x) { return x + y; });
}
void BM_FpInverse(benchmark::State& state) {
  run_chain(state, random_element<Fp>(6), kLongChain, [](const Fp& x) { return x.inverse(); });
}
void BM_FrMul(benchmark::State& state) {
  const Fr y = random_element<Fr>(7);
  run_chain(state, random_element<Fr>(8), kShortChain, [&](const Fr& x) { return x * y; });
}
void BM_FrInverse(benchmark::State& state) {
  run_chain(state, random_element<Fr>(9), kLongChain, [](const Fr& x) { return x.inverse(); });
}
// The binary-GCD inversion (ff/inverse.hpp) on the same chains, for an A/B in one process.
void BM_FpInverseVartime(benchmark::State& state) {
  run_chain(state, random_element<Fp>(6), kLongChain,
            [](const Fp& x) { return snarkd::ff::inverse_vartime(x); });
}
void BM_FrInverseVartime(benchmark::State& state) {
  run_chain(state, random_element<Fr>(9), kLongChain,
            [](const Fr& x) { return snarkd::ff::inverse_vartime(x); });
}
void BM_Fp2Mul(benchmark::State& state) {
  const Fp2 y = random_element<Fp2>(10);
  run_chain(state, random_element<Fp2>(11), kShortChain, [&](const Fp2& x) { return x * y; });
}
// The previous Fp2 multiplication (Karatsuba on reduced Fp products), kept for an A/B in the same
// process against BM_Fp2Mul's lazily reduced one.
void BM_Fp2MulReducedKaratsuba(benchmark::State& state) {
  const Fp2 y = random_element<Fp2>(10);
  run_chain(state, random_element<Fp2>(11), kShortChain, [&](const Fp2& x) {
    const Fp v0 = x.c0 * y.c0, v1 = x.c1 * y.c1;
    return Fp2{v0 - v1, (x.c0 + x.c1) * (y.c0 + y.c1) - v0 - v1};
  });
}
void BM_Fp2Square(benchmark::State& state) {
  run_chain(state, random_element<Fp2>(12), kShortChain, [](const Fp2& x) { return x.square(); });
}

}  // namespace

BENCHMARK(BM_FpMul);
BENCHMARK(BM_FpSquare);
BENCHMARK(BM_FpSquareByMul);
BENCHMARK(BM_FpAdd);
BENCHMARK(BM_FpInverse);
BENCHMARK(BM_FrMul);
BENCHMARK(BM_FrInverse);
BENCHMARK(BM_FpInverseVartime);
BENCHMARK(BM_FrInverseVartime);
BENCHMARK(BM_Fp2Mul);
BENCHMARK(BM_Fp2MulReducedKaratsuba);
BENCHMARK(BM_Fp2Square);
