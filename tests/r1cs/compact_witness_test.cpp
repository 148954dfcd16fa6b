// r1cs::CompactWitness: the round trip on fresh random witnesses of every mix of 0s, 1s and
// others (sizes around word and thread-slice edges), the field's own 1 and 0 only counted as
// such (a canonical 1 in raw limbs is an "other"), the size refusal, and the checks that the
// device expansion relies on.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <random>

#include "common/fr_util.hpp"
#include "common/seed.hpp"
#include "snarkd/r1cs/compact_witness.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::r1cs {
namespace {

using ff::Fr;

TEST(CompactWitness, RoundTripsEveryMix) {
  auto g = snarkd::test::current_test_rng();
  const uint64_t sizes[] = {0, 1, 63, 64, 65, 127, 128, 1000, 64 * 1024 + 17, 300'001};
  const double mixes[][2] = {{1, 0}, {0, 1}, {0.5, 0.45}, {0.05, 0.9}, {0.33, 0.33}, {0.7, 0.3}};
  for (uint64_t n : sizes)
    for (const auto& m : mixes)
      for (unsigned threads : {1u, 3u, 8u}) {
        const std::vector<Fr> w = snarkd::test::random_bit_heavy(g, n, m[0], m[1]);
        const auto c = compact_witness(w, 100.0, threads);  // tiny witnesses: the words outweigh the values
        ASSERT_TRUE(c.has_value()) << n;
        check_compact_witness(*c);
        EXPECT_EQ(c->n, n);
        uint64_t others = 0;
        for (const Fr& x : w) others += !(x == Fr::zero()) && !(x == Fr::one());
        EXPECT_EQ(c->values.size(), others);
        EXPECT_EQ(expand_witness(*c), w) << "n " << n << ", threads " << threads;
      }
}

TEST(CompactWitness, ComparesMontgomeryLimbs) {
  // The integer 1 stored raw (not R mod r) is a field element other than 1: it must travel as a value.
  Fr raw_one = Fr::zero();
  const uint64_t limbs[4] = {1, 0, 0, 0};
  std::memcpy(static_cast<void*>(&raw_one), limbs, sizeof limbs);
  ASSERT_FALSE(raw_one == Fr::one());
  const std::vector<Fr> w{Fr::one(), raw_one, Fr::zero(), -Fr::one()};
  const auto c = compact_witness(w, 1.0);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->ones[0], 0b0001u);
  EXPECT_EQ(c->others[0], 0b1010u);
  ASSERT_EQ(c->values.size(), 2u);
  EXPECT_EQ(c->values[0], raw_one);
  EXPECT_EQ(expand_witness(*c), w);
}

TEST(CompactWitness, RefusesWhenItDoesNotPay) {
  auto g = snarkd::test::current_test_rng();
  const std::vector<Fr> random = snarkd::test::random_bit_heavy(g, 10'000, 0, 0);
  EXPECT_FALSE(compact_witness(random).has_value());  // 32 + 2.5 bytes a value > half of 32
  const std::vector<Fr> bits = snarkd::test::random_bit_heavy(g, 10'000, 0.5, 0.45);
  const auto c = compact_witness(bits);
  ASSERT_TRUE(c.has_value());
  EXPECT_LT(c->payload_bytes() * 4, bits.size() * sizeof(Fr));  // 5 % others: ≈ 1/8 of the bytes
}

TEST(CompactWitness, ChecksWhatTheDeviceTrusts) {
  auto g = snarkd::test::current_test_rng();
  const auto good = compact_witness(snarkd::test::random_bit_heavy(g, 200, 0.4, 0.4), 1.0);
  ASSERT_TRUE(good.has_value());
  auto expect_bad = [](CompactWitness c, const char* what) {
    try {
      check_compact_witness(c);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("compact witness"), std::string::npos) << e.what();
    }
  };
  CompactWitness c = *good;
  c.offset[2] += 1;
  expect_bad(c, "a wrong offset");
  c = *good;
  c.values.pop_back();
  expect_bad(c, "a missing value");
  c = *good;
  c.ones.push_back(0);
  expect_bad(c, "an extra word");
  c = *good;
  c.others[3] |= uint64_t{1} << 20;  // value 200 = word 3, bit 8 is the last; bit 20 is past n
  expect_bad(c, "a bit past n");
  c = *good;
  c.ones[0] = c.others[0] = 1;
  expect_bad(c, "a value both 1 and other");
  EXPECT_THROW(expand_witness(c), InvalidArgument);
}

TEST(CompactWitness, LayoutPacksAlignedArrays) {
  const CompactLayout l = compact_layout(1000, 7);  // 16 words
  EXPECT_EQ(l.ones, 0u);
  EXPECT_EQ(l.others, 256u);
  EXPECT_EQ(l.offset, 512u);
  EXPECT_EQ(l.values, 768u);
  EXPECT_EQ(l.total, 1024u);
  EXPECT_EQ(compact_layout(0, 0).total, 0u);
}

}  // namespace
}  // namespace snarkd::r1cs
