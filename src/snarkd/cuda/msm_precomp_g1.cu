// The precomputed-bases MSM for G1 (Fp; msm_precomp_impl.cuh), and the shape arithmetic.
#include "snarkd/cuda/msm_precomp_impl.cuh"

namespace snarkd::cuda {

MsmPrecompShape msm_precomp_shape(uint32_t copies, uint32_t window_bits) {
  if (window_bits < precomp_detail::kMinWindow || window_bits > precomp_detail::kMaxWindow)
    throw InvalidArgument("msm_precomp: window_bits " + std::to_string(window_bits) + " not in [4, 24]");
  if (copies == 0) throw InvalidArgument("msm_precomp: copies must be at least 1");
  MsmPrecompShape s;
  s.window_bits = window_bits;
  s.windows = (256 + window_bits - 1) / window_bits;  // W·c ≥ 256: the top window never borrows
  s.virtual_windows = (s.windows + std::min(copies, s.windows) - 1) / std::min(copies, s.windows);
  s.copies = (s.windows + s.virtual_windows - 1) / s.virtual_windows;
  return s;
}

SNARKD_CUDA_MSM_PRECOMP_DEFINE(Fp)

}  // namespace snarkd::cuda
