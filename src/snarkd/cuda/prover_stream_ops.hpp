// Per-element work of the streamed GPU prover (prover_stream.hpp), written once for host and
// device: the kernels in prover_stream.cu call these, and the tests run the same functions on
// the CPU against the reference prover's pieces (r1cs::evaluate, poly NTTs, msm_split).
#pragma once
#include <cstdint>

#include "snarkd/cuda/curve.hpp"
#include "snarkd/cuda/field.hpp"
#include "snarkd/r1cs/compact_witness.hpp"
#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::cuda::stream_ops {

// The witness as the streamed kernels read it: the plain values (32-byte Montgomery), or the
// compact form of r1cs::CompactWitness where it was uploaded (the arrays r1cs::compact_layout
// places): value i is 1 or 0 from two bits, else values[offset[i/64] + the others below it in
// its word]. A PoRep partition's witness is then ≈ 0.25 GB instead of 4.17. A plain pointer
// converts to a view.
struct WitnessView {
  const Fr* plain = nullptr;  // set: the plain witness; the arrays below are unused
  const uint64_t* ones = nullptr;
  const uint64_t* others = nullptr;
  const uint32_t* offset = nullptr;
  const Fr* values = nullptr;

  WitnessView() = default;
  SNARKD_HD WitnessView(const Fr* w) : plain(w) {}  // NOLINT(google-explicit-constructor)
  // The compact arrays at `base` as `l` lays them out.
  static WitnessView compact(const void* base, const r1cs::CompactLayout& l) {
    const auto* b = static_cast<const uint8_t*>(base);
    WitnessView v;
    v.ones = reinterpret_cast<const uint64_t*>(b + l.ones);
    v.others = reinterpret_cast<const uint64_t*>(b + l.others);
    v.offset = reinterpret_cast<const uint32_t*>(b + l.offset);
    v.values = reinterpret_cast<const Fr*>(b + l.values);
    return v;
  }
  // The word's three loads do not depend on each other; an other's value is one more. A kernel
  // that branches on the class right after reading waits for them: the ones' gathers read ahead
  // in two steps instead (CompactWord below).
  SNARKD_HD Fr operator[](uint64_t i) const {
    if (plain) return plain[i];
    const uint64_t q = i / 64, bit = uint64_t{1} << (i % 64);
    const uint64_t o = ones[q], x = others[q];
    const uint32_t at = offset[q];
    if (o & bit) return Fr::one();
    if (!(x & bit)) return Fr::zero();
    return values[at + uint32_t(popcount64(x & (bit - 1)))];
  }
  SNARKD_HD static uint32_t popcount64(uint64_t x) {
#ifdef __CUDA_ARCH__
    return uint32_t(__popcll(x));
#else
    return uint32_t(__builtin_popcountll(x));
#endif
  }
};

// Σ dict[coeff[k]]·w[col[k]] over the non-zeros [start, start + len) of a chunk's col/coeff. 1
// and −1 are applied by addition and subtraction (r1cs::kCoeffOne, kCoeffMinusOne), as
// r1cs::evaluate does.
SNARKD_HD Fr span_dot(const uint32_t* col, const uint32_t* coeff, uint64_t start, uint64_t len, const Fr* dict,
                      const WitnessView& w) {
  Fr acc = Fr::zero();
  for (uint64_t k = start, end = start + len; k < end; ++k) {
    const Fr x = w[col[k]];
    const uint32_t ci = coeff[k];
    if (ci == r1cs::kCoeffOne) acc += x;
    else if (ci == r1cs::kCoeffMinusOne) acc -= x;
    else acc += dict[ci] * x;
  }
  return acc;
}

// Row r of a chunk of rows whose row_ptr holds absolute offsets (row_ptr[0] is the chunk's first
// non-zero; col/coeff start there).
SNARKD_HD Fr row_dot(const uint64_t* row_ptr, const uint32_t* col, const uint32_t* coeff, uint64_t r, const Fr* dict,
                     const WitnessView& w) {
  return span_dot(col, coeff, row_ptr[r] - row_ptr[0], row_ptr[r + 1] - row_ptr[r], dict, w);
}

// A scalar's class for the bit-split MSMs: 0, 1 or "other" (Montgomery limbs compared with those
// of 0 and Fr::one(), as msm::split_scalars does).
enum Kind : uint32_t { kZero = 0, kOne = 1, kOther = 2 };
SNARKD_HD uint32_t scalar_kind(const Fr& s) { return s.is_zero() ? kZero : s == Fr::one() ? kOne : kOther; }

// x^k for k < 2^(lo_bits + hi_bits) from two tables: lo[j] = x^j (j < 2^lo_bits) and
// hi[j] = x^(j·2^lo_bits): one multiplication a lookup.
struct PowTable {
  const Fr* lo = nullptr;
  const Fr* hi = nullptr;
  uint32_t lo_bits = 0;
  SNARKD_HD Fr at(uint64_t k) const { return lo[k & ((uint64_t{1} << lo_bits) - 1)] * hi[k >> lo_bits]; }
};

// The split NTT over n = 2^L points with B = 2^d blocks of m = n/B (d ≤ 3), so that a transform
// needs m points of scratch (the public ntt() on each block) instead of n.
//   Split order: position p = b·m + j holds index i = j·B + rev_d(b) (rev_d: d-bit reversal).
//   DIF layers (level 0 .. d−1, blocks of len = n >> level, pair (i, i + len/2)):
//       u = x + y, v = (x − y)·ω^(±i·2^level)     natural order in → split order out
//   DIT layers (level d−1 .. 0):  t = y·ω^(±i·2^level), x + t, x − t     split in → natural out
// Inverse transforms (ω⁻¹) halve both outputs of every layer (the blocks' own inverse brings
// 1/m, the layers 1/B). The H computation:
//   inverse NTT  = DIF layers (ω⁻¹, ½), then each block's inverse NTT      natural → split
//   coset NTT    = each block's coset NTT with shift s^B (its own tables), then DIT layers (ω),
//                  the first of which multiplies block b by s^rev_d(b)     split → natural
//   coset inverse = DIF layers (ω⁻¹, ½), the last of which multiplies what goes to block b by
//                  s^(−rev_d(b)), then each block's coset inverse NTT (shift s^B)  natural → split
// because Σ_i c_i s^i ω^(ik) splits by i mod B into blocks whose terms carry s^r·(s^B)^j.
struct SplitTwiddles {
  PowTable omega, omega_inv;  // ω^k, ω^(−k) for k < n/2 (ω the n-th root)
  uint32_t log_n = 0, depth = 0;
  Fr half;
  Fr block_shift[8], block_shift_inv[8];  // s^rev_d(b), s^(−rev_d(b)) for block b < B
};

SNARKD_HD uint32_t reverse_bits(uint32_t x, uint32_t bits) {
  uint32_t r = 0;
  for (uint32_t k = 0; k < bits; ++k) r |= ((x >> k) & 1) << (bits - 1 - k);
  return r;
}

// Where index i (natural order) sits in split order.
SNARKD_HD uint64_t split_position(uint64_t i, uint32_t log_n, uint32_t depth) {
  const uint64_t blocks_mask = (uint64_t{1} << depth) - 1;
  return (uint64_t(reverse_bits(uint32_t(i & blocks_mask), depth)) << (log_n - depth)) | (i >> depth);
}

// Pair p of a layer: its index i within its block (blocks of len = n >> level, len/2 pairs
// each) and the positions of x and y.
SNARKD_HD void pair_positions(uint64_t p, uint32_t log_n, uint32_t level, uint64_t& i, uint64_t& xi, uint64_t& yi) {
  const uint64_t half = uint64_t{1} << (log_n - level - 1);
  const uint64_t block = p >> (log_n - level - 1);
  i = p & (half - 1);
  xi = (block << (log_n - level)) + i;
  yi = xi + half;
}

// Block scaling folded into a layer: none, inputs by s^rev(b) (first DIT layer of the coset
// NTT), or outputs by s^(−rev(b)) (last DIF layer of the coset inverse).
enum class BlockScale : uint32_t { kNone, kInputs, kOutputs };

// One butterfly of layer `level` on pair p (the kernels run one per thread; the host twin loops).
SNARKD_HD void split_butterfly(Fr* v, uint64_t p, uint32_t level, bool dit, bool inverse, BlockScale scale,
                               const SplitTwiddles& t) {
  uint64_t i, xi, yi;
  pair_positions(p, t.log_n, level, i, xi, yi);
  const uint32_t shift = t.log_n - t.depth;  // position → block
  Fr x = v[xi], y = v[yi];
  if (scale == BlockScale::kInputs) {
    x = x * t.block_shift[xi >> shift];
    y = y * t.block_shift[yi >> shift];
  }
  const Fr w = inverse ? t.omega_inv.at(i << level) : t.omega.at(i << level);
  if (dit) {
    const Fr tw = y * w;
    y = x - tw;
    x = x + tw;
  } else {
    const Fr u = x + y;
    y = (x - y) * w;
    x = u;
  }
  if (inverse) {
    x = x * t.half;
    y = y * t.half;
  }
  if (scale == BlockScale::kOutputs) {
    x = x * t.block_shift_inv[xi >> shift];
    y = y * t.block_shift_inv[yi >> shift];
  }
  v[xi] = x;
  v[yi] = y;
}

// The bit-split MSM's per-chunk work for one scalar: its witness index (a density query reads
// the witness through its index list; a full query and L read it at offset + position), and its
// value.
SNARKD_HD uint64_t chunk_index(const uint32_t* index, uint64_t offset, uint64_t first, uint64_t k) {
  return index ? index[k] : offset + first + k;
}
SNARKD_HD Fr chunk_scalar(const WitnessView& w, const uint32_t* index, uint64_t offset, uint64_t first, uint64_t k) {
  return w[chunk_index(index, offset, first, k)];
}

// A compact witness's value read in two steps, for a kernel that reads ahead (ones_gather): the
// word's bit vectors and offset first, with no branch on them where they are loaded, then its
// class, and an other's value. Read at once (WitnessView::operator[]) the ones' gathers of a
// PoRep partition took 41 ms more than over the plain witness, whose one load a tile ahead is
// first used a tile later (docs/PERFORMANCE.md).
struct CompactWord {
  uint64_t ones = 0, others = 0;
  uint32_t offset = 0, bit = 0;
  SNARKD_HD uint32_t kind() const {
    return (ones >> bit) & 1 ? kOne : (others >> bit) & 1 ? kOther : kZero;
  }
};
SNARKD_HD CompactWord compact_word(const WitnessView& w, uint64_t i) {
  const uint64_t q = i / 64;
  return {w.ones[q], w.others[q], w.offset[q], uint32_t(i % 64)};
}
SNARKD_HD Fr other_value(const WitnessView& w, const CompactWord& c) {
  return w.values[c.offset + WitnessView::popcount64(c.others & ((uint64_t{1} << c.bit) - 1))];
}

}  // namespace snarkd::cuda::stream_ops
