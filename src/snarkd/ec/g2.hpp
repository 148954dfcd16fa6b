// G2: the M-type sextic twist E'(Fp2): y² = x³ + 4(1 + u), order-r subgroup.
#pragma once
#include "snarkd/ec/curve.hpp"
#include "snarkd/ff/fp2.hpp"
#include "snarkd/ff/fr.hpp"

namespace snarkd::ec {

struct G2Config {
  using Field = ff::Fp2;
  using Scalar = ff::Fr;
  static constexpr ff::Fp2 b() { return {ff::Fp::from_u64(4), ff::Fp::from_u64(4)}; }
};
using G2Affine = Affine<G2Config>;
using G2Jacobian = Jacobian<G2Config>;
using G2Xyzz = Xyzz<G2Config>;

inline constexpr G2Affine kG2Generator = {
    {ff::Fp::from_repr_unchecked(ff::BigInt<6>::from_hex(
         "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8")),
     ff::Fp::from_repr_unchecked(ff::BigInt<6>::from_hex(
         "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"))},
    {ff::Fp::from_repr_unchecked(ff::BigInt<6>::from_hex(
         "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801")),
     ff::Fp::from_repr_unchecked(ff::BigInt<6>::from_hex(
         "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be"))}};

template <>
constexpr G2Affine generator<G2Config>() {
  return kG2Generator;
}

}  // namespace snarkd::ec
