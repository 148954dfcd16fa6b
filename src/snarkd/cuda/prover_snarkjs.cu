// The per-proof device work of the snarkjs-key GPU prover (prover_snarkjs.hpp): QAP rows, H
// scalars, five plain MSMs, one copy out. The MSM and NTT kernels live in their own units
// (msm_*.cu, ntt*.cu); this one only launches them and the element-wise kernels.
#include <cstdint>
#include <string>

#include "snarkd/cuda/msm.hpp"
#include "snarkd/cuda/phase_mark.hpp"
#include "snarkd/cuda/prover_kernels.cuh"
#include "snarkd/cuda/prover_snarkjs.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {
namespace {

namespace pk = detail::prover_kernels;

template <class T>
T* at(void* base, uint64_t offset) {
  return reinterpret_cast<T*>(static_cast<uint8_t*>(base) + offset);
}

// Witness values 1 (bits) leave the Pippenger: their bases are summed apart and the scalars
// the MSMs see have them set to 0, which the MSM skips. Measured on a 2^20 key with 45 % ones
// (H200): the five MSMs took 2.7 s with the ones inside — each window's bucket 1 holds 470,000
// entries and the chunked accumulation's fix-up adds a bucket's chunk sums in one thread — and
// 6 ms each for a circom witness of random values. kOnesBlocks × kOnesThreads threads add their
// points with mixed additions, each block reduces in shared memory (G2: 128 XYZZ = 32 KiB), and
// one block adds the block sums to the MSM's result.
constexpr uint32_t kOnesThreads = 128, kOnesBlocks = detail::kOnesPartials;
static_assert(kOnesBlocks == kOnesThreads, "ones_finish_kernel: one thread per block partial");

template <class Fr>
__global__ void drop_ones_kernel(const Fr* w, uint64_t n, Fr* rest) {
  for (uint64_t i = pk::first_index(); i < n; i += pk::grid_stride()) rest[i] = w[i] == Fr::one() ? Fr::zero() : w[i];
}

// Tree sum of the block's kOnesThreads points in shared memory; thread 0 gets the sum.
template <class F>
__device__ Xyzz<F> block_sum(Xyzz<F> mine) {
  __shared__ Xyzz<F> sh[kOnesThreads];
  sh[threadIdx.x] = mine;
  __syncthreads();
  for (uint32_t s = kOnesThreads / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) sh[threadIdx.x] = sh[threadIdx.x] + sh[threadIdx.x + s];
    __syncthreads();
  }
  return sh[0];
}

template <class F>
__global__ void __launch_bounds__(kOnesThreads)
    ones_partial_kernel(const Affine<F>* bases, const ScalarOf<F>* w, uint64_t n, Xyzz<F>* partials) {
  Xyzz<F> acc = Xyzz<F>::infinity();
  for (uint64_t i = pk::first_index(); i < n; i += pk::grid_stride())
    if (w[i] == ScalarOf<F>::one()) acc = acc.add_mixed(bases[i]);
  const Xyzz<F> sum = block_sum(acc);
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

template <class F>
__global__ void __launch_bounds__(kOnesThreads) ones_finish_kernel(const Xyzz<F>* partials, Xyzz<F>* out) {
  const Xyzz<F> sum = block_sum(partials[threadIdx.x]);
  if (threadIdx.x == 0) *out = *out + sum;
}

// *out = Σ w_i·P_i: the Pippenger over `rest` (w without its ones), then the ones' bases added.
template <class F>
void witness_msm(const Affine<F>* bases, const ScalarOf<F>* w, const ScalarOf<F>* rest, uint64_t n, Xyzz<F>* out,
                 void* scratch, uint64_t scratch_bytes, void* partials, cudaStream_t stream) {
  msm<F>(bases, rest, n, out, scratch, scratch_bytes, stream, detail::witness_msm_options<F>());
  auto* p = static_cast<Xyzz<F>*>(partials);
  ones_partial_kernel<F><<<kOnesBlocks, kOnesThreads, 0, stream>>>(bases, w, n, p);
  SNARKD_CUDA_CHECK_LAUNCH();
  ones_finish_kernel<F><<<1, kOnesThreads, 0, stream>>>(p, out);
  SNARKD_CUDA_CHECK_LAUNCH();
}

// The phase events of prove_on_stream: detail::mark_phase without a stop (the snarkjs prover
// enqueues a whole proof without a host wait, so a per-phase stop check would come microseconds
// apart; the engine's worker checks its stop before enqueueing).
void mark(const PhaseEvents* phases, size_t k, cudaStream_t stream) {
  detail::mark_phase(phases, k, stream, std::stop_token{}, "snarkjs proof");
}

}  // namespace

template <class E>
void prove_on_stream(const SnarkjsDeviceKey<E>& key, void* d_workspace, SnarkjsDeviceSums<E>* h_out,
                     cudaStream_t stream, const PhaseEvents* phases) {
  using D = DeviceCurve<E>;
  using Fr = typename D::Fr;
  using G1 = typename D::G1;
  using G2 = typename D::G2;
  if (d_workspace == nullptr || reinterpret_cast<uintptr_t>(d_workspace) % 256 != 0)
    throw InvalidArgument("prove_on_stream: the workspace is null or not 256-byte aligned");
  if (h_out == nullptr) throw InvalidArgument("prove_on_stream: h_out is null");
  DeviceGuard guard(key.device());
  const SnarkjsWorkspaceLayout& l = key.layout();
  const auto& v = key.view();
  Fr *w = at<Fr>(d_workspace, l.witness), *a = at<Fr>(d_workspace, l.a);
  Fr *b = at<Fr>(d_workspace, l.b), *c = at<Fr>(d_workspace, l.c);
  void* msm_scratch = at<uint8_t>(d_workspace, l.msm_scratch);
  auto* sums = at<SnarkjsDeviceSums<E>>(d_workspace, l.sums);
  const uint64_t n = key.domain_size(), vars = key.num_vars(), inputs = key.num_inputs();
  mark(phases, size_t(-1), stream);

  spmv<Fr>(v.a_matrix, v.dict, w, a, stream);
  spmv<Fr>(v.b_matrix, v.dict, w, b, stream);
  pk::qap_rows_kernel<Fr><<<pk::blocks_for(n), pk::kThreads, 0, stream>>>(a, b, c, w, key.num_rows(), n, inputs, false,
                                                                          nullptr, &sums->witness_one_ok);
  SNARKD_CUDA_CHECK_LAUNCH();
  mark(phases, 0, stream);

  pk::enqueue_h_unfused<Fr>(key.ntt_tables(), key.log_domain(), false, Fr::one(), a, b, c,
                            at<uint8_t>(d_workspace, l.ntt_scratch), stream);
  mark(phases, 1, stream);

  const uint64_t sb = l.msm_scratch_bytes;
  Fr* rest = at<Fr>(d_workspace, l.rest);
  void* partials = at<uint8_t>(d_workspace, l.partials);
  drop_ones_kernel<Fr><<<pk::blocks_for(vars), pk::kThreads, 0, stream>>>(w, vars, rest);
  SNARKD_CUDA_CHECK_LAUNCH();
  witness_msm<G1>(v.a, w, rest, vars, &sums->a, msm_scratch, sb, partials, stream);
  mark(phases, 2, stream);
  witness_msm<G1>(v.b_g1, w, rest, vars, &sums->b1, msm_scratch, sb, partials, stream);
  mark(phases, 3, stream);
  witness_msm<G2>(v.b_g2, w, rest, vars, &sums->b2, msm_scratch, sb, partials, stream);
  mark(phases, 4, stream);
  witness_msm<G1>(v.l, w + inputs, rest + inputs, vars - inputs, &sums->l, msm_scratch, sb, partials, stream);
  mark(phases, 5, stream);
  msm<G1>(v.h, a, n, &sums->h, msm_scratch, sb, stream, group_default_options<G1>());
  mark(phases, 6, stream);
  SNARKD_CUDA_CHECK(cudaMemcpyAsync(h_out, sums, sizeof(*sums), cudaMemcpyDeviceToHost, stream));
}

template void prove_on_stream<groth16::Bls12_381>(const SnarkjsDeviceKey<groth16::Bls12_381>&, void*,
                                                  SnarkjsDeviceSums<groth16::Bls12_381>*, cudaStream_t,
                                                  const PhaseEvents*);
template void prove_on_stream<groth16::Bn254>(const SnarkjsDeviceKey<groth16::Bn254>&, void*,
                                              SnarkjsDeviceSums<groth16::Bn254>*, cudaStream_t, const PhaseEvents*);

}  // namespace snarkd::cuda
