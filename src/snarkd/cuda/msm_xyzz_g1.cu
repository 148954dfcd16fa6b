// BLS12-381 G1 (Fp), XYZZ accumulation kernels (chunked lanes, legacy bucket threads): msm_xyzz.cuh,
// instantiated in a unit of its own so that a parallel build compiles it beside the driver.
#include "snarkd/cuda/msm_xyzz.cuh"

namespace snarkd::cuda {
SNARKD_CUDA_MSM_XYZZ_DEFINE(Fp)
}  // namespace snarkd::cuda
