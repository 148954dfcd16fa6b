// Byte encodings of G1/G2 points.
//
// ZCash / IETF (draft-irtf-cfrg-pairing-friendly-curves, Appendix C), big-endian:
//   G1 compressed 48 B (x), uncompressed 96 B (x‖y); G2 compressed 96 B, uncompressed 192 B, each
//   Fp2 element written c1 then c0. The three top bits of the first byte are flags:
//   0x80 compressed, 0x40 infinity, 0x20 "y is lexicographically largest" (compressed only;
//   for Fp2 compare c1, then c0 when c1 = 0). Infinity is 0xc0 (compressed) or 0x40
//   (uncompressed) followed by zeros; any other bit set with it is an error.
// snarkjs "LEM" (little-endian Montgomery, the .zkey layout): G1 = x‖y, each 48 bytes holding our
//   Montgomery limbs verbatim (R = 2^384); G2 = x.c0‖x.c1‖y.c0‖y.c1; infinity = all zeros.
//
// Checked decoders validate everything (length, flags, canonical coordinates < p, on the curve,
// in the prime-order subgroup) and throw snarkd::DecodeError naming what is wrong, e.g.
// "G2 compressed: x.c1 is not a canonical field element". The `_unchecked` variants are for
// trusted parameter files: they still check length, flags and canonical coordinates (and a
// compressed x still needs a square root to give a y) but skip the on-curve and subgroup tests,
// which dominate the cost (a subgroup test is ~10³ field multiplications).
// Encoders expect valid points (on the curve); they do not check.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "snarkd/ec/g1.hpp"
#include "snarkd/ec/g2.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::ec {

inline constexpr size_t kG1CompressedSize = 48;
inline constexpr size_t kG1UncompressedSize = 96;
inline constexpr size_t kG2CompressedSize = 96;
inline constexpr size_t kG2UncompressedSize = 192;
inline constexpr size_t kG1LemSize = 96;
inline constexpr size_t kG2LemSize = 192;

std::array<uint8_t, kG1CompressedSize> encode_g1_compressed(const G1Affine& p);
std::array<uint8_t, kG1UncompressedSize> encode_g1_uncompressed(const G1Affine& p);
std::array<uint8_t, kG2CompressedSize> encode_g2_compressed(const G2Affine& p);
std::array<uint8_t, kG2UncompressedSize> encode_g2_uncompressed(const G2Affine& p);
std::array<uint8_t, kG1LemSize> encode_g1_lem(const G1Affine& p);
std::array<uint8_t, kG2LemSize> encode_g2_lem(const G2Affine& p);

G1Affine decode_g1_compressed(std::span<const uint8_t> in);
G1Affine decode_g1_uncompressed(std::span<const uint8_t> in);
G2Affine decode_g2_compressed(std::span<const uint8_t> in);
G2Affine decode_g2_uncompressed(std::span<const uint8_t> in);
G1Affine decode_g1_lem(std::span<const uint8_t> in);
G2Affine decode_g2_lem(std::span<const uint8_t> in);

// Trusted input only: no on-curve or subgroup check.
G1Affine decode_g1_compressed_unchecked(std::span<const uint8_t> in);
G1Affine decode_g1_uncompressed_unchecked(std::span<const uint8_t> in);
G2Affine decode_g2_compressed_unchecked(std::span<const uint8_t> in);
G2Affine decode_g2_uncompressed_unchecked(std::span<const uint8_t> in);
G1Affine decode_g1_lem_unchecked(std::span<const uint8_t> in);
G2Affine decode_g2_lem_unchecked(std::span<const uint8_t> in);

// Decodes consecutive points of `point_size` bytes each with one of the decoders above, in
// parallel on the global pool (parameter files hold millions of points). An error names the
// index of the offending point: "point 17: G1 LEM: point is not on the curve".
template <class Point>
std::vector<Point> decode_many(std::span<const uint8_t> bytes, size_t point_size,
                               Point (*decode)(std::span<const uint8_t>)) {
  if (point_size == 0 || bytes.size() % point_size != 0)
    throw DecodeError("decode_many: " + std::to_string(bytes.size()) +
                      " bytes is not a whole number of " + std::to_string(point_size) + "-byte points");
  std::vector<Point> out(bytes.size() / point_size);
  parallel_for(out.size(), [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      try {
        out[i] = decode(bytes.subspan(i * point_size, point_size));
      } catch (const DecodeError& e) {
        throw DecodeError("point " + std::to_string(i) + ": " + e.what());
      }
    }
  });
  return out;
}

}  // namespace snarkd::ec
