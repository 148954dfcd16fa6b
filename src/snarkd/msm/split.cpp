// Scalar classification for msm_split: one pass over Montgomery limbs, in parallel over
// 64-scalar words so each part owns its bitmap words.
#include <algorithm>

#include "snarkd/msm/msm.hpp"
#include "snarkd/msm/pippenger.hpp"

namespace snarkd::msm {

namespace {

struct Part {
  SplitStats stats;
  std::vector<size_t> others;
};

// Classifies scalars [b, e) (b a multiple of 64), writing their bitmap words.
template <class S>
Part classify(std::span<const S> scalars, size_t b, size_t e, uint64_t* ones) {
  constexpr S kOne = S::one();  // Montgomery limbs of 1 (R mod r)
  Part part;
  for (size_t i = b; i < e; ++i) {
    if (scalars[i].is_zero()) {
      ++part.stats.zeros;
    } else if (scalars[i] == kOne) {
      ++part.stats.ones;
      ones[i / 64] |= uint64_t(1) << (i % 64);
    } else {
      ++part.stats.others;
      part.others.push_back(i);
    }
  }
  return part;
}

template <class S>
ScalarSplitT<S> split_any(std::span<const S> scalars) {
  const size_t n = scalars.size(), words = (n + 63) / 64;
  ScalarSplitT<S> split;
  split.size = n;
  split.ones.assign(words, 0);
  const size_t threads = detail::resolve_threads(0);
  const size_t parts = std::max<size_t>(1, std::min(threads, words));
  std::vector<Part> result(parts);
  detail::run_tasks(parts, threads, [&](size_t p) {
    const size_t b = std::min(n, 64 * (words * p / parts));
    const size_t e = std::min(n, 64 * (words * (p + 1) / parts));
    result[p] = classify(scalars, b, e, split.ones.data());
  });
  for (const Part& part : result) {  // parts are in index order, so `others` stays ascending
    split.stats.zeros += part.stats.zeros;
    split.stats.ones += part.stats.ones;
    split.stats.others += part.stats.others;
    split.others.insert(split.others.end(), part.others.begin(), part.others.end());
  }
  split.other_scalars.resize(split.others.size());
  for (size_t j = 0; j < split.others.size(); ++j)
    split.other_scalars[j] = scalars[split.others[j]];
  return split;
}

}  // namespace

ScalarSplit split_scalars(std::span<const ff::Fr> scalars) { return split_any(scalars); }

ScalarSplitT<ff::bn254::Fr> split_scalars(std::span<const ff::bn254::Fr> scalars) {
  return split_any(scalars);
}

}  // namespace snarkd::msm
