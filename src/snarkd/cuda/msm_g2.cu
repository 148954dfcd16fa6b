// The G2 MSM: the driver and the XYZZ / one-thread-per-bucket kernels for Fp2 (msm_kernels.cuh);
// the batch-affine kernel is in msm_affine_g2.cu. One translation unit per curve (and kernel
// family) so that a parallel build runs them side by side.
#include "snarkd/cuda/msm_kernels.cuh"

namespace snarkd::cuda {
SNARKD_CUDA_MSM_DEFINE(Fp2)
}  // namespace snarkd::cuda
