// Fixed-base scalar multiplication: many scalars times one base (Groth16 setup computes every
// query point as v·G1 or v·G2 for millions of field values v; tools/dev_ptau every point of a
// BN254 powers-of-tau file). Scalars are C::Scalar, the group order's field.
//
// The table holds d·2^(8w)·B for each 8-bit window w < 32 and digit d in [1, 255] (32·255
// affine points: 0.78 MB for G1, 1.6 MB for G2). A 255-bit scalar then costs at most 32 mixed
// additions and no doublings, against ~255 doublings + 64 additions for a windowed
// double-and-add: about 8× fewer group operations. mul_many also keeps its accumulators affine
// and shares one inversion among many additions (see mul_chunk), ≈ 1.7× cheaper again.
// Generic over the curve C; scalars are its C::Scalar (BLS12-381's or BN254's Fr).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "snarkd/ec/curve.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::ec {

template <class C>
class FixedBaseTable {
 public:
  using Scalar = typename C::Scalar;
  static constexpr size_t kWindowBits = 8;
  static constexpr size_t kDigits = (size_t{1} << kWindowBits) - 1;  // non-zero digits
  static constexpr size_t kWindows = (Scalar::kBits + kWindowBits - 1) / kWindowBits;

  explicit FixedBaseTable(const Affine<C>& base) {
    std::vector<Jacobian<C>> jac(kWindows * kDigits);
    Affine<C> window_base = base;  // 2^(8w)·B, one inversion per window
    for (size_t w = 0; w < kWindows; ++w) {
      Jacobian<C> acc = Jacobian<C>::from_affine(window_base);
      for (size_t d = 0; d < kDigits; ++d) {
        jac[w * kDigits + d] = acc;
        acc = acc.add_mixed(window_base);
      }
      window_base = acc.to_affine();  // (kDigits + 1)·2^(8w)·B = 2^(8(w+1))·B
    }
    table_ = batch_to_affine<C>(jac);
  }

  // s·B for one scalar.
  Jacobian<C> mul(const Scalar& s) const {
    const auto k = s.to_repr();
    Jacobian<C> acc = Jacobian<C>::infinity();
    for (size_t w = 0; w < kWindows; ++w) {
      const size_t bit = w * kWindowBits;
      const uint64_t digit = (k.limb[bit / 64] >> (bit % 64)) & kDigits;  // windows never straddle limbs
      if (digit != 0) acc = acc.add_mixed(table_[w * kDigits + digit - 1]);
    }
    return acc;
  }

  // out[i] = scalars[i]·B, in parallel on the global pool: each task runs mul_chunk over
  // kChunk scalars at a time.
  std::vector<Affine<C>> mul_many(std::span<const Scalar> scalars) const {
    std::vector<Affine<C>> out(scalars.size());
    parallel_for(scalars.size(), [&](size_t begin, size_t end) {
      ChunkScratch scratch;
      for (size_t c = begin; c < end; c += kChunk) {
        const size_t len = c + kChunk < end ? kChunk : end - c;
        mul_chunk(scalars.subspan(c, len), std::span<Affine<C>>(out).subspan(c, len), scratch);
      }
    });
    return out;
  }

 private:
  using F = typename C::Field;
  // Accumulators per batch: one inversion per window amortised over 1024 additions (≈ 0.4
  // products each); the accumulators, slopes and prefix products (≈ 130 KiB for G1, 260 KiB
  // for G2) stay in L2.
  static constexpr size_t kChunk = 1024;
  struct ChunkScratch {
    std::vector<typename Scalar::Repr> k;
    std::vector<F> den, prefix;
    std::vector<uint32_t> who;
  };

  uint64_t digit(const typename Scalar::Repr& k, size_t w) const {
    const size_t bit = w * kWindowBits;
    return (k.limb[bit / 64] >> (bit % 64)) & kDigits;  // windows never straddle limbs
  }

  // acc[i] = s[i]·B with the accumulators kept affine: window by window, the table point is
  // added to every accumulator at once, the slopes' denominators inverted together
  // (Montgomery's trick). An addition then costs 5M + 1S (3M of them the shared inversion's)
  // against 7M + 4S for a mixed Jacobian one, and the results need no normalisation. Equal x
  // (doubling or cancelling) cannot happen for canonical scalars, where the accumulator is
  // (s mod 2^(8w))·B and the table point d·2^(8w)·B; it takes a Jacobian detour regardless.
  void mul_chunk(std::span<const Scalar> s, std::span<Affine<C>> acc, ChunkScratch& t) const {
    const size_t m = s.size();
    t.k.resize(m);
    t.den.resize(m);
    t.prefix.resize(m);
    t.who.resize(m);
    for (size_t i = 0; i < m; ++i) t.k[i] = s[i].to_repr(), acc[i] = Affine<C>::infinity();
    for (size_t w = 0; w < kWindows; ++w) {
      const Affine<C>* row = table_.data() + w * kDigits;  // row[d − 1] = d·2^(8w)·B
      size_t n = 0;
      for (size_t i = 0; i < m; ++i) {
        const uint64_t d = digit(t.k[i], w);
        if (d == 0) continue;
        const Affine<C>& q = row[d - 1];
        if (acc[i].is_infinity()) {
          acc[i] = q;
        } else if (acc[i].x == q.x) {
          acc[i] = Jacobian<C>::from_affine(acc[i]).add_mixed(q).to_affine();
        } else {
          t.den[n] = q.x - acc[i].x;
          t.who[n++] = uint32_t(i);
        }
      }
      if (n == 0) continue;
      // Batch inversion of den[0, n): prefix products, one inverse, then back down.
      F run = F::one();
      for (size_t j = 0; j < n; ++j) t.prefix[j] = run, run *= t.den[j];
      F inv = run.inverse();
      for (size_t j = n; j-- > 0;) {
        const size_t i = t.who[j];
        const Affine<C>& q = row[digit(t.k[i], w) - 1];
        const F lambda = (q.y - acc[i].y) * (inv * t.prefix[j]);
        inv *= t.den[j];
        const F x3 = lambda.square() - acc[i].x - q.x;
        acc[i] = {x3, lambda * (acc[i].x - x3) - acc[i].y};
      }
    }
  }

  std::vector<Affine<C>> table_;
};

}  // namespace snarkd::ec
