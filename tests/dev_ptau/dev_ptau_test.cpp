// tools/dev_ptau: a small file written and read back natively. Every point is checked against
// scalar multiplications done here: the powers sections are τⁱ·G (times α or β), and each
// Lagrange level is the inverse FFT of the powers, i.e. Σ_i ω^(ij)·P_i = τʲ·c·G (the forward
// transform undoes it), with section 12's top level lacking its last power. Snarkjs's own
// agreement, byte for byte, is scripts/bn254-dev-ptau-check.sh (ctest test_bn254_dev_ptau).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "ptau.hpp"
#include "snarkd/ec/bn254.hpp"
#include "snarkd/ec/bn254_encoding.hpp"

namespace snarkd::dev_ptau {
namespace {

using ec::bn254::G1Affine;
using ec::bn254::G1Jacobian;
using ec::bn254::G2Affine;
using ec::bn254::G2Jacobian;

uint64_t le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes; i-- > 0;) v = v << 8 | p[i];
  return v;
}

// The file's sections by id, in file order.
struct Parsed {
  std::vector<uint32_t> order;
  std::map<uint32_t, std::vector<uint8_t>> body;
};

Parsed parse(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<uint8_t> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Parsed p;
  EXPECT_EQ(std::string(b.begin(), b.begin() + 4), "ptau");
  EXPECT_EQ(le(&b[4], 4), 1u);  // version
  size_t o = 12;
  for (uint64_t n = le(&b[8], 4); n > 0; --n) {
    const uint32_t id = uint32_t(le(&b[o], 4));
    const uint64_t size = le(&b[o + 4], 8);
    p.order.push_back(id);
    p.body[id].assign(b.begin() + long(o + 12), b.begin() + long(o + 12 + size));
    o += 12 + size;
  }
  EXPECT_EQ(o, b.size());
  return p;
}

template <class J>
std::vector<J> decode_all(const std::vector<uint8_t>& body, size_t first, size_t count) {
  constexpr bool kG1 = std::is_same_v<J, G1Jacobian>;
  constexpr size_t kSize = kG1 ? ec::bn254::kG1LemSize : ec::bn254::kG2LemSize;
  EXPECT_LE((first + count) * kSize, body.size());
  std::vector<J> out;
  for (size_t i = first; i < first + count; ++i) {
    const std::span<const uint8_t> bytes(body.data() + i * kSize, kSize);
    if constexpr (kG1)
      out.push_back(J::from_affine(ec::bn254::decode_g1_lem(bytes)));
    else
      out.push_back(J::from_affine(ec::bn254::decode_g2_lem(bytes)));
  }
  return out;
}

// Σ_i s^i·P_i.
template <class J>
J weighted_sum(const std::vector<J>& pts, const Fr& s) {
  J acc = J::infinity();
  Fr w = Fr::one();
  for (const J& p : pts) acc += p.mul_scalar(w), w *= s;
  return acc;
}

constexpr uint32_t kPower = 3;
constexpr uint64_t kSeed = 20261203;

class DevPtau : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    path_ = new std::string(::testing::TempDir() + "dev_ptau_test.ptau");
    write_ptau(*path_, plan(kPower, secrets_from_seed(kSeed), "insecure test file\n"), nullptr);
    parsed_ = new Parsed(parse(*path_));
  }
  static void TearDownTestSuite() {
    std::remove(path_->c_str());
    delete parsed_;
    delete path_;
  }
  static const std::vector<uint8_t>& body(uint32_t id) { return parsed_->body.at(id); }

  // Level k of a Lagrange section (levels 0, 1, … packed one after the other).
  template <class J>
  static std::vector<J> level(uint32_t id, uint32_t k) {
    return decode_all<J>(body(id), (size_t{1} << k) - 1, size_t{1} << k);
  }
  // Each level k ≤ top of section `id` holds c·L_i(τ)·G: the forward DFT gives c·τʲ·G back.
  template <class J>
  static void check_lagrange(uint32_t id, uint32_t top, const Fr& c, const J& gen) {
    const Fr tau = secrets_from_seed(kSeed).tau;
    for (uint32_t k = 0; k <= top; ++k) {
      const auto pts = level<J>(id, k);
      const Fr omega = Fr::root_of_unity(k, ff::bn254::kSnarkjsDomainGenerator);
      for (uint64_t j = 0; j < pts.size(); ++j)
        EXPECT_EQ(weighted_sum(pts, omega.pow(j)), gen.mul_scalar(c * tau.pow(j)))
            << id << " level " << k << " j " << j;
    }
  }

  static std::string* path_;
  static Parsed* parsed_;
};
std::string* DevPtau::path_ = nullptr;
Parsed* DevPtau::parsed_ = nullptr;

const G1Jacobian kG1 = G1Jacobian::from_affine(ec::bn254::kG1Generator);
const G2Jacobian kG2 = G2Jacobian::from_affine(ec::bn254::kG2Generator);

TEST(DevPtauHeader, Bytes) {
  const std::vector<uint8_t> h = header_body(20);
  ASSERT_EQ(h.size(), 44u);
  EXPECT_EQ(le(&h[0], 4), 32u);  // n8
  // q = 0x30644e72…fd47, little-endian.
  EXPECT_EQ(le(&h[4], 8), 0x3c208c16d87cfd47ull);
  EXPECT_EQ(le(&h[28], 8), 0x30644e72e131a029ull);
  EXPECT_EQ(le(&h[36], 4), 20u);  // power
  EXPECT_EQ(le(&h[40], 4), 20u);  // ceremonyPower
}

TEST(DevPtauPlan, RefusesPowersOutOfRange) {
  const Secrets s = secrets_from_seed(1);
  EXPECT_THROW(plan(0, s, ""), std::invalid_argument);
  EXPECT_THROW(plan(kMaxPower + 1, s, ""), std::invalid_argument);
}

TEST_F(DevPtau, SectionsInOrderWithSnarkjsSizes) {
  const std::vector<uint32_t> ids = {1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15, kComment};
  EXPECT_EQ(parsed_->order, ids);
  const size_t n = size_t{1} << kPower, g1 = 64, g2 = 128;
  EXPECT_EQ(body(kHeader), header_body(kPower));
  EXPECT_EQ(body(kTauG1).size(), (2 * n - 1) * g1);
  EXPECT_EQ(body(kTauG2).size(), n * g2);
  EXPECT_EQ(body(kAlphaTauG1).size(), n * g1);
  EXPECT_EQ(body(kBetaTauG1).size(), n * g1);
  EXPECT_EQ(body(kBetaG2).size(), g2);
  EXPECT_EQ(body(kContributions), std::vector<uint8_t>(4, 0));  // zero contribution records
  EXPECT_EQ(body(kLagrangeTauG1).size(), (4 * n - 1) * g1);     // levels 0..p+1
  EXPECT_EQ(body(kLagrangeTauG2).size(), (2 * n - 1) * g2);     // levels 0..p
  EXPECT_EQ(body(kLagrangeAlphaTauG1).size(), (2 * n - 1) * g1);
  EXPECT_EQ(body(kLagrangeBetaTauG1).size(), (2 * n - 1) * g1);
  const auto& c = body(kComment);
  EXPECT_EQ(std::string(c.begin(), c.end()), "insecure test file\n");
}

TEST_F(DevPtau, PowersSections) {
  const Secrets s = secrets_from_seed(kSeed);
  const size_t n = size_t{1} << kPower;
  auto check = [&](uint32_t id, size_t count, const Fr& c, auto gen) {
    const auto pts = decode_all<decltype(gen)>(body(id), 0, count);
    for (size_t i = 0; i < count; ++i) EXPECT_EQ(pts[i], gen.mul_scalar(c * s.tau.pow(i))) << id << " " << i;
  };
  check(kTauG1, 2 * n - 1, Fr::one(), kG1);
  check(kTauG2, n, Fr::one(), kG2);
  check(kAlphaTauG1, n, s.alpha, kG1);
  check(kBetaTauG1, n, s.beta, kG1);
  check(kBetaG2, 1, s.beta, kG2);
}

TEST_F(DevPtau, LagrangeSectionsInvertToThePowers) {
  const Secrets s = secrets_from_seed(kSeed);
  check_lagrange(kLagrangeTauG1, kPower, Fr::one(), kG1);
  check_lagrange(kLagrangeTauG2, kPower, Fr::one(), kG2);
  check_lagrange(kLagrangeAlphaTauG1, kPower, s.alpha, kG1);
  check_lagrange(kLagrangeBetaTauG1, kPower, s.beta, kG1);
}

// Section 12's level p + 1 is the inverse FFT of τ⁰..τ^(N−2) and a zero (snarkjs pads the
// 2N − 1 powers of section 2): its forward DFT gives those powers back, and infinity last.
TEST_F(DevPtau, TopTauG1LevelLacksItsLastPower) {
  const Fr tau = secrets_from_seed(kSeed).tau;
  const uint32_t k = kPower + 1;
  const auto pts = level<G1Jacobian>(kLagrangeTauG1, k);
  const Fr omega = Fr::root_of_unity(k, ff::bn254::kSnarkjsDomainGenerator);
  for (uint64_t j = 0; j + 1 < pts.size(); ++j)
    EXPECT_EQ(weighted_sum(pts, omega.pow(j)), kG1.mul_scalar(tau.pow(j))) << j;
  EXPECT_TRUE(weighted_sum(pts, omega.pow(pts.size() - 1)).is_infinity());
  G1Jacobian sum = G1Jacobian::infinity();
  for (const auto& p : pts) sum += p;
  EXPECT_EQ(sum, kG1);  // Σ_i P_i: the j = 0 power, τ⁰·G
}

TEST(DevPtauSecrets, SeedIsReproducibleAndOsIsNot) {
  const Secrets a = secrets_from_seed(5), b = secrets_from_seed(5), c = secrets_from_os();
  EXPECT_EQ(a.tau, b.tau);
  EXPECT_EQ(a.alpha, b.alpha);
  EXPECT_EQ(a.beta, b.beta);
  EXPECT_NE(a.tau, c.tau);
  EXPECT_FALSE(c.tau.is_zero() || c.alpha.is_zero() || c.beta.is_zero());
}

}  // namespace
}  // namespace snarkd::dev_ptau
