// The G2 MSM for Fp2: the driver, digits, fix-up and reduction kernels (msm_kernels.cuh); the
// accumulation kernels are in msm_xyzz_g2.cu and msm_affine_g2.cu. One translation unit per
// curve and kernel family so that a parallel build runs them side by side.
#include "snarkd/cuda/msm_kernels.cuh"

namespace snarkd::cuda {
SNARKD_CUDA_MSM_DEFINE(Fp2)
}  // namespace snarkd::cuda
