// The split MSM's phases 2–3 for G1 (Fp): see msm_split_impl.cuh.
#include "snarkd/cuda/msm_split_impl.cuh"

namespace snarkd::cuda {
SNARKD_CUDA_MSM_SPLIT_DEFINE(Fp)
}  // namespace snarkd::cuda
