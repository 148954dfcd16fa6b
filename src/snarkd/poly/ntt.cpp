// Radix-2 NTT, organised for the cache (a Bailey / four-step decomposition without transposes).
//
// The transform of n = 2^L points is the radix-2 network: level S (butterfly half-width 2^S)
// pairs i and i + 2^S with twiddle ω_{2^(S+1)}^(i mod 2^S). Decimation in frequency (DIF) runs
// the levels from S = L−1 down to 0 on natural-order input and leaves the output bit-reversed;
// decimation in time (DIT) runs them upwards, from bit-reversed input to natural output.
//
// Levels are grouped into passes over index bit ranges [lo, hi) of at most pass_log bits. In a
// pass, the elements that differ only in bits [lo, hi) form independent groups of 2^(hi−lo)
// ("columns": element c + 2^lo·r of each block of 2^hi, for column c < 2^lo), and the pass's
// levels act inside each group, so one pass reads and writes the data once (pass_log is a
// Domain parameter, default 12: 128 KiB per group, resident in the 1.25 MiB L2). The pass with
// lo = 0 works on contiguous blocks; the others gather kColumnWidth columns into a buffer,
// transform them there and scatter them back (columns are strided by a power of two, which
// would thrash the cache sets if transformed in place). The twiddles of column c at its level
// s are ω_{2^(lo+s+1)}^(c + 2^lo·j) = w_s · ω_{2^(s+1)}^j with w_s = ω_{2^(lo+s+1)}^c: one
// multiplication each from the small per-domain table, so no table grows with n.
//
// Cost at 2^20 (two passes of 10 levels): 10·2^19 butterflies (1 mul, 1 add, 1 sub) minus the
// ≈2^20 with twiddle 1, plus 2^20 multiplications for column twiddles and one permutation.
#include "snarkd/poly/ntt.hpp"

#include <algorithm>
#include <string>

#include "snarkd/poly/fr_ops.hpp"
#include "snarkd/poly/permute.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::poly {

// Sizes up to 2^32 elements of 32 bytes must be representable.
static_assert(sizeof(size_t) >= 8, "poly needs a 64-bit size_t");

namespace {

using detail::add;
using detail::mul;
using detail::sub;

// Columns gathered per pass item: 8 × 32 bytes = 4 cache lines read per row.
constexpr size_t kColumnWidth = 8;

size_t task_parts() { return 4 * ThreadPool::global().size(); }  // slack for uneven cores

Twiddles make_twiddles(const Fr& root, uint32_t log_n, uint32_t pass_log) {
  Twiddles t;
  t.roots.resize(log_n + 1);
  t.roots[log_n] = root;
  for (uint32_t m = log_n; m > 0; --m) t.roots[m - 1] = mul(t.roots[m], t.roots[m]);
  t.leaf_log = std::min(log_n, pass_log);
  t.leaf.resize((size_t{1} << t.leaf_log) - 1);
  for (uint32_t s = 0; s < t.leaf_log; ++s) {
    Fr* level = t.leaf.data() + (size_t{1} << s) - 1;
    level[0] = Fr::one();
    for (size_t j = 1; j < (size_t{1} << s); ++j) level[j] = mul(level[j - 1], t.roots[s + 1]);
  }
  return t;
}

// DIF on x[0, 2^log_len) with per-level twiddles tw (level s at tw + 2^s − 1). unit_first says
// that each level's twiddle 0 is 1 (true for the standard table), saving that multiplication.
void dif_kernel(Fr* x, uint32_t log_len, const Fr* tw, bool unit_first) {
  const size_t len = size_t{1} << log_len;
  for (uint32_t s = log_len; s-- > 0;) {
    const size_t h = size_t{1} << s;
    const Fr* t = tw + h - 1;
    for (Fr* blk = x; blk != x + len; blk += 2 * h) {
      size_t j = 0;
      if (unit_first) {
        const Fr u = blk[0], v = blk[h];
        blk[0] = add(u, v);
        blk[h] = sub(u, v);
        j = 1;
      }
      for (; j < h; ++j) {
        const Fr u = blk[j], v = blk[j + h];
        blk[j] = add(u, v);
        blk[j + h] = mul(sub(u, v), t[j]);
      }
    }
  }
}

// DIT counterpart: the same butterflies transposed, levels upwards.
void dit_kernel(Fr* x, uint32_t log_len, const Fr* tw, bool unit_first) {
  const size_t len = size_t{1} << log_len;
  for (uint32_t s = 0; s < log_len; ++s) {
    const size_t h = size_t{1} << s;
    const Fr* t = tw + h - 1;
    for (Fr* blk = x; blk != x + len; blk += 2 * h) {
      size_t j = 0;
      if (unit_first) {
        const Fr u = blk[0], v = blk[h];
        blk[0] = add(u, v);
        blk[h] = sub(u, v);
        j = 1;
      }
      for (; j < h; ++j) {
        const Fr u = blk[j], v = mul(blk[j + h], t[j]);
        blk[j] = add(u, v);
        blk[j + h] = sub(u, v);
      }
    }
  }
}

enum class Direction { kDif, kDit };

void run_kernel(Direction dir, Fr* x, uint32_t log_len, const Fr* tw, bool unit_first) {
  if (dir == Direction::kDif)
    dif_kernel(x, log_len, tw, unit_first);
  else
    dit_kernel(x, log_len, tw, unit_first);
}

struct Pass {
  uint32_t lo, hi;  // index bits handled
};

// Passes from the bottom (lo = 0) up: as few as leaf_log allows, sizes as equal as possible,
// the larger ones at the bottom where they are cheapest (no gather, no column twiddles).
std::vector<Pass> plan(uint32_t log_n, uint32_t leaf_log) {
  std::vector<Pass> passes;
  if (log_n == 0) return passes;
  const uint32_t count = (log_n + leaf_log - 1) / leaf_log;
  uint32_t lo = 0;
  for (uint32_t k = 0; k < count; ++k) {
    const uint32_t bits = log_n / count + (k < log_n % count ? 1 : 0);
    passes.push_back({lo, lo + bits});
    lo += bits;
  }
  return passes;
}

// Twiddles of column c of a pass over bits [lo, lo + a), given w = ω_{2^(lo+a)}^c: level s
// gets w_s·leaf_s[j] with w_(a−1) = w and w_(s−1) = w_s² (2^a − 1 + a muls for 2^a elements).
void column_twiddles(const Twiddles& tw, uint32_t a, Fr w, Fr* out) {
  for (uint32_t s = a; s-- > 0;) {
    const size_t h = size_t{1} << s;
    const Fr* leaf = tw.leaf.data() + h - 1;
    Fr* level = out + h - 1;
    level[0] = w;
    for (size_t j = 1; j < h; ++j) level[j] = mul(w, leaf[j]);
    w = mul(w, w);
  }
}

// A pass with lo > 0: items are (block of 2^hi, group of kColumnWidth adjacent columns).
void column_pass(const Twiddles& tw, std::span<Fr> x, Pass p, Direction dir) {
  const uint32_t a = p.hi - p.lo;
  const size_t rows = size_t{1} << a, stride = size_t{1} << p.lo;
  const size_t width = std::min(kColumnWidth, stride);
  const size_t groups = stride / width;
  const Fr& step = tw.roots[p.hi];  // column c's top twiddle base is step^c
  auto body = [&](size_t begin, size_t end) {
    std::vector<Fr> buf(width * rows), col_tw(rows);
    for (size_t item = begin; item < end; ++item) {
      const size_t c0 = (item % groups) * width;
      Fr* base = x.data() + ((item / groups) << p.hi) + c0;
      for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < width; ++c) buf[c * rows + r] = base[r * stride + c];
      Fr w = detail::pow(step, c0);
      for (size_t c = 0; c < width; ++c) {
        column_twiddles(tw, a, w, col_tw.data());
        run_kernel(dir, buf.data() + c * rows, a, col_tw.data(), false);
        w = mul(w, step);
      }
      for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < width; ++c) base[r * stride + c] = buf[c * rows + r];
    }
  };
  parallel_for((x.size() >> p.hi) * groups, body, task_parts());
}

// The pass with lo = 0: contiguous blocks, standard twiddles, optional fused scaling.
void block_pass(const Twiddles& tw, std::span<Fr> x, uint32_t a, Direction dir, const Fr* scale) {
  const size_t len = size_t{1} << a;
  auto body = [&](size_t begin, size_t end) {
    for (size_t b = begin; b < end; ++b) {
      Fr* blk = x.data() + b * len;
      run_kernel(dir, blk, a, tw.leaf.data(), true);
      if (scale)
        for (size_t i = 0; i < len; ++i) blk[i] = mul(blk[i], *scale);
    }
  };
  parallel_for(x.size() >> a, body, task_parts());
}

// The whole network; scale (may be null) multiplies every output.
void transform(const Twiddles& tw, std::span<Fr> x, uint32_t log_n, Direction dir,
               const Fr* scale) {
  std::vector<Pass> passes = plan(log_n, tw.leaf_log);
  if (dir == Direction::kDif) std::reverse(passes.begin(), passes.end());
  for (const Pass& p : passes) {
    if (p.lo == 0)
      block_pass(tw, x, p.hi, dir, scale);
    else
      column_pass(tw, x, p, dir);
  }
}

void check_size(const Domain& d, std::span<const Fr> data, const char* what) {
  if (data.size() != d.size())
    throw InvalidArgument(std::string(what) + ": data has " + std::to_string(data.size()) +
                          " elements but the domain has " + std::to_string(d.size()));
}

void check_shift(const Fr& shift, const char* what) {
  if (shift.is_zero()) throw InvalidArgument(std::string(what) + ": coset shift is zero");
}

}  // namespace

Domain::Domain(uint32_t log_n, uint64_t generator, uint32_t pass_log)
    : log_n_(log_n), generator_(generator) {
  if (log_n > kMaxLogSize)
    throw InvalidArgument("Domain: log_n = " + std::to_string(log_n) +
                          " exceeds 32, the 2-adicity of Fr");
  if (pass_log < 1 || pass_log > kMaxPassLog)
    throw InvalidArgument("Domain: pass_log = " + std::to_string(pass_log) + " is not in [1, " +
                          std::to_string(kMaxPassLog) + "]");
  const Fr omega = Fr::root_of_unity(log_n, generator);
  // Exact order 2^log_n: ω^(2^(log_n−1)) = −1 (or ω = 1 for log_n = 0).
  Fr half = omega;
  for (uint32_t i = 1; i < log_n; ++i) half = mul(half, half);
  if (log_n == 0 ? !omega.is_one() : half != -Fr::one())
    throw InvalidArgument("Domain: generator " + std::to_string(generator) +
                          " gives no root of unity of order 2^" + std::to_string(log_n) +
                          " (it must be a quadratic non-residue mod r, e.g. 5 or 7)");
  forward_ = make_twiddles(omega, log_n, pass_log);
  inverse_ = make_twiddles(omega.inverse(), log_n, pass_log);
  size_inv_ = Fr::from_u64(uint64_t{1} << log_n).inverse();
}

void ntt_nr(const Domain& d, std::span<Fr> data) {
  check_size(d, data, "ntt_nr");
  transform(d.forward_twiddles(), data, d.log_size(), Direction::kDif, nullptr);
}

void ntt_rn(const Domain& d, std::span<Fr> data) {
  check_size(d, data, "ntt_rn");
  transform(d.forward_twiddles(), data, d.log_size(), Direction::kDit, nullptr);
}

void intt_nr(const Domain& d, std::span<Fr> data) {
  check_size(d, data, "intt_nr");
  transform(d.inverse_twiddles(), data, d.log_size(), Direction::kDif, &d.size_inv());
}

void intt_rn(const Domain& d, std::span<Fr> data) {
  check_size(d, data, "intt_rn");
  transform(d.inverse_twiddles(), data, d.log_size(), Direction::kDit, &d.size_inv());
}

void ntt(const Domain& d, std::span<Fr> data) {
  check_size(d, data, "ntt");
  transform(d.forward_twiddles(), data, d.log_size(), Direction::kDif, nullptr);
  detail::permute(data, d.log_size(), {});
}

void intt(const Domain& d, std::span<Fr> data) {
  check_size(d, data, "intt");
  transform(d.inverse_twiddles(), data, d.log_size(), Direction::kDif, &d.size_inv());
  detail::permute(data, d.log_size(), {});
}

// Evaluations at shift·ω^j are the NTT of c_i·shift^i; the scaling rides on the permutation
// that DIT needs anyway (factor indexed by where the value comes from).
void coset_ntt(const Domain& d, std::span<Fr> data, const Fr& shift) {
  check_size(d, data, "coset_ntt");
  check_shift(shift, "coset_ntt");
  detail::permute(data, d.log_size(), {detail::Scaling::Kind::kBySource, Fr::one(), shift});
  transform(d.forward_twiddles(), data, d.log_size(), Direction::kDit, nullptr);
}

// Inverse of coset_ntt: c_i = n⁻¹·shift^(−i)·(Σ_j a_j ω^(−ij)); n⁻¹·shift^(−i) is applied by
// the permutation after the DIF (factor indexed by where the value goes).
void coset_intt(const Domain& d, std::span<Fr> data, const Fr& shift) {
  check_size(d, data, "coset_intt");
  check_shift(shift, "coset_intt");
  transform(d.inverse_twiddles(), data, d.log_size(), Direction::kDif, nullptr);
  detail::permute(data, d.log_size(),
                  {detail::Scaling::Kind::kByDestination, d.size_inv(), shift.inverse()});
}

void bit_reverse(std::span<Fr> data) {
  const size_t n = data.size();
  if (n == 0 || (n & (n - 1)) != 0)
    throw InvalidArgument("bit_reverse: size " + std::to_string(n) + " is not a power of two");
  detail::permute(data, static_cast<uint32_t>(__builtin_ctzll(n)), {});
}

void scale_by_powers(std::span<Fr> data, const Fr& c, const Fr& g) {
  auto body = [&](size_t begin, size_t end) {
    Fr f = mul(c, detail::pow(g, begin));
    for (size_t i = begin; i < end; ++i) {
      data[i] = mul(data[i], f);
      f = mul(f, g);
    }
  };
  parallel_for(data.size(), body, task_parts());
}

}  // namespace snarkd::poly
