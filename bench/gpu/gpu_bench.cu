// snarkd_gpu_bench: GPU timings without Google Benchmark. Every figure is the median of ≥ 5
// timed runs (CUDA events around each run, on one non-blocking stream) after warm-up runs.
//
//   snarkd_gpu_bench [--min-log=20] [--max-log=28] [--reps=7] [--generator=7]
//                    [--only=ntt|msm|split|spmv|window|products|kinds|stream|h|sort|all] [--precomp-gib=64] [--precomp-c=N]
//                    [--precomp-only]
//                    [--constraints=130278869] [--curve=bls12-381|bn254]
//
// Prints: the device; a device-to-device copy (bytes read + written per second: the memory
// ceiling); field multiplication throughput for Fr and Fp (4 independent chains per thread, so
// the multiplier pipe, not latency, is the limit); NTT medians per size and variant with the two
// floors (multiplications at the measured Fr rate, bytes at the measured copy rate); MSM medians
// for G1 and G2 with their floors, plain and with precomputed bases within --precomp-gib of table (--precomp-c forces
// the window; msm_bench.cu). --only=split runs the split MSM instead (split_bench.cu: G1 at 2^20,
// 2^24, 2^26, 2^27 within [min-log, max-log], PoRep-like scalars, against cuda::msm); --only=spmv
// times cuda::spmv on a synthetic PoRep-shaped circuit of --constraints rows (spmv_bench.cpp);
// --only=window times the plain MSM per accumulation kind at the widths around its default window
// (G1 at 52,000 and 2^min..2^max, G2 up to 2^24; msm_bench.cu);
// --only=products|kinds|stream|h run kinds_bench.cu (field throughput per SM; the MSM accumulation
// kinds side by side; the streamed H MSM's pass widths, lane waves and window (the default, c = 22)
// at 2^max-log; the fused H phase against the unfused sequence); --only=sort times the MSM's key
// sort alone (sort_bench.cu);
// "all" (the default) is NTT + MSM.
// --curve=bn254 measures BN254's kernels instead (the field rates, then --only=ntt, msm, products,
// kinds or all: NTT over BN254's Fr, plain G1/G2 MSM); the other modes are BLS12-381's only.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "msm_bench.hpp"
#include "snarkd/cuda/field.hpp"
#include "snarkd/cuda/ntt.hpp"
#include "snarkd/cuda/runtime.hpp"
#include "snarkd/poly/ntt.hpp"

namespace snarkd::cuda {
namespace {

struct Options {
  uint32_t min_log = 20, max_log = 28, reps = 7;
  uint64_t generator = 7;
  std::string only = "all";  // ntt | msm | split | spmv | window | products | kinds | stream | h | all (= ntt + msm)
  uint64_t constraints = 130'278'869;  // spmv: PoRep's partition
  size_t precomp_budget = size_t{64} << 30;
  uint32_t precomp_c = 0;
  bool precomp_only = false;
  Curve curve = Curve::kBls12381;
};

[[noreturn]] void usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--min-log=N] [--max-log=N] [--reps=N>=5] [--generator=5|7]"
               " [--only=ntt|msm|split|spmv|window|products|kinds|stream|h|sort|all] [--precomp-gib=N] [--precomp-c=4..24]"
               " [--precomp-only]"
               " [--constraints=N] [--curve=bls12-381|bn254]\n",
               argv0);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* key) { return std::strtoull(a.c_str() + std::strlen(key), nullptr, 10); };
    if (a.rfind("--min-log=", 0) == 0) o.min_log = uint32_t(value("--min-log="));
    else if (a.rfind("--max-log=", 0) == 0) o.max_log = uint32_t(value("--max-log="));
    else if (a.rfind("--reps=", 0) == 0) o.reps = std::max<uint32_t>(5, uint32_t(value("--reps=")));
    else if (a.rfind("--generator=", 0) == 0) o.generator = value("--generator=");
    else if (a.rfind("--constraints=", 0) == 0) o.constraints = value("--constraints=");
    else if (a.rfind("--precomp-gib=", 0) == 0) o.precomp_budget = size_t(value("--precomp-gib=")) << 30;
    else if (a.rfind("--precomp-c=", 0) == 0) o.precomp_c = uint32_t(value("--precomp-c="));
    else if (a == "--precomp-only") o.precomp_only = true;
    else if (a == "--curve=bls12-381") o.curve = Curve::kBls12381;
    else if (a == "--curve=bn254") o.curve = Curve::kBn254;
    else if (a == "--only=ntt" || a == "--only=msm" || a == "--only=split" || a == "--only=spmv" ||
             a == "--only=window" || a == "--only=products" || a == "--only=kinds" || a == "--only=stream" ||
             a == "--only=h" || a == "--only=sort" ||
             a == "--only=all")
      o.only = a.substr(7);
    else usage(argv[0]);
  }
  const bool bn254_mode = o.only == "all" || o.only == "ntt" || o.only == "msm" || o.only == "products" ||
                          o.only == "kinds";
  if (o.curve == Curve::kBn254 && !bn254_mode) {
    std::fprintf(stderr, "--curve=bn254 measures --only=ntt|msm|products|kinds|all\n");
    std::exit(2);
  }
  return o;
}

}  // namespace

// Median milliseconds of `reps` runs of fn (each bracketed by events), after 2 warm-up runs.
double median_ms(const Stream& s, uint32_t reps, const std::function<void()>& fn) {
  Event start(true), stop(true);
  for (int i = 0; i < 2; ++i) fn();
  std::vector<double> ms;
  for (uint32_t i = 0; i < reps; ++i) {
    start.record(s);
    fn();
    stop.record(s);
    stop.synchronize();
    ms.push_back(stop.elapsed_ms_since(start));
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

namespace {

// Valid, irregular elements without a host round trip: a 64-bit mix of the index per word, the
// top word masked below 2^(bits−1) so the value is < p (Montgomery form of some element).
template <class F>
__global__ void fill_random(F* data, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    F v;
    for (size_t w = 0; w < F::kWords; ++w) {
      uint64_t z = seed + i * F::kWords + w + 0x9e3779b97f4a7c15ull;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      v.w[w] = uint32_t(z ^ (z >> 31));
    }
    v.w[F::kWords - 1] &= (1u << ((F::Host::kBits - 1) % 32)) - 1;
    data[i] = v;
  }
}

}  // namespace

void fill_random_fr(Fr* d, size_t n, uint64_t seed, cudaStream_t s) {
  fill_random<Fr><<<4096, 256, 0, s>>>(d, n, seed);
  SNARKD_CUDA_CHECK(cudaGetLastError());
}
void fill_random_fr(bn254::Fr* d, size_t n, uint64_t seed, cudaStream_t s) {
  fill_random<bn254::Fr><<<4096, 256, 0, s>>>(d, n, seed);
  SNARKD_CUDA_CHECK(cudaGetLastError());
}
void bench_split(uint32_t min_log, uint32_t max_log, uint32_t reps, const Stream& s);  // split_bench.cu

namespace {

template <class F>
__global__ void mul_chains(F* data, uint32_t iters) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  F x0 = data[i], x1 = data[i + stride], x2 = data[i + 2 * stride], x3 = data[i + 3 * stride];
  const F c = x0 + x1;
  for (uint32_t k = 0; k < iters; ++k) {
    x0 = x0 * c, x1 = x1 * c, x2 = x2 * c, x3 = x3 * c;
  }
  data[i] = x0 + x1 + x2 + x3;
}

template <class F>
double mul_rate(const Stream& s, int sms, uint32_t reps, const char* name) {
  const uint32_t blocks = uint32_t(sms) * 8, threads = 256, iters = 2048;
  const size_t lanes = size_t(blocks) * threads;
  DeviceBuffer<F> d(4 * lanes);
  fill_random<F><<<1024, 256, 0, s>>>(d.data(), d.size(), 1);
  const double ms = median_ms(s, reps, [&] {
    mul_chains<F><<<blocks, threads, 0, s>>>(d.data(), iters);
    SNARKD_CUDA_CHECK_LAUNCH();
  });
  const double rate = 4.0 * lanes * iters / (ms * 1e-3);
  std::printf("%-4s mul: %8.2f G/s   (%.3f ms for %.3g multiplications)\n", name, rate / 1e9, ms, 4.0 * lanes * iters);
  return rate;
}

double copy_rate(const Stream& s, uint32_t reps) {
  const size_t bytes = size_t{4} << 30;
  DeviceBuffer<uint8_t> a(bytes), b(bytes);
  a.fill_bytes(1, s);
  const double ms = median_ms(s, reps, [&] {
    SNARKD_CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice, s));
  });
  const double rate = 2.0 * bytes / (ms * 1e-3);
  std::printf("copy: %8.2f TB/s  (4 GiB device-to-device, read + write, %.3f ms)\n", rate / 1e12, ms);
  return rate;
}

// Multiplications the NTT does per element (see ntt.cu): per pass of radix-4 rounds (a radix-2
// round first when log R is odd) 1/4 per radix-4 round and 1 − 1/ρ of twiddles after every round
// but the last; plus 1 (one lookup) or 2 (two lookups) for the inter-pass twiddle; inverse adds
// n⁻¹, coset 2 (the power and the multiply).
double mults_per_element(uint32_t K, bool inverse, bool coset) {
  auto pass = [](uint32_t r) {
    double m = 0;
    const uint32_t rounds = r / 2 + r % 2;
    for (uint32_t i = 0; i < rounds; ++i) {
      const uint32_t lr = (i == 0 && r % 2) ? 1 : 2;
      m += lr == 2 ? 1.0 / 4 : 0.0;
      if (i + 1 < rounds) m += 1.0 - 1.0 / (1u << lr);
    }
    return m;
  };
  double m;
  if (K <= 10) m = pass(K);
  else if (K <= 20) m = pass((K + 1) / 2) + pass(K / 2) + 1;
  else {
    const uint32_t a = (K + 2) / 3, c = (K - a + 1) / 2, d = K - a - c;
    m = pass(a) + pass(c) + pass(d) + 1 + 2;
  }
  return m + (inverse ? 1 : 0) + (coset ? 2 : 0);
}

// Guards the timings: a one-, two- and three-pass transform (forward and coset inverse) must
// equal the CPU twin's, or the benchmark stops.
template <class D>
bool self_check(const NttTablesT<D>& tables) {
  using H = typename D::Host;
  std::mt19937_64 g(12345);
  for (uint32_t K : {5u, 12u, 21u}) {
    if (K > tables.max_log_n()) continue;
    for (int v = 0; v < 2; ++v) {
      std::vector<H> x(size_t{1} << K);
      for (H& e : x) e = H::random(g);
      std::vector<H> want = x;
      const poly::DomainT<H> d(K, tables.generator());
      v ? poly::coset_intt(d, want, tables.coset_shift()) : poly::ntt(d, want);
      ntt_sync(x, K, v ? Direction::kInverse : Direction::kForward, v == 1, tables);
      if (x != want) {
        std::printf("SELF-CHECK FAILED: log_n=%u variant %d\n", K, v);
        return false;
      }
    }
  }
  std::printf("self-check: GPU NTT equals the CPU twin at 2^5, 2^12, 2^21\n");
  return true;
}

// D: cuda::Fr or cuda::bn254::Fr; mul_per_s is that field's measured product rate.
template <class D>
void bench_ntt(const char* curve, const Options& o, const Stream& s, double mul_per_s, double bytes_per_s) {
  const NttTablesT<D> tables(o.max_log, o.generator, D::Host::from_u64(o.generator));
  if (!self_check(tables)) std::exit(3);
  std::printf("\nNTT over %s Fr, generator %llu, median of %u runs (ms); floors: mults/element × n at the Fr rate, "
              "passes × 64 B × n at the copy rate\n",
              curve, (unsigned long long)o.generator, o.reps);
  std::printf("%6s %10s %10s %10s %10s %10s %10s %9s\n", "log_n", "forward", "inverse", "coset_fwd", "coset_inv",
              "mul_floor", "mem_floor", "Gbfly/s");
  for (uint32_t K = o.min_log; K <= o.max_log; ++K) {
    const size_t n = size_t{1} << K;
    DeviceBuffer<D> d(n);
    DeviceBuffer<uint8_t> scratch(ntt_scratch_bytes(K));
    fill_random<D><<<4096, 256, 0, s>>>(d.data(), n, K);
    double ms[4];
    for (int v = 0; v < 4; ++v) {
      const Direction dir = v % 2 ? Direction::kInverse : Direction::kForward;
      ms[v] = median_ms(s, o.reps, [&] { ntt(d.data(), K, dir, v >= 2, tables, scratch.data(), s); });
    }
    const uint32_t passes = K <= 10 ? 1 : K <= 20 ? 2 : 3;
    const double mul_floor = mults_per_element(K, false, false) * n / mul_per_s * 1e3;
    const double mem_floor = passes * 64.0 * n / bytes_per_s * 1e3;
    const double gbfly = double(n / 2) * K / (ms[0] * 1e-3) / 1e9;
    std::printf("%6u %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %9.2f\n", K, ms[0], ms[1], ms[2], ms[3], mul_floor,
                mem_floor, gbfly);
    std::fflush(stdout);
  }
}

}  // namespace
}  // namespace snarkd::cuda

int main(int argc, char** argv) {
  using namespace snarkd::cuda;
  const Options o = parse(argc, argv);
#ifdef SNARKD_CUDA_COMPILE_CHECK
  std::fprintf(stderr, "snarkd_gpu_bench: this build's device code is PTX at -O0 (SNARKD_CUDA_COMPILE_CHECK): "
                       "rebuild without it to measure\n");
  return 2;
#endif
  if (device_count() == 0) {
    std::fprintf(stderr, "no CUDA device\n");
    return 1;
  }
  try {
    DeviceGuard guard(0);
    cudaDeviceProp prop{};
    SNARKD_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s, %d SMs, L2 %d MiB, %.1f GiB\n", prop.name, prop.multiProcessorCount,
                prop.l2CacheSize >> 20, prop.totalGlobalMem / double(1 << 30));
    Stream s;
    const double bytes_per_s = copy_rate(s, o.reps);
    const bool bn254 = o.curve == Curve::kBn254;
    const int sms = prop.multiProcessorCount;
    const double fr_rate = bn254 ? mul_rate<bn254::Fr>(s, sms, o.reps, "BN254 Fr") : mul_rate<Fr>(s, sms, o.reps, "Fr");
    const double fp_rate = bn254 ? mul_rate<bn254::Fp>(s, sms, o.reps, "BN254 Fp") : mul_rate<Fp>(s, sms, o.reps, "Fp");
    if (o.only == "all" || o.only == "ntt") {
      if (bn254) bench_ntt<bn254::Fr>("BN254", o, s, fr_rate, bytes_per_s);
      else bench_ntt<Fr>("BLS12-381", o, s, fr_rate, bytes_per_s);
    }
    const MsmBenchOptions mo{o.min_log, o.max_log, o.reps, o.precomp_budget, o.precomp_c, o.precomp_only,
                             fp_rate,   bytes_per_s};
    if (o.only == "all" || o.only == "msm") bn254 ? bench_msm_bn254(mo, s) : bench_msm(mo, s);
    if (o.only == "window") bench_windows(mo, s);
    if (o.only == "spmv") bench_spmv(o.constraints, o.reps, fr_rate, bytes_per_s, s);
    if (o.only == "split") bench_split(o.min_log, o.max_log, o.reps, s);
    if (o.only == "products") bench_products(sms, o.reps, o.curve, s);
    if (o.only == "kinds") bench_kinds(o.min_log, o.max_log, o.reps, o.curve, s);
    if (o.only == "stream") bench_stream(o.max_log, o.reps, s);
    if (o.only == "h") bench_h_phase(o.min_log, o.max_log, o.reps, o.generator, s);
    if (o.only == "sort") bench_sort(o.reps, s);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
