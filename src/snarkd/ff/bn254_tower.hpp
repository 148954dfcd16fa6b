// The BN254 (alt_bn128) extension tower over ff::bn254::Fp, the one EIP-197 specifies:
// Fp2 = Fp[u]/(u² + 1), Fp6 = Fp2[v]/(v³ − ξ) with ξ = 9 + u, Fp12 = Fp6[w]/(w² − v).
// The same templates as the BLS12-381 tower (fp2.hpp); only ξ differs, and the product is plain
// Karatsuba (the lazy ADX product is written for 6-limb fields).
#pragma once
#include "snarkd/ff/bn254.hpp"
#include "snarkd/ff/fp12.hpp"

namespace snarkd::ff::bn254 {

struct Tower {
  using Base = Fp;
  static constexpr uint64_t kXiC0 = 9;
  static constexpr bool kLazyFp2Mul = false;
};
using Fp2 = Fp2T<Tower>;
using Fp6 = Fp6T<Tower>;
using Fp12 = Fp12T<Tower>;

}  // namespace snarkd::ff::bn254
