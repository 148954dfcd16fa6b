// BLS12-381 G1 (Fp), batch-affine accumulation kernel: msm_affine.cuh,
// instantiated in a unit of its own so that a parallel build compiles it beside the driver.
#include "snarkd/cuda/msm_affine.cuh"

namespace snarkd::cuda {
SNARKD_CUDA_MSM_AFFINE_DEFINE(Fp)
}  // namespace snarkd::cuda
