// Host twins of the a/b/c form's device steps (cuda/prover_abc.hpp): packing the densities over
// every variable (A = every input, then the a_aux bits; B = the b_inp bits, then the b_aux bits)
// and expanding them word by word at each word's offset give the variable lists bellperson's
// density selection implies, for input counts on and off word boundaries and with stray bits
// past each vector's length. No device needed.
#include <gtest/gtest.h>

#include <random>

#include "common/seed.hpp"
#include "snarkd/cuda/prover_abc.hpp"

namespace snarkd::cuda {
namespace {

std::vector<uint64_t> random_words(uint64_t bits, std::mt19937_64& g, double density) {
  std::vector<uint64_t> w((bits + 63) / 64);
  std::bernoulli_distribution b(density);
  for (uint64_t i = 0; i < w.size() * 64; ++i)  // past `bits` too: those must be ignored
    if (b(g)) w[i / 64] |= uint64_t{1} << (i % 64);
  return w;
}

groth16::DensityBits bits_of(const std::vector<uint64_t>& w, uint64_t len) {
  groth16::DensityBits d{w.data(), len, 0};
  d.popcount = d.count_set();
  return d;
}

TEST(CudaAbcHost, PackedDensitiesExpandToBellpersonsSelection) {
  auto g = test::rng("cuda_abc_pack");
  for (uint64_t ni : {1, 2, 63, 64, 65, 130}) {
    for (uint64_t na : {0, 1, 63, 64, 200, 1000}) {
      for (double density : {0.0, 0.3, 1.0}) {
        const auto wa = random_words(na, g, density), wbi = random_words(ni, g, density), wba = random_words(na, g, density);
        const groth16::DensityBits a_aux = bits_of(wa, na), b_inp = bits_of(wbi, ni), b_aux = bits_of(wba, na);
        std::vector<uint32_t> want_a, want_b;
        for (uint64_t i = 0; i < ni; ++i) want_a.push_back(uint32_t(i));
        for (uint64_t j = 0; j < na; ++j)
          if (a_aux.test(j)) want_a.push_back(uint32_t(ni + j));
        for (uint64_t i = 0; i < ni; ++i)
          if (b_inp.test(i)) want_b.push_back(uint32_t(i));
        for (uint64_t j = 0; j < na; ++j)
          if (b_aux.test(j)) want_b.push_back(uint32_t(ni + j));
        const PackedDensity pa = pack_density(nullptr, ni, a_aux), pb = pack_density(&b_inp, ni, b_aux);
        SCOPED_TRACE("inputs " + std::to_string(ni) + ", aux " + std::to_string(na) + ", density " + std::to_string(density));
        EXPECT_EQ(pa.words.size(), (ni + na + 63) / 64);
        EXPECT_EQ(pa.count, ni + a_aux.popcount);
        EXPECT_EQ(pb.count, b_inp.popcount + b_aux.popcount);
        EXPECT_EQ(expand_density(pa), want_a);
        EXPECT_EQ(expand_density(pb), want_b);
      }
    }
  }
}

TEST(CudaAbcHost, ExpandWordListsTheSetBitsInOrder) {
  uint32_t out[64];
  EXPECT_EQ(expand_word(0, 5, out), 0u);
  ASSERT_EQ(expand_word((uint64_t{1} << 63) | 0b1010, 128, out), 3u);
  EXPECT_EQ(out[0], 129u);
  EXPECT_EQ(out[1], 131u);
  EXPECT_EQ(out[2], 191u);
  EXPECT_EQ(expand_word(~uint64_t{0}, 0, out), 64u);
  for (uint32_t k = 0; k < 64; ++k) EXPECT_EQ(out[k], k);
}

}  // namespace
}  // namespace snarkd::cuda
