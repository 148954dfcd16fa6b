// Pippenger's bucket method, the parts that do not depend on the curve: choosing the window
// width and the work split, and recoding scalars into signed window digits. Templates over the
// scalar field S (BLS12-381's ff::Fr by default, BN254's ff::bn254::Fr), instantiated in
// pippenger.cpp; S is never deduced, so spans convert from vectors.
//
// With c-bit windows a scalar k is written k = Σ_w d_w·2^(wc) with d_w in [−2^(c−1), 2^(c−1)):
// a raw c-bit digit plus the incoming carry that reaches 2^(c−1) becomes negative (minus 2^c)
// and carries 1 into the next window. A negative digit adds −P to bucket |d|, so a window needs
// 2^(c−1) buckets instead of 2^c − 1. Enough windows are used that the top one never carries.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <type_traits>
#include <vector>

#include "snarkd/ff/bn254.hpp"
#include "snarkd/ff/fr.hpp"

namespace snarkd::msm::detail {

inline constexpr size_t kMinWindowBits = 2;   // c = 1 would carry forever
inline constexpr size_t kMaxWindowBits = 16;  // digits are stored as int16_t

// Windows for c-bit digits of scalars < r: the smallest W whose top window, holding the bits of
// r − 1 from (W−1)c upwards plus a carry, stays below 2^(c−1). E.g. for BLS12-381 c = 16 → 16,
// c = 15 → 18.
template <class S = ff::Fr>
size_t window_count(size_t bits);

// How one MSM is cut into tasks: `windows` windows of `bits` bits, and the points split into
// `chunks` ranges, each (window, range) pair with its own buckets; windows·chunks tasks.
struct Plan {
  size_t bits = 0, windows = 0, chunks = 0;
};

// Picks c (or uses forced_bits when non-zero) and the chunk count minimising the estimated time
// ceil(tasks / threads) · (points per chunk + reduce_weight · 2^c): a task adds its points into
// buckets, then reduces 2^(c−1) buckets with 2 full additions each (reduce_weight = the cost of
// those per bucket, relative to one bucket addition, times 1/2 per 2^c).
template <class S = ff::Fr>
Plan make_plan(size_t n, size_t threads, size_t forced_bits, double reduce_weight);

// Signed c-bit digits of every scalar (Montgomery form in, converted here), window-major:
// out[w·n + i] is digit w of scalars[i]. Runs on `threads` threads (1: the calling thread).
template <class S = ff::Fr>
std::vector<int16_t> recode(std::span<const std::type_identity_t<S>> scalars, const Plan& plan,
                            size_t threads);

// Runs fn(t) for t in [0, tasks): on the calling thread when threads == 1, else on the pool.
void run_tasks(size_t tasks, size_t threads, const std::function<void(size_t)>& fn);

// The thread count an Options::threads value stands for (0 → the global pool's size).
size_t resolve_threads(size_t threads);

#define SNARKD_PIPPENGER_DECLARE(S)                                                       \
  extern template size_t window_count<S>(size_t);                                         \
  extern template Plan make_plan<S>(size_t, size_t, size_t, double);                      \
  extern template std::vector<int16_t> recode<S>(std::span<const std::type_identity_t<S>>, \
                                                 const Plan&, size_t);
SNARKD_PIPPENGER_DECLARE(ff::Fr)
SNARKD_PIPPENGER_DECLARE(ff::bn254::Fr)
#undef SNARKD_PIPPENGER_DECLARE

}  // namespace snarkd::msm::detail
