// Precomputed-bases GPU MSM (G1 and G2) against the CPU twin snarkd::msm::msm on fresh random
// inputs (seed printed, SNARKD_TEST_SEED pins it): sizes 0, 1, 31, 2^k ± 1 over several shapes
// (t copies, c-bit windows); zero, one, −1 and small scalars, infinities, repeated bases, P − P;
// one table reused for several scalar vectors with poisoned table, result and scratch; forced
// multi-pass sorting (a virtual window split over passes); the budget-driven shape choice.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/ec_util.hpp"
#include "common/seed.hpp"
#include "gpu_test_util.hpp"
#include "snarkd/cuda/msm_precomp.hpp"
#include "snarkd/msm/msm.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {
namespace {

using ff::Fr;
using snarkd::test::random_points;

std::vector<Fr> random_scalars(std::mt19937_64& g, size_t n) {
  std::vector<Fr> s(n);
  for (auto& x : s) x = Fr::random(g);
  return s;
}

std::string describe(const MsmPrecompShape& s) {
  return "t=" + std::to_string(s.copies) + " c=" + std::to_string(s.window_bits) +
         " W'=" + std::to_string(s.virtual_windows);
}

template <class C>
void expect_matches_cpu(std::span<const ec::Affine<C>> b, std::span<const Fr> s, const MsmPrecompShape& shape,
                        const std::string& what) {
  EXPECT_EQ(msm_precomp_sync<C>(b, s, shape), msm::msm<C>(b, s)) << what << " " << describe(shape);
}

// (copies, c): one copy (the plain MSM), partial folds with t ∤ W, full folds (W' = 1), wide c.
const std::vector<std::pair<uint32_t, uint32_t>> kShapes = {{1, 8}, {2, 13}, {5, 16}, {64, 10}, {3, 20}, {11, 24}};

template <class C>
void sizes_and_shapes(const char* label, const std::vector<size_t>& sizes) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng(label);
  for (size_t n : sizes) {
    const auto b = random_points<C>(g, n);
    const auto s = random_scalars(g, n);
    for (auto [t, c] : kShapes) expect_matches_cpu<C>(b, s, msm_precomp_shape(t, c), "n=" + std::to_string(n));
  }
}

TEST(CudaMsmPrecomp, G1SizesAndShapes) {
  sizes_and_shapes<ec::G1Config>("cuda_msm_precomp_g1", {0, 1, 31, 255, 1025, 4095, (1u << 16) + 1});
}
TEST(CudaMsmPrecomp, G2SizesAndShapes) { sizes_and_shapes<ec::G2Config>("cuda_msm_precomp_g2", {0, 1, 31, 1023}); }

template <class C>
void edge_cases(const char* label) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng(label);
  const size_t n = 777;
  auto b = random_points<C>(g, n);
  std::vector<Fr> s(n, Fr::zero());
  const auto wide = msm_precomp_shape(12, 22);
  expect_matches_cpu<C>(b, s, wide, "all zero");
  EXPECT_TRUE(msm_precomp_sync<C>(b, s, wide).is_infinity());
  for (size_t i = 0; i < n; ++i) {
    switch (g() % 6) {
      case 0: s[i] = Fr::zero(); break;
      case 1: s[i] = Fr::one(); break;
      case 2: s[i] = -Fr::one(); break;                // r − 1: every window borrows
      case 3: s[i] = Fr::from_u64(g() % 70000); break;  // small: most windows zero
      default: s[i] = Fr::random(g);
    }
    if (g() % 10 == 0) b[i] = ec::Affine<C>::infinity();
    if (g() % 10 == 0) b[i] = b[0];  // repeated base
  }
  for (auto [t, c] : kShapes) expect_matches_cpu<C>(b, s, msm_precomp_shape(t, c), "mixed");
  // One base with one scalar everywhere: every entry of a window in one bucket (P + P doublings).
  std::vector<ec::Affine<C>> same(300, b[1]);
  std::vector<Fr> one_scalar(300, Fr::from_u64(12345));
  expect_matches_cpu<C>(same, one_scalar, wide, "one bucket");
  std::vector<ec::Affine<C>> pm = {b[1], -b[1]};
  std::vector<Fr> eq = {s[5], s[5]};
  EXPECT_TRUE(msm_precomp_sync<C>(pm, eq, msm_precomp_shape(4, 16)).is_infinity());
}

TEST(CudaMsmPrecomp, G1EdgeCases) { edge_cases<ec::G1Config>("cuda_msm_precomp_g1_edges"); }
TEST(CudaMsmPrecomp, G2EdgeCases) { edge_cases<ec::G2Config>("cuda_msm_precomp_g2_edges"); }

// The device-resident API: one table (poisoned before the build) serves several scalar vectors;
// result and scratch are poisoned before each run; both chunked kinds, in passes of whole virtual
// windows and in small passes that split them (the accumulation continues a bucket from the
// previous pass).
TEST(CudaMsmPrecomp, ResidentTableStreamOrderedAndPasses) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng("cuda_msm_precomp_resident");
  const size_t n = 3001;
  const auto b = random_points<ec::G1Config>(g, n);
  const auto shape = msm_precomp_shape(3, 13);  // W = 20 → W' = 7, t = 3: windows with 3 and 2 copies
  Stream stream;
  auto d_b = test::to_device<G1Affine>(b, stream);
  DeviceBuffer<G1Affine> table(msm_precomp_table_bytes<Fp>(n, shape.copies) / sizeof(G1Affine));
  DeviceBuffer<uint8_t> build_scratch(msm_precomp_build_scratch_bytes<Fp>(n));
  table.fill_bytes(0x5a, stream);
  build_scratch.fill_bytes(0xa5, stream);
  msm_precomp_build<Fp>(d_b.data(), n, shape, table.data(), build_scratch.data(), build_scratch.size(), stream);
  const MsmPrecompTable<Fp> view{table.data(), n, shape};
  DeviceBuffer<G1Xyzz> d_r(1);
  detail::WindowLayout layout{shape.window_bits, shape.windows, shape.virtual_windows, shape.copies};
  // Passes of 4 and 3 positions take whole windows; 2 split the 3-copy ones, 1 every window.
  for (MsmAccumulation a : {MsmAccumulation::kChunkedXyzz, MsmAccumulation::kChunkedAffine})
    for (size_t pass_entries : {kMaxEntriesPerPass, 4 * n, 3 * n, 2 * n, n}) {
      layout.max_pass_entries = pass_entries;
      layout.accumulation = a;
      const auto s = random_scalars(g, n);
      auto d_s = test::to_device<cuda::Fr>(s, stream);
      DeviceBuffer<uint8_t> scratch(detail::pippenger_scratch_bytes<Fp>(n, layout));
      d_r.fill_bytes(0xff, stream);
      scratch.fill_bytes(0xa5, stream);
      if (pass_entries == kMaxEntriesPerPass && a == MsmAccumulation::kChunkedXyzz)  // the API's own layout
        msm_precomp<Fp>(view, d_s.data(), d_r.data(), scratch.data(), scratch.size(), stream);
      else
        detail::pippenger<Fp>(table.data(), d_s.data(), n, layout, d_r.data(), scratch.data(), scratch.size(),
                              stream, "test");
      const auto r = test::to_host<ec::G1Xyzz>(d_r, stream);
      EXPECT_EQ(r[0].to_jacobian(), msm::msm<ec::G1Config>(b, s))
          << msm_accumulation_name(a) << ", pass entries " << pass_entries;
    }
  const auto s = random_scalars(g, n);
  auto d_s = test::to_device<cuda::Fr>(s, stream);
  DeviceBuffer<uint8_t> scratch(msm_precomp_scratch_bytes<Fp>(n, shape));
  EXPECT_THROW(msm_precomp<Fp>(view, d_s.data(), d_r.data(), scratch.data(), scratch.size() - 1, stream),
               InvalidArgument);
  EXPECT_THROW(msm_precomp_build<Fp>(d_b.data(), n, shape, table.data(), build_scratch.data(), 1, stream),
               InvalidArgument);
  const MsmPrecompTable<Fp> bad{table.data(), n, {2, 13, 20, 7}};  // copies ≠ ⌈W/W'⌉
  EXPECT_THROW(msm_precomp<Fp>(bad, d_s.data(), d_r.data(), scratch.data(), scratch.size(), stream), InvalidArgument);
  EXPECT_THROW(msm_precomp_shape(4, 25), InvalidArgument);
  EXPECT_THROW(msm_precomp_shape(0, 16), InvalidArgument);
}

TEST(CudaMsmPrecomp, ShapeChoiceFitsTheBudget) {
  const size_t n = 4097;
  const size_t one = msm_precomp_table_bytes<Fp>(n, 1);
  EXPECT_THROW(msm_precomp_choose<Fp>(n, one - 1), InvalidArgument);
  EXPECT_EQ(msm_precomp_choose<Fp>(n, one).copies, 1u);
  for (size_t k : {1, 2, 3, 7, 16, 100}) {
    const auto s = msm_precomp_choose<Fp>(n, k * one);
    EXPECT_LE(msm_precomp_table_bytes<Fp>(n, s.copies), k * one) << describe(s);
    EXPECT_EQ(s.copies, msm_precomp_shape(s.copies, s.window_bits).copies) << describe(s);
  }
  // 2^27 points: copies·n must stay below 2^31 whatever the budget.
  const auto big = msm_precomp_choose<Fp>(size_t{1} << 27, size_t{1} << 50);
  EXPECT_LT(uint64_t{big.copies} << 27, uint64_t{1} << 31) << describe(big);
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng("cuda_msm_precomp_choice");
  const auto b = random_points<ec::G1Config>(g, n);
  const auto sc = random_scalars(g, n);
  expect_matches_cpu<ec::G1Config>(b, sc, msm_precomp_choose<Fp>(n, 8 * one), "chosen");
}

}  // namespace
}  // namespace snarkd::cuda
