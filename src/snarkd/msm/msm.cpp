#include "snarkd/msm/msm.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "snarkd/ec/g1.hpp"
#include "snarkd/msm/buckets.hpp"
#include "snarkd/msm/pippenger.hpp"
#include "snarkd/util/cancel.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::msm {

namespace {

// Batch size B for batch-affine buckets. A batch amortises one inversion (Fp::inverse is
// ~360M) over B additions, while a point whose bucket is already pending (probability about
// B / (2·buckets)) waits for the next batch, at worst paying an XYZZ addition (~4M more):
// bounding the cost by 360/B + 4·B/(2·buckets), it is least near
// B = sqrt(180·buckets) (G2's cheaper relative inversion moves it lower, but the optimum is
// flat). The power of two at or below that, at most 2048 (scratch stays in L2); below 256
// (fewer than 512 buckets) the saving is gone and XYZZ buckets are used instead.
constexpr size_t kMaxBatch = 2048;
constexpr size_t kMinBatch = 256;
size_t batch_for(size_t buckets) {
  size_t b = kMaxBatch;
  while (b > 1 && b * b > 180 * buckets) b /= 2;
  return b;
}

// Cost of reducing one bucket relative to one point's bucket addition, halved because
// make_plan multiplies by 2^c = 2·buckets. Measured in Fp multiplication times: reduction is a
// mixed plus a full XYZZ addition per bucket (~26) against ~8.5 per batch-affine point, or two
// full additions (~30) against ~14 per XYZZ point (additions and memory included).
double reduce_weight(Accumulation acc) { return acc == Accumulation::kBatchAffine ? 1.5 : 1.1; }

// One task: window digits d[i] of the points bases[i], accumulated into `buckets` (|d| − 1 is
// the bucket, the sign negates the point), then Σ (j + 1)·bucket[j].
template <class C, class Buckets>
ec::Xyzz<C> window_sum(std::span<const ec::Affine<C>> bases, const int16_t* d, Buckets&& buckets,
                       const std::stop_token& stop) {
  constexpr size_t kAhead = 8;  // bucket prefetch distance: hides a cache miss per point
  const size_t n = bases.size();
  for (size_t i = 0; i < n; ++i) {
    if (i % kStopCheckPoints == 0) throw_if_stopped(stop, "msm");
    if (i + kAhead < n && d[i + kAhead] != 0)
      buckets.prefetch(size_t(std::abs(int(d[i + kAhead])) - 1));
    if (d[i] > 0) {
      buckets.add(size_t(d[i] - 1), bases[i]);
    } else if (d[i] < 0) {
      buckets.add(size_t(-d[i] - 1), -bases[i]);
    }
  }
  buckets.finish();
  if constexpr (std::is_same_v<std::decay_t<Buckets>, detail::BatchAffineBuckets<C>>)
    return detail::weighted_sum_batched<C>(buckets);
  else
    return detail::weighted_sum<C>(buckets);
}

template <class C>
ec::Xyzz<C> window_sum(std::span<const ec::Affine<C>> bases, const int16_t* d, size_t bits,
                       Accumulation acc, const std::stop_token& stop) {
  const size_t buckets = size_t(1) << (bits - 1);
  if (acc == Accumulation::kBatchAffine && batch_for(buckets) >= kMinBatch)
    return window_sum<C>(bases, d, detail::BatchAffineBuckets<C>(buckets, batch_for(buckets)), stop);
  return window_sum<C>(bases, d, detail::XyzzBuckets<C>(buckets), stop);
}

// Σ_w 2^(wc)·(Σ_chunks partial[w·chunks + chunk]) by Horner's rule from the top window.
template <class C>
ec::Jacobian<C> combine(const std::vector<ec::Xyzz<C>>& partial, const detail::Plan& plan) {
  ec::Jacobian<C> acc = ec::Jacobian<C>::infinity();
  for (size_t w = plan.windows; w-- > 0;) {
    for (size_t i = 0; i < plan.bits; ++i) acc = acc.dbl();
    for (size_t ch = 0; ch < plan.chunks; ++ch) acc += partial[w * plan.chunks + ch].to_jacobian();
  }
  return acc;
}

// Σ bases[i] over the set bits of `bitmap` in [b, e): a plain sum, so the bucket index only
// spreads the points (round-robin over a batch's worth of buckets, which never collide).
template <class C>
ec::Xyzz<C> sum_range(std::span<const ec::Affine<C>> bases, const uint64_t* bitmap, size_t b,
                      size_t e, const std::stop_token& cancel) {
  auto run = [&](auto&& buckets, size_t spread) {
    size_t next = 0;
    for (size_t i = b; i < e;) {
      if ((i - b) % kStopCheckPoints == 0) throw_if_stopped(cancel, "msm");
      uint64_t word = bitmap[i / 64] >> (i % 64);
      const size_t stop = std::min(e, (i / 64 + 1) * 64);
      if (stop - i < 64) word &= (uint64_t(1) << (stop - i)) - 1;
      for (; word; word &= word - 1) {
        buckets.add(next, bases[i + size_t(__builtin_ctzll(word))]);
        next = next + 1 == spread ? 0 : next + 1;
      }
      i = stop;
    }
    buckets.finish();
    ec::Xyzz<C> sum = ec::Xyzz<C>::infinity();
    for (size_t j = 0; j < buckets.size(); ++j) buckets.add_to(j, sum);
    return sum;
  };
  // Spread buckets never collide, so the batch can use all of them; their final sum costs
  // kSumBatch additions, worth it from 16× that many points.
  constexpr size_t kSumBatch = 512;
  if (e - b >= 16 * kSumBatch)
    return run(detail::BatchAffineBuckets<C>(kSumBatch, kSumBatch), kSumBatch);
  return run(detail::XyzzBuckets<C>(1), 1);
}

template <class C>
ec::Jacobian<C> sum_bits_threads(std::span<const ec::Affine<C>> bases, const uint64_t* bitmap,
                                 size_t threads, const std::stop_token& stop = {}) {
  const size_t n = bases.size();
  if (n == 0) return ec::Jacobian<C>::infinity();
  // Parts start on word boundaries: each bitmap word belongs to one part.
  const size_t words = (n + 63) / 64, parts = std::min(threads, words);
  std::vector<ec::Xyzz<C>> partial(parts);
  detail::run_tasks(parts, threads, [&](size_t p) {
    const size_t b = 64 * (words * p / parts), e = std::min(n, 64 * (words * (p + 1) / parts));
    partial[p] = sum_range<C>(bases, bitmap, b, e, stop);
  });
  ec::Xyzz<C> sum = ec::Xyzz<C>::infinity();
  for (const auto& p : partial) sum += p;
  return sum.to_jacobian();
}

// Below kStrausMax points Pippenger's fixed cost dominates whatever the scalars: ~255 Jacobian
// doublings in combine plus a bucket pass and reduction per window (a 4-point G1 MSM took
// ~0.2-0.4 ms, most of a tiny circuit's proof). Straus's interleaving shares one doubling chain
// that is only as long as the largest scalar (tiny circom circuits' witnesses are mostly small
// integers). A scalar of at most kBinaryBits bits adds its point once per set bit (no table);
// a larger one uses width-5 NAF digits (odd, in ±[1, 15], ~1 in 6 positions non-zero: ~43
// additions for 255 bits against 64 for 4-bit windows) from a table of 8 odd multiples (one
// doubling and 7 additions to build).
constexpr size_t kStrausMax = 16;
constexpr size_t kBinaryBits = 24;
// A w-NAF is at most one digit longer than its scalar; room for either curve's.
constexpr size_t kNafBits = std::max(ff::Fr::kBits, ff::bn254::Fr::kBits) + 1;

// Width-5 NAF of k: digits[i] for i < the returned length, Σ digits[i]·2^i = k.
template <class Repr>
size_t naf5(const Repr& k, std::array<int8_t, kNafBits>& digits) {
  constexpr size_t L = std::size(Repr{}.limb);
  uint64_t v[L + 1] = {};  // one spare limb: adding back a negative digit may carry past k's top
  for (size_t i = 0; i < L; ++i) v[i] = k.limb[i];
  auto is_zero = [&] {
    for (uint64_t x : v)
      if (x) return false;
    return true;
  };
  size_t n = 0;
  while (!is_zero()) {
    int d = 0;
    if (v[0] & 1) {
      d = int(v[0] & 31);
      if (d >= 16) d -= 32;
      // v -= d: subtract a positive digit (no borrow past limb 0: v's low 5 bits are d) or add |d|
      if (d > 0) {
        v[0] -= uint64_t(d);
      } else {
        uint64_t add = uint64_t(-d);
        for (size_t i = 0; i <= L && add; ++i) {
          v[i] += add;
          add = v[i] < add ? 1 : 0;
        }
      }
    }
    digits[n++] = int8_t(d);
    for (size_t i = 0; i < L; ++i) v[i] = (v[i] >> 1) | (v[i + 1] << 63);
    v[L] >>= 1;
  }
  return n;
}

// G1's endomorphism φ(x, y) = (β·x, y) = λ·(x, y) with λ = z² − 1 for BLS12-381's
// z = −0xd201000000010000: r = λ² + λ + 1, so λ is a 128-bit integer and k = k₁ + k₂·λ with
// k₁ = k mod λ, k₂ = ⌊k / λ⌋, both < 2^128 (GLV). k·P = k₁·P + k₂·φ(P) halves the doubling chain
// for one multiplication of x per point. φ = [λ] holds on the order-r subgroup, where every key
// loader's kFull check puts the bases (a kTrusted key's stray point makes an invalid proof
// either way; key_check.hpp finds it). β (one of Fp's two primitive cube roots of unity) is
// found once by testing φ(G) = λ·G; r is checked to be λ² + λ + 1. Should either fail, ok stays
// false and the plain path runs.
using u128 = unsigned __int128;
struct Glv {
  bool ok = false;
  u128 lambda = 0;
  ec::G1Config::Field beta;
};

Glv make_glv() {
  using Fp = ec::G1Config::Field;
  Glv g;
  const uint64_t z = 0xd201000000010000ULL;
  g.lambda = u128(z) * z - 1;
  // λ² + λ + 1 as 4 limbs, against r
  const uint64_t l0 = uint64_t(g.lambda), l1 = uint64_t(g.lambda >> 64);
  const u128 p00 = u128(l0) * l0, p01 = u128(l0) * l1, p11 = u128(l1) * l1;
  uint64_t w[4];
  u128 acc = u128(uint64_t(p00)) + 1 + l0;  // + λ + 1, low limb
  w[0] = uint64_t(acc);
  acc = (acc >> 64) + (p00 >> 64) + 2 * u128(uint64_t(p01)) + l1;
  w[1] = uint64_t(acc);
  acc = (acc >> 64) + 2 * (p01 >> 64) + uint64_t(p11);
  w[2] = uint64_t(acc);
  w[3] = uint64_t((acc >> 64) + (p11 >> 64));
  for (size_t i = 0; i < 4; ++i)
    if (w[i] != ff::Fr::kModulus.limb[i]) return g;
  // (p − 1) / 3 by long division from the top limb
  auto e = Fp::kModulusMinusOne;
  u128 rem = 0;
  for (size_t i = std::size(e.limb); i-- > 0;) {
    const u128 cur = (rem << 64) | e.limb[i];
    e.limb[i] = uint64_t(cur / 3);
    rem = cur % 3;
  }
  const ec::G1Affine gen = ec::generator<ec::G1Config>();
  const ec::G1Affine want = ec::G1Jacobian::from_affine(gen).mul(ff::BigInt<2>{{l0, l1}}).to_affine();
  for (uint64_t base = 2; base < 16; ++base) {
    const Fp w3 = ff::pow_vartime(Fp::from_u64(base), e);
    if (w3 == Fp::one()) continue;  // base is a cube: no root from it
    for (const Fp& b : {w3, w3 * w3})
      if (ec::G1Affine{b * gen.x, gen.y} == want) {
        g.beta = b;
        g.ok = true;
        return g;
      }
    return g;
  }
  return g;
}

const Glv& glv() {
  static const Glv g = make_glv();
  return g;
}

// k = k₁ + k₂·λ (k < r, so k₂ ≤ λ + 1): binary long division, ~1 µs against ~127 doublings saved.
void glv_split(const ff::Fr::Repr& k, u128 lambda, ff::Fr::Repr& k1, ff::Fr::Repr& k2) {
  u128 rem = 0, q = 0;
  for (size_t i = k.bit_length(); i-- > 0;) {
    const bool top = rem >> 127;
    rem = (rem << 1) | u128(k.bit(i));
    q <<= 1;
    if (top || rem >= lambda) {  // with top set the true value exceeds 2^128 > λ; mod 2^128 is exact
      rem -= lambda;
      q |= 1;
    }
  }
  k1 = ff::Fr::Repr{};
  k2 = ff::Fr::Repr{};
  k1.limb[0] = uint64_t(rem);
  k1.limb[1] = uint64_t(rem >> 64);
  k2.limb[0] = uint64_t(q);
  k2.limb[1] = uint64_t(q >> 64);
}

template <class C>
ec::Jacobian<C> straus(std::span<const ec::Affine<C>> in_bases,
                       std::span<const typename C::Scalar> scalars) {
  using X = ec::Xyzz<C>;
  using Repr = typename C::Scalar::Repr;
  constexpr size_t kMax = 2 * kStrausMax;  // G1's GLV splits a point in two
  std::array<ec::Affine<C>, kMax> bases;
  std::array<Repr, kMax> k{};
  std::array<bool, kMax> phi{};  // bases[i] = φ(bases[i − 1])
  size_t n = 0;
  for (size_t i = 0; i < in_bases.size(); ++i) {
    if (in_bases[i].is_infinity()) continue;  // contributes nothing
    const Repr ki = scalars[i].to_repr();
    if constexpr (std::is_same_v<C, ec::G1Config>) {
      if (ki.bit_length() > 128 && glv().ok) {
        glv_split(ki, glv().lambda, k[n], k[n + 1]);
        bases[n] = in_bases[i];
        bases[n + 1] = ec::Affine<C>{glv().beta * in_bases[i].x, in_bases[i].y};
        phi[n + 1] = true;
        n += 2;
        continue;
      }
    }
    bases[n] = in_bases[i];
    k[n++] = ki;
  }
  std::array<size_t, kMax> len{};  // bits, or NAF digits for the tabled points
  std::array<bool, kMax> tabled{};
  std::array<std::array<int8_t, kNafBits>, kMax> naf;
  std::vector<X> odd;  // (2j + 1)·Pᵢ at 8·i + j for the tabled points
  size_t top = 0;
  for (size_t i = 0; i < n; ++i) {
    len[i] = k[i].bit_length();
    if (len[i] > kBinaryBits) {
      tabled[i] = true;
      len[i] = naf5(k[i], naf[i]);
      if (odd.empty()) odd.resize(8 * n);
      if constexpr (std::is_same_v<C, ec::G1Config>) {
        if (phi[i] && tabled[i - 1]) {  // φ is linear: φ(m·P) = m·φ(P), one multiplication each
          for (size_t j = 0; j < 8; ++j) {
            odd[8 * i + j] = odd[8 * (i - 1) + j];
            odd[8 * i + j].X = glv().beta * odd[8 * i + j].X;  // x = X/ZZ scales with X
          }
          top = std::max(top, len[i]);
          continue;
        }
      }
      const X twice = X::dbl_affine(bases[i]);
      odd[8 * i] = X::from_affine(bases[i]);
      for (size_t j = 1; j < 8; ++j) odd[8 * i + j] = odd[8 * i + j - 1] + twice;
    }
    top = std::max(top, len[i]);
  }
  // After position b: acc = Σ ⌊kᵢ / 2^b⌋·Pᵢ for the bit-wise points and Σ_{j ≥ b} dᵢⱼ·2^(j−b)·Pᵢ
  // for the NAF points; both are kᵢ·Pᵢ at b = 0.
  X acc = X::infinity();
  for (size_t b = top; b-- > 0;) {
    acc = acc.dbl();
    for (size_t i = 0; i < n; ++i) {
      if (len[i] <= b) continue;
      if (!tabled[i]) {
        if (k[i].bit(b)) acc = acc.add_mixed(bases[i]);
      } else if (const int d = naf[i][b]; d > 0) {
        acc += odd[8 * i + size_t(d - 1) / 2];
      } else if (d < 0) {
        acc += -odd[8 * i + size_t(-d - 1) / 2];
      }
    }
  }
  return acc.to_jacobian();
}

}  // namespace

template <class C>
ec::Jacobian<C> msm(std::span<const ec::Affine<C>> bases,
                    std::span<const typename C::Scalar> scalars, const Options& opt) {
  using S = typename C::Scalar;
  if (bases.size() != scalars.size())
    throw InvalidArgument("msm: " + std::to_string(bases.size()) + " bases but " +
                          std::to_string(scalars.size()) + " scalars");
  if (opt.window_bits != 0 &&
      (opt.window_bits < detail::kMinWindowBits || opt.window_bits > detail::kMaxWindowBits))
    throw InvalidArgument("msm: window_bits " + std::to_string(opt.window_bits) +
                          " outside [2, 16]");
  const size_t n = bases.size();
  if (n == 0) return ec::Jacobian<C>::infinity();
  if (n <= kStrausMax && opt.window_bits == 0) {  // an explicit window asks for Pippenger
    throw_if_stopped(opt.stop, "msm");
    return straus<C>(bases, scalars);
  }
  const size_t threads = detail::resolve_threads(opt.threads);
  const detail::Plan plan =
      detail::make_plan<S>(n, threads, opt.window_bits, reduce_weight(opt.accumulation));
  const std::vector<int16_t> digits = detail::recode<S>(scalars, plan, threads);
  std::vector<ec::Xyzz<C>> partial(plan.windows * plan.chunks);
  detail::run_tasks(partial.size(), threads, [&](size_t t) {
    const size_t w = t / plan.chunks, ch = t % plan.chunks;
    const size_t b = n * ch / plan.chunks, e = n * (ch + 1) / plan.chunks;
    partial[t] = window_sum<C>(bases.subspan(b, e - b), digits.data() + w * n + b, plan.bits,
                               opt.accumulation, opt.stop);
  });
  return combine<C>(partial, plan);
}

template <class C>
ec::Jacobian<C> sum_bits(std::span<const ec::Affine<C>> bases, const uint64_t* bitmap) {
  return sum_bits_threads<C>(bases, bitmap, detail::resolve_threads(0));
}

template <class C>
ec::Jacobian<C> msm_split(std::span<const ec::Affine<C>> bases,
                          const ScalarSplitT<typename C::Scalar>& split, const Options& opt) {
  if (bases.size() != split.size)
    throw InvalidArgument("msm_split: " + std::to_string(bases.size()) +
                          " bases for a split of " + std::to_string(split.size) + " scalars");
  const size_t threads = detail::resolve_threads(opt.threads);
  std::vector<ec::Affine<C>> tail(split.others.size());
  detail::run_tasks(threads, threads, [&](size_t p) {
    const size_t b = tail.size() * p / threads, e = tail.size() * (p + 1) / threads;
    for (size_t j = b; j < e; ++j) tail[j] = bases[split.others[j]];
  });
  throw_if_stopped(opt.stop, "msm");
  ec::Jacobian<C> ones = sum_bits_threads<C>(bases, split.ones.data(), threads, opt.stop);
  return ones + msm<C>(tail, split.other_scalars, opt);
}

template <class C>
ec::Jacobian<C> msm_split(std::span<const ec::Affine<C>> bases,
                          std::span<const typename C::Scalar> scalars, SplitStats* stats,
                          const Options& opt) {
  if (bases.size() != scalars.size())
    throw InvalidArgument("msm_split: " + std::to_string(bases.size()) + " bases but " +
                          std::to_string(scalars.size()) + " scalars");
  const ScalarSplitT<typename C::Scalar> split = split_scalars(scalars);
  if (stats) *stats = split.stats;
  return msm_split<C>(bases, split, opt);
}

#define SNARKD_MSM_INSTANTIATE(C)                                                             \
  template ec::Jacobian<C> msm<C>(std::span<const ec::Affine<C>>,                             \
                                  std::span<const typename C::Scalar>, const Options&);       \
  template ec::Jacobian<C> sum_bits<C>(std::span<const ec::Affine<C>>, const uint64_t*);      \
  template ec::Jacobian<C> msm_split<C>(std::span<const ec::Affine<C>>,                       \
                                        const ScalarSplitT<typename C::Scalar>&,              \
                                        const Options&);                                      \
  template ec::Jacobian<C> msm_split<C>(std::span<const ec::Affine<C>>,                       \
                                        std::span<const typename C::Scalar>, SplitStats*,     \
                                        const Options&);
SNARKD_MSM_INSTANTIATE(ec::G1Config)
SNARKD_MSM_INSTANTIATE(ec::G2Config)
SNARKD_MSM_INSTANTIATE(ec::bn254::G1Config)
SNARKD_MSM_INSTANTIATE(ec::bn254::G2Config)
#undef SNARKD_MSM_INSTANTIATE

}  // namespace snarkd::msm
