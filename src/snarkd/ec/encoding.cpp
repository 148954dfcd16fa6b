#include "snarkd/ec/encoding.hpp"

#include <algorithm>

#include "snarkd/ec/encoding_detail.hpp"
#include "snarkd/ec/subgroup.hpp"

namespace snarkd::ec {

namespace {

using ff::Fp;
using ff::Fp2;

constexpr uint8_t kCompressedFlag = 0x80;
constexpr uint8_t kInfinityFlag = 0x40;
constexpr uint8_t kSignFlag = 0x20;
constexpr uint8_t kFlagMask = 0xe0;

using detail::CodecContext;
using detail::Form;

// The ZCash sign of y (the compressed form's third flag).
bool sign(const Fp& y) { return ff::lexicographically_largest(y); }
bool sign(const Fp2& y) { return y.lexicographically_largest(); }

template <class C, size_t Size>
std::array<uint8_t, Size> encode_zcash(const Affine<C>& p) {
  using K = detail::Coord<Form::kBigEndian, typename C::Field>;
  constexpr bool compressed = Size == K::kBytes;
  std::array<uint8_t, Size> out{};
  if (p.is_infinity()) {
    out[0] = compressed ? kCompressedFlag | kInfinityFlag : kInfinityFlag;
    return out;
  }
  K::write(p.x, out.data());
  if (compressed) {
    out[0] |= kCompressedFlag | (sign(p.y) ? kSignFlag : 0);
  } else {
    K::write(p.y, out.data() + K::kBytes);
  }
  return out;
}

// Validates the size and the flag byte; returns the flags. The sign flag is only legal on a
// compressed, finite point; the infinity encoding must have no other bit set.
template <class C>
uint8_t check_flags(std::span<const uint8_t> in, bool compressed, const CodecContext& ctx) {
  const size_t size = (compressed ? 1 : 2) * detail::Coord<Form::kBigEndian, typename C::Field>::kBytes;
  if (in.size() != size)
    throw ctx.error("expected " + std::to_string(size) + " bytes, got " + std::to_string(in.size()));
  const uint8_t flags = in[0] & kFlagMask;
  const bool c = flags & kCompressedFlag;
  if (c != compressed) throw ctx.error(c ? "compression flag is set" : "compression flag is not set");
  if (!compressed && (flags & kSignFlag)) throw ctx.error("sign flag is set");
  if (flags & kInfinityFlag) {
    const bool other = (flags & kSignFlag) || (in[0] & ~kFlagMask) ||
                       std::any_of(in.begin() + 1, in.end(), [](uint8_t b) { return b != 0; });
    if (other) throw ctx.error("infinity encoding has other bits set");
  }
  return flags;
}

// `full`: also check on-curve (uncompressed) and subgroup membership.
template <class C>
Affine<C> decode_zcash(std::span<const uint8_t> in, bool compressed, bool full) {
  using F = typename C::Field;
  using K = detail::Coord<Form::kBigEndian, F>;
  const CodecContext ctx{"", detail::group_name<C>(), compressed ? "compressed" : "uncompressed"};
  const uint8_t flags = check_flags<C>(in, compressed, ctx);
  if (flags & kInfinityFlag) return Affine<C>::infinity();
  std::array<uint8_t, 2 * K::kBytes> buf{};
  std::copy(in.begin(), in.end(), buf.begin());
  buf[0] &= ~kFlagMask;
  Affine<C> p;
  p.x = K::read(buf.data(), ctx, "x");
  if (compressed) {
    F y;
    if (!(p.x.square() * p.x + C::b()).sqrt(y))
      throw ctx.error("x^3 + b has no square root (x is not on the curve)");
    p.y = sign(y) == bool(flags & kSignFlag) ? y : -y;
  } else {
    p.y = K::read(buf.data() + K::kBytes, ctx, "y");
    // (0, 0) is our in-memory infinity; the encoding must say so with the flag.
    if (p.is_infinity()) throw ctx.error("all-zero coordinates without the infinity flag");
    if (full && !p.is_on_curve()) throw ctx.error("point is not on the curve");
  }
  if (full && !is_in_subgroup(p)) throw ctx.error("point is not in the prime-order subgroup");
  return p;
}

template <class C>
Affine<C> decode_lem(std::span<const uint8_t> in, bool full) {
  return detail::decode_xy<Form::kLem, C>(in, {"", detail::group_name<C>(), "LEM"}, full);
}

}  // namespace

std::array<uint8_t, kG1CompressedSize> encode_g1_compressed(const G1Affine& p) {
  return encode_zcash<G1Config, kG1CompressedSize>(p);
}
std::array<uint8_t, kG1UncompressedSize> encode_g1_uncompressed(const G1Affine& p) {
  return encode_zcash<G1Config, kG1UncompressedSize>(p);
}
std::array<uint8_t, kG2CompressedSize> encode_g2_compressed(const G2Affine& p) {
  return encode_zcash<G2Config, kG2CompressedSize>(p);
}
std::array<uint8_t, kG2UncompressedSize> encode_g2_uncompressed(const G2Affine& p) {
  return encode_zcash<G2Config, kG2UncompressedSize>(p);
}
std::array<uint8_t, kG1LemSize> encode_g1_lem(const G1Affine& p) { return detail::encode_xy<Form::kLem>(p); }
std::array<uint8_t, kG2LemSize> encode_g2_lem(const G2Affine& p) { return detail::encode_xy<Form::kLem>(p); }

G1Affine decode_g1_compressed(std::span<const uint8_t> in) { return decode_zcash<G1Config>(in, true, true); }
G1Affine decode_g1_uncompressed(std::span<const uint8_t> in) { return decode_zcash<G1Config>(in, false, true); }
G2Affine decode_g2_compressed(std::span<const uint8_t> in) { return decode_zcash<G2Config>(in, true, true); }
G2Affine decode_g2_uncompressed(std::span<const uint8_t> in) { return decode_zcash<G2Config>(in, false, true); }
G1Affine decode_g1_lem(std::span<const uint8_t> in) { return decode_lem<G1Config>(in, true); }
G2Affine decode_g2_lem(std::span<const uint8_t> in) { return decode_lem<G2Config>(in, true); }

G1Affine decode_g1_compressed_unchecked(std::span<const uint8_t> in) {
  return decode_zcash<G1Config>(in, true, false);
}
G1Affine decode_g1_uncompressed_unchecked(std::span<const uint8_t> in) {
  return decode_zcash<G1Config>(in, false, false);
}
G2Affine decode_g2_compressed_unchecked(std::span<const uint8_t> in) {
  return decode_zcash<G2Config>(in, true, false);
}
G2Affine decode_g2_uncompressed_unchecked(std::span<const uint8_t> in) {
  return decode_zcash<G2Config>(in, false, false);
}
G1Affine decode_g1_lem_unchecked(std::span<const uint8_t> in) { return decode_lem<G1Config>(in, false); }
G2Affine decode_g2_lem_unchecked(std::span<const uint8_t> in) { return decode_lem<G2Config>(in, false); }

}  // namespace snarkd::ec
