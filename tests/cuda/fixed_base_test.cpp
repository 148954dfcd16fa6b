// GPU fixed-base multiplication (G1, G2) against the CPU twin ec::FixedBaseTable::mul_many on
// fresh random scalars (seed printed, SNARKD_TEST_SEED pins it) with edge values mixed in (0, 1,
// 2, r − 1, r − 2, (r − 1)/2, 255, 256, 2^248 − 1 with every low window 255, powers 2^(8k),
// small values), sizes 1, 2, 31, 32, 33, 2^k ± 1; every table entry against the CPU
// twin; other bases (random, infinity); chunked streaming with partial last chunks;
// outputs and scratch poisoned first. Then setup_insecure_gpu against groth16::setup_insecure.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "common/seed.hpp"
#include "gpu_test_util.hpp"
#include "snarkd/cuda/fixed_base.hpp"
#include "snarkd/cuda/setup_gpu.hpp"
#include "snarkd/ec/fixed_base.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/r1cs/synthetic.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {
namespace {

using ff::Fr;

template <class C>
using DeviceField = std::conditional_t<std::is_same_v<C, ec::G1Config>, Fp, Fp2>;

Fr from_limbs(uint64_t l0, uint64_t l1, uint64_t l2, uint64_t l3) {
  ff::BigInt<4> v;
  v.limb[0] = l0;
  v.limb[1] = l1;
  v.limb[2] = l2;
  v.limb[3] = l3;
  Fr out;
  EXPECT_TRUE(Fr::from_repr(v, out));
  return out;
}

// Random scalars with the edge values at the front (as many as fit) and sprinkled through.
std::vector<Fr> scalars_with_edges(std::mt19937_64& g, size_t n) {
  const uint64_t all = ~uint64_t{0};
  const std::vector<Fr> edges = {Fr::zero(),
                                 Fr::one(),
                                 -Fr::one(),  // r − 1
                                 -Fr::from_u64(2),
                                 -Fr::one() * Fr::from_u64(2).inverse(),  // (r − 1)/2
                                 Fr::from_u64(2),
                                 Fr::from_u64(255),
                                 Fr::from_u64(256),
                                 from_limbs(all, all, all, all >> 8),  // 2^248 − 1
                                 from_limbs(0, 0, 0, uint64_t{1} << 56),
                                 from_limbs(0, 1, 0, 0)};
  std::vector<Fr> s(n);
  for (size_t i = 0; i < n; ++i) {
    if (i < edges.size()) s[i] = edges[i];
    else if (g() % 8 == 0) s[i] = edges[g() % edges.size()];
    else if (g() % 8 == 0) s[i] = Fr::from_u64(g() % 70000);  // most windows zero
    else s[i] = Fr::random(g);
  }
  return s;
}

template <class C>
ec::Affine<C> random_point(std::mt19937_64& g) {
  return ec::Jacobian<C>::from_affine(ec::generator<C>()).mul_scalar(Fr::random(g)).to_affine();
}

template <class C>
void expect_points_equal(const std::vector<ec::Affine<C>>& got, const std::vector<ec::Affine<C>>& want,
                         const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i] && bad++ == 0) first = i;
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << got.size() << " points differ, first at " << first;
}

// The stream-ordered API with poisoned output and scratch, for each size.
template <class C>
void stream_ordered(const char* label, const std::vector<size_t>& sizes) {
  SNARKD_SKIP_WITHOUT_GPU();
  using F = DeviceField<C>;
  auto g = snarkd::test::rng(label);
  const ec::FixedBaseTable<C> cpu(ec::generator<C>());
  Stream stream;
  DeviceBuffer<Affine<F>> table(kFixedBaseTableSize);
  table.fill_bytes(0xff, stream);
  build_fixed_base_table<F>(std::bit_cast<Affine<F>>(ec::generator<C>()), table.data(), stream);
  for (size_t n : sizes) {
    const std::vector<Fr> s = scalars_with_edges(g, n);
    auto d_s = test::to_device<cuda::Fr>(s, stream);
    DeviceBuffer<Affine<F>> d_out(n);
    DeviceBuffer<uint8_t> scratch(fixed_base_mul_scratch_bytes<F>(n));
    d_out.fill_bytes(0xff, stream);
    scratch.fill_bytes(0xa5, stream);
    fixed_base_mul<F>(table.data(), d_s.data(), n, d_out.data(), scratch.data(), scratch.size(), stream);
    expect_points_equal<C>(test::to_host<ec::Affine<C>>(d_out, stream), cpu.mul_many(s), "n=" + std::to_string(n));
    if (n == sizes.back()) {
      EXPECT_THROW(fixed_base_mul<F>(table.data(), d_s.data(), n, d_out.data(), scratch.data(), scratch.size() - 1,
                                     stream),
                   InvalidArgument);
    }
  }
  const std::vector<Fr> zeros(100, Fr::zero());
  auto d_z = test::to_device<cuda::Fr>(zeros, stream);
  DeviceBuffer<Affine<F>> d_out(zeros.size());
  DeviceBuffer<uint8_t> scratch(fixed_base_mul_scratch_bytes<F>(zeros.size()));
  d_out.fill_bytes(0xff, stream);
  fixed_base_mul<F>(table.data(), d_z.data(), zeros.size(), d_out.data(), scratch.data(), scratch.size(), stream);
  for (const auto& p : test::to_host<ec::Affine<C>>(d_out, stream)) EXPECT_TRUE(p.is_infinity());
}

TEST(CudaFixedBase, G1StreamOrderedMatchesCpu) {
  stream_ordered<ec::G1Config>("cuda_fixed_base_g1", {1, 2, 31, 32, 33, 255, 1023, 1025, 4097, (1u << 16) + 1});
}
TEST(CudaFixedBase, G2StreamOrderedMatchesCpu) {
  stream_ordered<ec::G2Config>("cuda_fixed_base_g2", {1, 2, 31, 32, 33, 1023, 1025, 4097});
}

// Every entry d·2^(8w)·B of the device table against the CPU twin's d·2^(8w)·B (mul_many of
// the scalars d·2^(8w), whose tables are checked against plain scalar multiplication in
// tests/groth16/prover_test.cpp), for the generator and a random base.
template <class C>
void table_entries(const char* label) {
  SNARKD_SKIP_WITHOUT_GPU();
  using F = DeviceField<C>;
  auto g = snarkd::test::rng(label);
  std::vector<Fr> entry_scalars;
  for (uint32_t w = 0; w < kFixedBaseWindows; ++w)
    for (uint32_t d = 1; d <= kFixedBaseDigits; ++d)
      entry_scalars.push_back(Fr::from_u64(2).pow(uint64_t{8} * w) * Fr::from_u64(d));
  ASSERT_EQ(entry_scalars.size(), kFixedBaseTableSize);
  for (const ec::Affine<C>& base : {ec::generator<C>(), random_point<C>(g)}) {
    Stream stream;
    DeviceBuffer<Affine<F>> table(kFixedBaseTableSize);
    table.fill_bytes(0xff, stream);
    build_fixed_base_table<F>(std::bit_cast<Affine<F>>(base), table.data(), stream);
    const auto want = ec::FixedBaseTable<C>(base).mul_many(entry_scalars);
    expect_points_equal<C>(test::to_host<ec::Affine<C>>(table, stream), want, "table (index w·255 + d − 1)");
  }
}

TEST(CudaFixedBase, G1TableEntries) { table_entries<ec::G1Config>("cuda_fixed_base_table_g1"); }
TEST(CudaFixedBase, G2TableEntries) { table_entries<ec::G2Config>("cuda_fixed_base_table_g2"); }

// The streaming wrapper: other bases, chunk sizes with partial last chunks, reuse across calls,
// an output buffer poisoned with 0xff bytes.
template <class C>
void streamed(const char* label) {
  SNARKD_SKIP_WITHOUT_GPU();
  using F = DeviceField<C>;
  auto g = snarkd::test::rng(label);
  const std::vector<ec::Affine<C>> bases = {random_point<C>(g), ec::Affine<C>::infinity(), ec::generator<C>()};
  for (const auto& base : bases) {
    const ec::FixedBaseTable<C> cpu(base);
    for (auto [n, chunk] : {std::pair<size_t, size_t>{31, 1}, {4097, 1000}, {4097, 4096}, {4097, 0}, {3, 8}}) {
      const auto s = scalars_with_edges(g, n);
      expect_points_equal<C>(fixed_base_mul_sync<C>(0, base, s, chunk), cpu.mul_many(s),
                             "n=" + std::to_string(n) + " chunk=" + std::to_string(chunk) +
                                 (base.is_infinity() ? " (base at infinity)" : ""));
    }
  }
  const ec::FixedBaseTable<C> cpu(bases[0]);
  FixedBaseStreamer<F> streamer(0, std::bit_cast<Affine<F>>(bases[0]), 1000);
  for (size_t n : {size_t{0}, size_t{5}, size_t{3001}, size_t{2000}, size_t{1}}) {
    const auto s = scalars_with_edges(g, n);
    std::vector<ec::Affine<C>> out(n + 1);
    std::memset(static_cast<void*>(out.data()), 0xff, out.size() * sizeof(out[0]));
    const ec::Affine<C> sentinel = out[n];
    streamer.mul(reinterpret_cast<const cuda::Fr*>(s.data()), n, reinterpret_cast<Affine<F>*>(out.data()));
    EXPECT_TRUE(out[n] == sentinel) << "wrote past the end, n=" << n;
    out.pop_back();
    expect_points_equal<C>(out, cpu.mul_many(s), "reused streamer, n=" + std::to_string(n));
  }
  EXPECT_THROW(FixedBaseStreamer<F>(0, std::bit_cast<Affine<F>>(bases[0]), 0), InvalidArgument);
}

TEST(CudaFixedBase, G1Streamed) { streamed<ec::G1Config>("cuda_fixed_base_stream_g1"); }
TEST(CudaFixedBase, G2Streamed) { streamed<ec::G2Config>("cuda_fixed_base_stream_g2"); }

void expect_same_key(const groth16::ProvingKey& got, const groth16::ProvingKey& want, const std::string& what) {
  EXPECT_EQ(got.flavour, want.flavour) << what;
  EXPECT_EQ(got.log_domain, want.log_domain) << what;
  EXPECT_EQ(got.vk, want.vk) << what;
  expect_points_equal(got.a, want.a, what + " A");
  expect_points_equal(got.b_g1, want.b_g1, what + " B (G1)");
  expect_points_equal(got.b_g2, want.b_g2, what + " B (G2)");
  expect_points_equal(got.l, want.l, what + " L");
  expect_points_equal(got.h, want.h, what + " H");
  EXPECT_EQ(got.a_density.words, want.a_density.words) << what;
  EXPECT_EQ(got.a_density.num_bits, want.a_density.num_bits) << what;
  EXPECT_EQ(got.b_density.words, want.b_density.words) << what;
  EXPECT_EQ(got.b_density.num_bits, want.b_density.num_bits) << what;
}

TEST(CudaSetup, EqualsCpuSetupOnSyntheticCircuits) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng("cuda_setup");
  for (auto [m, nin] : {std::pair<uint64_t, uint64_t>{1, 1}, {1000, 17}, {4097, 5}}) {
    r1cs::SyntheticParams p;
    p.num_constraints = m;
    p.num_inputs = nin;
    p.seed = g();
    const r1cs::Circuit c = r1cs::generate_synthetic(p).circuit;
    const groth16::ToxicWaste t = groth16::toxic_waste_from_seed(g());
    expect_same_key(setup_insecure_gpu(0, c, t), groth16::setup_insecure(c, t),
                    "m=" + std::to_string(m) + " inputs=" + std::to_string(nin));
  }
}

}  // namespace
}  // namespace snarkd::cuda
