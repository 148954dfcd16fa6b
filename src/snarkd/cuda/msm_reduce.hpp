// The GPU MSM's bucket reduction by affine trees (msm_kernels.cuh launches it), written as
// __host__ __device__ code so that tests/cuda/msm_reduce_host_test.cpp runs the kernels' exact
// per-thread steps on the CPU. Host code compiled by g++ can include this header.
//
// A window's weighted sum S = Σ_{j=1}^{H} j·B_j (H = 2^(c−1) buckets) is what the running-sum
// kernel computes with two full XYZZ additions a bucket and two live points a thread: G2's
// kernel sits at 255 registers with one block an SM and ran at 35 % of the product rate (62.8 ms
// of a 2^24 MSM, H100 ncu). Here the buckets form an R × C array, bucket j = 1 + h·C + l
// (C = 2^s, R = H/C), and
//   S = C·Σ_h h·Row_h + Σ_l (l + 1)·Col_l,   Row_h = Σ_l B(h, l),  Col_l = Σ_h B(h, l),
// so every bucket is added twice, as before, but by pairwise trees of affine points: the columns'
// tree halves the rows (log R levels), the rows' tree halves the columns (log C levels), and the
// 2·(R + C) sums are weighted by the running-sum kernel, which is cheap at that size.
//
// Affine additions share one inversion per thread (Montgomery's trick over kTreeBatch pairs):
// 5M + 1S an addition plus a 1/kTreeBatch share of a binary GCD, against XYZZ's 12M + 2S, and a
// thread holds two affine points (G2: 96 words) instead of three XYZZ ones (288). The buckets
// become affine first by the same trick (x = X·(ZZ/ZZZ)², y = Y/ZZZ: 6M + 1S a bucket).
// Every case is exact: infinity on either side (empty buckets, sums that cancel), P + P (a
// doubling: the denominator 2y, whose inverse the trick shares like any other) and P + (−P).
#pragma once
#include <cstddef>
#include <cstdint>

#include "snarkd/cuda/curve.hpp"
#include "snarkd/cuda/field_inverse.hpp"

namespace snarkd::cuda::msm_detail {

// Pairs (and buckets) per thread sharing one inversion, at most: a binary GCD costs ≈ 170
// products' time (H200), so 32 puts its share at ≈ 5 products an addition. A level of fewer than
// kTreeBatch·kTreeThreads pairs takes fewer a thread (tree_batch), down to one: a thread's batch
// is a serial chain, so 32 pairs a thread made every small level cost ≈ 32 additions' latency.
constexpr uint32_t kTreeBatch = 32;
constexpr uint32_t kTreeThreads = 1u << 16;
// The trees stop before a level of fewer pairs (the columns' tree after its first level at the
// least); the gather adds what is left of each row and column, a few points each, in XYZZ.
constexpr size_t kTreeMinPairs = size_t{1} << 16;

SNARKD_HD uint32_t tree_batch(size_t pairs, uint32_t most = kTreeBatch) {
  const size_t b = (pairs + kTreeThreads - 1) / kTreeThreads;
  return b == 0 ? 1 : b > most ? most : uint32_t(b);
}

// The array of one window's buckets 1..H: R rows of C columns, C ≥ R.
struct TreeShape {
  uint32_t s = 0;     // log₂ C
  uint32_t rows = 1;  // R
  uint32_t cols = 1;  // C
  SNARKD_HD size_t size() const { return size_t(rows) * cols; }
};

// For windows of c ≥ 3 bits (H = 2^(c−1) buckets: R ≥ 2, so the columns' tree reads the bucket
// array before the rows' tree sums it in place).
SNARKD_HD TreeShape tree_shape(uint32_t c) {
  const uint32_t b = c - 1, s = (b + 1) / 2;
  return {s, 1u << (b - s), 1u << s};
}

// One level of a tree: pair p = (window v, pair i of group g) adds src[a] and src[a + half] into
// dst[d], where g is fastest (adjacent columns are adjacent in memory for the columns' tree):
//   a = v·src_win + g·src_group + i·src_pair,   d = v·dst_win + g·dst_group + i·dst_pair.
struct TreeLevel {
  size_t pairs = 0;  // in all: windows · groups · per_group
  uint32_t groups = 0, per_group = 0;
  size_t src_win = 0, src_group = 0, src_pair = 0, half = 0;
  size_t dst_win = 0, dst_group = 0, dst_pair = 0;
};

SNARKD_HD void tree_pair(const TreeLevel& L, size_t p, size_t& a, size_t& d) {
  const size_t g = p % L.groups, q = p / L.groups, i = q % L.per_group, v = q / L.per_group;
  a = v * L.src_win + g * L.src_group + i * L.src_pair;
  d = v * L.dst_win + g * L.dst_group + i * L.dst_pair;
}

// Level k of the columns' tree for `windows` windows: level 0 reads the bucket array (R rows) and
// writes row i = rows 2i + 2i+1 into a second array of R/2 rows; later levels add rows i·2^k and
// i·2^k + 2^(k−1) of that array in place. Col_l ends in its row 0.
SNARKD_HD TreeLevel column_level(const TreeShape& t, size_t windows, uint32_t k) {
  const size_t c = t.cols, r2 = t.rows / 2;
  TreeLevel L;
  L.groups = t.cols;
  if (k == 0) {
    L.per_group = uint32_t(r2);
    L.src_win = t.size(), L.src_group = 1, L.src_pair = 2 * c, L.half = c;
    L.dst_win = r2 * c, L.dst_group = 1, L.dst_pair = c;
  } else {
    L.per_group = uint32_t(r2 >> k);
    L.src_win = L.dst_win = r2 * c, L.src_group = L.dst_group = 1;
    L.src_pair = L.dst_pair = (size_t{1} << k) * c, L.half = (size_t{1} << (k - 1)) * c;
  }
  L.pairs = windows * L.groups * L.per_group;
  return L;
}

// Level k of the rows' tree, in place in the bucket array: columns i·2^(k+1) and i·2^(k+1) + 2^k of
// every row. Row_h ends in its column 0.
SNARKD_HD TreeLevel row_level(const TreeShape& t, size_t windows, uint32_t k) {
  TreeLevel L;
  L.groups = t.rows, L.per_group = t.cols >> (k + 1);
  L.src_win = L.dst_win = t.size(), L.src_group = L.dst_group = t.cols;
  L.src_pair = L.dst_pair = size_t{2} << k, L.half = size_t{1} << k;
  L.pairs = windows * L.groups * L.per_group;
  return L;
}

// How many levels each tree runs for `windows` windows: level k of either has windows·R·C/2^(k+1)
// pairs; the columns' tree runs its level 0 whatever its size (it moves the columns' input out of
// the bucket array, which the rows' tree then sums in place).
struct TreeDepth {
  uint32_t columns = 1, rows = 0;
};
SNARKD_HD TreeDepth tree_depth(const TreeShape& t, size_t windows, size_t min_pairs) {
  TreeDepth d;
  const size_t pairs0 = windows * t.size() / 2;
  while ((t.rows >> (d.columns + 1)) > 0 && (pairs0 >> d.columns) >= min_pairs) ++d.columns;
  while (d.rows < t.s && (pairs0 >> d.rows) >= min_pairs) ++d.rows;
  return d;
}

// Bucket j ∈ [1, H] of window v ∈ [0, windows) in the pass's XYZZ buckets (2^(c−1) + 1 a window,
// index 0 unused) for array item v·H + j − 1.
SNARKD_HD size_t tree_bucket(size_t item, const TreeShape& t) {
  const size_t v = item / t.size(), j = item % t.size() + 1;
  return v * (t.size() + 1) + j;
}

// Whether a bucket needs no inversion: infinity, or ZZ = ZZZ = 1 — a run the batch-affine lanes
// summed inside one chunk (emit_affine), most of a G2 2^24 MSM's buckets (≈ 32 entries a bucket
// against chunks of ≈ 100).
template <class F>
SNARKD_HD bool tree_plain(const Xyzz<F>& b) {
  return b.is_infinity() || (b.ZZ == F::one() && b.ZZZ == F::one());
}

// Items [begin, end) of the bucket array from the XYZZ buckets, one inversion for all of them
// (infinity stays (0, 0)). out[i].x holds the trick's prefix product until its turn backward.
template <class F>
SNARKD_HD void tree_to_affine(const Xyzz<F>* buckets, const TreeShape& t, size_t begin, size_t end, Affine<F>* out) {
  F acc = F::one();
  SNARKD_NO_UNROLL
  for (size_t i = begin; i < end; ++i) {
    const Xyzz<F>& b = buckets[tree_bucket(i, t)];
    out[i].x = acc;
    if (!tree_plain(b)) acc = acc * b.ZZZ;
  }
  F inv = inverse_gcd(acc);
  SNARKD_NO_UNROLL
  for (size_t i = end; i-- > begin;) {
    const Xyzz<F> b = buckets[tree_bucket(i, t)];
    if (tree_plain(b)) {
      out[i] = b.is_infinity() ? Affine<F>::infinity() : Affine<F>{b.X, b.Y};
      continue;
    }
    const F zzz_inv = inv * out[i].x;  // 1/ZZZ = 1/Z³
    inv = inv * b.ZZZ;
    const F zz_inv = (zzz_inv * b.ZZ).sqr();  // (Z²/Z³)² = 1/Z²
    out[i] = {b.X * zz_inv, b.Y * zzz_inv};
  }
}

// What P + Q needs: kTake (Q is infinity: P; P is infinity: Q), kCancel (Q = −P: infinity),
// kChord (x_P ≠ x_Q) or kTangent (Q = P: a doubling).
enum TreeCase : uint32_t { kTakeP, kTakeQ, kCancel, kChord, kTangent };

template <class F>
SNARKD_HD TreeCase tree_case(const Affine<F>& p, const Affine<F>& q) {
  if (q.is_infinity()) return kTakeP;
  if (p.is_infinity()) return kTakeQ;
  if (p.x != q.x) return kChord;
  return p.y == q.y ? kTangent : kCancel;  // same x: Q = ±P (no point of these groups has y = 0)
}

// The denominator whose inverse the case needs (1 where it needs none, so the product stays
// invertible): x_Q − x_P for a chord, 2·y_P for a tangent.
template <class F>
SNARKD_HD F tree_denominator(const Affine<F>& p, const Affine<F>& q, TreeCase k) {
  return k == kChord ? q.x - p.x : k == kTangent ? p.y.dbl() : F::one();
}

// P + Q given 1/denominator.
template <class F>
SNARKD_HD Affine<F> tree_sum(const Affine<F>& p, const Affine<F>& q, TreeCase k, const F& den_inv) {
  if (k == kTakeP) return p;
  if (k == kTakeQ) return q;
  if (k == kCancel) return Affine<F>::infinity();
  F lambda;
  if (k == kChord) {
    lambda = (q.y - p.y) * den_inv;
  } else {
    const F xx = p.x.sqr();
    lambda = (xx.dbl() + xx) * den_inv;  // 3x²/(2y): a = 0
  }
  const F x3 = lambda.sqr() - p.x - q.x;
  return {x3, lambda * (p.x - x3) - p.y};
}

// Pairs [begin, end) of level L, one inversion for all: pre[p − begin] keeps the trick's prefix
// products (the caller's kTreeBatch slots). In-place levels read a pair before writing its d = a,
// and no other pair of the level touches a or a + half.
template <class F>
SNARKD_HD void tree_pairs(const Affine<F>* src, Affine<F>* dst, const TreeLevel& L, size_t begin, size_t end,
                          F* pre) {
  F acc = F::one();
  SNARKD_NO_UNROLL
  for (size_t p = begin; p < end; ++p) {
    size_t a, d;
    tree_pair(L, p, a, d);
    const Affine<F> P = src[a], Q = src[a + L.half];
    pre[p - begin] = acc;
    acc = acc * tree_denominator(P, Q, tree_case(P, Q));
  }
  F inv = inverse_gcd(acc);
  SNARKD_NO_UNROLL
  for (size_t p = end; p-- > begin;) {
    size_t a, d;
    tree_pair(L, p, a, d);
    const Affine<F> P = src[a], Q = src[a + L.half];
    const TreeCase k = tree_case(P, Q);
    const F den = tree_denominator(P, Q, k);
    const F den_inv = inv * pre[p - begin];
    inv = inv * den;
    dst[d] = tree_sum(P, Q, k, den_inv);
  }
}

// What the trees leave: after d.rows levels Row_h = Σ_j rows[v·R·C + h·C + j·2^d.rows] over the
// C/2^d.rows live columns; after d.columns levels Col_l = Σ_i cols[v·(R/2)·C + i·2^(d.columns−1)·C
// + l] over the R/2^d.columns live rows of the second array. small gets two windows of `width`
// XYZZ points per window v for the running-sum kernel: 2v holds Col_l at index l + 1, 2v + 1
// holds Row_h at index h; the rest is infinity. Their weighted sums S_C, S_R then give
// S = S_C + 2^s·S_R: Horner over two windows of s bits.
SNARKD_HD uint32_t tree_small_width(const TreeShape& t) { return (t.rows > t.cols ? t.rows : t.cols) + 1; }

template <class F>
SNARKD_HD void tree_gather(const Affine<F>* rows, const Affine<F>* cols, const TreeShape& t, const TreeDepth& d,
                           size_t i, Xyzz<F>* small) {
  const uint32_t w = tree_small_width(t);
  const size_t win = i / w, j = i % w, v = win / 2;
  Xyzz<F> sum = Xyzz<F>::infinity();
  if (win % 2 == 1 && j < t.rows) {
    const Affine<F>* row = rows + v * t.size() + j * t.cols;
    SNARKD_NO_UNROLL
    for (size_t k = 0; k < (t.cols >> d.rows); ++k) sum = sum.add_mixed(row[k << d.rows]);
  }
  if (win % 2 == 0 && j >= 1 && j <= t.cols) {
    const Affine<F>* col = cols + v * (t.rows / 2) * t.cols + j - 1;
    const size_t step = (size_t{1} << (d.columns - 1)) * t.cols;
    SNARKD_NO_UNROLL
    for (size_t k = 0; k < (t.rows >> d.columns); ++k) sum = sum.add_mixed(col[k * step]);
  }
  small[i] = sum;
}

}  // namespace snarkd::cuda::msm_detail
