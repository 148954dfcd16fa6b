// The BN254 (alt_bn128) base and scalar fields, 254-bit primes in 4×64-bit limbs (R = 2^256).
// Both come from the curve parameter u = 4965661367192848881: p = 36u⁴ + 36u³ + 24u² + 6u + 1,
// r = 36u⁴ + 36u³ + 18u² + 6u + 1 (EIP-196; tests/ff recomputes them with GMP).
// r − 1 = 2^28 · odd, so NTT domains go up to 2^28.
#pragma once
#include "snarkd/ff/field.hpp"

namespace snarkd::ff::bn254 {

struct FpParams {
  static constexpr size_t kLimbs = 4;
  static constexpr BigInt<4> kModulus =
      BigInt<4>::from_hex("30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47");
};
struct FrParams {
  static constexpr size_t kLimbs = 4;
  static constexpr BigInt<4> kModulus =
      BigInt<4>::from_hex("30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001");
};
using Fp = Field<FpParams>;
using Fr = Field<FrParams>;
static_assert(Fp::kBits == 254 && Fr::kBits == 254);
static_assert(Fr::kTwoAdicity == 28);

inline constexpr uint64_t kCurveParameter = 4965661367192848881ull;

// snarkjs derives its bn128 Fr domains from 5 (ffjavascript's smallest non-residue); the
// primitive 2^28-th root of unity from it, computed at compile time.
inline constexpr uint64_t kSnarkjsDomainGenerator = 5;
inline constexpr Fr kRootOfUnity5 = Fr::root_of_unity(28, kSnarkjsDomainGenerator);

}  // namespace snarkd::ff::bn254
