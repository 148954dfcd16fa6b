// The most scratch any Pippenger of 1 .. max_n points needs, given one's scratch for n points
// (bytes(n)): a bound the callers size once for every shorter length they may run. bytes(n) is not
// monotone in n — the window width grows at powers of two (fewer windows: fewer sort entries) and
// the windows per pass, ⌊E/n⌋ for E sort entries per pass, drop at n = ⌊E/j⌋ + 1 (fewer entries
// per pass) — but between those points both are fixed and it grows with n, so the maximum is at
// max_n or at a segment's right end: 2^k − 1 or ⌊E/j⌋. Host arithmetic only.
#pragma once
#include <algorithm>
#include <cstddef>

namespace snarkd::cuda::detail {

template <class Bytes>
size_t scratch_bound(size_t max_n, size_t pass_entries, const Bytes& bytes) {
  size_t m = bytes(max_n);
  for (size_t p = 2; p - 1 <= max_n && p != 0; p *= 2) m = std::max(m, bytes(p - 1));
  for (size_t j = 1; j <= 64; ++j)
    if (pass_entries / j >= 1 && pass_entries / j <= max_n) m = std::max(m, bytes(pass_entries / j));
  return m;
}

}  // namespace snarkd::cuda::detail
