#include "snarkd/ec/encoding.hpp"

#include <algorithm>

#include "snarkd/ec/subgroup.hpp"

namespace snarkd::ec {

namespace {

using ff::Fp;
using ff::Fp2;

constexpr uint8_t kCompressedFlag = 0x80;
constexpr uint8_t kInfinityFlag = 0x40;
constexpr uint8_t kSignFlag = 0x20;
constexpr uint8_t kFlagMask = 0xe0;

// Builds "G1 compressed: <what>" style errors.
struct Context {
  const char* group;
  const char* form;
  DecodeError error(const std::string& what) const {
    return DecodeError(std::string(group) + " " + form + ": " + what);
  }
  DecodeError not_canonical(const std::string& coord) const {
    return error(coord + " is not a canonical field element");
  }
};

// Per-group field (de)serialisation. `coord` is "x" or "y", used in error messages.
template <class C>
struct Codec;

template <>
struct Codec<G1Config> {
  static constexpr const char* kName = "G1";
  static constexpr size_t kWidth = 48;  // bytes per coordinate
  static void write_be(const Fp& v, uint8_t* out) { v.to_bytes_be(out); }
  static Fp read_be(const uint8_t* in, const Context& ctx, const char* coord) {
    Fp v;
    if (!Fp::from_bytes_be(in, v)) throw ctx.not_canonical(coord);
    return v;
  }
  static void write_lem(const Fp& v, uint8_t* out) { v.to_montgomery_bytes_le(out); }
  static Fp read_lem(const uint8_t* in, const Context& ctx, const char* coord) {
    Fp v;
    if (!Fp::from_montgomery_bytes_le(in, v)) throw ctx.not_canonical(coord);
    return v;
  }
  static bool sign(const Fp& y) { return ff::lexicographically_largest(y); }
};

template <>
struct Codec<G2Config> {
  static constexpr const char* kName = "G2";
  static constexpr size_t kWidth = 96;
  // ZCash order: c1 then c0.
  static void write_be(const Fp2& v, uint8_t* out) {
    v.c1.to_bytes_be(out);
    v.c0.to_bytes_be(out + 48);
  }
  static Fp2 read_be(const uint8_t* in, const Context& ctx, const char* coord) {
    Fp2 v;
    if (!Fp::from_bytes_be(in, v.c1)) throw ctx.not_canonical(std::string(coord) + ".c1");
    if (!Fp::from_bytes_be(in + 48, v.c0)) throw ctx.not_canonical(std::string(coord) + ".c0");
    return v;
  }
  // Memory order: c0 then c1.
  static void write_lem(const Fp2& v, uint8_t* out) {
    v.c0.to_montgomery_bytes_le(out);
    v.c1.to_montgomery_bytes_le(out + 48);
  }
  static Fp2 read_lem(const uint8_t* in, const Context& ctx, const char* coord) {
    Fp2 v;
    if (!Fp::from_montgomery_bytes_le(in, v.c0)) throw ctx.not_canonical(std::string(coord) + ".c0");
    if (!Fp::from_montgomery_bytes_le(in + 48, v.c1)) throw ctx.not_canonical(std::string(coord) + ".c1");
    return v;
  }
  static bool sign(const Fp2& y) { return y.lexicographically_largest(); }
};

template <class C, size_t Size>
std::array<uint8_t, Size> encode_zcash(const Affine<C>& p) {
  using K = Codec<C>;
  constexpr bool compressed = Size == K::kWidth;
  std::array<uint8_t, Size> out{};
  if (p.is_infinity()) {
    out[0] = compressed ? kCompressedFlag | kInfinityFlag : kInfinityFlag;
    return out;
  }
  K::write_be(p.x, out.data());
  if (compressed) {
    out[0] |= kCompressedFlag | (K::sign(p.y) ? kSignFlag : 0);
  } else {
    K::write_be(p.y, out.data() + K::kWidth);
  }
  return out;
}

// Validates the size and the flag byte; returns the flags. The sign flag is only legal on a
// compressed, finite point; the infinity encoding must have no other bit set.
template <class C>
uint8_t check_flags(std::span<const uint8_t> in, bool compressed, const Context& ctx) {
  const size_t size = (compressed ? 1 : 2) * Codec<C>::kWidth;
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
  using K = Codec<C>;
  using F = typename C::Field;
  const Context ctx{K::kName, compressed ? "compressed" : "uncompressed"};
  const uint8_t flags = check_flags<C>(in, compressed, ctx);
  if (flags & kInfinityFlag) return Affine<C>::infinity();
  std::array<uint8_t, 2 * K::kWidth> buf{};
  std::copy(in.begin(), in.end(), buf.begin());
  buf[0] &= ~kFlagMask;
  Affine<C> p;
  p.x = K::read_be(buf.data(), ctx, "x");
  if (compressed) {
    F y;
    if (!(p.x.square() * p.x + C::b()).sqrt(y))
      throw ctx.error("x^3 + b has no square root (x is not on the curve)");
    p.y = K::sign(y) == bool(flags & kSignFlag) ? y : -y;
  } else {
    p.y = K::read_be(buf.data() + K::kWidth, ctx, "y");
    // (0, 0) is our in-memory infinity; the encoding must say so with the flag.
    if (p.is_infinity()) throw ctx.error("all-zero coordinates without the infinity flag");
    if (full && !p.is_on_curve()) throw ctx.error("point is not on the curve");
  }
  if (full && !is_in_subgroup(p)) throw ctx.error("point is not in the prime-order subgroup");
  return p;
}

template <class C, size_t Size>
std::array<uint8_t, Size> encode_lem(const Affine<C>& p) {
  std::array<uint8_t, Size> out{};
  Codec<C>::write_lem(p.x, out.data());  // infinity (0, 0) is all zeros: Montgomery 0 is 0
  Codec<C>::write_lem(p.y, out.data() + Size / 2);
  return out;
}

template <class C>
Affine<C> decode_lem(std::span<const uint8_t> in, bool full) {
  using K = Codec<C>;
  const Context ctx{K::kName, "LEM"};
  if (in.size() != 2 * K::kWidth)
    throw ctx.error("expected " + std::to_string(2 * K::kWidth) + " bytes, got " + std::to_string(in.size()));
  Affine<C> p{K::read_lem(in.data(), ctx, "x"), K::read_lem(in.data() + K::kWidth, ctx, "y")};
  if (!full || p.is_infinity()) return p;
  if (!p.is_on_curve()) throw ctx.error("point is not on the curve");
  if (!is_in_subgroup(p)) throw ctx.error("point is not in the prime-order subgroup");
  return p;
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
std::array<uint8_t, kG1LemSize> encode_g1_lem(const G1Affine& p) { return encode_lem<G1Config, kG1LemSize>(p); }
std::array<uint8_t, kG2LemSize> encode_g2_lem(const G2Affine& p) { return encode_lem<G2Config, kG2LemSize>(p); }

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
