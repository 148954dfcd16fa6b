// The G1 MSM for Fp: the driver, digits, fix-up and reduction kernels (msm_kernels.cuh); the
// accumulation kernels are in msm_xyzz_g1.cu and msm_affine_g1.cu. One translation unit per
// curve and kernel family so that a parallel build runs them side by side.
#include "snarkd/cuda/msm_kernels.cuh"

namespace snarkd::cuda {
SNARKD_CUDA_MSM_DEFINE(Fp)
}  // namespace snarkd::cuda
