#include "snarkd/poly/permute.hpp"

#include <optional>

#include "snarkd/util/thread_pool.hpp"

namespace snarkd::poly::detail {

namespace {

// Index bits split as (high q | middle | low q). Reversal maps (h, m, l) to (rev l, rev m,
// rev h), so the 2^q × 2^q tile of a middle value m trades places with the tile of rev m,
// transposed. Moving whole tiles reads and writes 2^q contiguous elements (512 bytes) at a
// time, where the element-wise swap touches two random cache lines per element.
constexpr uint32_t kTileLog = 4;

// f(k) = c·g^k for k < 2^log_n from two tables of about 2^(log_n/2) entries each:
// g^k = g^(k mod 2^h) · g^(2^h·⌊k/2^h⌋), one multiplication per value whatever order k comes
// in, and small tables (2^14 + 2^13 entries at 2^27).
template <class F>
class PowerTable {
 public:
  PowerTable(const F& c, const F& g, uint32_t log_n)
      : low_bits_((log_n + 1) / 2),
        low_(size_t{1} << low_bits_),
        high_(size_t{1} << (log_n - low_bits_)) {
    low_[0] = F::one();
    for (size_t j = 1; j < low_.size(); ++j) low_[j] = low_[j - 1] * g;
    const F step = low_.back() * g;  // g^(2^low_bits)
    high_[0] = c;
    for (size_t j = 1; j < high_.size(); ++j) high_[j] = high_[j - 1] * step;
  }
  F operator()(size_t k) const {
    return low_[k & (low_.size() - 1)] * high_[k >> low_bits_];
  }

 private:
  uint32_t low_bits_;
  std::vector<F> low_;   // g^j
  std::vector<F> high_;  // c·g^(j·2^low_bits)
};

// The factor for a value moving from index src to index dst.
template <class F>
class Scaler {
 public:
  Scaler(const Scaling<F>& s, uint32_t log_n) : kind_(s.kind), c_(s.c) {
    if (kind_ == ScalingKind::kByDestination || kind_ == ScalingKind::kBySource)
      table_.emplace(s.c, s.g, log_n);
  }
  [[gnu::always_inline]] F operator()(const F& v, size_t dst, size_t src) const {
    switch (kind_) {
      case ScalingKind::kNone:
        return v;
      case ScalingKind::kConstant:
        return v * c_;
      case ScalingKind::kByDestination:
        return v * (*table_)(dst);
      case ScalingKind::kBySource:
        return v * (*table_)(src);
    }
    return v;
  }

 private:
  ScalingKind kind_;
  F c_;
  std::optional<PowerTable<F>> table_;
};

template <class F>
void permute_small(std::span<F> x, uint32_t log_n, const Scaler<F>& f) {
  const std::vector<F> src(x.begin(), x.end());
  for (size_t d = 0; d < x.size(); ++d) {
    const size_t s = reverse_bits(d, log_n);
    x[d] = f(src[s], d, s);
  }
}

template <class F>
void permute_tiles(std::span<F> x, uint32_t log_n, const Scaler<F>& f) {
  constexpr size_t kSide = size_t{1} << kTileLog;
  const uint32_t mid_bits = log_n - 2 * kTileLog;
  const uint32_t high_shift = log_n - kTileLog;
  auto index = [&](size_t h, size_t m, size_t l) { return h << high_shift | m << kTileLog | l; };
  size_t rev[kSide];
  for (size_t i = 0; i < kSide; ++i) rev[i] = reverse_bits(i, kTileLog);

  auto body = [&](size_t begin, size_t end) {
    std::vector<F> tile(kSide * kSide), partner(kSide * kSide);
    auto load = [&](std::vector<F>& t, size_t m) {
      for (size_t h = 0; h < kSide; ++h)
        for (size_t l = 0; l < kSide; ++l) t[h * kSide + l] = x[index(h, m, l)];
    };
    // Tile m receives at (h, l) the element (rev l, m_rev, rev h), held in src (tile m_rev).
    auto store = [&](size_t m, size_t m_rev, const std::vector<F>& src) {
      for (size_t h = 0; h < kSide; ++h)
        for (size_t l = 0; l < kSide; ++l)
          x[index(h, m, l)] = f(src[rev[l] * kSide + rev[h]], index(h, m, l), index(rev[l], m_rev, rev[h]));
    };
    for (size_t m = begin; m < end; ++m) {
      const size_t m_rev = reverse_bits(m, mid_bits);
      if (m_rev < m) continue;  // handled with its partner
      load(tile, m);
      if (m_rev == m) {
        store(m, m, tile);
        continue;
      }
      load(partner, m_rev);
      store(m, m_rev, partner);
      store(m_rev, m, tile);
    }
  };
  parallel_for(size_t{1} << mid_bits, body, 4 * ThreadPool::global().size());
}

}  // namespace

template <class F>
void permute(std::span<F> data, uint32_t log_n, const Scaling<F>& scaling) {
  const Scaler<F> f(scaling, log_n);
  if (log_n < 2 * kTileLog)
    permute_small(data, log_n, f);
  else
    permute_tiles(data, log_n, f);
}

template void permute<ff::Fr>(std::span<ff::Fr>, uint32_t, const Scaling<ff::Fr>&);
template void permute<ff::bn254::Fr>(std::span<ff::bn254::Fr>, uint32_t,
                                     const Scaling<ff::bn254::Fr>&);

}  // namespace snarkd::poly::detail
