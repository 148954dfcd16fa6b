// Internal to ec: what the point encodings of BLS12-381 (encoding.cpp) and BN254
// (bn254_encoding.cpp) share. The error context; two coordinate forms, canonical big-endian with
// Fp2 written c1 first (ZCash and Ethereum alike) and snarkjs LEM (Montgomery limbs verbatim,
// little-endian, Fp2 in memory order c0 first); and the flagless x‖y point form built on either
// (LEM on both curves, Ethereum's precompile form on BN254), whose all-zero encoding is the point
// at infinity (0, 0).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "snarkd/ec/curve.hpp"
#include "snarkd/ff/fp2.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::ec::detail {

// Builds "<prefix><group> <form>: <what>" errors, e.g. "G2 compressed: x.c1 is not a canonical
// field element" or "BN254 G1 LEM: point is not on the curve".
struct CodecContext {
  const char* prefix;  // "" for BLS12-381, "BN254 "
  const char* group;   // "G1", "G2"
  const char* form;    // "LEM", "compressed", …
  DecodeError error(const std::string& what) const {
    return DecodeError(std::string(prefix) + group + " " + form + ": " + what);
  }
  DecodeError not_canonical(const std::string& coord) const {
    return error(coord + " is not a canonical field element");
  }
};

template <class F>
inline constexpr bool kIsFp2 = false;
template <class Cfg>
inline constexpr bool kIsFp2<ff::Fp2T<Cfg>> = true;

// "G1" for points over the prime field, "G2" for points over Fp2.
template <class C>
constexpr const char* group_name() {
  return kIsFp2<typename C::Field> ? "G2" : "G1";
}

// The coordinate forms: canonical big-endian with Fp2 written c1 first (ZCash, Ethereum), and
// snarkjs LEM (Montgomery limbs little-endian, Fp2 in memory order c0 first).
enum class Form { kBigEndian, kLem };

// One coordinate of field F in form kForm. `coord` ("x", "y") names it in errors, with ".c0" or
// ".c1" appended for an Fp2 component.
template <Form kForm, class F>
struct Coord {
  static constexpr size_t kBytes = F::kBytes;
  static void write(const F& v, uint8_t* out) {
    if constexpr (kForm == Form::kLem) {
      v.to_montgomery_bytes_le(out);
    } else {
      v.to_bytes_be(out);
    }
  }
  // False if the bytes are not a canonical element.
  static bool read(const uint8_t* in, F& v) {
    if constexpr (kForm == Form::kLem) return F::from_montgomery_bytes_le(in, v);
    return F::from_bytes_be(in, v);
  }
  static F read(const uint8_t* in, const CodecContext& ctx, const char* coord) {
    F v;
    if (!read(in, v)) throw ctx.not_canonical(coord);
    return v;
  }
};
template <Form kForm, class Cfg>
struct Coord<kForm, ff::Fp2T<Cfg>> {
  using Fp2 = ff::Fp2T<Cfg>;
  using Half = Coord<kForm, typename Cfg::Base>;
  static constexpr size_t kBytes = 2 * Half::kBytes;
  static constexpr bool kC1First = kForm == Form::kBigEndian;
  static void write(const Fp2& v, uint8_t* out) {
    Half::write(kC1First ? v.c1 : v.c0, out);
    Half::write(kC1First ? v.c0 : v.c1, out + Half::kBytes);
  }
  static Fp2 read(const uint8_t* in, const CodecContext& ctx, const char* coord) {
    Fp2 v;
    if (!Half::read(in, kC1First ? v.c1 : v.c0))
      throw ctx.not_canonical(std::string(coord) + (kC1First ? ".c1" : ".c0"));
    if (!Half::read(in + Half::kBytes, kC1First ? v.c0 : v.c1))
      throw ctx.not_canonical(std::string(coord) + (kC1First ? ".c0" : ".c1"));
    return v;
  }
};

// x‖y in form kForm; infinity (0, 0) comes out as all zeros (Montgomery 0 is 0).
template <Form kForm, class C>
std::array<uint8_t, 2 * Coord<kForm, typename C::Field>::kBytes> encode_xy(const Affine<C>& p) {
  using K = Coord<kForm, typename C::Field>;
  std::array<uint8_t, 2 * K::kBytes> out{};
  K::write(p.x, out.data());
  K::write(p.y, out.data() + K::kBytes);
  return out;
}

// Checks the length and canonical coordinates; `full` also checks the curve equation and subgroup
// membership (is_in_subgroup of the curve's namespace, found by argument-dependent lookup). All
// zeros is infinity.
template <Form kForm, class C>
Affine<C> decode_xy(std::span<const uint8_t> in, const CodecContext& ctx, bool full) {
  using K = Coord<kForm, typename C::Field>;
  if (in.size() != 2 * K::kBytes)
    throw ctx.error("expected " + std::to_string(2 * K::kBytes) + " bytes, got " + std::to_string(in.size()));
  const Affine<C> p{K::read(in.data(), ctx, "x"), K::read(in.data() + K::kBytes, ctx, "y")};
  if (!full || p.is_infinity()) return p;
  if (!p.is_on_curve()) throw ctx.error("point is not on the curve");
  if (!is_in_subgroup(p)) throw ctx.error("point is not in the prime-order subgroup");
  return p;
}

}  // namespace snarkd::ec::detail
