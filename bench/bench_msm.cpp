// MSM throughput on the global pool (set its size with --threads=N); wall-clock time, since the
// work runs on every pool thread. Bases are generated once per group and shared by every
// benchmark (their values do not matter, only that they are distinct curve points).
// Reference: blst's single-threaded G1 MSM of 2^20 points takes 6.9 s on the dev machine.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "snarkd/ec/bn254.hpp"
#include "snarkd/ec/g1.hpp"
#include "snarkd/ec/g2.hpp"
#include "snarkd/msm/buckets.hpp"
#include "snarkd/msm/msm.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace {

using snarkd::ff::Fr;
namespace ec = snarkd::ec;
namespace msm = snarkd::msm;

constexpr size_t kMaxLog = 20;

// 2^kMaxLog points: each pool part starts from its own multiple of the generator and keeps
// adding a fixed affine step (one mixed addition per point), then normalises its part.
template <class C>
std::vector<ec::Affine<C>> make_bases(const ec::Affine<C>& gen, size_t n) {
  std::vector<ec::Affine<C>> out(n);
  snarkd::parallel_for(n, [&](size_t b, size_t e) {
    std::mt19937_64 g(b);
    const auto start = ec::Jacobian<C>::from_affine(gen).mul_scalar(Fr::random(g));
    const auto step = ec::Jacobian<C>::from_affine(gen).mul_scalar(Fr::random(g)).to_affine();
    std::vector<ec::Jacobian<C>> part(e - b);
    part[0] = start;
    for (size_t i = 1; i < part.size(); ++i) part[i] = part[i - 1].add_mixed(step);
    const auto aff = ec::batch_to_affine<C>(part);
    std::copy(aff.begin(), aff.end(), out.begin() + ptrdiff_t(b));
  });
  return out;
}

const std::vector<ec::G1Affine>& g1_bases() {
  static const auto bases = make_bases<ec::G1Config>(ec::kG1Generator, size_t(1) << kMaxLog);
  return bases;
}
const std::vector<ec::G2Affine>& g2_bases() {
  static const auto bases = make_bases<ec::G2Config>(ec::kG2Generator, size_t(1) << 16);
  return bases;
}
const std::vector<ec::bn254::G1Affine>& bn254_g1_bases() {
  using C = ec::bn254::G1Config;
  static const auto bases = make_bases<C>(ec::generator<C>(), size_t(1) << 16);
  return bases;
}
const std::vector<ec::bn254::G2Affine>& bn254_g2_bases() {
  using C = ec::bn254::G2Config;
  static const auto bases = make_bases<C>(ec::generator<C>(), size_t(1) << 16);
  return bases;
}

// Witness-like scalars: percentages of zeros and ones, the rest uniformly random.
template <class S = Fr>
std::vector<S> scalars(size_t n, unsigned zero_pct, unsigned one_pct) {
  std::mt19937_64 g(42);
  std::vector<S> s(n);
  for (S& k : s) {
    const unsigned roll = unsigned(g() % 100);
    k = roll < zero_pct ? S::zero() : roll < zero_pct + one_pct ? S::one() : S::random(g);
  }
  return s;
}

template <class C>
void run_msm(benchmark::State& state, const std::vector<ec::Affine<C>>& all,
             msm::Accumulation acc = msm::Options{}.accumulation) {
  const size_t n = size_t(1) << state.range(0);
  const std::span<const ec::Affine<C>> bases(all.data(), n);
  const auto k = scalars<typename C::Scalar>(n, 0, 0);
  msm::Options opt;
  opt.accumulation = acc;
  for (auto _ : state) benchmark::DoNotOptimize(msm::msm<C>(bases, k, opt));
  state.SetItemsProcessed(int64_t(state.iterations() * n));
}

void BM_MsmG1(benchmark::State& state) { run_msm<ec::G1Config>(state, g1_bases()); }
void BM_MsmG1Large(benchmark::State& state) { run_msm<ec::G1Config>(state, g1_bases()); }
void BM_MsmG2(benchmark::State& state) { run_msm<ec::G2Config>(state, g2_bases()); }
void BM_MsmBn254G1(benchmark::State& state) {
  run_msm<ec::bn254::G1Config>(state, bn254_g1_bases());
}
void BM_MsmBn254G2(benchmark::State& state) {
  run_msm<ec::bn254::G2Config>(state, bn254_g2_bases());
}
// The XYZZ-bucket reference, to compare with the default batch-affine buckets.
void BM_MsmG1Xyzz(benchmark::State& state) {
  run_msm<ec::G1Config>(state, g1_bases(), msm::Accumulation::kXyzz);
}

// One window's bucket reduction Σ (j + 1)·bucket[j] over 2^range(0) filled affine G1 buckets, on
// the calling thread: the XYZZ running sums (kBatched = false) against the batch-affine running
// sums the MSM uses (weighted_sum_batched). Filling the buckets is not timed.
template <bool kBatched>
void BM_MsmBucketReduction(benchmark::State& state) {
  using C = ec::G1Config;
  const size_t m = size_t(1) << state.range(0);
  for (auto _ : state) {
    state.PauseTiming();
    msm::detail::BatchAffineBuckets<C> b(m, 2048);
    for (size_t j = 0; j < m; ++j) b.add(j, g1_bases()[j]);
    b.finish();
    state.ResumeTiming();
    if constexpr (kBatched)
      benchmark::DoNotOptimize(msm::detail::weighted_sum_batched<C>(b));
    else
      benchmark::DoNotOptimize(msm::detail::weighted_sum<C>(b));
  }
}

// Half the bits set.
void BM_MsmSumBits(benchmark::State& state) {
  const size_t n = size_t(1) << state.range(0);
  const std::span<const ec::G1Affine> bases(g1_bases().data(), n);
  std::mt19937_64 g(7);
  std::vector<uint64_t> bits(n / 64);
  for (uint64_t& w : bits) w = g();
  for (auto _ : state) benchmark::DoNotOptimize(msm::sum_bits<ec::G1Config>(bases, bits.data()));
  state.SetItemsProcessed(int64_t(state.iterations() * n));
}

// A PoRep-like witness: 60% zeros, 35% ones, 5% arbitrary; classification included.
void BM_MsmSplitPoRep(benchmark::State& state) {
  const size_t n = size_t(1) << state.range(0);
  const std::span<const ec::G1Affine> bases(g1_bases().data(), n);
  const auto k = scalars(n, 60, 35);
  msm::SplitStats stats;
  for (auto _ : state) benchmark::DoNotOptimize(msm::msm_split<ec::G1Config>(bases, k, &stats));
  state.counters["others"] = double(stats.others);
  state.SetItemsProcessed(int64_t(state.iterations() * n));
}

BENCHMARK(BM_MsmG1)->Arg(16)->Arg(18)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MsmG1Large)->Arg(20)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
BENCHMARK(BM_MsmG1Xyzz)->Arg(16)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MsmG2)->Arg(16)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MsmBn254G1)->Arg(16)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MsmBn254G2)->Arg(16)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MsmBucketReduction<false>)->Arg(15)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MsmBucketReduction<true>)->Arg(15)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MsmSumBits)->Arg(20)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MsmSplitPoRep)->Arg(20)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
