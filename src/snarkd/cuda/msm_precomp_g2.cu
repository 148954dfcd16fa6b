// The precomputed-bases MSM for G2 (Fp2; msm_precomp_impl.cuh).
#include "snarkd/cuda/msm_precomp_impl.cuh"

namespace snarkd::cuda {
SNARKD_CUDA_MSM_PRECOMP_DEFINE(Fp2)
}  // namespace snarkd::cuda
