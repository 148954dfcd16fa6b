// The curve a curve-generic fuzz target is built for: SNARKD_FUZZ_CURVE names a traits type of
// groth16/curve.hpp (fuzz/CMakeLists.txt builds such a source once per curve, e.g. fuzz_zkey
// for Bls12_381 and fuzz_zkey_bn254 for Bn254). BLS12-381 when unset.
#pragma once
#include "snarkd/groth16/curve.hpp"

#ifndef SNARKD_FUZZ_CURVE
#define SNARKD_FUZZ_CURVE Bls12_381
#endif

namespace snarkd::fuzz {
using Curve = groth16::SNARKD_FUZZ_CURVE;
}  // namespace snarkd::fuzz
