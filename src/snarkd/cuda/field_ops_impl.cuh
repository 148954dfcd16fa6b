// field_op's kernel and launch (field_ops.hpp), instantiated per curve by field_ops.cu
// (BLS12-381) and field_ops_bn254.cu (BN254) with SNARKD_CUDA_FIELD_OPS_DEFINE.
#pragma once
#include <algorithm>

#include "snarkd/cuda/field_inverse.hpp"
#include "snarkd/cuda/field_ops.hpp"
#include "snarkd/cuda/runtime.hpp"

namespace snarkd::cuda {

namespace field_ops_detail {

template <class F>
__global__ void field_op_kernel(FieldOp op, const F* a, const F* b, F* out, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const F x = a[i];
    switch (op) {
      case FieldOp::kAdd: out[i] = x + b[i]; break;
      case FieldOp::kSub: out[i] = x - b[i]; break;
      case FieldOp::kMul: out[i] = x * b[i]; break;
      case FieldOp::kSqr: out[i] = x.sqr(); break;
      case FieldOp::kNeg: out[i] = -x; break;
      case FieldOp::kInverse:
        if constexpr (!kIsPrimeField<F>)
          out[i] = inverse_gcd(x);
        else
          out[i] = x.inverse();
        break;
      case FieldOp::kInverseGcd: out[i] = inverse_gcd(x); break;
      case FieldOp::kMulFull:
        if constexpr (!kIsPrimeField<F>)
          out[i] = x.mul_karatsuba(b[i]);
        else
          out[i] = x * b[i];
        break;
    }
  }
}

}  // namespace field_ops_detail

template <class F>
void field_op(FieldOp op, const F* a, const F* b, F* out, size_t n, cudaStream_t stream) {
  if (n == 0) return;
  constexpr unsigned kThreads = 256;
  const size_t blocks = std::min<size_t>((n + kThreads - 1) / kThreads, 65536);
  field_ops_detail::field_op_kernel<F><<<unsigned(blocks), kThreads, 0, stream>>>(op, a, b, out, n);
  SNARKD_CUDA_CHECK_LAUNCH();
}

}  // namespace snarkd::cuda

// In namespace snarkd::cuda.
#define SNARKD_CUDA_FIELD_OPS_DEFINE(F) \
  template void field_op<F>(FieldOp, const F*, const F*, F*, size_t, cudaStream_t);
