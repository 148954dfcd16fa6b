// The GPU NTT over BN254's Fr (ntt_impl.cuh): the same kernels as ntt.cu, in a unit of their own.
#include "snarkd/cuda/ntt_impl.cuh"

namespace snarkd::cuda {
SNARKD_CUDA_NTT_DEFINE(bn254::Fr)
}  // namespace snarkd::cuda
