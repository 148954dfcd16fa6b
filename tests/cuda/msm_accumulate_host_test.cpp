// The GPU MSM's digit, chunked-accumulation and fix-up algorithms (cuda/msm_accumulate.hpp) run on
// the CPU — the kernels' exact per-thread code, a host loop standing in for the grid and
// std::stable_sort for CUB's (stable) radix sort — against the CPU MSM (msm::msm), the buckets
// combined on the host as the reduction kernels would. Both lane kinds (XYZZ, batch-affine with M
// lanes) and every edge the issue names: bucket collisions and doublings inside a batch (repeated
// bases and scalars), P + (−P), zero and one scalars, infinity bases, n not a power of two, n
// below the window count, every point in one bucket (runs spanning many chunks), and passes that
// split a virtual window (precomputed-table layouts with copies, continues_v0). The random and
// edge cases run for every group (BLS12-381 and BN254, G1 and G2: typed tests), the layout cases
// for BLS12-381's G1.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common/ec_util.hpp"
#include "common/seed.hpp"
#include "group_names.hpp"
#include "snarkd/cuda/msm_accumulate.hpp"
#include "snarkd/ec/bn254.hpp"
#include "snarkd/ec/g1.hpp"
#include "snarkd/ec/g2.hpp"
#include "snarkd/msm/msm.hpp"

namespace snarkd::cuda {
namespace {

using namespace msm_detail;

enum class Lanes { kXyzz, kAffine };

template <class C>
using DevF = DeviceFieldOf<C>;
template <class C>
using Scalars = std::vector<typename C::Scalar>;

struct Shape {
  uint32_t c, windows, virtual_windows, copies;
  size_t max_pass_entries;
};

Shape plain(uint32_t c) {
  const uint32_t w = (256 + c - 1) / c;
  return {c, w, w, 1, size_t{1} << 28};
}

// The virtual points of a layout: copy k of base i is 2^(k·W'·c)·P_i (msm_precomp's table).
template <class C>
std::vector<ec::Affine<C>> virtual_points(const std::vector<ec::Affine<C>>& bases, const Shape& s) {
  std::vector<ec::Affine<C>> out;
  for (uint32_t k = 0; k < s.copies; ++k)
    for (const auto& b : bases) {
      auto j = ec::Jacobian<C>::from_affine(b);
      for (uint32_t d = 0; d < k * s.virtual_windows * s.c; ++d) j = j.dbl();
      out.push_back(j.to_affine());
    }
  return out;
}

// The inversion kernel (affine_invert_group) over the lane threads of range r (of `threads`, 4
// lanes each), K picked by the thread count so that whole and partial groups of every size the
// launcher builds run: 1 → 1, 3 → 2 (a group of one at the end), 64 → 8, 70 → 4 (a group of two
// at the end). Ranges start at multiples of 8, as the launcher's start at multiples of a block.
template <class F>
void invert_groups(const ChunkArgs<F>& a, const AffineState<F>& st, uint32_t threads, LaneRange r, size_t step) {
  const uint32_t k = threads == 1 ? 1 : threads % 2 == 1 ? 2 : threads % 8 == 0 ? 8 : 4;
  with_invert_group(k, [&](auto group) {
    for (uint32_t g = r.first / k; size_t(g) * k < r.end; ++g)
      affine_invert_group<F, decltype(group)::value>(a, st, g, threads, 4, step);
  });
}

// Every step of range r's lane threads: forward, the inversion, backward (launch_affine_step).
template <class F>
void affine_steps(const ChunkArgs<F>& a, const AffineState<F>& st, uint32_t threads, LaneRange r, size_t steps,
                  bool cont) {
  for (size_t step = 0; step < steps; ++step) {
    for (uint32_t t = r.first; t < r.end; ++t) {
      if (cont) affine_forward_lanes<F, true>(a, st, t, threads, 4, step);
      else affine_forward_lanes<F, false>(a, st, t, threads, 4, step);
    }
    invert_groups(a, st, threads, r, step);
    for (uint32_t t = r.first; t < r.end; ++t) affine_backward_lanes(a, st, t, threads, 4, step);
  }
}

// Runs the passes the way pippenger_chunk() does into `out` (the virtual windows' buckets, XYZZ
// host bytes), adding to every bucket when `continues_all` (a later chunk of one MSM).
template <class C>
void accumulate_into(const std::vector<ec::Affine<C>>& pts, const Scalars<C>& scalars, const Shape& s, Lanes lanes,
                     uint32_t lane_count, std::vector<ec::Xyzz<C>>& out, bool continues_all) {
  using F = DevF<C>;
  const size_t n = scalars.size();
  const Order order{s.virtual_windows, s.copies, s.windows - (s.copies - 1) * s.virtual_windows};
  const uint32_t per_pass = uint32_t(std::max<size_t>(1, std::min<size_t>(s.windows, s.max_pass_entries / n)));
  const int key_bits = int(s.c) + std::bit_width(std::min(per_pass, s.virtual_windows) - 1);
  const uint32_t sentinel = uint32_t((uint64_t{1} << key_bits) - 1);
  const uint32_t buckets = (1u << (s.c - 1)) + 1;
  for (uint32_t q0 = 0, i = 0; q0 < s.windows; ++i) {
    Pass pass = make_pass(order, s.windows, q0, per_pass);
    pass.continues_all = continues_all;
    const size_t entries = size_t(pass.qc) * n;
    std::vector<uint32_t> keys(entries, 0xdeadbeef), vals(entries, 0xdeadbeef);
    for (size_t i = 0; i < n; ++i)
      digits_of(ScalarOf<F>::from_host(scalars[i]), i, n, s.c, s.windows, order, pass, sentinel, keys.data(),
                vals.data());
    std::vector<size_t> idx(entries);
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
    std::vector<uint32_t> k2(entries), v2(entries);
    for (size_t e = 0; e < entries; ++e) k2[e] = keys[idx[e]], v2[e] = vals[idx[e]];
    const uint32_t valid = uint32_t(lower_bound(k2.data(), entries, sentinel));
    const uint32_t threads = lane_count;
    const uint32_t chunks = lanes == Lanes::kXyzz ? threads : threads * 4;
    // Group sums poisoned (a group read where group_heads did not write it shows).
    std::vector<Xyzz<F>> head(chunks), tail(chunks), group(head_groups(chunks), Xyzz<F>{F::one(), F::one(), F::one(), F::one()});
    // The buckets' runs as run_bounds_kernel marks them (zeroed first, as the driver does).
    std::vector<uint32_t> lo(size_t(pass.vc) * buckets, 0), hi(size_t(pass.vc) * buckets, 0);
    for (size_t e = 0; e < valid; ++e) mark_run_bounds(k2.data(), valid, e, s.c, buckets, lo.data(), hi.data());
    ChunkArgs<F> a{k2.data(), v2.data(), reinterpret_cast<const Affine<F>*>(pts.data()),
                   &valid,    s.c,       buckets,
                   chunks,    pass,      reinterpret_cast<Xyzz<F>*>(out.data()) + size_t(pass.v0) * buckets,
                   head.data(), tail.data(), lo.data(),
                   hi.data(),   group.data()};
    if (lanes == Lanes::kXyzz) {
      for (uint32_t t = 0; t < threads; ++t) chunk_xyzz(a, t);
    } else {  // the kernels of launch_chunk_affine in order, 4 lanes a thread
      // The lanes' state poisoned: a lane must set whatever it reads.
      std::vector<uint8_t> state(affine_state_bytes<F>(chunks, threads), 0xa5);
      const AffineState<F> st = affine_state<F>(state.data(), chunks, threads);
      // Continue = true wherever a bucket may continue, as the launcher picks (and once more
      // where none does: the general kernel must agree).
      const bool cont = may_continue(pass) || i % 2 == 1;
      for (uint32_t t = 0; t < threads; ++t) affine_init_lanes(a, st, t, threads, 4);
      // In two halves where the threads split (64 and 70 threads), the second running all its
      // steps after the first's last: the farthest apart the launcher's two streams can get.
      const uint32_t split = lane_split(threads, 8), mid = split ? split : threads;
      for (const LaneRange r : {LaneRange{0, mid}, LaneRange{mid, threads}})
        affine_steps(a, st, threads, r, chunk_length(entries, chunks), cont);
      for (uint32_t t = 0; t < threads; ++t) {
        if (cont) affine_finish_lanes<F, true>(a, st, t, threads, 4);
        else affine_finish_lanes<F, false>(a, st, t, threads, 4);
      }
    }
    for (uint32_t g = 0; g < head_groups(chunks); ++g) group_heads(a, g);
    for (uint32_t k = 0; k < chunks; ++k) fixup_chunk(a, k);
    for (uint32_t t = 0; t < pass.vc * buckets; ++t) clear_if_empty(a, t);
    q0 += pass.qc;
  }
}

// The buckets, poisoned first (a bucket nobody writes shows).
template <class C>
std::vector<ec::Xyzz<C>> poisoned_buckets(const Shape& s) {
  using F = DevF<C>;
  std::vector<ec::Xyzz<C>> out(size_t(s.virtual_windows) * ((1u << (s.c - 1)) + 1));
  for (auto& b : out) b = std::bit_cast<ec::Xyzz<C>>(Xyzz<F>{F::one(), F::one(), F::one(), F::one()});
  return out;
}

template <class C>
std::vector<ec::Xyzz<C>> accumulate(const std::vector<ec::Affine<C>>& pts, const Scalars<C>& scalars, const Shape& s,
                                    Lanes lanes, uint32_t lane_count) {
  std::vector<ec::Xyzz<C>> out = poisoned_buckets<C>(s);
  accumulate_into<C>(pts, scalars, s, lanes, lane_count, out, false);
  return out;
}

// Σ_v 2^(c·v) Σ_j j·B_{v,j} on the host (the reduction and Horner kernels' job).
template <class C>
ec::Jacobian<C> combine(const std::vector<ec::Xyzz<C>>& buckets, const Shape& s) {
  const uint32_t nb = (1u << (s.c - 1)) + 1;
  ec::Jacobian<C> r = ec::Jacobian<C>::infinity();
  for (uint32_t v = s.virtual_windows; v-- > 0;) {
    for (uint32_t d = 0; d < s.c; ++d) r = r.dbl();
    ec::Jacobian<C> running = ec::Jacobian<C>::infinity(), sum = ec::Jacobian<C>::infinity();
    for (uint32_t j = nb; j-- > 1;) {
      running += buckets[size_t(v) * nb + j].to_jacobian();
      sum += running;
    }
    r += sum;
  }
  return r;
}

template <class C>
void expect_msm(const std::vector<ec::Affine<C>>& bases, const Scalars<C>& scalars, const Shape& s,
                const std::string& what, std::initializer_list<uint32_t> lane_counts = {1u, 3u, 64u, 70u}) {
  const auto want = msm::msm<C>(bases, scalars);
  const auto pts = virtual_points<C>(bases, s);
  for (Lanes l : {Lanes::kXyzz, Lanes::kAffine})
    for (uint32_t lanes : lane_counts) {
      const auto buckets = accumulate<C>(pts, scalars, s, l, lanes);
      EXPECT_EQ(combine<C>(buckets, s), want)
          << what << (l == Lanes::kXyzz ? " xyzz" : " affine") << " lanes=" << lanes << " c=" << s.c;
    }
}

template <class C>
Scalars<C> random_scalars(std::mt19937_64& g, size_t n) {
  Scalars<C> v(n);
  for (auto& x : v) x = C::Scalar::random(g);
  return v;
}

template <class C>
class MsmAccumulateHostGroups : public ::testing::Test {};
TYPED_TEST_SUITE(MsmAccumulateHostGroups, test::Groups, test::GroupNames);

// G1: sizes 1 .. 257 (n below the window count included) at narrow and wide windows; G2 (each
// addition ~3× dearer on the host) one size at two widths.
TYPED_TEST(MsmAccumulateHostGroups, RandomSizesAndWindows) {
  using C = TypeParam;
  auto g = snarkd::test::current_test_rng();
  if (!kIsPrimeField<DevF<C>>) {
    const auto b = snarkd::test::random_points<C>(g, 45);
    const auto s = random_scalars<C>(g, 45);
    expect_msm<C>(b, s, plain(5), "g2");
    expect_msm<C>(b, s, plain(11), "g2");
    return;
  }
  for (size_t n : {1u, 2u, 7u, 31u, 100u, 257u}) {
    const auto b = snarkd::test::random_points<C>(g, n);
    const auto s = random_scalars<C>(g, n);
    for (uint32_t c : {4u, 7u, 13u}) expect_msm<C>(b, s, plain(c), "n=" + std::to_string(n));
    if (n == 100) expect_msm<C>(b, s, plain(16), "n=100");
  }
}

// Collisions, doublings, cancellations, infinities, 0/1/−1/small scalars.
TYPED_TEST(MsmAccumulateHostGroups, Edges) {
  using C = TypeParam;
  using Fr = typename C::Scalar;
  auto g = snarkd::test::current_test_rng();
  const size_t n = 300;
  auto b = snarkd::test::random_points<C>(g, n);
  Scalars<C> s(n);
  for (size_t i = 0; i < n; ++i) {
    switch (g() % 7) {
      case 0: s[i] = Fr::zero(); break;
      case 1: s[i] = Fr::one(); break;
      case 2: s[i] = -Fr::one(); break;
      case 3: s[i] = Fr::from_u64(g() % 50); break;
      case 4: s[i] = s[i ? i - 1 : 0]; break;  // same scalar as the neighbour: same buckets
      default: s[i] = Fr::random(g);
    }
    if (g() % 9 == 0) b[i] = ec::Affine<C>::infinity();
    if (g() % 5 == 0) b[i] = b[g() % (i + 1)];     // repeated base: P + P in a run
    if (g() % 11 == 0) b[i] = -b[g() % (i + 1)];   // P + (−P) in a run
  }
  expect_msm<C>(b, s, plain(6), "mixed");
  // Every point in one bucket per window: P, P, −P, P... with one scalar (runs span chunks).
  std::vector<ec::Affine<C>> same(97, b[3].is_infinity() ? b[4] : b[3]);
  for (size_t i = 0; i < same.size(); i += 3) same[i] = -same[i];
  expect_msm<C>(same, Scalars<C>(same.size(), Fr::from_u64(12345)), plain(8), "one bucket");
  // P and −P with equal scalars cancel; all zero scalars.
  expect_msm<C>({b[5], -b[5]}, {s[7], s[7]}, plain(4), "P - P");
  expect_msm<C>(std::vector<ec::Affine<C>>(b.begin(), b.begin() + 20), Scalars<C>(20, Fr::zero()), plain(9), "zeros");
}

// The halves split at a multiple of the alignment, the first never smaller, the second never
// empty; below two aligned blocks nothing splits.
TEST(MsmAccumulateHost, LaneSplit) {
  EXPECT_EQ(lane_split(1, 128), 0u);
  EXPECT_EQ(lane_split(128, 128), 0u);
  EXPECT_EQ(lane_split(129, 128), 128u);
  EXPECT_EQ(lane_split(256, 128), 128u);
  EXPECT_EQ(lane_split(257, 128), 256u);
  EXPECT_EQ(lane_split(33792, 128), 16896u);  // G2's one wave on 132 SMs: 132 blocks a half
  EXPECT_EQ(lane_split(67584, 128), 33792u);  // G1's
  EXPECT_EQ(lane_split(70, 8), 40u);
  EXPECT_EQ(lane_split(3, 8), 0u);
  for (uint32_t t = 1; t < 2000; ++t) {
    const uint32_t h = lane_split(t, 32);
    if (h == 0) {
      EXPECT_LE(t, 32u) << t;
      continue;
    }
    EXPECT_EQ(h % 32, 0u) << t;
    EXPECT_GE(h, t - h) << t;
    EXPECT_LT(h, t) << t;
  }
}

// Runs of hundreds of chunks (4-bit windows over 1,500 points, one lane per entry or two) ending
// at every offset within a group of heads: the fix-up's walk over group sums (group_heads) and
// single heads at both ends.
TEST(MsmAccumulateHost, RunsAcrossHeadGroups) {
  using C = ec::G1Config;
  auto g = snarkd::test::current_test_rng();
  const size_t n = 1500;
  const auto b = snarkd::test::random_points<C>(g, n);
  const auto s = random_scalars<C>(g, n);
  Shape one_window = plain(4);
  one_window.max_pass_entries = n;  // a pass per window: runs of ≈ n/9 entries
  expect_msm<C>(b, s, one_window, "long runs", {uint32_t(n), uint32_t(n / 2), 375u});
}

// Passes end where virtual windows start (make_pass): every position once, at most per_pass a
// pass, no more virtual windows a pass than the sort keys have room for, a pass cut short only at
// a window's start, and a window continuing from an earlier pass only where its copies outnumber
// per_pass.
TEST(MsmAccumulateHost, PassesEndAtWindows) {
  for (uint32_t windows : {11u, 13u, 26u, 52u})
    for (uint32_t t = 1; t <= 7; ++t) {
      const uint32_t vw = (windows + t - 1) / t, copies = (windows + vw - 1) / vw;
      const Order order{vw, copies, windows - (copies - 1) * vw};
      for (uint32_t per_pass = 1; per_pass <= windows; ++per_pass) {
        const std::string at = "W=" + std::to_string(windows) + " t=" + std::to_string(copies) +
                               " per_pass=" + std::to_string(per_pass);
        bool any_continues = false;
        for (uint32_t q0 = 0; q0 < windows;) {
          const Pass p = make_pass(order, windows, q0, per_pass);
          ASSERT_GE(p.qc, 1u) << at;
          ASSERT_LE(p.qc, std::min(per_pass, windows - q0)) << at;
          EXPECT_LE(p.vc, std::min(per_pass, vw)) << at;
          const uint32_t end = q0 + p.qc;
          if (p.qc < std::min(per_pass, windows - q0)) {
            EXPECT_EQ(order.position(order.virtual_window(end)), end) << at << " cut at " << end;
            EXPECT_GT(copies, 1u) << at << ": a plain layout's pass cut short";
          }
          if (copies <= per_pass) {
            EXPECT_FALSE(p.continues_v0) << at << " q0=" << q0;
          }
          any_continues = any_continues || p.continues_v0;
          q0 = end;
        }
        EXPECT_EQ(any_continues, per_pass < copies) << at;
      }
    }
}

// Precomputed-table layouts whose passes split a virtual window (continues_v0) or take whole
// ones, and n below the window count.
TEST(MsmAccumulateHost, CopiesAndSplitPasses) {
  auto g = snarkd::test::rng("msm-acc-copies");
  const auto b = snarkd::test::random_points<ec::G1Config>(g, 13);
  const auto s = random_scalars<ec::G1Config>(g, 13);
  // c = 10: W = 26; t = 3 copies → W' = 9; passes of 2 windows (26 entries each).
  expect_msm<ec::G1Config>(b, s, {10, 26, 9, 3, 26}, "copies=3 split passes");
  expect_msm<ec::G1Config>(b, s, {13, 20, 4, 5, 13 * 3}, "copies=5 passes of 3");
  // Passes of whole windows: 3 and 2 copies in passes of up to 4 positions, 5 copies in 6.
  expect_msm<ec::G1Config>(b, s, {10, 26, 9, 3, 13 * 4}, "copies=3 whole-window passes");
  expect_msm<ec::G1Config>(b, s, {13, 20, 4, 5, 13 * 6}, "copies=5 whole-window passes");
  const auto b2 = snarkd::test::random_points<ec::G1Config>(g, 3);
  const auto s2 = random_scalars<ec::G1Config>(g, 3);
  expect_msm<ec::G1Config>(b2, s2, {5, 52, 52, 1, 4}, "n=3 < 52 windows, one window per pass");
}

// One MSM over chunks of points (the streamed H MSM): the first chunk sets the buckets, every
// later one adds to them (continues_all), one reduction at the end — chunks of unequal sizes,
// one chunk, chunks of one point and chunks with passes of one window.
template <class C>
void expect_chunked(std::mt19937_64& g, size_t n, std::vector<size_t> cuts, const Shape& s, const std::string& what) {
  const auto b = snarkd::test::random_points<C>(g, n);
  auto sc = random_scalars<C>(g, n);
  using Fr = typename C::Scalar;
  for (size_t i = 0; i < n; i += 5) sc[i] = i % 10 ? Fr::one() : Fr::zero();
  const auto want = msm::msm<C>(b, sc);
  cuts.push_back(n);
  for (Lanes l : {Lanes::kXyzz, Lanes::kAffine}) {
    std::vector<ec::Xyzz<C>> buckets = poisoned_buckets<C>(s);
    size_t from = 0;
    for (size_t k = 0; k < cuts.size(); ++k) {
      const std::vector<ec::Affine<C>> pts(b.begin() + from, b.begin() + cuts[k]);
      const Scalars<C> part(sc.begin() + from, sc.begin() + cuts[k]);
      accumulate_into<C>(pts, part, s, l, 5, buckets, k > 0);
      from = cuts[k];
    }
    EXPECT_EQ(combine<C>(buckets, s), want) << what << (l == Lanes::kXyzz ? " xyzz" : " affine");
  }
}

TEST(MsmAccumulateHost, BucketsCarriedAcrossChunks) {
  auto g = snarkd::test::rng("msm-acc-chunks");
  expect_chunked<ec::G1Config>(g, 200, {64, 128, 192}, plain(7), "4 equal chunks");
  expect_chunked<ec::G1Config>(g, 150, {1, 2, 100}, plain(6), "chunks of 1, 1, 98, 50");
  expect_chunked<ec::G1Config>(g, 90, {}, plain(9), "one chunk");
  expect_chunked<ec::G1Config>(g, 120, {40, 80}, {8, 32, 32, 1, 50}, "passes of one window");
  expect_chunked<ec::G2Config>(g, 60, {17, 33}, plain(5), "G2");
}

}  // namespace
}  // namespace snarkd::cuda
