#include "snarkd/ec/bn254_encoding.hpp"

#include <string>

namespace snarkd::ec::bn254 {

namespace {

// Builds "BN254 G1 LEM: <what>" style errors.
struct Context {
  const char* group;
  const char* form;
  DecodeError error(const std::string& what) const {
    return DecodeError(std::string("BN254 ") + group + " " + form + ": " + what);
  }
  DecodeError not_canonical(const std::string& coord) const {
    return error(coord + " is not a canonical field element");
  }
};

Fp read_fp(const uint8_t* in, bool lem, const Context& ctx, const std::string& coord) {
  Fp v;
  const bool ok = lem ? Fp::from_montgomery_bytes_le(in, v) : Fp::from_bytes_be(in, v);
  if (!ok) throw ctx.not_canonical(coord);
  return v;
}
void write_fp(const Fp& v, bool lem, uint8_t* out) {
  lem ? v.to_montgomery_bytes_le(out) : v.to_bytes_be(out);
}

// Per-group coordinate codecs. LEM writes Fp2 in memory order (c0, c1), Ethereum c1 first.
template <class C>
struct Codec;

template <>
struct Codec<G1Config> {
  static constexpr const char* kName = "G1";
  static constexpr size_t kWidth = 32;
  static void write(const Fp& v, bool lem, uint8_t* out) { write_fp(v, lem, out); }
  static Fp read(const uint8_t* in, bool lem, const Context& ctx, const char* coord) {
    return read_fp(in, lem, ctx, coord);
  }
};

template <>
struct Codec<G2Config> {
  static constexpr const char* kName = "G2";
  static constexpr size_t kWidth = 64;
  static void write(const Fp2& v, bool lem, uint8_t* out) {
    write_fp(lem ? v.c0 : v.c1, lem, out);
    write_fp(lem ? v.c1 : v.c0, lem, out + 32);
  }
  static Fp2 read(const uint8_t* in, bool lem, const Context& ctx, const char* coord) {
    const std::string c(coord);
    Fp2 v;
    (lem ? v.c0 : v.c1) = read_fp(in, lem, ctx, c + (lem ? ".c0" : ".c1"));
    (lem ? v.c1 : v.c0) = read_fp(in + 32, lem, ctx, c + (lem ? ".c1" : ".c0"));
    return v;
  }
};

template <class C, size_t Size>
std::array<uint8_t, Size> encode(const Affine<C>& p, bool lem) {
  std::array<uint8_t, Size> out{};  // infinity (0, 0) is all zeros in both forms
  Codec<C>::write(p.x, lem, out.data());
  Codec<C>::write(p.y, lem, out.data() + Size / 2);
  return out;
}

// `full`: also check the curve equation and subgroup membership. All zeros is infinity.
template <class C>
Affine<C> decode(std::span<const uint8_t> in, bool lem, bool full) {
  using K = Codec<C>;
  const Context ctx{K::kName, lem ? "LEM" : "uncompressed"};
  if (in.size() != 2 * K::kWidth)
    throw ctx.error("expected " + std::to_string(2 * K::kWidth) + " bytes, got " + std::to_string(in.size()));
  const Affine<C> p{K::read(in.data(), lem, ctx, "x"), K::read(in.data() + K::kWidth, lem, ctx, "y")};
  if (!full || p.is_infinity()) return p;
  if (!p.is_on_curve()) throw ctx.error("point is not on the curve");
  if (!is_in_subgroup(p)) throw ctx.error("point is not in the prime-order subgroup");
  return p;
}

// ---- snarkjs JSON ----

Json dec(const Fp& x) { return Json::string(to_decimal(x)); }
Json dec(const Fp2& x) { return Json::array({dec(x.c0), dec(x.c1)}); }

const Json& array_of(const Json& j, size_t n, const Context& ctx, const std::string& where) {
  if (!j.is_array() || j.size() != n)
    throw ctx.error(where + (where.empty() ? "" : ": ") + "expected an array of " + std::to_string(n) +
                    " elements");
  return j;
}
void read_coord(const Json& j, Fp& out, const Context& ctx, const std::string& where) {
  if (!j.is_string()) throw ctx.error(where + ": expected a decimal string");
  try {
    out = field_from_decimal<Fp>(j.str(), "Fp");
  } catch (const DecodeError& e) {
    throw ctx.error(where + ": " + e.what());
  }
}
void read_coord(const Json& j, Fp2& out, const Context& ctx, const std::string& where) {
  array_of(j, 2, ctx, where);
  read_coord(j[0], out.c0, ctx, where + "[0]");
  read_coord(j[1], out.c1, ctx, where + "[1]");
}

template <class C>
Json point_to_json(const Affine<C>& p) {
  using F = typename C::Field;
  if (p.is_infinity()) return Json::array({dec(F::zero()), dec(F::one()), dec(F::zero())});
  return Json::array({dec(p.x), dec(p.y), dec(F::one())});
}

// z = 1 gives (x, y); z = 0 with (x, y) = (0, 1) gives infinity; anything else is an error.
template <class C>
Affine<C> point_from_json(const Json& j) {
  using F = typename C::Field;
  const Context ctx{Codec<C>::kName, "JSON"};
  array_of(j, 3, ctx, "");
  F x, y, z;
  read_coord(j[0], x, ctx, "[0]");
  read_coord(j[1], y, ctx, "[1]");
  read_coord(j[2], z, ctx, "[2]");
  if (z.is_zero()) {
    if (!x.is_zero() || !y.is_one()) throw ctx.error("point at infinity must be written as (0, 1, 0)");
    return Affine<C>::infinity();
  }
  if (!z.is_one()) throw ctx.error("[2]: z coordinate must be 1 (affine) or 0 (infinity)");
  const Affine<C> p{x, y};
  if (p.is_infinity() || !p.is_on_curve()) throw ctx.error("point is not on the curve");
  if (!is_in_subgroup(p)) throw ctx.error("point is not in the prime-order subgroup");
  return p;
}

}  // namespace

std::array<uint8_t, kG1LemSize> encode_g1_lem(const G1Affine& p) { return encode<G1Config, kG1LemSize>(p, true); }
std::array<uint8_t, kG2LemSize> encode_g2_lem(const G2Affine& p) { return encode<G2Config, kG2LemSize>(p, true); }
G1Affine decode_g1_lem(std::span<const uint8_t> in) { return decode<G1Config>(in, true, true); }
G2Affine decode_g2_lem(std::span<const uint8_t> in) { return decode<G2Config>(in, true, true); }
G1Affine decode_g1_lem_unchecked(std::span<const uint8_t> in) { return decode<G1Config>(in, true, false); }
G2Affine decode_g2_lem_unchecked(std::span<const uint8_t> in) { return decode<G2Config>(in, true, false); }

std::array<uint8_t, kG1UncompressedSize> encode_g1_uncompressed(const G1Affine& p) {
  return encode<G1Config, kG1UncompressedSize>(p, false);
}
std::array<uint8_t, kG2UncompressedSize> encode_g2_uncompressed(const G2Affine& p) {
  return encode<G2Config, kG2UncompressedSize>(p, false);
}
G1Affine decode_g1_uncompressed(std::span<const uint8_t> in) { return decode<G1Config>(in, false, true); }
G2Affine decode_g2_uncompressed(std::span<const uint8_t> in) { return decode<G2Config>(in, false, true); }

Json g1_to_snarkjs_json(const G1Affine& p) { return point_to_json(p); }
Json g2_to_snarkjs_json(const G2Affine& p) { return point_to_json(p); }
G1Affine g1_from_snarkjs_json(const Json& j) { return point_from_json<G1Config>(j); }
G2Affine g2_from_snarkjs_json(const Json& j) { return point_from_json<G2Config>(j); }

}  // namespace snarkd::ec::bn254
