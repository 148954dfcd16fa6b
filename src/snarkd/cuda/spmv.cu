#include "snarkd/cuda/spmv.hpp"

#include "snarkd/cuda/runtime.hpp"

namespace snarkd::cuda {
namespace {

template <class F>
__global__ void spmv_kernel(CsrView m, const F* dict, const F* w, F* out) {
  const uint64_t r = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= m.rows) return;
  F acc = F::zero();
  for (uint64_t k = m.row_ptr[r], end = m.row_ptr[r + 1]; k < end; ++k) {
    const F x = w[m.col[k]];
    const uint32_t ci = m.coeff[k];
    if (ci == r1cs::kCoeffOne) acc += x;
    else if (ci == r1cs::kCoeffMinusOne) acc -= x;
    else acc += dict[ci] * x;
  }
  out[r] = acc;
}

}  // namespace

template <class F>
void spmv(const CsrView& m, const F* d_dict, const F* d_witness, F* d_out, cudaStream_t stream) {
  if (m.rows == 0) return;
  constexpr uint32_t kThreads = 256;
  spmv_kernel<F><<<uint32_t((m.rows + kThreads - 1) / kThreads), kThreads, 0, stream>>>(m, d_dict, d_witness, d_out);
  SNARKD_CUDA_CHECK(cudaGetLastError());
}

template void spmv<Fr>(const CsrView&, const Fr*, const Fr*, Fr*, cudaStream_t);
template void spmv<bn254::Fr>(const CsrView&, const bn254::Fr*, const bn254::Fr*, bn254::Fr*, cudaStream_t);

}  // namespace snarkd::cuda
