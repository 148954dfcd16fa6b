// The device expansion of a compact witness (cuda/witness_expand.hpp through
// WitnessStager::enqueue_compact, the CUDA worker's upload) against the witness it was made from
// and the CPU twin r1cs::expand_witness: fresh random mixes of 0s, 1s and others, sizes at word
// edges and past the stager's chunk, the arrays packed right after the output (as in a
// reservation), the output poisoned first and the bytes past it checked untouched.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "common/fr_util.hpp"
#include "common/seed.hpp"
#include "gpu_test_util.hpp"
#include "snarkd/cuda/witness_expand.hpp"
#include "snarkd/cuda/witness_stager.hpp"

namespace snarkd::cuda {
namespace {

using ff::Fr;

TEST(WitnessExpand, MatchesTheWitnessAndTheCpuTwin) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::current_test_rng();
  Stream s;
  WitnessStager stager(size_t{1} << 20);  // small chunks: the values cross several
  const uint64_t sizes[] = {1, 63, 64, 65, 4097, (uint64_t{1} << 20) + 3, 3'000'001};
  const double mixes[][2] = {{0.5, 0.45}, {1, 0}, {0, 1}, {0.2, 0.2}, {0.05, 0.05}};
  for (uint64_t n : sizes)
    for (const auto& m : mixes) {
      const std::vector<Fr> w = snarkd::test::random_bit_heavy(g, n, m[0], m[1]);
      const auto c = r1cs::compact_witness(w, 100.0);
      ASSERT_TRUE(c.has_value());
      const uint64_t out_bytes = (n * sizeof(Fr) + 255) / 256 * 256, guard = 4096;
      const r1cs::CompactLayout l = r1cs::compact_layout(*c);
      DeviceBuffer<std::byte> range(out_bytes + l.total + guard);
      range.fill_bytes(0xA5, s);  // poison: every output value must be written
      stager.enqueue_compact(*c, range.data() + out_bytes, range.data(), s);
      stager.wait_in(s);
      std::vector<std::byte> back(range.bytes());
      range.download(back.data(), back.size(), s);
      s.synchronize();
      std::vector<Fr> got(n);
      std::memcpy(static_cast<void*>(got.data()), back.data(), n * sizeof(Fr));
      ASSERT_EQ(got, w) << "n " << n << ", mix " << m[0] << "/" << m[1];
      ASSERT_EQ(got, r1cs::expand_witness(*c));
      for (uint64_t b = out_bytes + l.total; b < back.size(); ++b)
        ASSERT_EQ(back[b], std::byte{0xA5}) << "byte " << b << " past the arrays was written";
    }
}

TEST(WitnessExpand, EmptyWitnessWritesNothing) {
  SNARKD_SKIP_WITHOUT_GPU();
  Stream s;
  WitnessStager stager;
  const auto c = r1cs::compact_witness(std::vector<Fr>{}, 100.0);
  ASSERT_TRUE(c.has_value());
  DeviceBuffer<std::byte> range(512);
  range.fill_bytes(0x5A, s);
  stager.enqueue_compact(*c, range.data() + 256, range.data(), s);
  std::vector<std::byte> back(512);
  range.download(back.data(), back.size(), s);
  s.synchronize();
  for (std::byte b : back) ASSERT_EQ(b, std::byte{0x5A});
}

}  // namespace
}  // namespace snarkd::cuda
