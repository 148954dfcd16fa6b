#include "snarkd/msm/pippenger.hpp"

#include <algorithm>
#include <limits>
#include <iterator>

#include "snarkd/util/thread_pool.hpp"

namespace snarkd::msm::detail {

namespace {

// Bits [pos, pos + c) of k (zero past the top).
template <size_t N>
uint64_t bits_at(const ff::BigInt<N>& k, size_t pos, size_t c) {
  const size_t l = pos / 64, s = pos % 64;
  if (l >= N) return 0;
  uint64_t v = k.limb[l] >> s;
  if (s + c > 64 && l + 1 < N) v |= k.limb[l + 1] << (64 - s);
  return v & ((uint64_t(1) << c) - 1);
}

}  // namespace

template <class S>
size_t window_count(size_t bits) {
  const uint64_t half = uint64_t(1) << (bits - 1);
  constexpr size_t kLimbs = std::size(typename S::Repr{}.limb);
  for (size_t w = 1;; ++w) {
    const size_t shift = (w - 1) * bits;
    if (shift >= 64 * kLimbs) return w;
    const typename S::Repr top = ff::shr(S::kModulusMinusOne, shift);
    bool one_limb = true;
    for (size_t i = 1; i < kLimbs; ++i) one_limb = one_limb && top.limb[i] == 0;
    if (one_limb && top.limb[0] + 1 < half) return w;  // + 1: the carry from below
  }
}

template <class S>
Plan make_plan(size_t n, size_t threads, size_t forced_bits, double reduce_weight) {
  threads = std::max<size_t>(1, threads);
  const size_t lo = forced_bits ? forced_bits : kMinWindowBits;
  const size_t hi = forced_bits ? forced_bits : kMaxWindowBits;
  // More chunks than 4 per thread never pays: each one repeats the bucket reduction.
  const size_t max_chunks = std::max<size_t>(1, std::min(n, 4 * threads));
  Plan best;
  double best_cost = std::numeric_limits<double>::infinity();
  for (size_t c = lo; c <= hi; ++c) {
    const size_t windows = window_count<S>(c);
    for (size_t chunks = 1; chunks <= max_chunks; ++chunks) {
      const double rounds = double((windows * chunks + threads - 1) / threads);
      const double per_task = double((n + chunks - 1) / chunks) + reduce_weight * double(1u << c);
      const double cost = rounds * per_task;
      if (cost < best_cost) {  // strict: ties keep the narrower window and fewer chunks
        best_cost = cost;
        best = {c, windows, chunks};
      }
    }
  }
  return best;
}

template <class S>
std::vector<int16_t> recode(std::span<const std::type_identity_t<S>> scalars, const Plan& plan,
                            size_t threads) {
  const size_t n = scalars.size(), c = plan.bits, windows = plan.windows;
  const uint64_t half = uint64_t(1) << (c - 1);
  std::vector<int16_t> out(n * windows);
  auto range = [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
      const typename S::Repr k = scalars[i].to_repr();
      uint64_t carry = 0;
      for (size_t w = 0; w < windows; ++w) {
        const uint64_t v = bits_at(k, w * c, c) + carry;  // in [0, 2^c]
        carry = v >= half ? 1 : 0;
        out[w * n + i] = static_cast<int16_t>(int64_t(v) - int64_t(carry << c));
      }
    }
  };
  if (threads <= 1) {
    range(0, n);
  } else {
    parallel_for(n, range, threads);
  }
  return out;
}

#define SNARKD_PIPPENGER_INSTANTIATE(S)                                            \
  template size_t window_count<S>(size_t);                                         \
  template Plan make_plan<S>(size_t, size_t, size_t, double);                      \
  template std::vector<int16_t> recode<S>(std::span<const std::type_identity_t<S>>, \
                                          const Plan&, size_t);
SNARKD_PIPPENGER_INSTANTIATE(ff::Fr)
SNARKD_PIPPENGER_INSTANTIATE(ff::bn254::Fr)
#undef SNARKD_PIPPENGER_INSTANTIATE

void run_tasks(size_t tasks, size_t threads, const std::function<void(size_t)>& fn) {
  if (threads <= 1) {
    for (size_t t = 0; t < tasks; ++t) fn(t);
    return;
  }
  ThreadPool::global().run(tasks, fn);
}

size_t resolve_threads(size_t threads) {
  return threads ? threads : ThreadPool::global().size();
}

}  // namespace snarkd::msm::detail
