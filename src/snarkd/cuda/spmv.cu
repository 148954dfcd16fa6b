#include "snarkd/cuda/spmv.hpp"

#include "snarkd/cuda/runtime.hpp"

namespace snarkd::cuda {
namespace {

__global__ void spmv_kernel(CsrView m, const Fr* dict, const Fr* w, Fr* out) {
  const uint64_t r = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= m.rows) return;
  Fr acc = Fr::zero();
  for (uint64_t k = m.row_ptr[r], end = m.row_ptr[r + 1]; k < end; ++k) {
    const Fr x = w[m.col[k]];
    const uint32_t ci = m.coeff[k];
    if (ci == r1cs::kCoeffOne) acc += x;
    else if (ci == r1cs::kCoeffMinusOne) acc -= x;
    else acc += dict[ci] * x;
  }
  out[r] = acc;
}

}  // namespace

void spmv(const CsrView& m, const Fr* d_dict, const Fr* d_witness, Fr* d_out, cudaStream_t stream) {
  if (m.rows == 0) return;
  constexpr uint32_t kThreads = 256;
  spmv_kernel<<<uint32_t((m.rows + kThreads - 1) / kThreads), kThreads, 0, stream>>>(m, d_dict, d_witness, d_out);
  SNARKD_CUDA_CHECK(cudaGetLastError());
}

}  // namespace snarkd::cuda
