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
  kAdd,      // out = a + b
  kSub,      // out = a − b
  kMul,      // out = a · b
  kSqr,      // out = a²
  kNeg,      // out = −a
  kInverse,  // out = a⁻¹ (0 → 0): Fermat for Fr and Fp, the binary GCD for Fp2
  kInverseGcd,  // out = a⁻¹ (0 → 0) by the binary GCD (field_inverse.hpp)
  kMulFull,     // Fp2: a · b by three full Montgomery products (Fp2::mul_karatsuba); Fr, Fp: kMul
};

// out[i] = op(a[i], b[i]) for i < n; b is ignored by the unary ops (may be null). out may alias
// a or b. F is Fr, Fp or Fp2.
template <class F>
void field_op(FieldOp op, const F* a, const F* b, F* out, size_t n, cudaStream_t stream);

extern template void field_op<Fr>(FieldOp, const Fr*, const Fr*, Fr*, size_t, cudaStream_t);
extern template void field_op<Fp>(FieldOp, const Fp*, const Fp*, Fp*, size_t, cudaStream_t);
extern template void field_op<Fp2>(FieldOp, const Fp2*, const Fp2*, Fp2*, size_t, cudaStream_t);

}  // namespace snarkd::cuda
