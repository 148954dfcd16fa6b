// Old and new GPU kernels side by side in one process (snarkd_gpu_bench --only=products|kinds|h):
//
//   products  field throughput per SM: Fr and Fp products (the carry-chain CIOS), Fp2 products
//             with lazy reduction and with three full products, Fp inversions by binary GCD and by
//             Fermat (4 independent chains per thread, so the pipes, not latency, are the limit);
//             the fields of --curve (BLS12-381 or BN254).
//   kinds     the plain MSM with each accumulation kind — legacy (one thread per bucket), chunked
//             XYZZ, chunked batch-affine — each at its own default window, G1 at 2^20, 2^22, 2^24,
//             2^26, 2^27 and G2 at 2^20, 2^22, 2^24 (those within [min-log, max-log]; the issue's
//             bars first: G1 2^26, G2 2^24, G1 2^27); random scalars
//             made on the device, bases (2^16 random points tiled) resident. Every kind must give
//             the same point, and G1 up to 2^24 the CPU MSM over the tile with folded scalars, or
//             the benchmark stops. --curve=bn254: the same sizes over BN254's groups.
//   stream    the streamed H MSM's shape (prover_stream.hpp): one G1 Pippenger over 2^max-log random
//             scalars whose bases come in chunks of 2^23 (the same tiled chunk each time), buckets
//             carried across the chunks (pippenger_chunk, then one pippenger_reduce), at the chunk's
//             window; sort passes of 2 or 3 windows (2^24 or 3·2^23 entries) × XYZZ lanes in 1, 2, 4
//             or 8 waves. Every case must equal the plain msm() over the tiled bases.
//   h         the H phase at 2^min-log..2^max-log, bellperson flavour: the textbook sequence (a, b, c
//             to the coset: 6 transforms, a pointwise kernel, the coset inverse: 7 in all) against
//             h_phase() (fused, c's coset round trip left out: 6); the outputs must be equal.
// Every time is the median of `reps` timed runs after 2 warm-ups (CUDA events, one stream).
#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bench_points.hpp"
#include "msm_bench.hpp"
#include "snarkd/cuda/field_inverse.hpp"
#include "snarkd/cuda/h_phase.hpp"
#include "snarkd/cuda/msm.hpp"
#include "snarkd/cuda/msm_accumulate.hpp"
#include "snarkd/cuda/ntt.hpp"
#include "snarkd/cuda/runtime.hpp"

namespace snarkd::cuda {

double median_ms(const Stream& s, uint32_t reps, const std::function<void()>& fn);  // gpu_bench.cu
void fill_random_fr(Fr* d, size_t n, uint64_t seed, cudaStream_t s);                 // gpu_bench.cu
void fill_random_fr(bn254::Fr* d, size_t n, uint64_t seed, cudaStream_t s);          // gpu_bench.cu

namespace {

// ---- products ----

template <class F>
__global__ void fill_kernel(F* d, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    F v = F::one();
    for (int k = 0; k < 3; ++k) v = v + v * F::one() + F::one();  // small non-trivial values
    for (uint64_t z = seed + i; z != 0; z >>= 4) v = v + v + ((z & 1) ? F::one() : F::zero());
    d[i] = v;
  }
}

enum class Op { kMul, kFp2Karatsuba, kInvGcd, kInvFermat };

template <class F, Op op>
__device__ __forceinline__ F step(const F& x, const F& c) {
  if constexpr (op == Op::kMul) {
    return x * c;
  } else if constexpr (op == Op::kFp2Karatsuba) {
    return x.mul_karatsuba(c);
  } else if constexpr (op == Op::kInvGcd) {
    return inverse_gcd(x + c);
  } else {
    return (x + c).inverse();
  }
}

template <class F, Op op>
__global__ void chains_kernel(F* data, uint32_t iters) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  F x0 = data[i], x1 = data[i + stride], x2 = data[i + 2 * stride], x3 = data[i + 3 * stride];
  const F c = x0 + x1;
  for (uint32_t k = 0; k < iters; ++k) x0 = step<F, op>(x0, c), x1 = step<F, op>(x1, c), x2 = step<F, op>(x2, c), x3 = step<F, op>(x3, c);
  data[i] = x0 + x1 + x2 + x3;
}

template <class F, Op op>
void rate(const char* name, int sms, uint32_t iters, uint32_t reps, const Stream& s) {
  const uint32_t blocks = uint32_t(sms) * 4, threads = 256;
  const size_t lanes = size_t(blocks) * threads;
  DeviceBuffer<F> d(4 * lanes);
  fill_kernel<F><<<1024, 256, 0, s>>>(d.data(), d.size(), 7);
  SNARKD_CUDA_CHECK_LAUNCH();
  const double ms = median_ms(s, reps, [&] {
    chains_kernel<F, op><<<blocks, threads, 0, s>>>(d.data(), iters);
    SNARKD_CUDA_CHECK_LAUNCH();
  });
  const double per_s = 4.0 * double(lanes) * iters / (ms * 1e-3);
  std::printf("%-30s %10.3f G/s  %8.4f G/s per SM  (%.3f ms)\n", name, per_s / 1e9, per_s / 1e9 / sms, ms);
  std::fflush(stdout);
}

// ---- kinds ----

template <class P>
__global__ void tile_kernel(P* out, size_t n, const P* src, size_t m) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    out[i] = src[i % m];
}

constexpr MsmAccumulation kKinds[] = {MsmAccumulation::kBucketThreads, MsmAccumulation::kChunkedXyzz,
                                      MsmAccumulation::kChunkedAffine};

template <class F>
bool same(const Xyzz<F>& a, const Xyzz<F>& b) {
  using C = typename HostCurve<F>::type;
  return bench::same_point(std::bit_cast<ec::Xyzz<C>>(a), std::bit_cast<ec::Xyzz<C>>(b));
}

template <class F, class HostPoint>
void kinds_size(const char* name, uint32_t K, const std::vector<HostPoint>& host_tile, const DeviceBuffer<Affine<F>>& tile,
                uint32_t reps, const Stream& s) {
  using C = typename HostCurve<F>::type;
  const size_t n = size_t{1} << K;
  DeviceBuffer<Affine<F>> bases(n);
  DeviceBuffer<ScalarOf<F>> scalars(n);
  tile_kernel<<<4096, 256, 0, s>>>(bases.data(), n, tile.data(), tile.size());
  SNARKD_CUDA_CHECK_LAUNCH();
  fill_random_fr(scalars.data(), n, 3000 + K, s);
  size_t most = 0;
  for (MsmAccumulation a : kKinds) most = std::max(most, msm_scratch_bytes<F>(n, MsmOptions{0, a}));
  DeviceBuffer<uint8_t> scratch(most);
  DeviceBuffer<Xyzz<F>> result(1);
  Xyzz<F> first{};
  bool ok = true;
  std::printf("%-3s 2^%-2u", name, K);
  for (MsmAccumulation a : kKinds) {
    const MsmOptions o{0, a};
    const double ms = median_ms(s, reps, [&] {
      msm<F>(bases.data(), scalars.data(), n, result.data(), scratch.data(), scratch.size(), s, o);
    });
    Xyzz<F> r;
    result.download(&r, 1, s);
    s.synchronize();
    if (a == kKinds[0]) first = r;
    else ok = ok && same<F>(first, r);
    std::printf(" | %-6s c=%-2u %9.3f ms", msm_accumulation_name(a), msm_window<F>(n, a), ms);
    std::fflush(stdout);
  }
  if constexpr (kIsPrimeField<F>) {
    if (K <= 24) {
      std::vector<typename C::Scalar> hs(n);
      scalars.download(reinterpret_cast<ScalarOf<F>*>(hs.data()), n, s);
      s.synchronize();
      ok = ok && bench::equals_tiled_msm<C>(host_tile, hs, std::bit_cast<ec::Xyzz<C>>(first));
    }
  }
  std::printf(" | default %s | scratch %.2f GiB | %s\n",
              msm_accumulation_name(msm_resolve_accumulation<F>(MsmAccumulation::kDefault)),
              most / double(1 << 30), ok ? "equal" : "MISMATCH");
  std::fflush(stdout);
  if (!ok) {
    std::printf("SELF-CHECK FAILED: %s MSM kinds differ at 2^%u\n", name, K);
    std::exit(3);
  }
}

// ---- stream ----

void stream_cases(uint32_t K, uint32_t reps, const Stream& s) {
  const size_t n = size_t{1} << K, chunk = std::min(n, size_t{1} << 23);
  const auto host_tile = bench::random_points<typename HostCurve<Fp>::type>(size_t{1} << 16, 21);
  DeviceBuffer<Affine<Fp>> tile(host_tile.size());
  tile.upload(reinterpret_cast<const Affine<Fp>*>(host_tile.data()), tile.size(), s);
  DeviceBuffer<Fr> scalars(n);
  fill_random_fr(scalars.data(), n, 5000 + K, s);
  DeviceBuffer<Xyzz<Fp>> result(1);
  Xyzz<Fp> want{};
  {  // the reference: the plain MSM over n tiled bases (chunk is a multiple of the tile)
    DeviceBuffer<Affine<Fp>> bases(n);
    tile_kernel<<<4096, 256, 0, s>>>(bases.data(), n, tile.data(), tile.size());
    SNARKD_CUDA_CHECK_LAUNCH();
    DeviceBuffer<uint8_t> scratch(msm_scratch_bytes<Fp>(n));
    const double ms = median_ms(s, reps, [&] {
      msm<Fp>(bases.data(), scalars.data(), n, result.data(), scratch.data(), scratch.size(), s);
    });
    result.download(&want, 1, s);
    s.synchronize();
    std::printf("G1 2^%u plain msm(): %9.3f ms (bases resident)\n", K, ms);
  }
  DeviceBuffer<Affine<Fp>> bases(chunk);
  tile_kernel<<<4096, 256, 0, s>>>(bases.data(), chunk, tile.data(), tile.size());
  SNARKD_CUDA_CHECK_LAUNCH();
  // The chunk's default window (the streamed prover's) and c = 22 (the resident 2^27 MSM's: 12
  // windows of 2^21 carried buckets instead of 13 of 2^19; SNARKD_STREAM_H_WINDOW in the prover).
  std::vector<std::pair<uint32_t, uint32_t>> cases;  // (c, windows per pass)
  for (const uint32_t c : {msm_default_window(chunk), 22u})
    if (cases.empty() || c != cases.front().first) cases.insert(cases.end(), {{c, 2}, {c, 3}});
  bool ok = true;
  for (const auto [c, per_pass] : cases) {
    const uint32_t windows = (256 + c - 1) / c;
    detail::WindowLayout l{c, windows, windows, 1, per_pass * chunk};
    DeviceBuffer<uint8_t> scratch(detail::pippenger_scratch_bytes<Fp>(chunk, l));
    std::printf("G1 2^%u in chunks of 2^%u, c=%u, passes of %u windows (scratch %.2f GiB):", K,
                uint32_t(std::bit_width(chunk) - 1), c, per_pass, scratch.size() / double(1 << 30));
    for (uint32_t waves : {1u, 2u, 4u}) {
      l.lane_waves = waves;
      const double ms = median_ms(s, reps, [&] {
        for (size_t first = 0; first < n; first += chunk)
          detail::pippenger_chunk<Fp>(bases.data(), scalars.data() + first, chunk, chunk, l, first == 0,
                                      scratch.data(), scratch.size(), s, "stream bench");
        detail::pippenger_reduce<Fp>(chunk, l, result.data(), scratch.data(), scratch.size(), s, "stream bench");
      });
      Xyzz<Fp> r;
      result.download(&r, 1, s);
      s.synchronize();
      ok = ok && same<Fp>(want, r);
      std::printf(" | %u waves %9.3f ms", waves, ms);
      std::fflush(stdout);
    }
    std::printf(" | %s\n", ok ? "equal" : "MISMATCH");
  }
  if (!ok) {
    std::printf("SELF-CHECK FAILED: the chunked G1 MSM differs from msm() at 2^%u\n", K);
    std::exit(3);
  }
}

// ---- H phase ----

__global__ void pointwise_kernel(Fr* a, const Fr* b, const Fr* c, size_t n, Fr factor) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    a[i] = (a[i] * b[i] - c[i]) * factor;
}

__global__ void count_diff_kernel(const Fr* x, const Fr* y, size_t n, unsigned long long* diff) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    if (x[i] != y[i]) atomicAdd(diff, 1ull);
}

void h_size(uint32_t K, const NttTables& t, uint32_t reps, const Stream& s) {
  const size_t n = size_t{1} << K;
  DeviceBuffer<Fr> in(3 * n), a(n), b(n), c(n), ref(n);
  fill_random_fr(in.data(), 3 * n, 4000 + K, s);
  const ff::Fr shift = t.coset_shift();
  const Fr factor = Fr::from_host((shift.pow(uint64_t(n)) - ff::Fr::one()).inverse());
  auto load = [&] {
    SNARKD_CUDA_CHECK(cudaMemcpyAsync(a.data(), in.data(), n * sizeof(Fr), cudaMemcpyDeviceToDevice, s));
    SNARKD_CUDA_CHECK(cudaMemcpyAsync(b.data(), in.data() + n, n * sizeof(Fr), cudaMemcpyDeviceToDevice, s));
    SNARKD_CUDA_CHECK(cudaMemcpyAsync(c.data(), in.data() + 2 * n, n * sizeof(Fr), cudaMemcpyDeviceToDevice, s));
  };
  DeviceBuffer<uint8_t> nscratch(ntt_scratch_bytes(K)), hscratch(h_phase_scratch_bytes(K, t));
  auto unfused = [&] {  // the textbook sequence (bellperson): 7 transforms
    for (Fr* v : {a.data(), b.data(), c.data()}) {
      ntt(v, K, Direction::kInverse, false, t, nscratch.data(), s);
      ntt(v, K, Direction::kForward, true, t, nscratch.data(), s);
    }
    pointwise_kernel<<<4096, 256, 0, s>>>(a.data(), b.data(), c.data(), n, factor);
    SNARKD_CUDA_CHECK_LAUNCH();
    ntt(a.data(), K, Direction::kInverse, true, t, nscratch.data(), s);
  };
  const HPhaseParams hp{K, true, factor};
  auto fused = [&] { h_phase(a.data(), b.data(), c.data(), hp, t, hscratch.data(), hscratch.size(), s); };
  // Times include the three 2^K copies that restore the inputs (the same for both).
  const double copy_ms = median_ms(s, reps, load);
  const double old_ms = median_ms(s, reps, [&] { load(), unfused(); });
  SNARKD_CUDA_CHECK(cudaMemcpyAsync(ref.data(), a.data(), n * sizeof(Fr), cudaMemcpyDeviceToDevice, s));
  const double new_ms = median_ms(s, reps, [&] { load(), fused(); });
  DeviceBuffer<unsigned long long> diff(1);
  diff.fill_bytes(0, s);
  count_diff_kernel<<<4096, 256, 0, s>>>(a.data(), ref.data(), n - 1, diff.data());
  SNARKD_CUDA_CHECK_LAUNCH();
  unsigned long long d = 0;
  diff.download(&d, 1, s);
  s.synchronize();
  std::printf("H 2^%-2u  textbook (7 NTTs) %9.3f ms  h_phase %9.3f ms  (input copies %.3f ms subtracted)  %.2fx  %s\n", K,
              old_ms - copy_ms, new_ms - copy_ms, copy_ms, (old_ms - copy_ms) / (new_ms - copy_ms),
              d == 0 ? "equal" : "MISMATCH");
  std::fflush(stdout);
  if (d != 0) {
    std::printf("SELF-CHECK FAILED: h_phase and the textbook H sequence differ in %llu of %zu scalars at 2^%u\n", d, n - 1, K);
    std::exit(3);
  }
}

}  // namespace

namespace {

// One curve's fields: its Fr, Fp and Fp2 (F2).
template <class R, class P, class P2>
void products(int sms, uint32_t reps, const Stream& s) {
  rate<R, Op::kMul>("Fr product", sms, 2048, reps, s);
  rate<P, Op::kMul>("Fp product", sms, 1024, reps, s);
  const char* p2_name = SNARKD_CUDA_FP2_LAZY ? "Fp2 product (lazy reduction)" : "Fp2 product (operator*: 3 full)";
  rate<P2, Op::kMul>(p2_name, sms, 512, reps, s);
  rate<P2, Op::kFp2Karatsuba>("Fp2 product (3 full products)", sms, 512, reps, s);
  rate<P, Op::kInvGcd>("Fp inversion (binary GCD)", sms, 8, reps, s);
  rate<P, Op::kInvFermat>("Fp inversion (Fermat)", sms, 2, reps, s);
}

// One curve's groups (coordinates F1, F2).
template <class F1, class F2>
void kinds(uint32_t min_log, uint32_t max_log, uint32_t reps, const Stream& s) {
  const auto g1 = bench::random_points<typename HostCurve<F1>::type>(size_t{1} << 16, 11);
  const auto g2 = bench::random_points<typename HostCurve<F2>::type>(size_t{1} << 12, 12);
  DeviceBuffer<Affine<F1>> t1(g1.size());
  t1.upload(reinterpret_cast<const Affine<F1>*>(g1.data()), g1.size(), s);
  DeviceBuffer<Affine<F2>> t2(g2.size());
  t2.upload(reinterpret_cast<const Affine<F2>*>(g2.data()), g2.size(), s);
  // The issue's bars first (G1 2^26, G2 2^24, G1 2^27), so that a time limit cuts the rest.
  const std::pair<bool, uint32_t> order[] = {{true, 26}, {false, 24}, {true, 27}, {true, 24},
                                             {true, 22}, {true, 20}, {false, 22}, {false, 20}};
  for (const auto& [g1_curve, K] : order) {
    if (K < min_log || K > max_log) continue;
    if (g1_curve) kinds_size<F1>("G1", K, g1, t1, reps, s);
    else kinds_size<F2>("G2", K, g2, t2, reps, s);
  }
}

const char* curve_name(Curve c) { return c == Curve::kBn254 ? "BN254" : "BLS12-381"; }

}  // namespace

void bench_products(int sms, uint32_t reps, Curve curve, const Stream& s) {
  std::printf("%s field throughput, %d SMs, 4 chains per thread, median of %u runs\n", curve_name(curve), sms, reps);
  if (curve == Curve::kBn254) products<bn254::Fr, bn254::Fp, bn254::Fp2>(sms, reps, s);
  else products<Fr, Fp, Fp2>(sms, reps, s);
}

void bench_kinds(uint32_t min_log, uint32_t max_log, uint32_t reps, Curve curve, const Stream& s) {
  std::printf("%s MSM accumulation kinds, random scalars, bases resident, median of %u runs\n", curve_name(curve),
              reps);
  if (curve == Curve::kBn254) kinds<bn254::Fp, bn254::Fp2>(min_log, max_log, reps, s);
  else kinds<Fp, Fp2>(min_log, max_log, reps, s);
}

void bench_stream(uint32_t log_n, uint32_t reps, const Stream& s) {
  std::printf("BLS12-381 streamed H MSM shape, random scalars, median of %u runs\n", reps);
  stream_cases(log_n, reps, s);
}

void bench_h_phase(uint32_t min_log, uint32_t max_log, uint32_t reps, uint64_t generator, const Stream& s) {
  const NttTables t(max_log, generator, ff::Fr::from_u64(generator));
  std::printf("H phase (bellperson: shift %llu), median of %u runs\n", (unsigned long long)generator, reps);
  for (uint32_t K = min_log; K <= max_log; ++K) h_size(K, t, reps, s);
}

}  // namespace snarkd::cuda
