// The NTT's passes with AVX-512 IFMA: eight independent sub-transforms at once, one per lane.
//
// The schedule is ntt.cpp's (passes over index bits [lo, hi), radix-4 butterflies, DIF from the
// top pass down, DIT upwards), but every pass moves its data into a lane buffer first: 2^a rows
// of Fr8 (eight elements in radix 2^52, ff/fr_avx512.hpp), transforms it there, and writes it
// back reduced to the 64-bit layout. The conversion is paid once per pass, not per butterfly
// (per-product conversions are what sank the AVX2 attempt, docs/PERFORMANCE.md). Lanes are:
//  - bottom pass (lo = 0): eight consecutive blocks of 2^a elements; every lane uses the same
//    twiddles, broadcast from the radix-2^52 leaf table, and twiddle 1 is skipped;
//  - other passes: eight adjacent columns c0..c0+7 (elements c + 2^lo·r of a block of 2^hi);
//    column c's level-s twiddles are ω_{2^(lo+s+1)}^c · ω_{2^(s+1)}^j, built per item as a
//    lane table (2^a − 1 lane products for 8·2^a elements: ≈ 2/a of the butterflies' products).
// Values stay below 2r inside a pass; differences that only feed a product are left below 4r
// (sub_lazy), saving a reduction in half of the butterfly's outputs.
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <new>
#include <stdexcept>

#include "snarkd/ff/fr_avx512.hpp"
#include "snarkd/poly/ntt_detail.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::poly::detail {

std::vector<uint64_t> avx512_leaf(const Twiddles& tw, uint32_t levels) {
  const size_t count = (size_t{1} << levels) - 1;
  std::vector<uint64_t> out(count * ff::avx512::kLimbs52);
  for (size_t i = 0; i < count; ++i) {
    const auto s = ff::avx512::split52(ff::avx512::scaled16(tw.leaf[i]).montgomery());
    std::copy(s.begin(), s.end(), out.begin() + i * ff::avx512::kLimbs52);
  }
  return out;
}

#ifdef SNARKD_HAVE_AVX512_IFMA_CODE
namespace {

namespace vx = ff::avx512;
using vx::Fr8;

constexpr size_t kLanes = 8;

// Uninitialised 64-byte-aligned rows of Fr8 (trivial type; no constructors to run).
struct LaneBuffer {
  struct Free {
    void operator()(Fr8* p) const { std::free(p); }
  };
  std::unique_ptr<Fr8, Free> p;
  explicit LaneBuffer(size_t rows)
      : p(static_cast<Fr8*>(std::aligned_alloc(64, std::max<size_t>(rows, 1) * sizeof(Fr8)))) {
    if (!p) throw std::bad_alloc();
  }
  Fr8* get() const { return p.get(); }
};

// Twiddle sources: index i is entry i of a level table (level s at [2^s − 1, 2^(s+1) − 1)).
// kUnitFirst: each level's twiddle 0 is 1 (the standard table), so j = 0 skips its products.
struct SharedTwiddles {  // the same in every lane, broadcast from the radix-2^52 leaf table
  static constexpr bool kUnitFirst = true;
  const uint64_t* words;
  SNARKD_AVX512_INLINE Fr8 operator[](size_t i) const {
    Fr8 out;
    for (size_t k = 0; k < vx::kLimbs52; ++k) out.v[k] = vx::bcast(words[vx::kLimbs52 * i + k]);
    return out;
  }
};
struct LaneTwiddles {  // one per lane
  static constexpr bool kUnitFirst = false;
  const Fr8* t;
  SNARKD_AVX512_INLINE const Fr8& operator[](size_t i) const { return t[i]; }
};

// Radix-4 butterflies as in ntt.cpp (dif4 / dit4 / first4), in lanes and with lazy differences.
SNARKD_AVX512_INLINE void dif4(Fr8* x, size_t q, const Fr8& w0, const Fr8& w1, const Fr8& w2) {
  const Fr8 a0 = x[0], a1 = x[q], a2 = x[2 * q], a3 = x[3 * q];
  const Fr8 b0 = vx::add(a0, a2), b1 = vx::add(a1, a3);
  const Fr8 b2 = vx::mul(vx::sub_lazy(a0, a2), w0), b3 = vx::mul(vx::sub_lazy(a1, a3), w1);
  x[0] = vx::add(b0, b1);
  x[q] = vx::mul(vx::sub_lazy(b0, b1), w2);
  x[2 * q] = vx::add(b2, b3);
  x[3 * q] = vx::mul(vx::sub_lazy(b2, b3), w2);
}
SNARKD_AVX512_INLINE void dit4(Fr8* x, size_t q, const Fr8& w0, const Fr8& w1, const Fr8& w2) {
  const Fr8 a0 = x[0], a2 = x[2 * q], c1 = vx::mul(x[q], w2), c3 = vx::mul(x[3 * q], w2);
  const Fr8 b0 = vx::add(a0, c1), b1 = vx::sub(a0, c1);
  const Fr8 d2 = vx::mul(vx::add_lazy(a2, c3), w0), d3 = vx::mul(vx::sub_lazy(a2, c3), w1);
  x[0] = vx::add(b0, d2);
  x[2 * q] = vx::sub(b0, d2);
  x[q] = vx::add(b1, d3);
  x[3 * q] = vx::sub(b1, d3);
}
// j = 0 with unit level twiddles (w0 = w2 = 1): one product instead of four.
template <bool kDif>
SNARKD_AVX512_INLINE void first4(Fr8* x, size_t q, const Fr8& w1) {
  const Fr8 a0 = x[0], a1 = x[q], a2 = x[2 * q], a3 = x[3 * q];
  if constexpr (kDif) {
    const Fr8 b0 = vx::add(a0, a2), b1 = vx::add(a1, a3), b2 = vx::sub(a0, a2);
    const Fr8 b3 = vx::mul(vx::sub_lazy(a1, a3), w1);
    x[0] = vx::add(b0, b1);
    x[q] = vx::sub(b0, b1);
    x[2 * q] = vx::add(b2, b3);
    x[3 * q] = vx::sub(b2, b3);
  } else {
    const Fr8 b0 = vx::add(a0, a1), b1 = vx::sub(a0, a1), b2 = vx::add(a2, a3);
    const Fr8 b3 = vx::mul(vx::sub_lazy(a2, a3), w1);
    x[0] = vx::add(b0, b2);
    x[2 * q] = vx::sub(b0, b2);
    x[q] = vx::add(b1, b3);
    x[3 * q] = vx::sub(b1, b3);
  }
}

// One radix-2 level of half-width h over rows [0, len) (once, when a pass's level count is odd).
template <bool kDif, class T>
SNARKD_AVX512_TARGET void radix2_level(Fr8* x, size_t len, size_t h, const T& tw) {
  for (Fr8* blk = x; blk != x + len; blk += 2 * h) {
    for (size_t j = 0; j < h; ++j) {
      const Fr8 u = blk[j], v = blk[j + h];
      if (T::kUnitFirst && j == 0) {
        blk[0] = vx::add(u, v);
        blk[h] = vx::sub(u, v);
      } else if constexpr (kDif) {
        blk[j] = vx::add(u, v);
        blk[j + h] = vx::mul(vx::sub_lazy(u, v), tw[h - 1 + j]);
      } else {
        const Fr8 vt = vx::mul(v, tw[h - 1 + j]);
        blk[j] = vx::add(u, vt);
        blk[j + h] = vx::sub(u, vt);
      }
    }
  }
}

// Levels with half-widths 2q and q over rows [0, len) in one sweep.
template <bool kDif, class T>
SNARKD_AVX512_TARGET void radix4_levels(Fr8* x, size_t len, size_t q, const T& tw) {
  for (Fr8* blk = x; blk != x + len; blk += 4 * q) {
    size_t j = 0;
    if constexpr (T::kUnitFirst) {
      first4<kDif>(blk, q, tw[2 * q - 1 + q]);
      j = 1;
    }
    for (; j < q; ++j) {
      const Fr8 w0 = tw[2 * q - 1 + j], w1 = tw[2 * q - 1 + j + q], w2 = tw[q - 1 + j];
      if constexpr (kDif)
        dif4(blk + j, q, w0, w1, w2);
      else
        dit4(blk + j, q, w0, w1, w2);
    }
  }
}

// All levels of a pass on 2^a rows: DIF from the top level down (an odd top level alone), DIT
// upwards (an odd bottom level alone).
template <class T>
SNARKD_AVX512_TARGET void run_levels(Fr8* x, uint32_t a, const T& tw, bool dif) {
  const size_t len = size_t{1} << a;
  if (dif) {
    uint32_t s = a;
    if (s % 2 == 1) radix2_level<true>(x, len, size_t{1} << --s, tw);
    for (; s >= 2; s -= 2) radix4_levels<true>(x, len, size_t{1} << (s - 2), tw);
  } else {
    uint32_t s = 0;
    if (a % 2 == 1) radix2_level<false>(x, len, 1, tw), s = 1;
    for (; s + 2 <= a; s += 2) radix4_levels<false>(x, len, size_t{1} << s, tw);
  }
}

// Bottom pass items [begin, end): item b covers blocks 8b..8b+7 of 2^a elements, lane l = block
// 8b + l; row r of the lane buffer is element r of each block.
SNARKD_AVX512_TARGET void bottom_items(const Twiddles& tw, Fr* data, uint32_t a, bool dif,
                                       const Fr* scale, size_t begin, size_t end) {
  const size_t rows = size_t{1} << a;
  LaneBuffer buf(rows);
  Fr8* x = buf.get();
  const SharedTwiddles shared{tw.leaf52.data()};
  Fr8 s;
  if (scale) s = vx::broadcast(vx::scaled16(*scale));
  for (size_t item = begin; item < end; ++item) {
    Fr* base = data + item * kLanes * rows;
    for (size_t r = 0; r < rows; ++r) x[r] = vx::load_strided(base + r, rows);
    run_levels(x, a, shared, dif);
    if (scale)
      for (size_t r = 0; r < rows; ++r) x[r] = vx::mul(x[r], s);
    for (size_t r = 0; r < rows; ++r) vx::store_strided(base + r, rows, x[r]);
  }
}

// Lane twiddles of columns c0..c0+7 of a pass over bits [lo, lo + a): level s, entry j is
// ω_{2^(lo+s+1)}^c · leaf_s[j], from w = (ω_{2^(lo+a)}^c)·16 per lane, squared level by level.
SNARKD_AVX512_TARGET void column_twiddles(const Twiddles& tw, uint32_t a, Fr8 w, Fr8* out) {
  const SharedTwiddles leaf{tw.leaf52.data()};
  for (uint32_t s = a; s-- > 0;) {
    const size_t h = size_t{1} << s;
    Fr8* level = out + h - 1;
    level[0] = w;
    for (size_t j = 1; j < h; ++j) level[j] = vx::mul(w, leaf[h - 1 + j]);
    w = vx::mul(w, w);
  }
}

// Lane factors c·g^(k0 + l) and the row step g^stride of a geometric scaling (see Geometric)
// for eight adjacent columns whose row 0 starts at natural index k0.
struct LaneGeometric {
  Fr8 start, step;
};
SNARKD_AVX512_TARGET LaneGeometric lane_geometric(const Geometric& geo, size_t k0, size_t stride) {
  Fr f[kLanes];
  f[0] = vx::scaled16(geo.c * geo.g.pow(uint64_t{k0}));
  for (size_t l = 1; l < kLanes; ++l) f[l] = f[l - 1] * geo.g;
  const Fr step = vx::scaled16(geo.g.pow(uint64_t{stride}));
  return {vx::load_contiguous(f), vx::broadcast(step)};
}

// Other passes' items [begin, end): item = (group of eight adjacent columns, block of 2^hi),
// blocks varying fastest so that consecutive items share their columns' twiddles (a middle
// pass of 2^27 = 2^9 · 2^9 · 2^9 builds them once per 512 blocks instead of per block).
// geo (top pass only, may be null) scales the rows as they are loaded (DIF) or stored (DIT).
SNARKD_AVX512_TARGET void column_items(const Twiddles& tw, Fr* data, size_t n, Pass p, bool dif,
                                       const Geometric* geo, size_t begin, size_t end) {
  const uint32_t a = p.hi - p.lo;
  const size_t rows = size_t{1} << a, stride = size_t{1} << p.lo, blocks = n >> p.hi;
  LaneBuffer buf(rows), twiddles(rows - 1);
  Fr8* x = buf.get();
  const Fr& step = tw.roots[p.hi];  // column c's top-level twiddle base is step^c
  Fr lane_step[kLanes], w[kLanes];
  lane_step[0] = vx::scaled16(Fr::one());
  for (size_t l = 1; l < kLanes; ++l) lane_step[l] = lane_step[l - 1] * step;
  for (size_t item = begin; item < end; ++item) {
    const size_t c0 = (item / blocks) * kLanes, k0 = ((item % blocks) << p.hi) + c0;
    if (item == begin || item % blocks == 0) {  // new columns
      const Fr w0 = step.pow(uint64_t{c0});
      for (size_t l = 0; l < kLanes; ++l) w[l] = w0 * lane_step[l];
      column_twiddles(tw, a, vx::load_contiguous(w), twiddles.get());
    }
    Fr* base = data + k0;
    LaneGeometric f;
    if (geo) f = lane_geometric(*geo, k0, stride);
    for (size_t r = 0; r < rows; ++r) {
      x[r] = vx::load_contiguous(base + r * stride);
      if (geo && dif) x[r] = vx::mul(x[r], f.start), f.start = vx::mul(f.start, f.step);
    }
    run_levels(x, a, LaneTwiddles{twiddles.get()}, dif);
    for (size_t r = 0; r < rows; ++r) {
      if (geo && !dif) x[r] = vx::mul(x[r], f.start), f.start = vx::mul(f.start, f.step);
      vx::store_contiguous(base + r * stride, x[r]);
    }
  }
}

}  // namespace

void avx512_transform(const Twiddles& tw, std::span<Fr> data, uint32_t log_n, bool dif,
                      const Fr* scale, const Geometric* geo) {
  if (!avx512_applies(log_n, tw.leaf_log) || !vx::ifma_supported())
    throw InvalidArgument("avx512_transform: needs log_n >= 6, pass_log >= 3 and an AVX-512 IFMA CPU");
  const uint32_t most = std::min(tw.leaf_log, kAvx512MaxPassLog);
  std::vector<Pass> passes = plan(log_n, std::max<uint32_t>(2, (log_n + most - 1) / most));
  if (passes.front().hi < 3 || log_n - passes.front().hi < 3)  // see kAvx512MinLog
    throw std::logic_error("avx512_transform: a pass without eight lanes");
  if (dif) std::reverse(passes.begin(), passes.end());
  for (const Pass& p : passes) {
    if (p.lo == 0) {
      const size_t items = data.size() >> (p.hi + 3);
      parallel_for(items, [&](size_t b, size_t e) { bottom_items(tw, data.data(), p.hi, dif, scale, b, e); },
                   task_parts());
    } else {
      const size_t items = (data.size() >> p.hi) * ((size_t{1} << p.lo) / kLanes);
      const Geometric* g = p.hi == log_n ? geo : nullptr;
      parallel_for(items,
                   [&](size_t b, size_t e) { column_items(tw, data.data(), data.size(), p, dif, g, b, e); },
                   task_parts());
    }
  }
}
#else
void avx512_transform(const Twiddles&, std::span<Fr>, uint32_t, bool, const Fr*, const Geometric*) {
  throw InvalidArgument("avx512_transform: this build has no AVX-512 code");
}
#endif

}  // namespace snarkd::poly::detail
