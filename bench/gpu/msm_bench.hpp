// Entry points of the MSM and SpMV parts of snarkd_gpu_bench (msm_bench.cu, spmv_bench.cpp),
// called from gpu_bench.cu's main.
#pragma once
#include <cstddef>
#include <cstdint>

#include "snarkd/cuda/runtime.hpp"

namespace snarkd::cuda {

// Which curve's kernels a run measures (--curve=bls12-381 | bn254).
enum class Curve { kBls12381, kBn254 };

struct MsmBenchOptions {
  uint32_t min_log = 20, max_log = 27, reps = 7;
  size_t precomp_budget = size_t{64} << 30;  // table bytes
  uint32_t precomp_c = 0;                    // 0: the shape msm_precomp_choose picks
  bool precomp_only = false;                 // plain MSM run once (for the check), not timed
  double fp_mul_per_s = 0, bytes_per_s = 0;  // measured ceilings (gpu_bench.cu; the curve's Fp)
};

void bench_msm(const MsmBenchOptions& o, const Stream& s);
// The same for BN254's G1 and G2: plain MSM only.
void bench_msm_bn254(const MsmBenchOptions& o, const Stream& s);
// The plain G1 and G2 MSM per accumulation kind at the widths around its default (--only=window).
void bench_windows(const MsmBenchOptions& o, const Stream& s);

// kinds_bench.cu: field throughput per SM (--only=products), the MSM accumulation kinds side by
// side (--only=kinds), for either curve; the fused H phase against the unfused sequence
// (--only=h, BLS12-381).
void bench_products(int sms, uint32_t reps, Curve curve, const Stream& s);
void bench_kinds(uint32_t min_log, uint32_t max_log, uint32_t reps, Curve curve, const Stream& s);
void bench_h_phase(uint32_t min_log, uint32_t max_log, uint32_t reps, uint64_t generator, const Stream& s);
// The streamed H MSM's shape at 2^log_n: chunks of 2^23, pass widths × lane waves (kinds_bench.cu).
void bench_stream(uint32_t log_n, uint32_t reps, const Stream& s);

// The MSM's (key, value) sort at 2^27 and 2^28 entries per call variant (sort_bench.cu).
void bench_sort(uint32_t reps, const Stream& s);

// SpMV of a synthetic PoRep-shaped circuit of `constraints` rows (A, B, C), with the floors at
// the measured Fr multiplication and copy rates.
void bench_spmv(uint64_t constraints, uint32_t reps, double fr_mul_per_s, double bytes_per_s, const Stream& s);

}  // namespace snarkd::cuda
