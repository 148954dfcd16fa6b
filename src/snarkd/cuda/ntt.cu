// The GPU NTT over BLS12-381's Fr (ntt_impl.cuh).
#include "snarkd/cuda/ntt_impl.cuh"

namespace snarkd::cuda {
SNARKD_CUDA_NTT_DEFINE(Fr)
}  // namespace snarkd::cuda
