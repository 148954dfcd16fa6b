// Encodings of BN254 G1/G2 points used by the circom/snarkjs and Ethereum worlds.
//
// snarkjs "LEM" (little-endian Montgomery, the bn128 .zkey layout, ffjavascript's toRprLEM):
//   each Fp is 32 bytes holding our Montgomery limbs verbatim (R = 2^256); G1 = x‖y (64 B),
//   G2 = x.c0‖x.c1‖y.c0‖y.c1 (128 B); infinity = all zeros.
// Ethereum (EIP-196/197 precompile inputs), big-endian canonical, uncompressed:
//   G1 = x‖y (64 B), G2 = x.c1‖x.c0‖y.c1‖y.c0 (128 B, the imaginary part first);
//   infinity = all zeros.
// snarkjs JSON (ffjavascript's toObject, decimal strings of canonical coordinates):
//   G1 = [x, y, "1"], G2 = [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]];
//   infinity: G1 ["0", "1", "0"], G2 [["0","0"], ["1","0"], ["0","0"]].
//
// Checked decoders validate length, canonical coordinates (< p), the curve equation and
// subgroup membership, and throw snarkd::DecodeError naming the form and the field, e.g.
// "BN254 G2 LEM: y.c1 is not a canonical field element", "BN254 G1 JSON: [2]: z coordinate
// must be 1 (affine) or 0 (infinity)". `_unchecked` LEM decoders are for trusted parameter
// files: they still check the length and canonical coordinates, not the curve or subgroup.
// Encoders expect valid points; they do not check.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "snarkd/ec/bn254.hpp"
#include "snarkd/util/json.hpp"

namespace snarkd::ec::bn254 {

inline constexpr size_t kG1LemSize = 64;
inline constexpr size_t kG2LemSize = 128;
inline constexpr size_t kG1UncompressedSize = 64;
inline constexpr size_t kG2UncompressedSize = 128;

std::array<uint8_t, kG1LemSize> encode_g1_lem(const G1Affine& p);
std::array<uint8_t, kG2LemSize> encode_g2_lem(const G2Affine& p);
G1Affine decode_g1_lem(std::span<const uint8_t> in);
G2Affine decode_g2_lem(std::span<const uint8_t> in);
G1Affine decode_g1_lem_unchecked(std::span<const uint8_t> in);
G2Affine decode_g2_lem_unchecked(std::span<const uint8_t> in);

// Ethereum precompile layout.
std::array<uint8_t, kG1UncompressedSize> encode_g1_uncompressed(const G1Affine& p);
std::array<uint8_t, kG2UncompressedSize> encode_g2_uncompressed(const G2Affine& p);
G1Affine decode_g1_uncompressed(std::span<const uint8_t> in);
G2Affine decode_g2_uncompressed(std::span<const uint8_t> in);

Json g1_to_snarkjs_json(const G1Affine& p);
Json g2_to_snarkjs_json(const G2Affine& p);
G1Affine g1_from_snarkjs_json(const Json& j);
G2Affine g2_from_snarkjs_json(const Json& j);

}  // namespace snarkd::ec::bn254
