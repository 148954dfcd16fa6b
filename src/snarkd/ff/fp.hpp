// The BLS12-381 base field Fp (381-bit prime, 6×64-bit limbs, R = 2^384).
#pragma once
#include "snarkd/ff/field.hpp"

namespace snarkd::ff {

struct FpParams {
  static constexpr size_t kLimbs = 6;
  // p = 0x1a0111ea…aaab (BLS12-381 specification).
  static constexpr BigInt<6> kModulus = BigInt<6>::from_hex(
      "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab");
};
using Fp = Field<FpParams>;
static_assert(Fp::kBits == 381);

}  // namespace snarkd::ff
