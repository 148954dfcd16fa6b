#include "snarkd/r1cs/compact_witness.hpp"

#include <algorithm>
#include <bit>
#include <string>

#include "snarkd/util/error.hpp"
#include "snarkd/util/threads.hpp"

namespace snarkd::r1cs {

namespace {

// Words [first, last) of thread k of `threads` over W words (equal slices).
std::pair<uint64_t, uint64_t> slice(uint64_t words, unsigned threads, unsigned k) {
  const uint64_t per = (words + threads - 1) / threads;
  return {std::min(words, k * per), std::min(words, (k + 1) * per)};
}

uint64_t align256(uint64_t b) { return (b + 255) / 256 * 256; }

}  // namespace

CompactLayout compact_layout(uint64_t n, uint64_t num_values) {
  const uint64_t words = (n + 63) / 64;
  CompactLayout l;
  l.others = align256(words * 8);
  l.offset = l.others + align256(words * 8);
  l.values = l.offset + align256(words * 4);
  l.total = l.values + align256(num_values * sizeof(ff::Fr));
  return l;
}

std::optional<CompactWitness> compact_witness(std::span<const ff::Fr> w, double max_fraction, unsigned threads) {
  CompactWitness c;
  c.n = w.size();
  const uint64_t words = (c.n + 63) / 64;
  c.ones.assign(words, 0);
  c.others.assign(words, 0);
  c.offset.assign(words, 0);
  threads = std::max(1u, std::min<unsigned>(threads, unsigned(std::max<uint64_t>(1, words / 1024))));
  const ff::Fr zero = ff::Fr::zero(), one = ff::Fr::one();
  // Pass 1: the bit vectors, each word's offset within its slice, each slice's count.
  std::vector<uint64_t> count(threads + 1, 0);
  run_on_threads(threads, [&](size_t k) {
    const auto [first, last] = slice(words, threads, unsigned(k));
    uint64_t local = 0;
    for (uint64_t q = first; q < last; ++q) {
      uint64_t o = 0, x = 0;
      const uint64_t end = std::min<uint64_t>(c.n, q * 64 + 64);
      for (uint64_t i = q * 64; i < end; ++i) {
        const uint64_t bit = uint64_t{1} << (i % 64);
        if (w[i] == one) o |= bit;
        else if (!(w[i] == zero)) x |= bit;
      }
      c.ones[q] = o;
      c.others[q] = x;
      c.offset[q] = uint32_t(local);  // within the slice for now (the total is checked below)
      local += uint64_t(std::popcount(x));
    }
    count[k + 1] = local;
  });
  for (unsigned k = 0; k < threads; ++k) count[k + 1] += count[k];
  const uint64_t total = count[threads];
  if (total >= (uint64_t{1} << 32)) return std::nullopt;
  c.values.resize(total);
  if (double(c.payload_bytes()) > max_fraction * double(c.n * sizeof(ff::Fr))) return std::nullopt;
  // Pass 2: global offsets, the others' values.
  run_on_threads(threads, [&](size_t k) {
    const auto [first, last] = slice(words, threads, unsigned(k));
    for (uint64_t q = first; q < last; ++q) {
      c.offset[q] += uint32_t(count[k]);
      uint64_t at = c.offset[q];
      for (uint64_t x = c.others[q]; x != 0; x &= x - 1) c.values[at++] = w[q * 64 + uint64_t(std::countr_zero(x))];
    }
  });
  return c;
}

void check_compact_witness(const CompactWitness& c) {
  const uint64_t words = (c.n + 63) / 64;
  auto bad = [](const std::string& what) { throw InvalidArgument("compact witness: " + what); };
  if (c.ones.size() != words || c.others.size() != words || c.offset.size() != words)
    bad(std::to_string(c.n) + " values need " + std::to_string(words) + " words; ones, others, offset have " +
        std::to_string(c.ones.size()) + ", " + std::to_string(c.others.size()) + ", " +
        std::to_string(c.offset.size()));
  uint64_t seen = 0;
  for (uint64_t q = 0; q < words; ++q) {
    const uint64_t tail = c.n % 64 && q + 1 == words ? ~uint64_t{0} << (c.n % 64) : 0;
    if ((c.ones[q] | c.others[q]) & tail) bad("word " + std::to_string(q) + " marks values past n");
    if (c.ones[q] & c.others[q]) bad("word " + std::to_string(q) + " marks a value both 1 and other");
    if (c.offset[q] != seen)
      bad("offset[" + std::to_string(q) + "] is " + std::to_string(c.offset[q]) + ", the others before it " +
          std::to_string(seen));
    seen += uint64_t(std::popcount(c.others[q]));
  }
  if (seen != c.values.size())
    bad(std::to_string(seen) + " others marked, " + std::to_string(c.values.size()) + " values");
}

std::vector<ff::Fr> expand_witness(const CompactWitness& c) {
  check_compact_witness(c);
  std::vector<ff::Fr> w(c.n, ff::Fr::zero());
  for (uint64_t i = 0; i < c.n; ++i) {
    const uint64_t q = i / 64, bit = uint64_t{1} << (i % 64);
    if (c.ones[q] & bit) w[i] = ff::Fr::one();
    else if (c.others[q] & bit) w[i] = c.values[c.offset[q] + uint64_t(std::popcount(c.others[q] & (bit - 1)))];
  }
  return w;
}

}  // namespace snarkd::r1cs
