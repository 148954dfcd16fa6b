// The split MSM's phases 2–3 for G2 (Fp2): see msm_split_impl.cuh.
#include "snarkd/cuda/msm_split_impl.cuh"

namespace snarkd::cuda {
SNARKD_CUDA_MSM_SPLIT_DEFINE(Fp2)
}  // namespace snarkd::cuda
