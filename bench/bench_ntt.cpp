// NTT throughput over Fr, natural order in and out, on the global pool (--threads=N).
// Wall-clock time (the work runs on several threads). The argument is log2 of the size;
// "Large" sizes (2^22: 128 MiB, 2^24: 512 MiB of data) are skipped by --quick.
// Goal: forward 2^20 ≤ 150 ms with 2 threads on the dev machine.
// SNARKD_NTT_KERNELS=portable|avx512 picks the kernels behind kAuto for A/B runs.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "snarkd/ff/fr.hpp"
#include "snarkd/poly/ntt.hpp"

namespace {

using snarkd::ff::Fr;
using snarkd::poly::Domain;
using snarkd::poly::NttKernels;

std::vector<Fr> random_data(size_t n) {
  std::mt19937_64 g(n);
  std::vector<Fr> v(n);
  for (Fr& x : v) x = Fr::random(g);
  return v;
}

// Runs op(domain, data) on random data of 2^range(0) elements (in place: the data changes
// between iterations, the cost does not). kAuto: the AVX-512 IFMA kernels where the CPU has
// them (SNARKD_NTT_KERNELS=portable turns them off for a whole run).
template <class Op>
void run(benchmark::State& state, Op op, NttKernels kernels = NttKernels::kAuto) {
  const Domain domain(static_cast<uint32_t>(state.range(0)), snarkd::ff::kBellpersonDomainGenerator,
                      Domain::kDefaultPassLog, kernels);
  std::vector<Fr> data = random_data(domain.size());
  for (auto _ : state) {
    op(domain, data);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * domain.size()));
}

const Fr kShift = Fr::from_u64(snarkd::ff::kBellpersonDomainGenerator);  // Filecoin's coset

void BM_NttForward(benchmark::State& state) {
  run(state, [](const Domain& d, std::vector<Fr>& x) { snarkd::poly::ntt(d, x); });
}
void BM_NttInverse(benchmark::State& state) {
  run(state, [](const Domain& d, std::vector<Fr>& x) { snarkd::poly::intt(d, x); });
}
void BM_NttCoset(benchmark::State& state) {
  run(state, [](const Domain& d, std::vector<Fr>& x) { snarkd::poly::coset_ntt(d, x, kShift); });
}
void BM_NttCosetInverse(benchmark::State& state) {
  run(state, [](const Domain& d, std::vector<Fr>& x) { snarkd::poly::coset_intt(d, x, kShift); });
}
void BM_NttForwardLarge(benchmark::State& state) { BM_NttForward(state); }
// The 64-bit scalar kernels whatever the CPU: the in-process A/B against BM_NttForward.
void BM_NttForwardPortable(benchmark::State& state) {
  run(state, [](const Domain& d, std::vector<Fr>& x) { snarkd::poly::ntt(d, x); }, NttKernels::kPortable);
}
// Bit-reversed output (no permutation): what a pipeline that keeps evaluations reversed pays.
void BM_NttForwardBitReversed(benchmark::State& state) {
  run(state, [](const Domain& d, std::vector<Fr>& x) { snarkd::poly::ntt_nr(d, x); });
}
// BN254's Fr (snarkjs's generator 5): the portable kernels, the only ones for that field.
void BM_NttBn254Forward(benchmark::State& state) {
  using F = snarkd::ff::bn254::Fr;
  const snarkd::poly::bn254::Domain domain(static_cast<uint32_t>(state.range(0)),
                                           snarkd::ff::bn254::kSnarkjsDomainGenerator);
  std::mt19937_64 g(domain.size());
  std::vector<F> data(domain.size());
  for (F& x : data) x = F::random(g);
  for (auto _ : state) {
    snarkd::poly::ntt(domain, data);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * domain.size()));
}

}  // namespace

BENCHMARK(BM_NttForward)->Arg(16)->Arg(18)->Arg(20)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_NttInverse)->Arg(16)->Arg(18)->Arg(20)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_NttCoset)->Arg(16)->Arg(18)->Arg(20)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_NttCosetInverse)->Arg(20)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_NttForwardBitReversed)->Arg(20)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_NttForwardPortable)->Arg(20)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_NttBn254Forward)->Arg(16)->Arg(20)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_NttForwardLarge)->Arg(22)->Arg(24)->Unit(benchmark::kMillisecond)->UseRealTime()
    ->Iterations(2);
