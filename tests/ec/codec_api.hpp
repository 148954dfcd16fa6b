// Both groups' codec entry points behind one name, so tests are written once for G1 and G2.
#pragma once
#include <string>
#include <vector>

#include "snarkd/ec/encoding.hpp"

namespace snarkd::test {

using Bytes = std::vector<uint8_t>;

// One group's codec entry points, so both groups run the same tests.
template <class C>
struct Api;
template <>
struct Api<ec::G1Config> {
  static constexpr const char* kName = "G1";
  static Bytes comp(const ec::G1Affine& p) { auto a = ec::encode_g1_compressed(p); return {a.begin(), a.end()}; }
  static Bytes unc(const ec::G1Affine& p) { auto a = ec::encode_g1_uncompressed(p); return {a.begin(), a.end()}; }
  static Bytes lem(const ec::G1Affine& p) { auto a = ec::encode_g1_lem(p); return {a.begin(), a.end()}; }
  static constexpr auto dcomp = ec::decode_g1_compressed;
  static constexpr auto dunc = ec::decode_g1_uncompressed;
  static constexpr auto dlem = ec::decode_g1_lem;
  static constexpr auto dcomp_u = ec::decode_g1_compressed_unchecked;
  static constexpr auto dunc_u = ec::decode_g1_uncompressed_unchecked;
  static constexpr auto dlem_u = ec::decode_g1_lem_unchecked;
};
template <>
struct Api<ec::G2Config> {
  static constexpr const char* kName = "G2";
  static Bytes comp(const ec::G2Affine& p) { auto a = ec::encode_g2_compressed(p); return {a.begin(), a.end()}; }
  static Bytes unc(const ec::G2Affine& p) { auto a = ec::encode_g2_uncompressed(p); return {a.begin(), a.end()}; }
  static Bytes lem(const ec::G2Affine& p) { auto a = ec::encode_g2_lem(p); return {a.begin(), a.end()}; }
  static constexpr auto dcomp = ec::decode_g2_compressed;
  static constexpr auto dunc = ec::decode_g2_uncompressed;
  static constexpr auto dlem = ec::decode_g2_lem;
  static constexpr auto dcomp_u = ec::decode_g2_compressed_unchecked;
  static constexpr auto dunc_u = ec::decode_g2_uncompressed_unchecked;
  static constexpr auto dlem_u = ec::decode_g2_lem_unchecked;
};

// Runs fn and returns the DecodeError message ("" if nothing was thrown).
template <class Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "";
}

}  // namespace snarkd::test
