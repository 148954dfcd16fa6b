// The curves' operations (curve.hpp) on top of ec/ and pairing/: each member forwards to the
// curve's own implementation, so a template over E calls E::pair and gets BLS12-381's or BN254's.
#include "snarkd/groth16/curve.hpp"

#include <type_traits>

#include "snarkd/ec/bn254_encoding.hpp"
#include "snarkd/ec/encoding.hpp"
#include "snarkd/ec/subgroup.hpp"
#include "snarkd/pairing/bn254.hpp"
#include "snarkd/pairing/pairing.hpp"

namespace snarkd::groth16 {

static_assert(Bls12_381::kG1LemSize == ec::kG1LemSize && Bls12_381::kG2LemSize == ec::kG2LemSize);
static_assert(Bn254::kG1LemSize == ec::bn254::kG1LemSize && Bn254::kG2LemSize == ec::bn254::kG2LemSize);
static_assert(std::is_same_v<Bls12_381::GT, pairing::GT> && std::is_same_v<Bn254::GT, pairing::bn254::GT>);
static_assert(std::is_same_v<Bls12_381::G1G2Pair, pairing::G1G2Pair> &&
              std::is_same_v<Bn254::G1G2Pair, pairing::bn254::G1G2Pair>);

// ---- BLS12-381 ----

std::array<uint8_t, Bls12_381::kG1LemSize> Bls12_381::encode_g1_lem(const G1Affine& p) { return ec::encode_g1_lem(p); }
std::array<uint8_t, Bls12_381::kG2LemSize> Bls12_381::encode_g2_lem(const G2Affine& p) { return ec::encode_g2_lem(p); }
Bls12_381::G1Affine Bls12_381::decode_g1_lem(std::span<const uint8_t> in) { return ec::decode_g1_lem(in); }
Bls12_381::G2Affine Bls12_381::decode_g2_lem(std::span<const uint8_t> in) { return ec::decode_g2_lem(in); }
Bls12_381::G1Affine Bls12_381::decode_g1_lem_unchecked(std::span<const uint8_t> in) {
  return ec::decode_g1_lem_unchecked(in);
}
Bls12_381::G2Affine Bls12_381::decode_g2_lem_unchecked(std::span<const uint8_t> in) {
  return ec::decode_g2_lem_unchecked(in);
}
bool Bls12_381::in_subgroup(const G1Affine& p) { return ec::is_in_subgroup(p); }
bool Bls12_381::in_subgroup(const G2Affine& q) { return ec::is_in_subgroup(q); }
Bls12_381::GT Bls12_381::pair(const G1Affine& p, const G2Affine& q) { return pairing::pairing(p, q); }
bool Bls12_381::product_is_one(std::span<const G1G2Pair> pairs) { return pairing::pairing_product_is_one(pairs); }

// ---- BN254 ----

std::array<uint8_t, Bn254::kG1LemSize> Bn254::encode_g1_lem(const G1Affine& p) { return ec::bn254::encode_g1_lem(p); }
std::array<uint8_t, Bn254::kG2LemSize> Bn254::encode_g2_lem(const G2Affine& p) { return ec::bn254::encode_g2_lem(p); }
Bn254::G1Affine Bn254::decode_g1_lem(std::span<const uint8_t> in) { return ec::bn254::decode_g1_lem(in); }
Bn254::G2Affine Bn254::decode_g2_lem(std::span<const uint8_t> in) { return ec::bn254::decode_g2_lem(in); }
Bn254::G1Affine Bn254::decode_g1_lem_unchecked(std::span<const uint8_t> in) {
  return ec::bn254::decode_g1_lem_unchecked(in);
}
Bn254::G2Affine Bn254::decode_g2_lem_unchecked(std::span<const uint8_t> in) {
  return ec::bn254::decode_g2_lem_unchecked(in);
}
bool Bn254::in_subgroup(const G1Affine& p) { return ec::bn254::is_in_subgroup(p); }
bool Bn254::in_subgroup(const G2Affine& q) { return ec::bn254::is_in_subgroup(q); }
Bn254::GT Bn254::pair(const G1Affine& p, const G2Affine& q) { return pairing::bn254::pairing(p, q); }
bool Bn254::product_is_one(std::span<const G1G2Pair> pairs) { return pairing::bn254::pairing_product_is_one(pairs); }

}  // namespace snarkd::groth16
