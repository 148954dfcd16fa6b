// GPU NTT over a scalar field F (see ntt.hpp for the contract): the kernels and the driver, one
// template for cuda::Fr (BLS12-381; instantiated by ntt.cu) and cuda::bn254::Fr (BN254;
// ntt_bn254.cu) with SNARKD_CUDA_NTT_DEFINE. Both fields are 8 words of 32 bits, which the
// 16-byte loads and the 8 shared-memory planes below assume.
//
// Decomposition (four-step, natural order in and out, no bit reversal). For n = A·B with
// x = x_a + A·x_b and k = k_b + B·k_a:
//   X[k_b + B·k_a] = Σ_{x_a} ω_A^(x_a·k_a) · [ω_n^(x_a·k_b) · Σ_{x_b} ω_B^(x_b·k_b) a[x_a + A·x_b]]
// pass 1: for every column x_a, a B-point DFT over the stride-A elements, times ω_n^(x_a·k_b),
//         written back to the same positions;
// pass 2: for every row k_b (contiguous), an A-point DFT, written transposed to k_b + B·k_a.
// For n > 2^20, pass 1 (B = C·D) is itself split the same way (passes 1a and 1b below), so every
// DFT has ≤ 2^10 points and lives in one block's shared memory. Each pass is one kernel; data
// moves data → data → scratch → data (3 passes) or data → scratch → data (2 passes).
//
// Inside a kernel (dft_round): an R-point DFT (R = 2^3..2^10) in Stockham form over radix-4
// rounds (a radix-2 round first when log R is odd). Each thread holds 4 elements; a radix-4 DFT
// in registers costs 1 multiplication (by ω_4), and the twiddles between rounds ω_(R/P)^(y·κ)
// come from a 1024-entry table. Per element and pass of 9 stages (rounds 2,4,4,4,4):
// 1/2 + 3·(1/4 + 3/4) + 1/4 = 3.75 multiplications (radix-2 stages: 4.5), plus the inter-pass
// twiddle: 1 (pass 1a, one table entry) or 2 (pass 1b, a product of two entries).
//
// Cost at 2^27 (3 passes of 512): 14.25 multiplications per element = 1.9·10^9, against
// 1.8·10^9 for radix-2 (one per butterfly); memory: 3 passes × 2 × 4 GiB. Compute-bound by ~7×.
#pragma once
#include <algorithm>
#include <string>

#include "snarkd/cuda/ntt.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {

namespace ntt_detail {

// 4 elements per thread and ≤ 64 registers so that 4 blocks of 256 threads (32 warps) share an
// SM: the multiplications are long dependent carry chains, and occupancy is what hides them
// (measured on the H200, docs/PERFORMANCE.md: 8 elements per thread at 16 warps per SM ran at half
// the multiplier's rate, 4 elements at 24–32 warps at 83–88 %).
constexpr uint32_t kBlockThreads = 256;
constexpr int kLogElems = 2;
constexpr int kElems = 1 << kLogElems;                              // per thread
constexpr int kLogBlockElems = 10;
constexpr uint32_t kBlockElems = 1u << kLogBlockElems;              // per block
constexpr uint32_t kPlane = kBlockElems + kBlockElems / 32;         // padded words per limb plane
constexpr size_t kSmemBytes = size_t{8} * kPlane * sizeof(uint32_t);  // 33792 bytes
constexpr int kMinBlocks = 4;
static_assert(kBlockElems == kBlockThreads * kElems);

// One pass: a batch of R-point DFTs. Instance i (of `count`) is vector b = i >> per_log,
// local = i mod 2^per_log = lo + 2^lo_log·hi; its element t is read from
// in[b·n + lo·in_u1 + hi·in_u2 + t·in_stride] and its output k written to
// out[b·n + lo·out_v1 + hi·out_v2 + k·out_stride], after multiplying by
//   tw_mode 1: ω_n^e, 2: the same from two table entries, with e = (lo·α + hi·β)(hi·γ + k·δ);
//   coset_in (on inputs): s^x for the global input index x;
//   coset_out / scale_out (on outputs): s^(−y) for the output index y, and n⁻¹;
// and output y goes through `pointwise` (detail::Pointwise: stored, or folded into a[y] ← a[y]·b[y]
// − v or a[y] ← a[y]·v, or stored as v − b[y]; the H phase's products in the last pass of a
// transform, detail::NttFusion).
template <class F>
struct PassParams {
  static_assert(F::kWords == 8, "the NTT kernels move 8-word elements");
  const F* in;
  F* out;
  uint32_t log_n, count, per_log, lo_log;
  uint32_t in_u1, in_u2, in_stride;
  uint32_t out_v1, out_v2, out_stride;
  uint32_t tw_alpha, tw_beta, tw_gamma, tw_delta, tw_mode;
  bool inverse, coset_in, coset_out, scale_out;
  detail::Pointwise pointwise;
  F scale;       // n⁻¹ (or NttFusion::scale)
  F omega4;      // ω_4 (ω_4⁻¹ when inverse), for the in-register radix-4 DFTs
  NttTablesViewT<F> t;
  F* pointwise_a;
  const F* pointwise_b;
};

template <class F>
__device__ __forceinline__ F load_ro(const F* p) {
  const uint4* q = reinterpret_cast<const uint4*>(p);
  const uint4 a = __ldg(q), b = __ldg(q + 1);
  F r;
  r.w[0] = a.x, r.w[1] = a.y, r.w[2] = a.z, r.w[3] = a.w;
  r.w[4] = b.x, r.w[5] = b.y, r.w[6] = b.z, r.w[7] = b.w;
  return r;
}

// Shared memory holds the block's elements as 8 planes of 32-bit words (word w of slot z at
// w·kPlane + z + z/32): consecutive slots hit consecutive banks, strided ones spread by the pad.
template <class F>
__device__ __forceinline__ F smem_load(const uint32_t* smem, uint32_t slot) {
  const uint32_t z = slot + (slot >> 5);
  F r;
#pragma unroll
  for (int w = 0; w < 8; ++w) r.w[w] = smem[w * kPlane + z];
  return r;
}
template <class F>
__device__ __forceinline__ void smem_store(uint32_t* smem, uint32_t slot, const F& v) {
  const uint32_t z = slot + (slot >> 5);
#pragma unroll
  for (int w = 0; w < 8; ++w) smem[w * kPlane + z] = v.w[w];
}

// ω_1024^e (e mod 1024), negated exponent for the inverse.
template <class F>
__device__ __forceinline__ F small_root(const PassParams<F>& p, uint32_t e) {
  return load_ro(p.t.small + ((p.inverse ? 0u - e : e) & 1023u));
}

// s^x or s^(−x) from the two coset tables.
template <class F>
__device__ __forceinline__ F coset_power(const F* const* table, uint32_t x) {
  return load_ro(table[0] + (x & 16383u)) * load_ro(table[1] + (x >> 14));
}

// ω_n^e from the level-L tables: e·2^(L−log n) = f; f >> (L−M) indexes `mid`, and when
// tw_mode = 2 the low L−M bits index `fine`.
template <class F>
__device__ __forceinline__ F pass_twiddle(const PassParams<F>& p, uint32_t lo, uint32_t hi, uint32_t k) {
  const uint32_t n_mask = (1u << p.log_n) - 1;
  const uint32_t e = ((lo * p.tw_alpha + hi * p.tw_beta) * (hi * p.tw_gamma + k * p.tw_delta)) & n_mask;
  const uint32_t l_mask = (1u << p.t.log_l) - 1;
  uint32_t f = e << (p.t.log_l - p.log_n);
  if (p.inverse) f = (0u - f) & l_mask;
  const uint32_t shift = p.t.log_l - p.t.log_m;
  F w = load_ro(p.t.mid + (f >> shift));
  if (p.tw_mode == 2) w = w * load_ro(p.t.fine + (f & ((1u << shift) - 1)));
  return w;
}

// Output v of index `at` (vector offset included), as p.pointwise says.
template <class F>
__device__ __forceinline__ void store_output(const PassParams<F>& p, size_t at, const F& v) {
  switch (p.pointwise) {
    case detail::Pointwise::kMulSub: p.pointwise_a[at] = p.pointwise_a[at] * p.pointwise_b[at] - v; break;
    case detail::Pointwise::kMul: p.pointwise_a[at] = p.pointwise_a[at] * v; break;
    case detail::Pointwise::kSub: p.out[at] = v - p.pointwise_b[at]; break;
    default: p.out[at] = v;
  }
}

// DIF butterflies (a, b) → (a + b, (a − b)·w), and with w = 1.
template <class F>
__device__ __forceinline__ void bfly(F& a, F& b, const F& w) {
  const F d = a - b;
  a = a + b;
  b = d * w;
}
template <class F>
__device__ __forceinline__ void bfly(F& a, F& b) {
  const F d = a - b;
  a = a + b;
  b = d;
}

// In-register DFT of 2^LOG_RHO points (2 or 4), natural order in, bit-reversed order out.
template <int LOG_RHO, class F>
__device__ __forceinline__ void dft_regs(F* x, const PassParams<F>& p) {
  if constexpr (LOG_RHO == 2) {
    bfly(x[0], x[2]), bfly(x[1], x[3], p.omega4);
    bfly(x[0], x[1]), bfly(x[2], x[3]);
  } else {
    static_assert(LOG_RHO == 1);
    bfly(x[0], x[1]);
  }
}

__host__ __device__ constexpr uint32_t bit_reverse(uint32_t v, int bits) {
  uint32_t r = 0;
  for (int i = 0; i < bits; ++i) r |= ((v >> i) & 1u) << (bits - 1 - i);
  return r;
}

// Round of radix 2^LOG_RHO after prefix 2^LOG_P (Stockham): sub-problem σ = c + P·y_a reads
// slots σ + (R/ρ)·y_b, takes the DFT over y_b, multiplies output κ by ω_(R/P)^(y_a·κ) unless this
// is the last round, and writes slot c + P·κ + P·ρ·y_a. Each thread does 8/ρ sub-problems.
template <int LOG_R, int LOG_P, int LOG_RHO, class F>
__device__ __forceinline__ void dft_round(uint32_t* smem, uint32_t base, uint32_t tq, const PassParams<F>& p) {
  constexpr uint32_t R = 1u << LOG_R, P = 1u << LOG_P, RHO = 1u << LOG_RHO, T = R / kElems;
  constexpr uint32_t G = kElems / RHO;
  constexpr bool kLast = LOG_P + LOG_RHO == LOG_R;
  F v[kElems];
#pragma unroll
  for (uint32_t u = 0; u < G; ++u)
#pragma unroll
    for (uint32_t yb = 0; yb < RHO; ++yb) v[u * RHO + yb] = smem_load<F>(smem, base + tq + T * u + (R / RHO) * yb);
#pragma unroll
  for (uint32_t u = 0; u < G; ++u) {
    dft_regs<LOG_RHO>(&v[u * RHO], p);
    if constexpr (!kLast) {
      const uint32_t ya = (tq + T * u) >> LOG_P;
#pragma unroll
      for (uint32_t i = 1; i < RHO; ++i)
        v[u * RHO + i] = v[u * RHO + i] * small_root(p, (ya * bit_reverse(i, LOG_RHO)) << (10 - LOG_R + LOG_P));
    }
  }
  __syncthreads();  // every read of this round is done before any write
#pragma unroll
  for (uint32_t u = 0; u < G; ++u) {
    const uint32_t sigma = tq + T * u, c = sigma & (P - 1), ya = sigma >> LOG_P;
#pragma unroll
    for (uint32_t i = 0; i < RHO; ++i)
      smem_store(smem, base + c + P * bit_reverse(i, LOG_RHO) + P * RHO * ya, v[u * RHO + i]);
  }
  __syncthreads();
}

// Radix plan for 2^LOG_R: a radix-2 round first when LOG_R is odd, then radix-4 rounds.
__host__ __device__ constexpr int round_log(int log_r, int round) {
  return (round == 0 && log_r % kLogElems) ? log_r % kLogElems : kLogElems;
}
__host__ __device__ constexpr int round_count(int log_r) { return log_r / kLogElems + (log_r % kLogElems ? 1 : 0); }

template <int LOG_R, int ROUND = 0, int LOG_P = 0, class F>
__device__ __forceinline__ void dft_rounds(uint32_t* smem, uint32_t base, uint32_t tq, const PassParams<F>& p) {
  if constexpr (ROUND < round_count(LOG_R)) {
    constexpr int kLogRho = round_log(LOG_R, ROUND);
    dft_round<LOG_R, LOG_P, kLogRho>(smem, base, tq, p);
    dft_rounds<LOG_R, ROUND + 1, LOG_P + kLogRho>(smem, base, tq, p);
  }
}

// Where slot z of the block's load/store phase goes: instance q and element t. Rows (stride 1)
// are walked element-fastest, columns instance-fastest, so a warp touches contiguous memory.
template <int LOG_R>
__device__ __forceinline__ void slot_coords(uint32_t z, bool rows, uint32_t& q, uint32_t& t) {
  constexpr int kLogQ = kLogBlockElems - LOG_R;
  if (rows) {
    q = z >> LOG_R, t = z & ((1u << LOG_R) - 1);
  } else {
    q = z & ((1u << kLogQ) - 1), t = z >> kLogQ;
  }
}

struct Instance {
  bool valid;
  uint32_t lo, hi;
  size_t vec;  // b·n
};

template <int LOG_R, class F>
__device__ __forceinline__ Instance instance(const PassParams<F>& p, uint32_t q) {
  const uint32_t i = blockIdx.x * (1u << (kLogBlockElems - LOG_R)) + q;
  const uint32_t local = i & ((1u << p.per_log) - 1);
  return {i < p.count, local & ((1u << p.lo_log) - 1), local >> p.lo_log, size_t(i >> p.per_log) << p.log_n};
}

template <class F, int LOG_R>
__global__ void __launch_bounds__(kBlockThreads, kMinBlocks) ntt_pass(const __grid_constant__ PassParams<F> p) {
  extern __shared__ uint32_t smem[];
  constexpr uint32_t R = 1u << LOG_R;
  const bool rows_in = p.in_stride == 1, rows_out = p.out_stride == 1;
#pragma unroll
  for (uint32_t j = 0; j < kElems; ++j) {
    uint32_t q, t;
    slot_coords<LOG_R>(threadIdx.x + kBlockThreads * j, rows_in, q, t);
    const Instance in = instance<LOG_R>(p, q);
    if (!in.valid) continue;
    const uint32_t x = in.lo * p.in_u1 + in.hi * p.in_u2 + t * p.in_stride;
    F v = p.in[in.vec + x];
    if (p.coset_in) v = v * coset_power(p.t.coset, x);
    smem_store(smem, q * R + t, v);
  }
  __syncthreads();
  constexpr uint32_t T = R / kElems;
  dft_rounds<LOG_R>(smem, (threadIdx.x / T) * R, threadIdx.x % T, p);
#pragma unroll
  for (uint32_t j = 0; j < kElems; ++j) {
    uint32_t q, k;
    slot_coords<LOG_R>(threadIdx.x + kBlockThreads * j, rows_out, q, k);
    const Instance in = instance<LOG_R>(p, q);
    if (!in.valid) continue;
    F v = smem_load<F>(smem, q * R + k);
    if (p.tw_mode) v = v * pass_twiddle(p, in.lo, in.hi, k);
    const uint32_t y = in.lo * p.out_v1 + in.hi * p.out_v2 + k * p.out_stride;
    if (p.coset_out) v = v * coset_power(p.t.coset_inv, y);
    if (p.scale_out) v = v * p.scale;
    store_output(p, in.vec + y, v);
  }
}

// n ≤ 4: one thread per vector, direct DFT with the same fused scalings.
template <class F>
__global__ void ntt_tiny(const __grid_constant__ PassParams<F> p) {
  const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= p.count) return;
  const uint32_t n = 1u << p.log_n;
  F a[4], r[4];
  for (uint32_t x = 0; x < n; ++x) {
    a[x] = p.in[(size_t(b) << p.log_n) + x];
    if (p.coset_in) a[x] = a[x] * coset_power(p.t.coset, x);
  }
  for (uint32_t k = 0; k < n; ++k) {
    r[k] = F::zero();
    for (uint32_t x = 0; x < n; ++x) r[k] = r[k] + a[x] * small_root(p, ((x * k) & (n - 1)) << (10 - p.log_n));
    if (p.coset_out) r[k] = r[k] * coset_power(p.t.coset_inv, k);
    if (p.scale_out) r[k] = r[k] * p.scale;
  }
  for (uint32_t k = 0; k < n; ++k) store_output(p, (size_t(b) << p.log_n) + k, r[k]);
}

template <class F>
using PassKernel = void (*)(PassParams<F>);
template <class F>
constexpr PassKernel<F> kKernels[] = {ntt_pass<F, 3>, ntt_pass<F, 4>, ntt_pass<F, 5>, ntt_pass<F, 6>,
                                      ntt_pass<F, 7>, ntt_pass<F, 8>, ntt_pass<F, 9>, ntt_pass<F, 10>};

template <class F>
void launch_pass(const PassParams<F>& p, uint32_t log_r, cudaStream_t s) {
  const uint32_t per_block = kBlockElems >> log_r;
  const uint32_t blocks = (p.count + per_block - 1) / per_block;
  kKernels<F>[log_r - 3]<<<blocks, kBlockThreads, kSmemBytes, s>>>(p);
  SNARKD_CUDA_CHECK_LAUNCH();
}

}  // namespace ntt_detail

// Lets kMinBlocks blocks share an SM: by default the driver may keep more L1 and less shared
// memory than that needs (measured: 3 blocks per SM instead of 4 at 33 KiB each).
template <class F>
void detail::ntt_configure_kernels() {
  using namespace ntt_detail;
  int device = 0, smem_per_sm = 0;
  SNARKD_CUDA_CHECK(cudaGetDevice(&device));
  SNARKD_CUDA_CHECK(cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  const size_t need = kMinBlocks * (kSmemBytes + 1024);  // 1 KiB per block is reserved by the system
  const int percent = int(std::min<size_t>(100, (need * 100 + smem_per_sm - 1) / size_t(smem_per_sm)));
  for (PassKernel<F> k : kKernels<F>) {
    SNARKD_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSmemBytes)));
    SNARKD_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, percent));
  }
}

namespace ntt_detail {

// Fields shared by every pass of one transform.
template <class F>
PassParams<F> base_params(uint32_t log_n, Direction dir, const NttTablesT<F>& tables) {
  using H = typename F::Host;
  PassParams<F> p{};
  p.log_n = log_n;
  p.inverse = dir == Direction::kInverse;
  p.scale = F::from_host(tables.size_inverse(log_n));
  const H w4 = H::root_of_unity(2, tables.generator());
  p.omega4 = F::from_host(p.inverse ? w4.inverse() : w4);
  p.t = tables.view();
  return p;
}

// A pass over `count` instances with DFT size 2^log_r; geometry from the caller.
struct Geometry {
  uint32_t log_r, per_log, lo_log, in_u1, in_u2, in_stride, out_v1, out_v2, out_stride;
  uint32_t alpha, beta, gamma, delta, mode;
};

template <class F>
void run_pass(PassParams<F> p, const Geometry& g, const F* in, F* out, uint32_t batch, bool first, bool last,
              bool coset, const detail::NttFusionT<F>& f, cudaStream_t s) {
  p.in = in, p.out = out;
  p.count = batch << g.per_log;
  p.per_log = g.per_log, p.lo_log = g.lo_log;
  p.in_u1 = g.in_u1, p.in_u2 = g.in_u2, p.in_stride = g.in_stride;
  p.out_v1 = g.out_v1, p.out_v2 = g.out_v2, p.out_stride = g.out_stride;
  p.tw_alpha = g.alpha, p.tw_beta = g.beta, p.tw_gamma = g.gamma, p.tw_delta = g.delta, p.tw_mode = g.mode;
  p.coset_in = first && coset && !p.inverse;
  p.coset_out = last && coset && p.inverse;
  p.scale_out = last && p.inverse && !f.skip_scale;
  if (last) p.pointwise = f.pointwise, p.pointwise_a = f.pointwise_a, p.pointwise_b = f.pointwise_b;
  launch_pass(p, g.log_r, s);
}

}  // namespace ntt_detail

template <class F>
void detail::ntt_fused(F* d_data, uint32_t log_n, Direction dir, bool coset, const NttTablesT<F>& tables,
                       void* d_scratch, cudaStream_t stream, uint32_t batch, const NttFusionT<F>& f) {
  using namespace ntt_detail;
  if (log_n > tables.max_log_n())
    throw InvalidArgument("cuda::ntt: log_n " + std::to_string(log_n) + " > tables' max_log_n");
  if (batch == 0) throw InvalidArgument("cuda::ntt: batch is 0");
  if ((uint64_t{batch} << log_n) > (uint64_t{1} << 32)) throw InvalidArgument("cuda::ntt: batch·n > 2^32");
  if (ntt_scratch_bytes(log_n, batch) && !d_scratch) throw InvalidArgument("cuda::ntt: scratch missing");
  const bool needs_a = f.pointwise == Pointwise::kMulSub || f.pointwise == Pointwise::kMul;
  const bool needs_b = f.pointwise == Pointwise::kMulSub || f.pointwise == Pointwise::kSub;
  if ((needs_a && !f.pointwise_a) || (needs_b && !f.pointwise_b))
    throw InvalidArgument("cuda::ntt: a pointwise fusion without its operands");
  // One point: every variant is the identity (s^0 = 1, 1/1 = 1) unless something is fused.
  if (log_n == 0 && f.pointwise == Pointwise::kNone && !f.scale_override) return;
  PassParams<F> p = base_params(log_n, dir, tables);
  if (f.scale_override) p.scale = f.scale;
  if (f.coset_low) (p.inverse ? p.t.coset_inv[0] : p.t.coset[0]) = f.coset_low;
  F* scratch = static_cast<F*>(d_scratch);
  const uint32_t K = log_n;
  if (K <= 2) {
    p.in = d_data, p.out = d_data, p.count = batch;
    p.coset_in = coset && !p.inverse, p.coset_out = coset && p.inverse, p.scale_out = p.inverse && !f.skip_scale;
    p.pointwise = f.pointwise, p.pointwise_a = f.pointwise_a, p.pointwise_b = f.pointwise_b;
    ntt_tiny<F><<<(batch + 127) / 128, 128, 0, stream>>>(p);
    SNARKD_CUDA_CHECK_LAUNCH();
  } else if (K <= 10) {
    run_pass(p, {K, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0}, d_data, d_data, batch, true, true, coset, f, stream);
  } else if (K <= 20) {
    const uint32_t a = (K + 1) / 2, b = K - a, A = 1u << a, B = 1u << b;
    // pass 1: columns x_a, B-point DFTs at stride A, twiddle ω_n^(x_a·k_b); data → scratch.
    run_pass(p, {b, a, a, 1, 0, A, 1, 0, A, 1, 0, 0, 1, 1}, d_data, scratch, batch, true, false, coset, f, stream);
    // pass 2: rows k_b, A-point DFTs, written transposed; scratch → data.
    run_pass(p, {a, b, b, A, 0, 1, 1, 0, B, 0, 0, 0, 0, 0}, scratch, d_data, batch, false, true, coset, f, stream);
  } else {
    const uint32_t a = (K + 2) / 3, c = (K - a + 1) / 2, d = K - a - c;
    const uint32_t A = 1u << a, C = 1u << c, D = 1u << d, B = C * D;
    // 1a: columns (x_a, x_c), D-point DFTs at stride A·C, twiddle ω_B^(x_c·k_d); in place.
    run_pass(p, {d, a + c, a, 1, A, A * C, 1, A, A * C, 0, A, 0, 1, 1}, d_data, d_data, batch, true, false,
             coset, f, stream);
    // 1b: columns (x_a, k_d), C-point DFTs at stride A, twiddle ω_n^(x_a·(k_d + D·k_c)),
    //     written to x_a + A·(k_d + D·k_c); data → scratch.
    run_pass(p, {c, a + d, a, 1, A * C, A, 1, A, A * D, 1, 0, 1, D, 2}, d_data, scratch, batch, false, false,
             coset, f, stream);
    // 2: rows k_b, A-point DFTs, written transposed; scratch → data.
    run_pass(p, {a, c + d, c + d, A, 0, 1, 1, 0, B, 0, 0, 0, 0, 0}, scratch, d_data, batch, false, true, coset,
             f, stream);
  }
}

template <class F>
void ntt(F* d_data, uint32_t log_n, Direction dir, bool coset, const NttTablesT<F>& tables, void* d_scratch,
         cudaStream_t stream, uint32_t batch) {
  detail::ntt_fused<F>(d_data, log_n, dir, coset, tables, d_scratch, stream, batch, {});
}

template <class F>
void ntt_sync(std::span<typename F::Host> data, uint32_t log_n, Direction dir, bool coset,
              const NttTablesT<F>& tables) {
  const size_t n = size_t{1} << log_n;
  if (data.empty() || data.size() % n) throw InvalidArgument("cuda::ntt_sync: size is not a multiple of 2^log_n");
  const uint32_t batch = uint32_t(data.size() / n);
  DeviceGuard guard(tables.device());
  Stream stream;
  DeviceBuffer<F> d(data.size());
  DeviceBuffer<uint8_t> scratch(ntt_scratch_bytes(log_n, batch));
  d.upload(reinterpret_cast<const F*>(data.data()), data.size(), stream);
  ntt<F>(d.data(), log_n, dir, coset, tables, scratch.data(), stream, batch);
  d.download(reinterpret_cast<F*>(data.data()), data.size(), stream);
  stream.synchronize();
}

}  // namespace snarkd::cuda

// In namespace snarkd::cuda.
#define SNARKD_CUDA_NTT_DEFINE(F)                                                                                  \
  template void ntt<F>(F*, uint32_t, Direction, bool, const NttTablesT<F>&, void*, cudaStream_t, uint32_t);        \
  template void detail::ntt_fused<F>(F*, uint32_t, Direction, bool, const NttTablesT<F>&, void*, cudaStream_t,    \
                                     uint32_t, const detail::NttFusionT<F>&);                                     \
  template void detail::ntt_configure_kernels<F>();                                                                \
  template void ntt_sync<F>(std::span<typename F::Host>, uint32_t, Direction, bool, const NttTablesT<F>&);
