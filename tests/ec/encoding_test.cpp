// Encode/decode round trips and rejections that do not need external vectors (those are in
// vectors_test.cpp): random points in and out of the subgroup, infinity, LEM x ≥ p, bulk decode.
#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <vector>

#include "snarkd/ec/encoding.hpp"
#include "snarkd/ec/subgroup.hpp"
#include "ec/codec_api.hpp"
#include "ec/ec_test_util.hpp"

namespace snarkd::test {
namespace {

template <class C>
class Encoding : public ::testing::Test {};
using Groups = ::testing::Types<ec::G1Config, ec::G2Config>;
TYPED_TEST_SUITE(Encoding, Groups);

TYPED_TEST(Encoding, RoundTripsSubgroupPoints) {
  using C = TypeParam;
  using A = Api<C>;
  auto g = rng("encoding-roundtrip");
  for (int t = 0; t < 8; ++t) {
    ec::Affine<C> p = t == 0 ? ec::Affine<C>::infinity() : random_subgroup_point<C>(g);
    Bytes c = A::comp(p), u = A::unc(p), l = A::lem(p);
    EXPECT_EQ(A::dcomp(c), p);
    EXPECT_EQ(A::dunc(u), p);
    EXPECT_EQ(A::dlem(l), p);
    EXPECT_EQ(A::dcomp_u(c), p);
    EXPECT_EQ(A::dunc_u(u), p);
    EXPECT_EQ(A::dlem_u(l), p);
    // −P differs only in the sign flag (compressed) or y (uncompressed).
    Bytes cn = A::comp(-p);
    EXPECT_EQ(A::dcomp(cn), -p);
    if (!p.is_infinity()) {
      EXPECT_EQ(cn[0] ^ c[0], 0x20);
    }
  }
}

TYPED_TEST(Encoding, InfinityEncodings) {
  using C = TypeParam;
  using A = Api<C>;
  Bytes c = A::comp(ec::Affine<C>::infinity()), u = A::unc(ec::Affine<C>::infinity());
  EXPECT_EQ(c[0], 0xc0);
  EXPECT_EQ(u[0], 0x40);
  for (size_t i = 1; i < c.size(); ++i) EXPECT_EQ(c[i], 0);
  for (size_t i = 1; i < u.size(); ++i) EXPECT_EQ(u[i], 0);
  for (uint8_t b : A::lem(ec::Affine<C>::infinity())) EXPECT_EQ(b, 0);
}

// Off-subgroup points: checked decoders give the subgroup error, unchecked ones decode them.
TYPED_TEST(Encoding, SubgroupCheckedOnlyByCheckedDecoders) {
  using C = TypeParam;
  using A = Api<C>;
  auto g = rng("encoding-subgroup");
  for (int t = 0; t < 4; ++t) {
    ec::Affine<C> q = random_curve_point<C>(g);
    ASSERT_FALSE(ec::is_in_subgroup_reference(q));
    Bytes c = A::comp(q), u = A::unc(q), l = A::lem(q);
    for (const std::string& e : {error_of([&] { A::dcomp(c); }), error_of([&] { A::dunc(u); }),
                                 error_of([&] { A::dlem(l); })})
      EXPECT_NE(e.find("point is not in the prime-order subgroup"), std::string::npos) << e;
    EXPECT_EQ(A::dcomp_u(c), q);
    EXPECT_EQ(A::dunc_u(u), q);
    EXPECT_EQ(A::dlem_u(l), q);
  }
}

// LEM: coordinates ≥ p (as Montgomery integers) and off-curve points are rejected.
TYPED_TEST(Encoding, LemRejectsNonCanonicalAndOffCurve) {
  using C = TypeParam;
  using A = Api<C>;
  auto g = rng("encoding-lem");
  ec::Affine<C> p = random_subgroup_point<C>(g);
  Bytes l = A::lem(p);
  const char* name = std::is_same_v<C, ec::G1Config> ? "G1 LEM: " : "G2 LEM: ";
  const size_t coords = l.size() / 48;  // Fp elements: 2 (G1) or 4 (G2)
  for (size_t i = 0; i < coords; ++i) {
    for (bool max : {false, true}) {
      Bytes bad = l;
      auto m = max ? ff::BigInt<6>{{~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull}} : ff::Fp::kModulus;
      for (size_t b = 0; b < 48; ++b) bad[48 * i + b] = uint8_t(m.limb[b / 8] >> (8 * (b % 8)));
      std::string coord = std::string(i < coords / 2 ? "x" : "y") +
                          (coords == 4 ? (i % 2 ? ".c1" : ".c0") : "");
      std::string expect = name + coord + " is not a canonical field element";
      EXPECT_EQ(error_of([&] { A::dlem(bad); }), expect);
      EXPECT_EQ(error_of([&] { A::dlem_u(bad); }), expect);
    }
  }
  Bytes off = l;
  off[48] ^= 1;  // perturb the Montgomery form of the second coordinate element
  EXPECT_EQ(error_of([&] { A::dlem(off); }), std::string(name) + "point is not on the curve");
  EXPECT_EQ(error_of([&] { A::dlem(Bytes(l.size() - 1)); }),
            std::string(name) + "expected " + std::to_string(l.size()) + " bytes, got " + std::to_string(l.size() - 1));
}

TYPED_TEST(Encoding, DecodeManyDecodesInOrderAndNamesTheBadPoint) {
  using C = TypeParam;
  using A = Api<C>;
  auto g = rng("encoding-many");
  std::vector<ec::Affine<C>> pts;
  Bytes all, all_lem;
  for (int i = 0; i < 37; ++i) {
    pts.push_back(i == 5 ? ec::Affine<C>::infinity() : random_subgroup_point<C>(g));
    Bytes u = A::unc(pts.back()), l = A::lem(pts.back());
    all.insert(all.end(), u.begin(), u.end());
    all_lem.insert(all_lem.end(), l.begin(), l.end());
  }
  const size_t us = all.size() / pts.size(), ls = all_lem.size() / pts.size();
  EXPECT_EQ(ec::decode_many<ec::Affine<C>>(all, us, A::dunc), pts);
  EXPECT_EQ(ec::decode_many<ec::Affine<C>>(all_lem, ls, A::dlem_u), pts);
  all[us * 21 + us - 1] ^= 1;  // y of point 21 no longer on the curve
  std::string e = error_of([&] { ec::decode_many<ec::Affine<C>>(all, us, A::dunc); });
  EXPECT_EQ(e.rfind("point 21: ", 0), 0u) << e;
  EXPECT_NE(e.find("not on the curve"), std::string::npos) << e;
  EXPECT_NE(error_of([&] { ec::decode_many<ec::Affine<C>>(Bytes(all.begin(), all.end() - 1), us, A::dunc); }), "");
  EXPECT_TRUE(ec::decode_many<ec::Affine<C>>(Bytes(), us, A::dunc).empty());
}

}  // namespace
}  // namespace snarkd::test
