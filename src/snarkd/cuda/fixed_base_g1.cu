// Fixed-base multiplication for G1 (Fp): see fixed_base_impl.cuh.
#include "snarkd/cuda/fixed_base_impl.cuh"

namespace snarkd::cuda {
SNARKD_CUDA_FIXED_BASE_DEFINE(Fp)
}  // namespace snarkd::cuda
