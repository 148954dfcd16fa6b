// Element-wise field operations over device buffers (stream-ordered, no allocation, no sync):
// the differential tests' entry to the device arithmetic, and a building block for later
// kernels (batch scaling, pointwise products of NTT outputs).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "snarkd/cuda/field.hpp"
#include "snarkd/cuda/fp2.hpp"

namespace snarkd::cuda {

enum class FieldOp : uint8_t {
  kAdd,         // out = a + b
  kSub,         // out = a − b
  kMul,         // out = a · b
  kSqr,         // out = a²
  kNeg,         // out = −a
  kInverse,     // out = a⁻¹ (0 → 0): Fermat for the prime fields, the binary GCD for Fp2
  kInverseGcd,  // out = a⁻¹ (0 → 0) by the binary GCD (field_inverse.hpp)
  kMulFull,     // Fp2: a · b by three full Montgomery products (Fp2::mul_karatsuba); Fr, Fp: kMul
};

// out[i] = op(a[i], b[i]) for i < n; b is ignored by the unary ops (may be null). out may alias
// a or b. F is Fr, Fp or Fp2 (field_ops.cu), or bn254::Fr, bn254::Fp or bn254::Fp2
// (field_ops_bn254.cu).
template <class F>
void field_op(FieldOp op, const F* a, const F* b, F* out, size_t n, cudaStream_t stream);

#define SNARKD_CUDA_FIELD_OPS_DECLARE(F) \
  extern template void field_op<F>(FieldOp, const F*, const F*, F*, size_t, cudaStream_t);
SNARKD_CUDA_FIELD_OPS_DECLARE(Fr)
SNARKD_CUDA_FIELD_OPS_DECLARE(Fp)
SNARKD_CUDA_FIELD_OPS_DECLARE(Fp2)
SNARKD_CUDA_FIELD_OPS_DECLARE(bn254::Fr)
SNARKD_CUDA_FIELD_OPS_DECLARE(bn254::Fp)
SNARKD_CUDA_FIELD_OPS_DECLARE(bn254::Fp2)
#undef SNARKD_CUDA_FIELD_OPS_DECLARE

}  // namespace snarkd::cuda
