// The GPU MSM's tree reduction (cuda/msm_reduce.hpp) on the CPU: the kernels' per-thread steps
// (conversion to affine, the columns' and rows' pair levels, the gather) in host loops that cut
// the items into batches the way the grid does, the small windows weighted on the host as the
// running-sum kernel would, against Σ j·B_j computed directly with the host curve code. Buckets
// are XYZZ sums with Z ≠ 1 or affine ones (Z = 1: a run inside one chunk), and the cases are
// placed where the trees meet them: empty buckets, a bucket equal to its partner (a doubling; the
// same point with another Z), its negation (a sum that cancels and then meets other sums and
// infinities on later levels), whole empty rows and columns, every window width from 3 to 13
// bits, batches of 1, 3 and 32, and trees stopped after every number of levels (the gather
// adding the rest).
#include <gtest/gtest.h>

#include <bit>
#include <random>
#include <string>
#include <vector>

#include "common/ec_util.hpp"
#include "common/seed.hpp"
#include "group_names.hpp"
#include "snarkd/cuda/msm_reduce.hpp"
#include "snarkd/ec/bn254.hpp"
#include "snarkd/ec/g1.hpp"
#include "snarkd/ec/g2.hpp"

namespace snarkd::cuda {
namespace {

using namespace msm_detail;

template <class C>
using DevF = DeviceFieldOf<C>;

// The reduction's host run: per window Σ_{j=1}^{H} j·B_j, buckets laid out as the MSM's pass
// buckets (H + 1 a window, index 0 unused).
template <class C>
std::vector<ec::Jacobian<C>> tree_reduce(const std::vector<ec::Xyzz<C>>& host_buckets, uint32_t c, size_t windows,
                                         size_t batch, TreeDepth d) {
  using F = DevF<C>;
  const auto* buckets = reinterpret_cast<const Xyzz<F>*>(host_buckets.data());
  const TreeShape t = tree_shape(c);
  const size_t items = windows * t.size();
  std::vector<Affine<F>> a(items), b(windows * (t.rows / 2) * t.cols);
  std::vector<F> pre(batch);
  auto each_batch = [batch](size_t n, auto&& fn) {
    for (size_t begin = 0; begin < n; begin += batch) fn(begin, std::min(n, begin + batch));
  };
  each_batch(items, [&](size_t lo, size_t hi) { tree_to_affine(buckets, t, lo, hi, a.data()); });
  for (uint32_t k = 0; k < d.columns; ++k) {
    const TreeLevel L = column_level(t, windows, k);
    const Affine<F>* src = k == 0 ? a.data() : b.data();
    each_batch(L.pairs, [&](size_t lo, size_t hi) { tree_pairs(src, b.data(), L, lo, hi, pre.data()); });
  }
  for (uint32_t k = 0; k < d.rows; ++k) {
    const TreeLevel L = row_level(t, windows, k);
    each_batch(L.pairs, [&](size_t lo, size_t hi) { tree_pairs(a.data(), a.data(), L, lo, hi, pre.data()); });
  }
  const uint32_t w = tree_small_width(t);
  std::vector<Xyzz<F>> small(2 * windows * w);
  for (size_t i = 0; i < small.size(); ++i)
    tree_gather(a.data(), b.data(), t, d, i, small.data());
  std::vector<ec::Jacobian<C>> out;
  for (size_t v = 0; v < windows; ++v) {
    ec::Jacobian<C> part[2];
    for (int h = 0; h < 2; ++h) {
      ec::Jacobian<C> running = ec::Jacobian<C>::infinity(), sum = ec::Jacobian<C>::infinity();
      for (uint32_t j = w; j-- > 1;) {
        running += std::bit_cast<ec::Xyzz<C>>(small[(2 * v + h) * w + j]).to_jacobian();
        sum += running;
      }
      part[h] = sum;
    }
    for (uint32_t d = 0; d < t.s; ++d) part[1] = part[1].dbl();  // S_C + C·S_R
    out.push_back(part[0] + part[1]);
  }
  return out;
}

template <class C>
std::vector<ec::Jacobian<C>> direct(const std::vector<ec::Xyzz<C>>& buckets, uint32_t c, size_t windows) {
  const size_t nb = (size_t{1} << (c - 1)) + 1;
  std::vector<ec::Jacobian<C>> out;
  for (size_t v = 0; v < windows; ++v) {
    ec::Jacobian<C> running = ec::Jacobian<C>::infinity(), sum = ec::Jacobian<C>::infinity();
    for (size_t j = nb; j-- > 1;) {
      running += buckets[v * nb + j].to_jacobian();
      sum += running;
    }
    out.push_back(sum);
  }
  return out;
}

// The bucket array's item (h, l) of window v is bucket 1 + h·C + l.
size_t bucket_at(const TreeShape& t, size_t v, size_t h, size_t l) { return v * (t.size() + 1) + 1 + h * t.cols + l; }

template <class C>
std::vector<ec::Xyzz<C>> random_buckets(std::mt19937_64& g, uint32_t c, size_t windows) {
  const TreeShape t = tree_shape(c);
  const size_t nb = t.size() + 1;
  std::vector<ec::Xyzz<C>> b = snarkd::test::random_xyzz<C>(g, windows * nb);  // as accumulations leave them
  for (size_t v = 0; v < windows; ++v) {
    b[v * nb] = b[0];  // index 0 is never read: a poison (a random point)
    std::uniform_int_distribution<size_t> h(0, t.rows - 1), l(0, t.cols - 1);
    for (int k = 0; k < 8; ++k) {
      const size_t r = h(g), q = l(g), partner_row = r ^ 1, partner_col = q ^ 1;
      const ec::Xyzz<C> same = b[bucket_at(t, v, r, q)];
      switch (k % 4) {
        case 0: b[bucket_at(t, v, r, q)] = ec::Xyzz<C>::infinity(); break;
        case 3:  // a run summed inside one chunk (ZZ = ZZZ = 1), and the same point with Z ≠ 1 beside it
          b[bucket_at(t, v, r, q)] = ec::Xyzz<C>::from_affine(same.to_affine());
          b[bucket_at(t, v, r, partner_col)] = same;
          b[bucket_at(t, v, partner_row, q)] = -ec::Xyzz<C>::from_affine(same.to_affine());
          break;
        case 1:
          b[bucket_at(t, v, partner_row, q)] = -same;  // cancels in the columns' tree
          b[bucket_at(t, v, r, partner_col)] = same.dbl() + (-same);   // = same, another Z: a doubling
          break;
        default:
          b[bucket_at(t, v, partner_row, q)] = same;
          b[bucket_at(t, v, r, partner_col)] = -same;
          break;
      }
    }
  }
  return b;
}

template <class C>
class MsmReduceHost : public ::testing::Test {};
TYPED_TEST_SUITE(MsmReduceHost, test::Groups, test::GroupNames);

TYPED_TEST(MsmReduceHost, TreesEqualRunningSums) {
  using C = TypeParam;
  auto g = snarkd::test::current_test_rng();
  for (uint32_t c : {3u, 4u, 5u, 8u, 9u, 12u, 13u}) {
    if (!kIsPrimeField<DevF<C>> && c > 9) continue;  // G2 host arithmetic is slow; 8 and 9 cover both shapes
    const size_t windows = c <= 5 ? 3 : c <= 9 ? 2 : 1;
    const auto b = random_buckets<C>(g, c, windows);
    const auto want = direct<C>(b, c, windows);
    const TreeShape t = tree_shape(c);
    for (size_t batch : {size_t{1}, size_t{3}, size_t{kTreeBatch}}) {
      if (c > 9 && batch != kTreeBatch) continue;
      EXPECT_EQ(tree_reduce<C>(b, c, windows, batch, tree_depth(t, windows, 1)), want)
          << "c=" << c << " batch=" << batch << " whole trees";
    }
    // Trees stopped early (what kTreeMinPairs does at 2^19 buckets), the gather adding the rest.
    for (uint32_t min_pairs : {1u, 3u, 8u, 40u, 1000u}) {
      const TreeDepth d = tree_depth(t, windows, min_pairs);
      EXPECT_EQ(tree_reduce<C>(b, c, windows, 3, d), want)
          << "c=" << c << " depth " << d.columns << "/" << d.rows << " (min pairs " << min_pairs << ")";
    }
  }
}

// Whole empty rows, an empty column, an empty window and a window of one bucket: sums that
// meet infinity on every level of both trees.
TYPED_TEST(MsmReduceHost, EmptyRowsColumnsAndWindows) {
  using C = TypeParam;
  auto g = snarkd::test::current_test_rng();
  const uint32_t c = 7;
  const TreeShape t = tree_shape(c);
  auto b = random_buckets<C>(g, c, 4);
  for (size_t l = 0; l < t.cols; ++l) b[bucket_at(t, 0, 1, l)] = ec::Xyzz<C>::infinity();
  for (size_t h = 0; h < t.rows; ++h) b[bucket_at(t, 0, h, 2)] = ec::Xyzz<C>::infinity();
  for (size_t j = 1; j <= t.size(); ++j) b[bucket_at(t, 1, 0, 0) + j - 1] = ec::Xyzz<C>::infinity();
  for (size_t j = 1; j <= t.size(); ++j) b[bucket_at(t, 2, 0, 0) + j - 1] = ec::Xyzz<C>::infinity();
  b[bucket_at(t, 2, t.rows - 1, t.cols - 1)] = b[bucket_at(t, 3, 0, 0)];  // only the top bucket
  const auto want = direct<C>(b, c, 4);
  EXPECT_TRUE(want[1].is_infinity());
  for (size_t batch : {size_t{1}, size_t{5}, size_t{kTreeBatch}})
    for (uint32_t min_pairs : {1u, 20u, 100u, 1000u}) {
      const TreeDepth d = tree_depth(t, 4, min_pairs);
      EXPECT_EQ(tree_reduce<C>(b, c, 4, batch, d), want) << "batch=" << batch << " min pairs " << min_pairs;
    }
}

TEST(MsmReduceHostShape, BatchesShrinkWithTheLevel) {
  EXPECT_EQ(tree_batch(0), 1u);
  EXPECT_EQ(tree_batch(kTreeThreads), 1u);
  EXPECT_EQ(tree_batch(kTreeThreads + 1), 2u);
  EXPECT_EQ(tree_batch(size_t{3} * kTreeThreads), 3u);
  EXPECT_EQ(tree_batch(size_t{1} << 40), kTreeBatch);
  EXPECT_EQ(tree_batch(size_t{1} << 40, 64), 64u);
  EXPECT_EQ(tree_batch(size_t{5} * kTreeThreads, 4), 4u);
}

TEST(MsmReduceHostShape, LevelsCoverEveryItemOnce) {
  for (uint32_t c = 3; c <= 24; ++c) {
    const TreeShape t = tree_shape(c);
    ASSERT_EQ(t.size(), size_t{1} << (c - 1)) << c;
    ASSERT_GE(t.cols, t.rows) << c;
    ASSERT_LE(t.cols, 2 * t.rows) << c;
    const TreeDepth whole = tree_depth(t, 2, 1), none = tree_depth(t, 2, size_t{1} << 40);
    ASSERT_EQ(size_t{1} << whole.columns, t.rows) << c;
    ASSERT_EQ(whole.rows, t.s) << c;
    ASSERT_EQ(none.columns, 1u) << c;  // the columns' tree's first level runs whatever its size
    ASSERT_EQ(none.rows, 0u) << c;
    if (c > 14) continue;
    const size_t windows = 3;
    // Every level reads each live item of its array exactly once and writes where the next reads.
    const size_t second = windows * (t.rows / 2) * t.cols;
    for (uint32_t k = 0; (t.rows >> (k + 1)) > 0; ++k) {
      const TreeLevel L = column_level(t, windows, k);
      std::vector<int> seen(k == 0 ? windows * t.size() : second, 0);
      for (size_t p = 0; p < L.pairs; ++p) {
        size_t a, d;
        tree_pair(L, p, a, d);
        ++seen[a], ++seen[a + L.half];
        if (k > 0) {
          ASSERT_EQ(d, a);
        }
      }
      for (size_t i = 0; i < seen.size(); ++i) {
        const bool want = k == 0 || (i % ((t.rows / 2) * t.cols)) / t.cols % (size_t{1} << (k - 1)) == 0;
        ASSERT_EQ(seen[i], want ? 1 : 0) << "column level " << k << " item " << i << " c=" << c;
      }
    }
    for (uint32_t k = 0; k < t.s; ++k) {
      const TreeLevel L = row_level(t, windows, k);
      std::vector<int> seen(windows * t.size(), 0);
      for (size_t p = 0; p < L.pairs; ++p) {
        size_t a, d;
        tree_pair(L, p, a, d);
        ASSERT_EQ(d, a);
        ++seen[a], ++seen[a + L.half];
      }
      for (size_t i = 0; i < seen.size(); ++i)
        ASSERT_EQ(seen[i], (i % t.cols) % (size_t{1} << k) == 0 ? 1 : 0) << "row level " << k << " c=" << c;
    }
  }
}

}  // namespace
}  // namespace snarkd::cuda
