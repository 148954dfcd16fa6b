// Bucket sets for Pippenger and for plain sums, two implementations of one interface (see
// msm.hpp's Accumulation): add(j, P) accumulates the affine point P into bucket j; after
// finish(), add_to(j, acc) adds bucket j into an XYZZ accumulator. Plus the running-sum
// reduction over such a set.
#pragma once
#include <cstddef>
#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "snarkd/ec/curve.hpp"
#include "snarkd/ff/inverse.hpp"

namespace snarkd::msm::detail {

// Touches every cache line of an object so a later random access finds it in cache.
template <class T>
inline void prefetch_object(const T* p) {
  const char* c = reinterpret_cast<const char*>(p);
  for (size_t off = 0; off < sizeof(T); off += 64) __builtin_prefetch(c + off, 1);
}

// One XYZZ point per bucket; every addition is madd-2008-s (8M + 2S), whose doubling and
// infinity cases Xyzz::add_mixed handles.
template <class C>
class XyzzBuckets {
 public:
  explicit XyzzBuckets(size_t buckets) : b_(buckets, ec::Xyzz<C>::infinity()) {}
  void prefetch(size_t j) const { prefetch_object(&b_[j]); }
  void add(size_t j, const ec::Affine<C>& p) { b_[j] = b_[j].add_mixed(p); }
  void finish() {}
  size_t size() const { return b_.size(); }
  void add_to(size_t j, ec::Xyzz<C>& acc) const { acc += b_[j]; }

 private:
  std::vector<ec::Xyzz<C>> b_;
};

// Affine buckets, updated `batch` additions at a time: the slopes' denominators of the whole
// batch are inverted together (Montgomery's trick: 3M each plus one inversion per batch), then
// each affine addition costs 2M + 1S more, ~6M in all against XYZZ's 10. A point whose bucket
// already has an addition pending in the batch waits for the next batch (random scalars: ~3% of
// points with 2^15 buckets and 2048-entry batches, whose XYZZ additions cost ~12% of the
// whole MSM before). Past batch/2 waiting points, or when two waiting points share a bucket, it
// goes to the bucket's XYZZ overflow instead, so heavy duplication (all scalars 1, say) costs
// at most what XYZZ buckets cost.
template <class C>
class BatchAffineBuckets {
  using F = typename C::Field;
  using A = ec::Affine<C>;
  // Bucket state bits: an addition is pending in the batch; the overflow is not infinity (the
  // reduction skips the others without reading their 192-byte XYZZ point).
  static constexpr uint8_t kBusy = 1, kOverflow = 2;
  // Independent prefix-product chains, entry t on chain t % kLanes: an Fp multiplication that
  // waits for the previous one costs ~40 ns, independent ones overlap (~33 ns each).
  static constexpr size_t kLanes = 4;
  // Additions applied together, interleaved for the same reason.
  static constexpr size_t kInterleave = 2;
  // Prefetch distance within a batch: its buckets no longer fit in a 512 KiB L2 (Zen 3) beside
  // the batch's scratch, and an L3 miss is not hidden behind one ~150-instruction product.
  static constexpr size_t kAhead = 8;

 public:
  BatchAffineBuckets(size_t buckets, size_t batch)
      : batch_(batch), aff_(buckets), overflow_(buckets, ec::Xyzz<C>::infinity()),
        state_(buckets, 0) {
    idx_.reserve(batch);
    pts_.reserve(batch);
    deferred_.reserve(batch / 2);
    den_.resize(batch);
    pre_.resize(batch);
  }
  void prefetch(size_t j) const {
    prefetch_object(&aff_[j]);
    __builtin_prefetch(&state_[j], 1);
  }

  void add(size_t j, const A& p) {
    if (p.is_infinity()) return;
    if (!(state_[j] & kBusy)) {
      queue(j, p);
      if (idx_.size() == batch_) flush();
    } else if (deferred_.size() < batch_ / 2) {
      deferred_.emplace_back(j, p);
    } else {
      to_overflow(j, p);
    }
  }

  // The second flush applies the points the first one queued from the deferred list.
  void finish() {
    flush();
    flush();
  }
  size_t size() const { return aff_.size(); }
  // A mixed addition (8M + 2S) for the affine part, plus the overflow where one was used.
  void add_to(size_t j, ec::Xyzz<C>& acc) const {
    acc = acc.add_mixed(aff_[j]);
    if (state_[j] & kOverflow) acc += overflow_[j];
  }
  // Bucket j's affine part (all of it once fold_overflow has run).
  const A& bucket(size_t j) const { return aff_[j]; }

  // After finish(): adds every used overflow into its affine bucket (one inversion for their
  // conversion, then one batch), so each bucket is a single affine point.
  void fold_overflow() {
    std::vector<size_t> used;
    std::vector<ec::Jacobian<C>> jac;
    for (size_t j = 0; j < state_.size(); ++j) {
      if (!(state_[j] & kOverflow)) continue;
      used.push_back(j);
      jac.push_back(overflow_[j].to_jacobian());
      overflow_[j] = ec::Xyzz<C>::infinity();
      state_[j] = uint8_t(state_[j] & ~kOverflow);
    }
    if (used.empty()) return;
    const std::vector<A> aff = ec::batch_to_affine<C>(jac);
    for (size_t i = 0; i < used.size(); ++i) add(used[i], aff[i]);  // distinct: none defers
    finish();
  }

 private:
  void queue(size_t j, const A& p) {
    if (aff_[j].is_infinity()) {
      aff_[j] = p;  // first point of the bucket: nothing to add
      return;
    }
    state_[j] |= kBusy;
    idx_.push_back(j);
    pts_.push_back(p);
  }
  void to_overflow(size_t j, const A& p) {
    overflow_[j] = overflow_[j].add_mixed(p);
    state_[j] |= kOverflow;
  }

  // Applies every pending bucket[idx] += pt: numerators and denominators with their prefix
  // products, one inversion, the denominators' inverses (backwards), then the additions. Then
  // queues the deferred points (at most batch/2, so the new batch cannot fill).
  void flush() {
    if (idx_.empty()) return;  // nothing pending, so nothing was deferred either
    F lane[kLanes];
    std::fill(lane, lane + kLanes, F::one());
    const size_t k = prepare(lane);
    invert_lanes(lane);
    for (size_t t = k; t-- > 0;) {  // lane[t % kLanes] = 1 / (its chain's product up to t)
      F& inv = lane[t % kLanes];
      pre_[t] = inv * pre_[t];
      inv = inv * den_[t];
    }
    size_t t = 0;
    for (; t + kInterleave <= k; t += kInterleave) apply<kInterleave>(t);
    for (; t < k; ++t) apply<1>(t);
    for (size_t i : idx_) state_[i] = uint8_t(state_[i] & ~kBusy);
    idx_.clear();
    pts_.clear();
    for (const auto& [j, p] : deferred_) {
      if (state_[j] & kBusy) {
        to_overflow(j, p);
      } else {
        queue(j, p);
      }
    }
    deferred_.clear();
  }

  // The lanes' products inverted with one inversion through a product tree (9 products). A lane
  // is never zero: it starts at 1 and gathers non-zero denominators. The binary-GCD inversion
  // (≈ 10 µs for Fp against Fermat's 27 on the dev VM) was ≈ 3 % of a G1 MSM of 2^20 as Fermat.
  static void invert_lanes(F (&lane)[kLanes]) {
    static_assert(kLanes == 4);
    const F p01 = lane[0] * lane[1], p23 = lane[2] * lane[3];
    const F inv = ff::inverse_vartime(p01 * p23);
    const F i01 = inv * p23, i23 = inv * p01, l0 = lane[0], l2 = lane[2];
    lane[0] = i01 * lane[1];
    lane[1] = i01 * l0;
    lane[2] = i23 * lane[3];
    lane[3] = i23 * l2;
  }

  // For each pending addition: den_ = x₂ − x₁ and pts_[t].y = y₂ − y₁, or for a doubling (same
  // point) 2y and 3x²; pre_ = the product of its lane's earlier denominators. P = −bucket sums
  // to infinity (as would the 2-torsion doubling, which points of odd order never reach): that
  // entry is settled here and replaced by the last one. Returns the remaining count.
  size_t prepare(F (&lane)[kLanes]) {
    size_t k = idx_.size();
    for (size_t t = 0; t < k;) {
      if (t + kAhead < k) prefetch_object(&aff_[idx_[t + kAhead]]);
      A& b = aff_[idx_[t]];
      A& p = pts_[t];
      if (b.x != p.x) {
        den_[t] = p.x - b.x;
        p.y = p.y - b.y;
      } else if (b.y == p.y) {
        den_[t] = b.y.dbl();
        const F xx = b.x.square();
        p.y = xx.dbl() + xx;
      } else {
        b = A::infinity();
        state_[idx_[t]] = uint8_t(state_[idx_[t]] & ~kBusy);
        idx_[t] = idx_[k - 1];
        pts_[t] = pts_[k - 1];
        idx_.pop_back();
        pts_.pop_back();
        --k;
        continue;
      }
      F& acc = lane[t % kLanes];
      pre_[t] = acc;
      acc = acc * den_[t];
      ++t;
    }
    return k;
  }

  // Entries [t, t + M): slope λ = numerator · 1/den, x₃ = λ² − x₁ − x₂, y₃ = λ(x₁ − x₃) − y₁.
  // The temporaries are built in place (a default-constructed F is zeroed first: `rep stos`
  // cost 5 % of this function).
  template <size_t M>
  void apply(size_t t) {
    for (size_t m = 0; m < M; ++m)
      if (t + m + kAhead < idx_.size()) prefetch_object(&aff_[idx_[t + m + kAhead]]);
    const auto lambda = each<M>([&](size_t m) { return pts_[t + m].y * pre_[t + m]; });
    const auto x3 = each<M>([&](size_t m) {
      return lambda[m].square() - aff_[idx_[t + m]].x - pts_[t + m].x;
    });
    for (size_t m = 0; m < M; ++m) {
      A& b = aff_[idx_[t + m]];
      b.y = lambda[m] * (b.x - x3[m]) - b.y;
      b.x = x3[m];
    }
  }
  template <size_t M, class Fn>
  static std::array<F, M> each(Fn&& fn) {
    return [&]<size_t... I>(std::index_sequence<I...>) {
      return std::array<F, M>{fn(I)...};
    }(std::make_index_sequence<M>());
  }

  size_t batch_;
  std::vector<A> aff_;
  std::vector<ec::Xyzz<C>> overflow_;
  std::vector<uint8_t> state_;
  std::vector<size_t> idx_;  // pending additions: bucket index and point
  std::vector<A> pts_;
  std::vector<std::pair<size_t, A>> deferred_;  // waiting for the next batch
  std::vector<F> den_, pre_;  // denominators and their prefix products, then their inverses
};

// Σ (j + 1)·b[j] by running sums from the top bucket down: after bucket j the running sum is
// Σ_{i ≥ j} b[i], and adding it into the total once per bucket weights b[i] by i + 1. Two
// additions per bucket instead of a scalar multiplication each.
template <class C, class Buckets>
ec::Xyzz<C> weighted_sum(const Buckets& b) {
  ec::Xyzz<C> running = ec::Xyzz<C>::infinity(), sum = ec::Xyzz<C>::infinity();
  for (size_t j = b.size(); j-- > 0;) {
    b.add_to(j, running);
    sum += running;
  }
  return sum;
}

// Runs of the batched bucket reduction below for m buckets (0: use weighted_sum): runs of 16
// buckets, at most 2048 runs. Measured on the Zen 3 dev VM, 2^15 G1 buckets: 35 ms with 256 runs,
// 29 ms with 1024, 24–27 ms with 2048, against 44–58 ms for weighted_sum.
constexpr size_t reduction_runs(size_t m) {
  if (m < 4096 || (m & (m - 1)) != 0) return 0;
  return m / 16 < 2048 ? m / 16 : 2048;
}

// The same sum for affine buckets, with the running sums themselves batch-affine: the m buckets
// are cut into G runs of S = m/G, and the G runs' running sums advance together, one bucket a
// step, as two batches of G affine additions (r_g += b[gS + k], then a_g += r_g) sharing one
// inversion each. Then a_g = Σ_k (k + 1)·b[gS + k] and r_g = Σ_k b[gS + k], so
//   Σ_j (j + 1)·b[j] = Σ_g a_g + S·Σ_g g·r_g,
// the last sum by XYZZ running sums over the G runs. Per bucket ≈ 2 × (6M + inversion/G) plus
// 3G XYZZ additions in all, against a mixed plus a full XYZZ addition per bucket (≈ 24M) for
// weighted_sum, which took 8.5 % of a G1 MSM of 2^20 on the Zen 3 dev VM.
template <class C>
ec::Xyzz<C> weighted_sum_batched(BatchAffineBuckets<C>& b) {
  const size_t m = b.size(), runs = reduction_runs(m);
  if (runs == 0) return weighted_sum<C>(b);
  b.fold_overflow();
  const size_t len = m / runs;  // a power of two
  BatchAffineBuckets<C> run(runs, runs), acc(runs, runs);
  for (size_t k = len; k-- > 0;) {
    for (size_t g = 0; g < runs; ++g) run.add(g, b.bucket(g * len + k));
    run.finish();
    for (size_t g = 0; g < runs; ++g) acc.add(g, run.bucket(g));
    acc.finish();
  }
  ec::Xyzz<C> sum = ec::Xyzz<C>::infinity(), running = ec::Xyzz<C>::infinity(),
              weighted = ec::Xyzz<C>::infinity();
  for (size_t g = runs; g-- > 1;) {  // Σ_g g·r_g
    running = running.add_mixed(run.bucket(g));
    weighted += running;
  }
  for (size_t s = len; s > 1; s /= 2) weighted = weighted.dbl();
  for (size_t g = 0; g < runs; ++g) sum = sum.add_mixed(acc.bucket(g));
  return sum + weighted;
}

}  // namespace snarkd::msm::detail
