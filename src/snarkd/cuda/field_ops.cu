// field_op for BLS12-381's Fr, Fp and Fp2 (field_ops_impl.cuh).
#include "snarkd/cuda/field_ops_impl.cuh"

namespace snarkd::cuda {
SNARKD_CUDA_FIELD_OPS_DEFINE(Fr)
SNARKD_CUDA_FIELD_OPS_DEFINE(Fp)
SNARKD_CUDA_FIELD_OPS_DEFINE(Fp2)
}  // namespace snarkd::cuda
