// The BN254 G2 MSM for bn254::Fp2: the driver, digits, fix-up and reduction kernels (msm_kernels.cuh);
// the accumulation kernels are in msm_xyzz_bn254_g2.cu and msm_affine_bn254_g2.cu. The same
// templates as BLS12-381's msm_g2.cu, in units of their own (one per curve, group and kernel
// family) so that a parallel build runs them side by side.
#include "snarkd/cuda/msm_kernels.cuh"

namespace snarkd::cuda {
SNARKD_CUDA_MSM_DEFINE(bn254::Fp2)
}  // namespace snarkd::cuda
