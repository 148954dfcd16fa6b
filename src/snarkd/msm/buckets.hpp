// Bucket sets for Pippenger and for plain sums, two implementations of one interface (see
// msm.hpp's Accumulation): add(j, P) accumulates the affine point P into bucket j; after
// finish(), add_to(j, acc) adds bucket j into an XYZZ accumulator. Plus the running-sum
// reduction over such a set.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "snarkd/ec/curve.hpp"

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
// already has an addition pending in the batch goes to that bucket's XYZZ overflow instead of
// waiting, so heavy duplication (all scalars 1, say) costs at most what XYZZ buckets cost.
template <class C>
class BatchAffineBuckets {
  using F = typename C::Field;
  using A = ec::Affine<C>;

 public:
  BatchAffineBuckets(size_t buckets, size_t batch)
      : batch_(batch), aff_(buckets), overflow_(buckets, ec::Xyzz<C>::infinity()),
        busy_(buckets, 0) {
    idx_.reserve(batch);
    pts_.reserve(batch);
    den_.resize(batch);
    pre_.resize(batch);
  }
  void prefetch(size_t j) const { prefetch_object(&aff_[j]); }

  void add(size_t j, const A& p) {
    if (p.is_infinity()) return;
    if (busy_[j]) {
      overflow_[j] = overflow_[j].add_mixed(p);
    } else if (aff_[j].is_infinity()) {
      aff_[j] = p;  // first point of the bucket: nothing to add
    } else {
      busy_[j] = 1;
      idx_.push_back(j);
      pts_.push_back(p);
      if (idx_.size() == batch_) flush();
    }
  }

  void finish() { flush(); }
  size_t size() const { return aff_.size(); }
  // A mixed addition (8M + 2S) for the affine part; the overflow is almost always infinity,
  // which Xyzz::operator+ returns at once.
  void add_to(size_t j, ec::Xyzz<C>& acc) const {
    acc = acc.add_mixed(aff_[j]);
    acc += overflow_[j];
  }

 private:
  // Applies every pending bucket[idx] += pt. Denominator x₂ − x₁ for an addition, 2y for a
  // doubling (same x and y); zero marks P = −bucket, whose sum is infinity (and the 2-torsion
  // doubling, which points of odd order never reach).
  void flush() {
    const size_t k = idx_.size();
    F acc = F::one();
    for (size_t t = 0; t < k; ++t) {
      const A& b = aff_[idx_[t]];
      const A& p = pts_[t];
      den_[t] = b.x != p.x ? p.x - b.x : (b.y == p.y ? b.y.dbl() : F::zero());
      pre_[t] = acc;
      if (!den_[t].is_zero()) acc *= den_[t];
    }
    F inv = acc.inverse();
    for (size_t t = k; t-- > 0;) {
      A& b = aff_[idx_[t]];
      const A& p = pts_[t];
      busy_[idx_[t]] = 0;
      if (den_[t].is_zero()) {
        b = A::infinity();
        continue;
      }
      const F d_inv = inv * pre_[t];
      inv *= den_[t];
      F num;
      if (b.x != p.x) {
        num = p.y - b.y;
      } else {
        const F xx = b.x.square();
        num = xx.dbl() + xx;  // slope 3x² / 2y
      }
      const F lambda = num * d_inv;
      const F x3 = lambda.square() - b.x - p.x;
      b.y = lambda * (b.x - x3) - b.y;
      b.x = x3;
    }
    idx_.clear();
    pts_.clear();
  }

  size_t batch_;
  std::vector<A> aff_;
  std::vector<ec::Xyzz<C>> overflow_;
  std::vector<uint8_t> busy_;
  std::vector<size_t> idx_;  // pending additions: bucket index and point
  std::vector<A> pts_;
  std::vector<F> den_, pre_;  // denominators and their prefix products
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

}  // namespace snarkd::msm::detail
