// GPU split MSM (G1 and G2) against its CPU twin snarkd::msm::msm_split and against msm::msm on
// fresh random inputs (seed printed, SNARKD_TEST_SEED pins it): scalar mixes all zero, all one,
// all other, PoRep-like (50% zero, 45% one, 5% random) and mixed (0, 1, −1, 2, small, random),
// with infinities, repeated and negated bases; sizes 0, 1, 2, 31, 2^k ± 1; a 2^22 + 1 input (the
// ones reduction at its full grid) against a reference folded onto its 4096 distinct bases. The
// stream-ordered test reuses one classification for G1 and G2 bases with poisoned split buffer,
// scratch, results and host counts, and checks every InvalidArgument.
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "common/ec_util.hpp"
#include "common/seed.hpp"
#include "gpu_test_util.hpp"
#include "snarkd/cuda/msm.hpp"
#include "snarkd/cuda/msm_split.hpp"
#include "snarkd/ec/fixed_base.hpp"
#include "snarkd/msm/msm.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {

// gtest's printer for failed EXPECT_EQ on counts.
void PrintTo(const SplitCounts& c, std::ostream* os) {
  *os << "{zeros " << c.zeros << ", ones " << c.ones << ", others " << c.others << "}";
}

namespace {

using ff::Fr;

using snarkd::test::random_points;

// ~10% infinities, ~10% copies of b[0] and ~5% of −b[0] (P − P cancels in the ones sum).
template <class C>
void spice(std::mt19937_64& g, std::vector<ec::Affine<C>>& b) {
  for (size_t i = 0; i < b.size(); ++i) {
    const uint64_t r = g() % 20;
    if (r < 2) b[i] = ec::Affine<C>::infinity();
    else if (r < 4) b[i] = b[0];
    else if (r < 5) b[i] = -b[0];
  }
}

enum class Mix { kAllZero, kAllOne, kAllOther, kPoRep, kMixed };
const char* name(Mix m) {
  static const char* names[] = {"all zero", "all one", "all other", "porep", "mixed"};
  return names[int(m)];
}

Fr draw(std::mt19937_64& g, Mix m) {
  switch (m) {
    case Mix::kAllZero: return Fr::zero();
    case Mix::kAllOne: return Fr::one();
    case Mix::kAllOther: return Fr::random(g);
    case Mix::kPoRep: {
      const uint64_t u = g() % 100;
      return u < 50 ? Fr::zero() : u < 95 ? Fr::one() : Fr::random(g);
    }
    case Mix::kMixed: break;
  }
  switch (g() % 6) {
    case 0: return Fr::zero();
    case 1: return Fr::one();
    case 2: return -Fr::one();  // r − 1: "other", every window borrows
    case 3: return Fr::from_u64(2);
    case 4: return Fr::from_u64(g() % 70000);
    default: return Fr::random(g);
  }
}

std::vector<Fr> scalars(std::mt19937_64& g, size_t n, Mix m) {
  std::vector<Fr> s(n);
  for (auto& x : s) x = draw(g, m);
  return s;
}

SplitCounts counts_of(const msm::SplitStats& st) { return {st.zeros, st.ones, st.others}; }

// The GPU split equals the CPU split (and msm::msm), and its counts equal the CPU classification.
template <class C>
void expect_matches_cpu(std::span<const ec::Affine<C>> b, std::span<const Fr> s, const std::string& what) {
  msm::SplitStats st;
  const auto want = msm::msm_split<C>(b, s, &st);
  EXPECT_EQ(want, msm::msm<C>(b, s)) << what << ": the CPU twins disagree";
  SplitCounts got_counts{~0ull, ~0ull, ~0ull};
  EXPECT_EQ(msm_split_sync<C>(b, s, &got_counts), want) << what;
  EXPECT_EQ(got_counts, counts_of(st)) << what;
}

template <class C>
void sizes_and_mixes(const char* label, const std::vector<size_t>& sizes, size_t all_mixes_up_to) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng(label);
  for (size_t n : sizes) {
    auto b = random_points<C>(g, n);
    spice<C>(g, b);
    for (Mix m : {Mix::kAllZero, Mix::kAllOne, Mix::kAllOther, Mix::kPoRep, Mix::kMixed}) {
      if (n > all_mixes_up_to && m != Mix::kPoRep && m != Mix::kMixed) continue;
      expect_matches_cpu<C>(b, scalars(g, n, m), "n=" + std::to_string(n) + " " + name(m));
    }
  }
}

TEST(CudaMsmSplit, G1SizesAndMixes) {
  sizes_and_mixes<ec::G1Config>("cuda_msm_split_g1", {0, 1, 2, 31, 255, 257, 1023, 1025, 4097, 65537, 262143},
                                4097);
}
TEST(CudaMsmSplit, G2SizesAndMixes) {
  sizes_and_mixes<ec::G2Config>("cuda_msm_split_g2", {0, 1, 2, 31, 1023, 1025, 4097}, 4097);
}

// The ones reduction on degenerate sums: one base n times (P + P doublings in the runs, equal
// block sums in the trees) and P, −P pairs (everything cancels).
template <class C>
void degenerate_ones(const char* label) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng(label);
  const auto p = random_points<C>(g, 1);
  for (size_t n : {2, 3, 257, 4097, 70001}) {
    const std::vector<ec::Affine<C>> same(n, p[0]);
    expect_matches_cpu<C>(same, scalars(g, n, Mix::kAllOne), "same base, n=" + std::to_string(n));
    std::vector<ec::Affine<C>> pm(n);
    for (size_t i = 0; i < n; ++i) pm[i] = i % 2 ? -p[0] : p[0];
    std::vector<Fr> s = scalars(g, n, Mix::kAllOne);
    if (n % 2) s[n - 1] = Fr::zero();  // pairs only: the sum is infinity
    EXPECT_TRUE(msm_split_sync<C>(pm, s).is_infinity()) << "P − P, n=" << n;
  }
}

TEST(CudaMsmSplit, G1DegenerateOnes) { degenerate_ones<ec::G1Config>("cuda_msm_split_g1_degenerate"); }
TEST(CudaMsmSplit, G2DegenerateOnes) { degenerate_ones<ec::G2Config>("cuda_msm_split_g2_degenerate"); }

// 2^22 + 1 points, PoRep mix: the ones reduction runs its full grid with several points per
// thread, the partition spans many tiles. The bases cycle through 4096 random points, so the
// reference is the CPU MSM over those with the scalars folded: Σ sᵢ·P_(i mod 4096).
TEST(CudaMsmSplit, LargePoRepMixOnCyclicBases) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng("cuda_msm_split_large");
  const size_t n = (size_t{1} << 22) + 1, m = 4096;
  auto distinct = random_points<ec::G1Config>(g, m);
  spice<ec::G1Config>(g, distinct);
  std::vector<ec::G1Affine> b(n);
  for (size_t i = 0; i < n; ++i) b[i] = distinct[i % m];
  const auto s = scalars(g, n, Mix::kPoRep);
  std::vector<Fr> folded(m, Fr::zero());
  for (size_t i = 0; i < n; ++i) folded[i % m] += s[i];
  SplitCounts got_counts;
  EXPECT_EQ(msm_split_sync<ec::G1Config>(b, s, &got_counts), msm::msm<ec::G1Config>(distinct, folded));
  EXPECT_EQ(got_counts, counts_of(msm::split_scalars(s).stats));
}

// One classification serves G1 and G2 bases; the host waits only for the classification (an
// event), with both ones sums already enqueued; every device output and the host counts start
// poisoned; the G1 finish writes its result over its ones sum (d_result == d_ones).
TEST(CudaMsmSplit, StreamOrderedReuseAcrossGroupsWithPoison) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng("cuda_msm_split_stream");
  const size_t n = 5000;
  auto b1 = random_points<ec::G1Config>(g, n);
  auto b2 = random_points<ec::G2Config>(g, n);
  spice<ec::G1Config>(g, b1);
  spice<ec::G2Config>(g, b2);
  auto s = scalars(g, n, Mix::kPoRep);
  for (size_t i = 0; i < n; i += 7) s[i] = draw(g, Mix::kMixed);
  const msm::ScalarSplit cpu = msm::split_scalars(s);

  Stream stream;
  auto d_s = test::to_device<cuda::Fr>(s, stream);
  auto d_b1 = test::to_device<G1Affine>(b1, stream);
  auto d_b2 = test::to_device<G2Affine>(b2, stream);
  DeviceBuffer<uint8_t> split_mem(split_buffer_bytes(n));
  DeviceBuffer<uint8_t> scratch1(msm_split_scratch_bytes<Fp>(n)), scratch2(msm_split_scratch_bytes<Fp2>(n));
  DeviceBuffer<G1Xyzz> r1(1);
  DeviceBuffer<G2Xyzz> ones2(1), r2(1);
  split_mem.fill_bytes(0xa5, stream);
  scratch1.fill_bytes(0xa5, stream);
  scratch2.fill_bytes(0x5a, stream);
  r1.fill_bytes(0xff, stream);
  ones2.fill_bytes(0xff, stream);
  r2.fill_bytes(0xff, stream);
  PinnedBuffer<SplitCounts> h(1);
  h[0] = SplitCounts{~0ull, ~0ull, ~0ull};

  const DeviceSplit split{split_mem.data(), split_mem.size(), n};
  msm_split_classify(d_s.data(), split, h.data(), stream);
  Event classified;
  classified.record(stream);
  msm_split_ones<Fp>(d_b1.data(), split, r1.data(), scratch1.data(), scratch1.size(), stream);
  msm_split_ones<Fp2>(d_b2.data(), split, ones2.data(), scratch2.data(), scratch2.size(), stream);
  classified.synchronize();
  const SplitCounts c = h[0];
  EXPECT_EQ(c, counts_of(cpu.stats));
  msm_split_finish<Fp>(d_b1.data(), split, c, r1.data(), r1.data(), scratch1.data(), scratch1.size(), stream);
  msm_split_finish<Fp2>(d_b2.data(), split, c, ones2.data(), r2.data(), scratch2.data(), scratch2.size(), stream);
  EXPECT_EQ(test::to_host<ec::G1Xyzz>(r1, stream)[0].to_jacobian(), msm::msm<ec::G1Config>(b1, s));
  EXPECT_EQ(test::to_host<ec::Xyzz<ec::G2Config>>(r2, stream)[0].to_jacobian(), msm::msm<ec::G2Config>(b2, s));
  EXPECT_EQ(test::to_host<ec::Xyzz<ec::G2Config>>(ones2, stream)[0].to_jacobian(),
            msm::sum_bits<ec::G2Config>(b2, cpu.ones.data()));

  // Every precondition names what is wrong.
  const DeviceSplit short_split{split_mem.data(), split_buffer_bytes(n) - 1, n};
  EXPECT_THROW(msm_split_classify(d_s.data(), short_split, h.data(), stream), InvalidArgument);
  const DeviceSplit null_split{nullptr, split.bytes, n};
  EXPECT_THROW(msm_split_classify(d_s.data(), null_split, h.data(), stream), InvalidArgument);
  EXPECT_THROW(msm_split_classify(d_s.data(), split, nullptr, stream), InvalidArgument);
  EXPECT_THROW(split_buffer_bytes(size_t{1} << 31), InvalidArgument);
  EXPECT_THROW(msm_split_ones<Fp>(d_b1.data(), split, r1.data(), scratch1.data(), 4096, stream), InvalidArgument);
  EXPECT_THROW(msm_split_ones<Fp>(d_b1.data(), short_split, r1.data(), scratch1.data(), scratch1.size(), stream),
               InvalidArgument);
  SplitCounts wrong = c;
  ++wrong.others;
  EXPECT_THROW(msm_split_finish<Fp>(d_b1.data(), split, wrong, r1.data(), r1.data(), scratch1.data(),
                                    scratch1.size(), stream),
               InvalidArgument);
  EXPECT_THROW(msm_split_finish<Fp>(d_b1.data(), split, c, r1.data(), r1.data(), scratch1.data(), 4096, stream),
               InvalidArgument);
  EXPECT_THROW(msm_split_finish<Fp>(d_b1.data(), split, c, r1.data(), r1.data(), nullptr, scratch1.size(), stream),
               InvalidArgument);
  stream.synchronize();
}

// A scratch sized for a third of the tail: msm_split_finish runs the tail in chunks (the last
// one shorter) and still equals the CPU MSM; the scratch starts poisoned.
template <class C>
void chunked_tail(const char* label) {
  SNARKD_SKIP_WITHOUT_GPU();
  using F = std::conditional_t<std::is_same_v<C, ec::G1Config>, Fp, Fp2>;
  auto g = snarkd::test::rng(label);
  const size_t n = 12345;
  auto b = random_points<C>(g, n);
  spice<C>(g, b);
  const auto s = scalars(g, n, Mix::kMixed);
  const msm::ScalarSplit cpu = msm::split_scalars(s);
  ASSERT_GT(cpu.stats.others, 3u);
  Stream stream;
  auto d_s = test::to_device<cuda::Fr>(s, stream);
  auto d_b = test::to_device<Affine<F>>(b, stream);
  DeviceBuffer<uint8_t> split_mem(split_buffer_bytes(n));
  const size_t third = cpu.stats.others / 3 + 1;
  DeviceBuffer<uint8_t> scratch(msm_split_scratch_bytes<F>(third));
  DeviceBuffer<Xyzz<F>> r(1);
  scratch.fill_bytes(0xa5, stream);
  r.fill_bytes(0xff, stream);
  PinnedBuffer<SplitCounts> h(1);
  const DeviceSplit split{split_mem.data(), split_mem.size(), n};
  msm_split_classify(d_s.data(), split, h.data(), stream);
  msm_split_ones<F>(d_b.data(), split, r.data(), scratch.data(), scratch.size(), stream);
  stream.synchronize();
  ASSERT_LT(scratch.size(), msm_split_scratch_bytes<F>(h[0].others)) << "the tail would fit in one piece";
  msm_split_finish<F>(d_b.data(), split, h[0], r.data(), r.data(), scratch.data(), scratch.size(), stream);
  EXPECT_EQ(test::to_host<ec::Xyzz<C>>(r, stream)[0].to_jacobian(), msm::msm<C>(b, s)) << "tail " << h[0].others
                                                                                        << " points, chunks ≤ " << third;
  // Too small for even one point: a clear error, nothing enqueued.
  EXPECT_THROW(msm_split_finish<F>(d_b.data(), split, h[0], r.data(), r.data(), scratch.data(),
                                   msm_split_scratch_bytes<F>(1) - 1, stream),
               InvalidArgument);
}

TEST(CudaMsmSplit, G1TailInChunksWhenTheScratchIsShort) { chunked_tail<ec::G1Config>("cuda_msm_split_chunks_g1"); }
TEST(CudaMsmSplit, G2TailInChunksWhenTheScratchIsShort) { chunked_tail<ec::G2Config>("cuda_msm_split_chunks_g2"); }

// msm_split_scratch_bytes(max) must cover every shorter tail, though the tail MSM's own scratch
// is not monotonic in its length: check that the bound never decreases, exhaustively up to 2^13
// and at 2^k − 3 … 2^k + 3 and random lengths up to 2^30 (sorted).
template <class F>
void scratch_bound_monotonic(const char* label) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng(label);
  std::vector<size_t> m;
  for (size_t i = 0; i <= (size_t{1} << 13); ++i) m.push_back(i);
  for (uint32_t k = 13; k <= 30; ++k)
    for (int d = -3; d <= 3; ++d) m.push_back((size_t{1} << k) + d);
  for (int i = 0; i < 300; ++i) m.push_back(g() % (size_t{1} << 30));
  std::sort(m.begin(), m.end());
  size_t prev = 0, prev_m = 0;
  for (size_t x : m) {
    const size_t bytes = msm_split_scratch_bytes<F>(x);
    ASSERT_GE(bytes, prev) << "m=" << x << " after m=" << prev_m;
    // The tails run the group's default kind by name (not the plain MSM's choice by size).
    const MsmOptions tail{0, msm_resolve_accumulation<F>(MsmAccumulation::kDefault)};
    EXPECT_GE(bytes, msm_scratch_bytes<F>(x, tail) + x * sizeof(Affine<F>)) << "m=" << x;
    prev = bytes, prev_m = x;
  }
}

TEST(CudaMsmSplit, G1ScratchBoundNeverDecreases) { scratch_bound_monotonic<Fp>("cuda_msm_split_bound_g1"); }
TEST(CudaMsmSplit, G2ScratchBoundNeverDecreases) { scratch_bound_monotonic<Fp2>("cuda_msm_split_bound_g2"); }

}  // namespace
}  // namespace snarkd::cuda
