// The BLS12-381 scalar field Fr (255-bit prime r, 4×64-bit limbs, R = 2^256).
// r − 1 = 2^32 · t, so NTT domains go up to 2^32.
#pragma once
#include "snarkd/ff/field.hpp"

namespace snarkd::ff {

struct FrParams {
  static constexpr size_t kLimbs = 4;
  static constexpr BigInt<4> kModulus =
      BigInt<4>::from_hex("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
};
using Fr = Field<FrParams>;
static_assert(Fr::kBits == 255);
static_assert(Fr::kTwoAdicity == 32);

// Domain generators: snarkjs derives its roots of unity from 5, bellman/bellperson from 7.
inline constexpr uint64_t kSnarkjsDomainGenerator = 5;
inline constexpr uint64_t kBellpersonDomainGenerator = 7;
// Primitive 2^32-th roots of unity for both, computed at compile time.
inline constexpr Fr kRootOfUnity5 = Fr::root_of_unity(32, kSnarkjsDomainGenerator);
inline constexpr Fr kRootOfUnity7 = Fr::root_of_unity(32, kBellpersonDomainGenerator);

}  // namespace snarkd::ff
