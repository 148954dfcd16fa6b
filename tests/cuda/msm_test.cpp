// GPU MSM for every group — BLS12-381 and BN254, G1 and G2: typed tests CudaMsm/Bls12381G1 ..
// CudaMsm/Bn254G2 — against the CPU twin snarkd::msm::msm on fresh random inputs (seed printed,
// SNARKD_TEST_SEED pins it) and edge cases, for every accumulation kind (the chunked XYZZ and
// batch-affine lanes and the one-thread-per-bucket kernel): sizes 0, 1, 2, 31, 2^k ± 1 (n not a
// power of two, n below the window count); zero, one, −1 and r − 1 scalars; all-zero vectors;
// infinities and repeated bases; P − P; every point in one bucket; every window width on small
// inputs, up to 22 bits; passes of 1 to 3 windows, each reducing its own buckets; the XYZZ lanes
// in 1 to 16 waves. The stream-ordered test poisons the
// result and the scratch before running.
#include <gtest/gtest.h>

#include <random>
#include <type_traits>
#include <vector>

#include "common/ec_util.hpp"
#include "common/seed.hpp"
#include "gpu_test_util.hpp"
#include "group_names.hpp"
#include "snarkd/cuda/msm.hpp"
#include "snarkd/ec/fixed_base.hpp"
#include "snarkd/msm/msm.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {
namespace {

using snarkd::test::random_points;

template <class C>
using Scalars = std::vector<typename C::Scalar>;

template <class C>
Scalars<C> random_scalars(std::mt19937_64& g, size_t n) {
  Scalars<C> s(n);
  for (auto& x : s) x = C::Scalar::random(g);
  return s;
}

constexpr MsmAccumulation kKinds[] = {MsmAccumulation::kChunkedXyzz, MsmAccumulation::kChunkedAffine,
                                      MsmAccumulation::kBucketThreads};

// Checks every accumulation kind (or only `only`) at window c.
template <class C>
void expect_matches_cpu(std::span<const ec::Affine<C>> b, std::span<const typename C::Scalar> s, uint32_t c,
                        const std::string& what, MsmAccumulation only = MsmAccumulation::kDefault) {
  const auto want = msm::msm<C>(b, s);
  for (MsmAccumulation a : kKinds) {
    if (only != MsmAccumulation::kDefault && only != a) continue;
    EXPECT_EQ(msm_sync<C>(b, s, MsmOptions{c, a}), want) << what << " " << msm_accumulation_name(a);
  }
}

// Per group: the sizes of the random runs, the wide windows (the chunked kernels only), and the
// LargeAndSkewed sizes. G2 additions cost ~3× G1's (on the CPU twin too), so G2 runs fewer.
struct Sizes {
  std::vector<size_t> random;
  std::vector<uint32_t> wide;
  size_t large, one_scalar;
};
template <class C>
Sizes sizes() {
  if constexpr (kIsPrimeField<DeviceFieldOf<C>>)
    return {
        {0, 1, 2, 31, 255, 1023, 1025, 4097, (1u << 16) + 1, (1u << 18) - 1}, {18, 20, 22}, (1u << 20) + 3, 1u << 19};
  // Each wide window costs the reduction's running sums over W·2^(c−1) mostly empty buckets, so
  // G2 stops at 18 (c = 24 runs in the precomputed tests).
  return {{0, 1, 31, 1025, 4097}, {18}, (1u << 17) + 5, 1u << 16};
}

// n bases cycling through 4096 random ones: the large tests' scalars decide their buckets, and
// 4096 points cost the CPU twin's set-up far less than n.
template <class C>
std::vector<ec::Affine<C>> tiled_points(std::mt19937_64& g, size_t n) {
  const auto tile = random_points<C>(g, 4096);
  std::vector<ec::Affine<C>> b(n);
  for (size_t i = 0; i < n; ++i) b[i] = tile[i % tile.size()];
  return b;
}

template <class C>
class CudaMsm : public ::testing::Test {};
TYPED_TEST_SUITE(CudaMsm, test::Groups, test::GroupNames);

TYPED_TEST(CudaMsm, SizesAndWindows) {
  SNARKD_SKIP_WITHOUT_GPU();
  using C = TypeParam;
  auto g = snarkd::test::current_test_rng();
  for (size_t n : sizes<C>().random) {
    const auto b = random_points<C>(g, n);
    const auto s = random_scalars<C>(g, n);
    expect_matches_cpu<C>(b, s, 0, "n=" + std::to_string(n));
  }
  const auto b = random_points<C>(g, 100);
  const auto s = random_scalars<C>(g, 100);
  for (uint32_t c : {4u, 5u, 7u, 8u, 11u, 12u, 13u, 14u, 15u, 16u}) expect_matches_cpu<C>(b, s, c, "c=" + std::to_string(c));
  // Wide windows: the chunked kernels only (one thread per bucket would add the ~n/2 points of a
  // 0-bit top window serially; correct but slow).
  for (uint32_t c : sizes<C>().wide)
    for (MsmAccumulation a : {MsmAccumulation::kChunkedXyzz, MsmAccumulation::kChunkedAffine})
      expect_matches_cpu<C>(b, s, c, "c=" + std::to_string(c), a);
}

// The default kind (SNARKD_MSM_ACCUMULATE or the built-in choice) is one of the three, and the
// default windows are in range.
TYPED_TEST(CudaMsm, DefaultAccumulationResolves) {
  using F = DeviceFieldOf<TypeParam>;
  EXPECT_NE(msm_resolve_accumulation<F>(MsmAccumulation::kDefault), MsmAccumulation::kDefault);
  EXPECT_GE(msm_window<F>(size_t{1} << 24), 4u);
  EXPECT_LE(msm_window<F>(size_t{1} << 27), 22u);
}

TYPED_TEST(CudaMsm, EdgeCases) {
  SNARKD_SKIP_WITHOUT_GPU();
  using C = TypeParam;
  using Fr = typename C::Scalar;
  auto g = snarkd::test::current_test_rng();
  const size_t n = 777;
  auto b = random_points<C>(g, n);
  Scalars<C> s(n, Fr::zero());
  expect_matches_cpu<C>(b, s, 0, "all zero");
  EXPECT_TRUE(msm_sync<C>(b, s).is_infinity());
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
  expect_matches_cpu<C>(b, s, 0, "mixed");
  expect_matches_cpu<C>(b, s, 6, "mixed c=6");
  // One base n times with the same scalar: every entry in one bucket (and P + P doublings).
  std::vector<ec::Affine<C>> same(300, b[1]);
  Scalars<C> one_scalar(300, Fr::from_u64(12345));
  expect_matches_cpu<C>(same, one_scalar, 0, "one bucket");
  // P and −P with equal scalars cancel, in every kind.
  std::vector<ec::Affine<C>> pm = {b[1], -b[1]};
  Scalars<C> eq = {s[5], s[5]};
  EXPECT_TRUE(msm_sync<C>(pm, eq).is_infinity());
  expect_matches_cpu<C>(pm, eq, 0, "P - P");
}

// The chunked XYZZ lanes in 1 .. 16 waves (WindowLayout::lane_waves; the streamed prover's
// SNARKD_STREAM_LANE_WAVES): chunk boundaries move, so heads, tails and the fix-up change with
// every count, on random scalars and on one scalar (every chunk inside one bucket's run).
TYPED_TEST(CudaMsm, LaneWaves) {
  SNARKD_SKIP_WITHOUT_GPU();
  using C = TypeParam;
  auto g = snarkd::test::current_test_rng();
  const size_t n = sizes<C>().random.back();
  const auto b = random_points<C>(g, n);
  const auto s = random_scalars<C>(g, n);
  const Scalars<C> same(n, C::Scalar::random(g));
  const auto want = msm::msm<C>(b, s), want_same = msm::msm<C>(b, same);
  for (uint32_t waves : {1u, 2u, 3u, 16u}) {
    const MsmOptions o{0, MsmAccumulation::kChunkedXyzz, waves};
    EXPECT_EQ(msm_sync<C>(b, s, o), want) << waves << " waves";
    EXPECT_EQ(msm_sync<C>(b, same, o), want_same) << waves << " waves, one scalar";
  }
  EXPECT_THROW(msm_sync<C>(b, s, MsmOptions{0, MsmAccumulation::kChunkedXyzz, 17}), InvalidArgument);
}

// n random bases and scalars on the device, the CPU's sum, a result slot.
template <class C>
struct DeviceMsmInputs {
  using F = DeviceFieldOf<C>;
  size_t n;
  std::vector<ec::Affine<C>> b;
  Scalars<C> s;
  ec::Jacobian<C> want;
  Stream stream;
  DeviceBuffer<Affine<F>> d_b;
  DeviceBuffer<ScalarOf<F>> d_s;
  DeviceBuffer<Xyzz<F>> d_r{1};
  DeviceMsmInputs(std::mt19937_64& g, size_t count)
      : n(count),
        b(random_points<C>(g, n)),
        s(random_scalars<C>(g, n)),
        want(msm::msm<C>(b, s)),
        d_b(test::to_device<Affine<F>>(b, stream)),
        d_s(test::to_device<ScalarOf<F>>(s, stream)) {}
  ec::Jacobian<C> result() { return test::to_host<ec::Xyzz<C>>(d_r, stream)[0].to_jacobian(); }
};

TYPED_TEST(CudaMsm, StreamOrderedWithPoisonedOutputAndScratch) {
  SNARKD_SKIP_WITHOUT_GPU();
  using C = TypeParam;
  using F = DeviceFieldOf<C>;
  auto g = snarkd::test::current_test_rng();
  DeviceMsmInputs<C> in(g, 5000);
  const size_t n = in.n;
  auto run = [&](DeviceBuffer<uint8_t>& scratch, size_t bytes, const MsmOptions& o) {
    msm<F>(in.d_b.data(), in.d_s.data(), n, in.d_r.data(), scratch.data(), bytes, in.stream, o);
  };
  DeviceBuffer<uint8_t> scratch(msm_scratch_bytes<F>(n));
  in.d_r.fill_bytes(0xff, in.stream);
  scratch.fill_bytes(0xa5, in.stream);
  run(scratch, scratch.size(), MsmOptions{});
  EXPECT_EQ(in.result(), in.want);
  EXPECT_THROW(run(scratch, scratch.size() - 1, MsmOptions{}), InvalidArgument);
  EXPECT_THROW(run(scratch, scratch.size(), MsmOptions{25}), InvalidArgument);
  // Every kind, stream-ordered, poisoned result and scratch.
  for (MsmAccumulation a : kKinds) {
    const MsmOptions o{0, a};
    DeviceBuffer<uint8_t> sc(msm_scratch_bytes<F>(n, o));
    in.d_r.fill_bytes(0xff, in.stream);
    sc.fill_bytes(0x5a, in.stream);
    run(sc, sc.size(), o);
    EXPECT_EQ(in.result(), in.want) << msm_accumulation_name(a);
  }
}

// Passes of 1, 2 and 3 windows (the last one shorter) through detail::pippenger without copies,
// in poisoned scratch. In a scratch one aligned block short of pippenger_scratch_bytes (the
// all-window bound) each pass reduces its own windows' buckets, which the next pass reuses
// (msm_kernels.cuh, Plan::pass_buckets); in the whole bound every window keeps its buckets and
// one call reduces them after the last pass (whole_msm_plan: these passes' reductions are
// narrow). msm_scratch_bytes, one pass's buckets, is below that bound where the passes are several.
TYPED_TEST(CudaMsm, PassesReduceTheirOwnBuckets) {
  SNARKD_SKIP_WITHOUT_GPU();
  using C = TypeParam;
  using F = DeviceFieldOf<C>;
  auto g = snarkd::test::current_test_rng();
  DeviceMsmInputs<C> in(g, 777);
  const size_t n = in.n;
  const std::vector<uint32_t> widths =
      kIsPrimeField<F> ? std::vector<uint32_t>{9, 13, 22} : std::vector<uint32_t>{9, 13};
  for (uint32_t c : widths)
    for (MsmAccumulation a : {MsmAccumulation::kChunkedXyzz, MsmAccumulation::kChunkedAffine})
      for (size_t per_pass : {1, 2, 3}) {
        detail::WindowLayout l = detail::plain_layout<F>(n, MsmOptions{c, a});
        l.max_pass_entries = per_pass * n;
        const size_t all = detail::pippenger_scratch_bytes<F>(n, l);
        DeviceBuffer<uint8_t> scratch(all);
        for (const size_t bytes : {all - 256, all}) {
          scratch.fill_bytes(0xa5, in.stream);
          in.d_r.fill_bytes(0xff, in.stream);
          detail::pippenger<F>(in.d_b.data(), in.d_s.data(), n, l, in.d_r.data(), scratch.data(), bytes, in.stream,
                               "test");
          EXPECT_EQ(in.result(), in.want) << "c=" << c << " " << msm_accumulation_name(a) << " passes of " << per_pass
                                          << (bytes == all ? ", reduced once" : ", reduced per pass");
        }
      }
  // msm()'s scratch: one pass's buckets where its passes are several (2^27 points: passes of 2
  // of the 16 windows), the same as all windows' where one pass takes them all.
  const size_t big = size_t{1} << 27;
  EXPECT_LT(msm_scratch_bytes<F>(big, MsmOptions{16}),
            detail::pippenger_scratch_bytes<F>(big, detail::plain_layout<F>(big, MsmOptions{16})));
  EXPECT_EQ(msm_scratch_bytes<F>(n, MsmOptions{16}),
            detail::pippenger_scratch_bytes<F>(n, detail::plain_layout<F>(n, MsmOptions{16})));
}

// Passes of two windows over the large size: each pass's reduction runs on a side stream beside
// the next pass's sort (pippenger, reduce_overlap; the scratch one block short of the all-window
// bound) or all windows' once after the last pass (the whole bound: whole_msm_plan), the
// batch-affine lanes' steps in two halves on two streams (G1; affine_halves), both at a scale
// where every pass has thousands of lane threads.
TYPED_TEST(CudaMsm, OverlappedPassesAtScale) {
  SNARKD_SKIP_WITHOUT_GPU();
  using C = TypeParam;
  using F = DeviceFieldOf<C>;
  auto g = snarkd::test::current_test_rng();
  const size_t n = sizes<C>().large;
  const auto b = tiled_points<C>(g, n);
  const auto s = random_scalars<C>(g, n);
  const auto want = msm::msm<C>(b, s);
  Stream stream;
  const auto d_b = test::to_device<Affine<F>>(b, stream);
  const auto d_s = test::to_device<ScalarOf<F>>(s, stream);
  DeviceBuffer<Xyzz<F>> d_r(1);
  for (MsmAccumulation a : {MsmAccumulation::kChunkedXyzz, MsmAccumulation::kChunkedAffine}) {
    detail::WindowLayout l = detail::plain_layout<F>(n, MsmOptions{0, a});
    l.max_pass_entries = 2 * n;
    const size_t all = detail::pippenger_scratch_bytes<F>(n, l);
    DeviceBuffer<uint8_t> scratch(all);
    for (const size_t bytes : {all - 256, all}) {
      scratch.fill_bytes(0xa5, stream);
      d_r.fill_bytes(0xff, stream);
      detail::pippenger<F>(d_b.data(), d_s.data(), n, l, d_r.data(), scratch.data(), bytes, stream, "test");
      EXPECT_EQ(test::to_host<ec::Xyzz<C>>(d_r, stream)[0].to_jacobian(), want)
          << msm_accumulation_name(a) << " c=" << l.c << ", passes of 2 windows"
          << (bytes == all ? ", reduced once" : ", reduced per pass");
    }
  }
}

// Larger inputs where chunks hold many runs and runs span many chunks: 2^20 + 3 random-scalar
// points (G2: 2^17 + 5; random bases repeated: only the scalars matter) and 2^19 (G2: 2^16) points
// that all share one scalar (every window's entries in one bucket, which the chunked kernels split
// over ~all lanes).
TYPED_TEST(CudaMsm, LargeAndSkewed) {
  SNARKD_SKIP_WITHOUT_GPU();
  using C = TypeParam;
  auto g = snarkd::test::current_test_rng();
  const Sizes z = sizes<C>();
  const auto b = tiled_points<C>(g, z.large);
  const auto s = random_scalars<C>(g, z.large);
  for (MsmAccumulation a : {MsmAccumulation::kChunkedXyzz, MsmAccumulation::kChunkedAffine})
    expect_matches_cpu<C>(b, s, 0, "n = " + std::to_string(z.large), a);
  const auto b2 = tiled_points<C>(g, z.one_scalar);
  const Scalars<C> same(b2.size(), C::Scalar::random(g));
  for (MsmAccumulation a : {MsmAccumulation::kChunkedXyzz, MsmAccumulation::kChunkedAffine})
    expect_matches_cpu<C>(b2, same, 0, "one scalar", a);
}

}  // namespace
}  // namespace snarkd::cuda
