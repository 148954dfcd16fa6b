// field_op for BN254's Fr, Fp and Fp2 (field_ops_impl.cuh): the same kernel as field_ops.cu over
// the 8-word fields, in a unit of its own.
#include "snarkd/cuda/field_ops_impl.cuh"

namespace snarkd::cuda {
SNARKD_CUDA_FIELD_OPS_DEFINE(bn254::Fr)
SNARKD_CUDA_FIELD_OPS_DEFINE(bn254::Fp)
SNARKD_CUDA_FIELD_OPS_DEFINE(bn254::Fp2)
}  // namespace snarkd::cuda
