// Curve operations on G1 and G2: the point formulas (dependent chains, so "per_op" is the latency
// of one operation), 255-bit scalar multiplication, subgroup tests, cofactor clearing and
// compressed decoding (which includes a square root and a subgroup test).
#include <benchmark/benchmark.h>

#include <cstddef>
#include <random>
#include <type_traits>

#include "bench_util.hpp"
#include "snarkd/ec/encoding.hpp"
#include "snarkd/ec/subgroup.hpp"

namespace {

using snarkd::ec::Affine;
using snarkd::ec::Jacobian;
using snarkd::ec::Xyzz;
using G1 = snarkd::ec::G1Config;
using G2 = snarkd::ec::G2Config;

using snarkd::ec::generator;

template <class C>
Affine<C> random_point(uint64_t seed) {
  std::mt19937_64 g(seed);
  return Jacobian<C>::from_affine(generator<C>()).mul_scalar(snarkd::ff::Fr::random(g)).to_affine();
}

using snarkd::bench::run_chain;

constexpr size_t kChain = 64;

template <class C>
void BM_EcJacobianAdd(benchmark::State& state) {
  const Jacobian<C> q = Jacobian<C>::from_affine(random_point<C>(1)).dbl();  // Z ≠ 1
  run_chain(state, Jacobian<C>::from_affine(random_point<C>(2)).dbl(), kChain,
            [&](const Jacobian<C>& p) { return p + q; });
}
template <class C>
void BM_EcJacobianMixedAdd(benchmark::State& state) {
  const Affine<C> q = random_point<C>(3);
  run_chain(state, Jacobian<C>::from_affine(random_point<C>(4)), kChain,
            [&](const Jacobian<C>& p) { return p.add_mixed(q); });
}
template <class C>
void BM_EcXyzzMixedAdd(benchmark::State& state) {
  const Affine<C> q = random_point<C>(5);
  run_chain(state, Xyzz<C>::from_affine(random_point<C>(6)), kChain,
            [&](const Xyzz<C>& p) { return p.add_mixed(q); });
}
template <class C>
void BM_EcJacobianDbl(benchmark::State& state) {
  run_chain(state, Jacobian<C>::from_affine(random_point<C>(7)), kChain,
            [](const Jacobian<C>& p) { return p.dbl(); });
}
template <class C>
void BM_EcScalarMul(benchmark::State& state) {
  std::mt19937_64 g(8);
  const auto k = snarkd::ff::Fr::random(g);  // ~255 bits
  run_chain(state, Jacobian<C>::from_affine(random_point<C>(9)), 1,
            [&](const Jacobian<C>& p) { return p.mul_scalar(k); });
}
template <class C>
void BM_EcSubgroupCheck(benchmark::State& state) {
  const Affine<C> p = random_point<C>(10);
  for (auto _ : state) benchmark::DoNotOptimize(snarkd::ec::is_in_subgroup(p));
}
template <class C>
void BM_EcSubgroupCheckReference(benchmark::State& state) {
  const Affine<C> p = random_point<C>(11);
  for (auto _ : state) benchmark::DoNotOptimize(snarkd::ec::is_in_subgroup_reference(p));
}
template <class C>
void BM_EcClearCofactor(benchmark::State& state) {
  run_chain(state, Jacobian<C>::from_affine(random_point<C>(12)), 1,
            [](const Jacobian<C>& p) { return snarkd::ec::clear_cofactor(p); });
}
template <class C>
void BM_EcDecodeCompressed(benchmark::State& state) {
  const Affine<C> p = random_point<C>(13);
  if constexpr (std::is_same_v<C, G1>) {
    const auto bytes = snarkd::ec::encode_g1_compressed(p);
    for (auto _ : state) benchmark::DoNotOptimize(snarkd::ec::decode_g1_compressed(bytes));
  } else {
    const auto bytes = snarkd::ec::encode_g2_compressed(p);
    for (auto _ : state) benchmark::DoNotOptimize(snarkd::ec::decode_g2_compressed(bytes));
  }
}
template <class C>
void BM_EcDecodeCompressedUnchecked(benchmark::State& state) {
  const Affine<C> p = random_point<C>(14);
  if constexpr (std::is_same_v<C, G1>) {
    const auto bytes = snarkd::ec::encode_g1_compressed(p);
    for (auto _ : state) benchmark::DoNotOptimize(snarkd::ec::decode_g1_compressed_unchecked(bytes));
  } else {
    const auto bytes = snarkd::ec::encode_g2_compressed(p);
    for (auto _ : state) benchmark::DoNotOptimize(snarkd::ec::decode_g2_compressed_unchecked(bytes));
  }
}

}  // namespace

BENCHMARK_TEMPLATE(BM_EcJacobianAdd, G1);
BENCHMARK_TEMPLATE(BM_EcJacobianAdd, G2);
BENCHMARK_TEMPLATE(BM_EcJacobianMixedAdd, G1);
BENCHMARK_TEMPLATE(BM_EcJacobianMixedAdd, G2);
BENCHMARK_TEMPLATE(BM_EcXyzzMixedAdd, G1);
BENCHMARK_TEMPLATE(BM_EcXyzzMixedAdd, G2);
BENCHMARK_TEMPLATE(BM_EcJacobianDbl, G1);
BENCHMARK_TEMPLATE(BM_EcJacobianDbl, G2);
BENCHMARK_TEMPLATE(BM_EcScalarMul, G1)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_EcScalarMul, G2)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_EcSubgroupCheck, G1)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_EcSubgroupCheck, G2)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_EcSubgroupCheckReference, G1)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_EcSubgroupCheckReference, G2)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_EcClearCofactor, G1)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_EcClearCofactor, G2)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_EcDecodeCompressed, G1)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_EcDecodeCompressed, G2)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_EcDecodeCompressedUnchecked, G1)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_EcDecodeCompressedUnchecked, G2)->Unit(benchmark::kMicrosecond);
