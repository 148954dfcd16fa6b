// The per-proof device work of the snarkjs-key GPU prover (prover_snarkjs.hpp): QAP rows, H
// scalars, five plain MSMs, one copy out. The MSM and NTT kernels live in their own units
// (msm_*.cu, ntt*.cu); this one only launches them and the element-wise kernels.
#include <cstdint>
#include <string>

#include "snarkd/cuda/msm.hpp"
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

void mark(const PhaseEvents* phases, size_t k, cudaStream_t stream) {
  if (phases) SNARKD_CUDA_CHECK(cudaEventRecord(phases->at[k + 1], stream));
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
  const MsmOptions o1 = detail::witness_msm_options<G1>(), o2 = detail::witness_msm_options<G2>();
  msm<G1>(v.a, w, vars, &sums->a, msm_scratch, sb, stream, o1);
  mark(phases, 2, stream);
  msm<G1>(v.b_g1, w, vars, &sums->b1, msm_scratch, sb, stream, o1);
  mark(phases, 3, stream);
  msm<G2>(v.b_g2, w, vars, &sums->b2, msm_scratch, sb, stream, o2);
  mark(phases, 4, stream);
  msm<G1>(v.l, w + inputs, vars - inputs, &sums->l, msm_scratch, sb, stream, o1);
  mark(phases, 5, stream);
  msm<G1>(v.h, a, n, &sums->h, msm_scratch, sb, stream);
  mark(phases, 6, stream);
  SNARKD_CUDA_CHECK(cudaMemcpyAsync(h_out, sums, sizeof(*sums), cudaMemcpyDeviceToHost, stream));
}

template void prove_on_stream<groth16::Bls12_381>(const SnarkjsDeviceKey<groth16::Bls12_381>&, void*,
                                                  SnarkjsDeviceSums<groth16::Bls12_381>*, cudaStream_t,
                                                  const PhaseEvents*);
template void prove_on_stream<groth16::Bn254>(const SnarkjsDeviceKey<groth16::Bn254>&, void*,
                                              SnarkjsDeviceSums<groth16::Bn254>*, cudaStream_t, const PhaseEvents*);

}  // namespace snarkd::cuda
