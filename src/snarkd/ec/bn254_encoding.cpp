#include "snarkd/ec/bn254_encoding.hpp"

#include <string>

#include "snarkd/ec/encoding_detail.hpp"

namespace snarkd::ec::bn254 {

namespace {

using detail::CodecContext;
using detail::Form;

// LEM, or Ethereum's big-endian x‖y; errors read "BN254 G1 LEM: …", "BN254 G2 uncompressed: …".
template <Form kForm, class C>
Affine<C> decode(std::span<const uint8_t> in, bool full) {
  const char* form = kForm == Form::kLem ? "LEM" : "uncompressed";
  return detail::decode_xy<kForm, C>(in, {"BN254 ", detail::group_name<C>(), form}, full);
}

// ---- snarkjs JSON ----

Json dec(const Fp& x) { return Json::string(to_decimal(x)); }
Json dec(const Fp2& x) { return Json::array({dec(x.c0), dec(x.c1)}); }

const Json& array_of(const Json& j, size_t n, const CodecContext& ctx, const std::string& where) {
  if (!j.is_array() || j.size() != n)
    throw ctx.error(where + (where.empty() ? "" : ": ") + "expected an array of " + std::to_string(n) +
                    " elements");
  return j;
}
void read_coord(const Json& j, Fp& out, const CodecContext& ctx, const std::string& where) {
  if (!j.is_string()) throw ctx.error(where + ": expected a decimal string");
  try {
    out = field_from_decimal<Fp>(j.str(), "Fp");
  } catch (const DecodeError& e) {
    throw ctx.error(where + ": " + e.what());
  }
}
void read_coord(const Json& j, Fp2& out, const CodecContext& ctx, const std::string& where) {
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
  const CodecContext ctx{"BN254 ", detail::group_name<C>(), "JSON"};
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

std::array<uint8_t, kG1LemSize> encode_g1_lem(const G1Affine& p) { return detail::encode_xy<Form::kLem>(p); }
std::array<uint8_t, kG2LemSize> encode_g2_lem(const G2Affine& p) { return detail::encode_xy<Form::kLem>(p); }
G1Affine decode_g1_lem(std::span<const uint8_t> in) { return decode<Form::kLem, G1Config>(in, true); }
G2Affine decode_g2_lem(std::span<const uint8_t> in) { return decode<Form::kLem, G2Config>(in, true); }
G1Affine decode_g1_lem_unchecked(std::span<const uint8_t> in) { return decode<Form::kLem, G1Config>(in, false); }
G2Affine decode_g2_lem_unchecked(std::span<const uint8_t> in) { return decode<Form::kLem, G2Config>(in, false); }

std::array<uint8_t, kG1UncompressedSize> encode_g1_uncompressed(const G1Affine& p) {
  return detail::encode_xy<Form::kBigEndian>(p);
}
std::array<uint8_t, kG2UncompressedSize> encode_g2_uncompressed(const G2Affine& p) {
  return detail::encode_xy<Form::kBigEndian>(p);
}
G1Affine decode_g1_uncompressed(std::span<const uint8_t> in) { return decode<Form::kBigEndian, G1Config>(in, true); }
G2Affine decode_g2_uncompressed(std::span<const uint8_t> in) { return decode<Form::kBigEndian, G2Config>(in, true); }

Json g1_to_snarkjs_json(const G1Affine& p) { return point_to_json(p); }
Json g2_to_snarkjs_json(const G2Affine& p) { return point_to_json(p); }
G1Affine g1_from_snarkjs_json(const Json& j) { return point_from_json<G1Config>(j); }
G2Affine g2_from_snarkjs_json(const Json& j) { return point_from_json<G2Config>(j); }

}  // namespace snarkd::ec::bn254
