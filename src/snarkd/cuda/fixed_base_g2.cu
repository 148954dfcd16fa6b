// Fixed-base multiplication for G2 (Fp2): see fixed_base_impl.cuh.
#include "snarkd/cuda/fixed_base_impl.cuh"

namespace snarkd::cuda {
SNARKD_CUDA_FIXED_BASE_DEFINE(Fp2)
}  // namespace snarkd::cuda
