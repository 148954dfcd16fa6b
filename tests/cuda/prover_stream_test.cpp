// The streamed GPU prover (cuda/prover_stream.hpp). Host parts (run everywhere): the split NTT's
// butterflies and order against the CPU NTTs (poly), the QAP row function against
// r1cs::evaluate, the scalar classes against msm::split_scalars. GPU parts (label gpu, skip
// without a device): the streamed steps — with every chunk resident, and with chunks copied
// into "slots" one at a time — against the CPU prover's sums, and the key's placement; a stop
// ends each step before its next chunk with the stream idle and the sums unwritten.
#include <gtest/gtest.h>

#include <cstring>
#include <stop_token>

#include "common/bound.hpp"
#include "common/seed.hpp"
#include "cuda/gpu_test_util.hpp"
#include "snarkd/cuda/prover_stream.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/groth16/qap.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/msm/msm.hpp"
#include "snarkd/poly/ntt.hpp"
#include "snarkd/r1cs/short_rows.hpp"
#include "snarkd/r1cs/synthetic.hpp"
#include "snarkd/util/cancel.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {
namespace {

using stream_ops::BlockScale;

std::vector<Fr> to_dev(const std::vector<ff::Fr>& v) {
  std::vector<Fr> out(v.size());
  std::memcpy(static_cast<void*>(out.data()), v.data(), v.size() * sizeof(Fr));
  return out;
}
std::vector<ff::Fr> to_ff(const std::vector<Fr>& v) {
  std::vector<ff::Fr> out(v.size());
  std::memcpy(static_cast<void*>(out.data()), v.data(), v.size() * sizeof(Fr));
  return out;
}

// The compact form's arrays packed as the engine uploads them (r1cs::compact_layout(c)).
std::vector<uint8_t> pack(const r1cs::CompactWitness& c) {
  const r1cs::CompactLayout l = r1cs::compact_layout(c);
  std::vector<uint8_t> out(l.total, 0xee);  // padding poisoned
  std::memcpy(out.data() + l.ones, c.ones.data(), c.ones.size() * 8);
  std::memcpy(out.data() + l.others, c.others.data(), c.others.size() * 8);
  std::memcpy(out.data() + l.offset, c.offset.data(), c.offset.size() * 4);
  std::memcpy(out.data() + l.values, c.values.data(), c.values.size() * sizeof(ff::Fr));
  return out;
}

// The host twin of a layer pass: split_butterfly on every pair, levels in the given order.
void layers(std::vector<Fr>& v, const stream_ops::SplitTwiddles& t, bool dit, bool inverse, BlockScale scale) {
  const uint64_t pairs = v.size() / 2;
  for (uint32_t step = 0; step < t.depth; ++step) {
    const uint32_t level = dit ? t.depth - 1 - step : step;
    const bool scaled = level == t.depth - 1;  // first DIT layer, last DIF layer
    for (uint64_t p = 0; p < pairs; ++p)
      stream_ops::split_butterfly(v.data(), p, level, dit, inverse, scaled ? scale : BlockScale::kNone, t);
  }
}

// fn on each block of n/B points (CPU NTTs standing in for the public ntt() on the device).
template <class Fn>
std::vector<Fr> per_block(const std::vector<Fr>& v, uint32_t depth, Fn&& fn) {
  std::vector<ff::Fr> h = to_ff(v);
  const size_t m = h.size() >> depth;
  for (size_t b = 0; b < (size_t{1} << depth); ++b) fn(std::span<ff::Fr>(h.data() + b * m, m));
  return to_dev(h);
}

TEST(SplitNtt, MatchesTheCpuTransformsInSplitOrder) {
  auto g = snarkd::test::rng("split-ntt");
  const uint64_t gen = 7;
  for (uint32_t L : {2u, 3u, 5u, 8u, 11u})
    for (uint32_t d = 1; d <= std::min(L, 3u); ++d) {
      const size_t n = size_t{1} << L;
      const ff::Fr s = ff::Fr::from_u64(7);
      const SplitTwiddleHost host = split_twiddles(L, d, gen, s);
      const stream_ops::SplitTwiddles t = host.view(reinterpret_cast<const Fr*>(host.values.data()));
      const poly::Domain full(L, gen), block(L - d, gen);
      const ff::Fr sB = s.pow(uint64_t{1} << d);
      std::vector<ff::Fr> x(n);
      for (auto& e : x) e = ff::Fr::random(g);
      const std::string what = "L=" + std::to_string(L) + " d=" + std::to_string(d);
      // Inverse: natural evaluations → split-order coefficients.
      std::vector<Fr> v = to_dev(x);
      layers(v, t, false, true, BlockScale::kNone);
      v = per_block(v, d, [&](std::span<ff::Fr> b) { poly::intt(block, b); });
      std::vector<ff::Fr> coeffs = x;
      poly::intt(full, coeffs);
      const std::vector<ff::Fr> got = to_ff(v);
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(got[stream_ops::split_position(i, L, d)], coeffs[i]) << what << " i=" << i;
      // Coset forward: split-order coefficients → natural evaluations on s·⟨ω⟩.
      v = per_block(v, d, [&](std::span<ff::Fr> b) { poly::coset_ntt(block, b, sB); });
      layers(v, t, true, false, BlockScale::kInputs);
      std::vector<ff::Fr> evals = coeffs;
      poly::coset_ntt(full, evals, s);
      ASSERT_EQ(to_ff(v), evals) << what;
      // Coset inverse: natural coset evaluations → split-order coefficients.
      layers(v, t, false, true, BlockScale::kOutputs);
      v = per_block(v, d, [&](std::span<ff::Fr> b) { poly::coset_intt(block, b, sB); });
      const std::vector<ff::Fr> back = to_ff(v);
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(back[stream_ops::split_position(i, L, d)], coeffs[i]) << what << " i=" << i;
    }
}

TEST(SplitNtt, PositionsArePermutations) {
  for (uint32_t L : {2u, 6u})
    for (uint32_t d = 0; d <= std::min(L, 3u); ++d) {
      std::vector<int> hit(size_t{1} << L, 0);
      for (uint64_t i = 0; i < hit.size(); ++i) ++hit.at(stream_ops::split_position(i, L, d));
      for (int h : hit) EXPECT_EQ(h, 1);
    }
}


// row_dot over chunks of rows (absolute row_ptr, col/coeff from the chunk's first non-zero),
// as the kernels see a streamed chunk, equals r1cs::evaluate row by row.
TEST(StreamOps, RowDotOverChunksEqualsEvaluate) {
  auto g = snarkd::test::rng("stream-ops-rows");
  r1cs::SyntheticParams p;
  p.num_constraints = 3000;
  p.num_inputs = 5;
  p.seed = g();
  const auto sc = r1cs::generate_synthetic(p);
  const std::vector<Fr> dict = to_dev(sc.circuit.coeffs), plain = to_dev(sc.witness);
  const auto cw = r1cs::compact_witness(sc.witness, 1.0);
  ASSERT_TRUE(cw);
  const std::vector<uint8_t> packed = pack(*cw);
  // The plain witness, and its compact form read in place.
  const stream_ops::WitnessView views[] = {stream_ops::WitnessView(plain.data()),
                                           stream_ops::WitnessView::compact(packed.data(), r1cs::compact_layout(*cw))};
  for (const stream_ops::WitnessView& w : views)
    for (r1cs::Matrix m : {r1cs::Matrix::A, r1cs::Matrix::B, r1cs::Matrix::C}) {
      const r1cs::CsrMatrix& csr = sc.circuit.matrix(m);
      std::vector<ff::Fr> want(sc.circuit.num_constraints());
      r1cs::evaluate(sc.circuit, m, sc.witness, want);
      for (uint64_t chunk : {uint64_t(1), uint64_t(7), uint64_t(1000), uint64_t(3000)})
        for (uint64_t first = 0; first < csr.num_rows(); first += chunk) {
          const uint64_t count = std::min(chunk, csr.num_rows() - first), k0 = csr.row_ptr[first];
          // The chunk as a slot holds it: row_ptr[first .. first + count], col/coeff from k0.
          const std::vector<uint64_t> rp(csr.row_ptr.begin() + first, csr.row_ptr.begin() + first + count + 1);
          for (uint64_t r = 0; r < count; ++r) {
            const Fr got =
                stream_ops::row_dot(rp.data(), csr.col.data() + k0, csr.coeff.data() + k0, r, dict.data(), w);
            ASSERT_EQ(got.to_host(), want[first + r]) << r1cs::matrix_name(m) << " row " << first + r;
          }
        }
      // The short form, decoded as the sequential twin of the kernels' block scan.
      const std::optional<r1cs::ShortRows> sr = r1cs::short_rows(csr);
      ASSERT_TRUE(sr);
      for (uint64_t chunk : {r1cs::kRowGroup, 3 * r1cs::kRowGroup})
        for (uint64_t first = 0; first < csr.num_rows(); first += chunk) {
          const uint64_t count = std::min(chunk, csr.num_rows() - first), k0 = csr.row_ptr[first];
          const std::vector<uint64_t> rp =
              r1cs::expand_short_rows(sr->group_start.data() + first / r1cs::kRowGroup, sr->len.data() + first, count);
          for (uint64_t r = 0; r < count; ++r) {
            const Fr got = stream_ops::span_dot(csr.col.data() + k0, csr.coeff.data() + k0, rp[r], rp[r + 1] - rp[r],
                                                dict.data(), w);
            ASSERT_EQ(got.to_host(), want[first + r]) << r1cs::matrix_name(m) << " short row " << first + r;
          }
        }
    }
}

// scalar_kind and chunk_scalar agree with the CPU split's classes and gathers.
// The B G2 part's bounds from the B G1 part's counts: the sum over the recorded chunks that
// overlap, never below the true count of any sub-range; nothing where the record has a gap.
TEST(StreamOps, ChunkCountsBoundSubRangesFromOverlappingChunks) {
  auto g = snarkd::test::rng("stream_chunk_counts");
  const uint64_t n = 1000 + g() % 1000;
  std::vector<uint8_t> other(n);
  for (auto& o : other) o = g() % 3 == 0;
  auto count = [&](uint64_t first, uint64_t len) {
    uint64_t c = 0;
    for (uint64_t k = first; k < first + len; ++k) c += other[k];
    return c;
  };
  detail::ChunkCounts cc;
  std::vector<uint64_t> cuts{0};
  while (cuts.back() < n) cuts.push_back(std::min(n, cuts.back() + 1 + g() % 200));
  for (size_t k = 0; k + 1 < cuts.size(); ++k)  // recorded in any order
    cc.record(cuts[cuts.size() - 2 - k], cuts[cuts.size() - 1 - k] - cuts[cuts.size() - 2 - k],
              count(cuts[cuts.size() - 2 - k], cuts[cuts.size() - 1 - k] - cuts[cuts.size() - 2 - k]));
  for (int trial = 0; trial < 2000; ++trial) {
    const uint64_t first = g() % n, len = 1 + g() % (n - first);
    const auto b = cc.bound(first, len);
    ASSERT_TRUE(b.has_value()) << first << "+" << len;
    EXPECT_GE(*b, count(first, len)) << first << "+" << len;
    // Exactly the overlapping chunks' sum.
    const auto lo = std::upper_bound(cuts.begin(), cuts.end(), first) - 1;
    const auto hi = std::lower_bound(cuts.begin(), cuts.end(), first + len);
    EXPECT_EQ(*b, count(*lo, *hi - *lo)) << first << "+" << len;
  }
  EXPECT_EQ(cc.bound(5, 0), std::optional<uint64_t>(0));
  EXPECT_FALSE(cc.bound(n - 1, 2).has_value()) << "past the recorded range";
  // A gap: drop one recorded chunk in the middle.
  detail::ChunkCounts gap;
  for (size_t k = 0; k + 1 < cuts.size(); ++k)
    if (k != 1) gap.record(cuts[k], cuts[k + 1] - cuts[k], count(cuts[k], cuts[k + 1] - cuts[k]));
  if (cuts.size() > 3) {
    EXPECT_FALSE(gap.bound(cuts[0], cuts[3] - cuts[0]).has_value());
    EXPECT_FALSE(gap.bound(cuts[1], 1).has_value());
    EXPECT_TRUE(gap.bound(cuts[2], cuts[3] - cuts[2]).has_value());
  }
  detail::ChunkCounts empty;
  EXPECT_FALSE(empty.bound(0, 1).has_value());
}

// The tail's length through flushes, chunks added by bounds or by counts in random order, as
// stream_witness_msms decides (a tail that seems full is measured, then flushed only if the chunk
// still does not fit): the host's value is never below the device's length and equals it
// whenever it claims to be exact (a flush after a bounded chunk once left the next chunk's bound
// standing as an exact length: the Pippenger then read stale tail entries, a wrong B G2 sum at
// bit fraction 0.2).
TEST(StreamOps, TailLengthIsExactWheneverItSaysSo) {
  auto g = snarkd::test::rng("stream-tail-length");
  for (int run = 0; run < 200; ++run) {
    const uint64_t cap = 50 + g() % 100;
    detail::TailLength tail;
    uint64_t device = 0, flushes = 0;
    for (int chunk = 0; chunk < 100; ++chunk) {
      const uint64_t others = g() % (cap / 2), slack = g() % 3 == 0 ? 0 : g() % (cap / 2 - others + 1);
      const bool counted = g() % 2;
      const uint64_t told = counted ? others : others + slack;  // a bound is ≥ the count
      if (!tail.fits(told, cap) && !tail.exact()) tail.set(device);
      if (!tail.fits(told, cap)) {
        ASSERT_EQ(tail.value(), device) << "run " << run << " chunk " << chunk << ": flushing a bound";
        tail.set(device = 0), ++flushes;
      }
      device += others;
      tail.add(told, counted);
      ASSERT_GE(tail.value(), device);
      if (tail.exact()) {
        ASSERT_EQ(tail.value(), device) << "run " << run << " chunk " << chunk;
      }
    }
    if (!tail.exact()) tail.set(device);
    ASSERT_EQ(tail.value(), device);
    ASSERT_GT(flushes, 0u);
  }
}

TEST(StreamOps, ScalarClassesAndChunkScalars) {
  auto g = snarkd::test::rng("stream-ops-scalars");
  std::vector<ff::Fr> w(500);
  for (size_t i = 0; i < w.size(); ++i) w[i] = i % 3 == 0 ? ff::Fr::zero() : i % 3 == 1 ? ff::Fr::one() : ff::Fr::random(g);
  w[4] = ff::Fr::from_u64(2);  // small but not a bit
  const msm::ScalarSplit split = msm::split_scalars(w);
  const std::vector<Fr> dw = to_dev(w);
  uint64_t ones = 0, others = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    const uint32_t k = stream_ops::scalar_kind(dw[i]);
    ones += k == stream_ops::kOne;
    others += k == stream_ops::kOther;
    EXPECT_EQ(k == stream_ops::kOne, bool((split.ones[i / 64] >> (i % 64)) & 1)) << i;
  }
  EXPECT_EQ(ones, split.stats.ones);
  EXPECT_EQ(others, split.stats.others);
  const std::vector<uint32_t> index = {3, 9, 499, 0};
  for (uint64_t k = 0; k < index.size(); ++k)
    EXPECT_EQ(stream_ops::chunk_scalar(dw.data(), index.data(), 7, 100, k).to_host(), w[index[k]]);
  EXPECT_EQ(stream_ops::chunk_scalar(dw.data(), nullptr, 7, 100, 5).to_host(), w[112]);  // offset + first + k
}

// The compact witness read in place (WitnessView over the packed arrays, as the kernels read
// them) gives every value that r1cs::expand_witness gives, in one step and in two (CompactWord),
// and chunk_scalar through it the same scalars; sizes around a word, all-zero, all-one and
// all-other witnesses, 2 as a non-bit.
TEST(StreamOps, WitnessViewReadsTheCompactFormAsExpanded) {
  auto g = snarkd::test::rng("stream-ops-witness-view");
  for (const uint64_t n : {uint64_t(1), uint64_t(63), uint64_t(64), uint64_t(65), uint64_t(1000), uint64_t(4099)})
    for (const int mix : {0, 1, 2, 3}) {  // random 0/1/other; all 0; all 1; all other
      std::vector<ff::Fr> w(n);
      for (uint64_t i = 0; i < n; ++i) {
        const uint64_t r = mix == 0 ? g() % 3 : uint64_t(mix - 1);
        const ff::Fr other = i % 7 == 0 ? ff::Fr::from_u64(2) : ff::Fr::random(g);
        w[i] = r == 0 ? ff::Fr::zero() : r == 1 ? ff::Fr::one() : other;
      }
      const auto cw = r1cs::compact_witness(w, 2.0);
      ASSERT_TRUE(cw);
      const std::vector<ff::Fr> want = r1cs::expand_witness(*cw);
      ASSERT_EQ(want, w);
      const std::vector<uint8_t> packed = pack(*cw);
      const auto view = stream_ops::WitnessView::compact(packed.data(), r1cs::compact_layout(*cw));
      for (uint64_t i = 0; i < n; ++i) {
        ASSERT_EQ(view[i].to_host(), w[i]) << "n=" << n << " mix=" << mix << " i=" << i;
        // The read in two steps (ones_gather's read-ahead): the class from the words, an other's value.
        const stream_ops::CompactWord c = stream_ops::compact_word(view, i);
        ASSERT_EQ(c.kind(), stream_ops::scalar_kind(view[i])) << "n=" << n << " mix=" << mix << " i=" << i;
        if (c.kind() == stream_ops::kOther) {
          ASSERT_EQ(stream_ops::other_value(view, c).to_host(), w[i]) << "n=" << n << " mix=" << mix << " i=" << i;
        }
      }
      const std::vector<uint32_t> index = {uint32_t(n - 1), 0, uint32_t(n / 2)};
      for (uint64_t k = 0; k < index.size(); ++k)
        EXPECT_EQ(stream_ops::chunk_scalar(view, index.data(), 0, 0, k).to_host(), w[index[k]]);
      EXPECT_EQ(stream_ops::chunk_scalar(view, nullptr, n / 3, 0, 0).to_host(), w[n / 3]);
    }
}

// ---- on the device ---------------------------------------------------------------------------

using groth16::KeyFlavour;
using groth16::ProvingKey;
using groth16::QuerySums;

// The engine's side for a test: chunks of `points` points and `rows` rows; resident ones read
// from the key's region, the others copied into one device "slot" on the stream right before
// the kernels that read them (stream order keeps the slot's previous reader ahead of the copy).
// Rows a multiple of kRowGroup stream in the short form (r1cs/short_rows.hpp): every matrix for an
// even number of groups, A alone for an odd one (the kernels take the form per matrix).
class TestFeed {
 public:
  TestFeed(const DeviceProvingKey& key, const ProvingKey& pk, const r1cs::Circuit& c, uint64_t points, uint64_t rows,
           cudaStream_t stream)
      : key_(key), pk_(pk), c_(c), points_(points), rows_(rows), stream_(stream),
        a_index_(r1cs::density_indices(pk.a_density)), b_index_(r1cs::density_indices(pk.b_density)),
        slot_(uint64_t{64} << 20) {
    const bool bp = pk.flavour == KeyFlavour::kBellperson;
    using r1cs::Matrix;
    rows1_ = {Matrix::A, Matrix::B};
    rows2_ = bp ? std::vector{Matrix::C} : std::vector{Matrix::A, Matrix::B};
    if (rows % r1cs::kRowGroup == 0)
      for (Matrix m : {Matrix::A, Matrix::B, Matrix::C})
        if (m == Matrix::A || rows / r1cs::kRowGroup % 2 == 0) short_[size_t(m)] = r1cs::short_rows(c.matrix(m));
  }

  StreamLimits limits() const {
    StreamLimits l;
    const uint64_t lens[5] = {pk_.a.size(), pk_.b_g1.size(), pk_.b_g2.size(), pk_.l.size(), pk_.h.size()};
    for (int i = 0; i < 5; ++i) {
      l.chunk_points[i] = std::min(points_of(i), lens[i]);
      l.chunks[i] = (lens[i] + points_of(i) - 1) / points_of(i);
    }
    return l;
  }

  ChunkFeed feed() {
    return [this](StreamPart part, const std::function<void(const ChunkView&)>& visit) {
      if (part == StreamPart::kRows1 || part == StreamPart::kRows2) return rows(part == StreamPart::kRows1 ? rows1_ : rows2_, visit);
      query(int(part) - int(StreamPart::kA), visit);
    };
  }
  uint64_t streamed_chunks = 0;

 private:
  // B G2's chunks are cut at other points than B G1's (as the engine's, whose slots hold half as
  // many G2 points), so its bounds from B G1's counts span partial chunks.
  uint64_t points_of(int q) const { return q == 2 ? std::max<uint64_t>(1, points_ * 2 / 3) : points_; }

  std::byte* put(uint64_t& at, const void* host, uint64_t bytes) {
    std::byte* dst = slot_.data() + at;
    if (bytes) SNARKD_CUDA_CHECK(cudaMemcpyAsync(dst, host, bytes, cudaMemcpyHostToDevice, stream_));
    at += (bytes + 255) / 256 * 256;
    EXPECT_LE(at, slot_.bytes());
    return dst;
  }

  void rows(const std::vector<r1cs::Matrix>& ms, const std::function<void(const ChunkView&)>& visit) {
    const DeviceProvingKey::View& v = key_.view();
    const CsrView* resident[3] = {&v.a_matrix, &v.b_matrix, &v.c_matrix};
    const uint64_t m = c_.num_constraints();
    if (key_.key_layout().matrices) {
      ChunkView cv{0, m};
      for (size_t i = 0; i < ms.size(); ++i) {
        const CsrView& r = *resident[int(ms[i])];
        cv.row_ptr[i] = r.row_ptr, cv.col[i] = r.col, cv.coeff[i] = r.coeff;
      }
      return visit(cv);
    }
    for (uint64_t first = 0; first < m; first += rows_) {
      ChunkView cv{first, std::min(rows_, m - first)};
      uint64_t at = 0;
      for (size_t i = 0; i < ms.size(); ++i) {
        const r1cs::CsrMatrix& csr = c_.matrix(ms[i]);
        const uint64_t k0 = csr.row_ptr[first], k1 = csr.row_ptr[first + cv.count];
        if (const auto& sr = short_[size_t(ms[i])]) {
          const uint64_t groups = (cv.count + r1cs::kRowGroup - 1) / r1cs::kRowGroup;
          cv.group_start[i] = reinterpret_cast<const uint64_t*>(
              put(at, sr->group_start.data() + first / r1cs::kRowGroup, groups * 8));
          cv.len[i] = reinterpret_cast<const uint8_t*>(put(at, sr->len.data() + first, cv.count));
        } else {
          cv.row_ptr[i] = reinterpret_cast<const uint64_t*>(put(at, csr.row_ptr.data() + first, (cv.count + 1) * 8));
        }
        cv.col[i] = reinterpret_cast<const uint32_t*>(put(at, csr.col.data() + k0, (k1 - k0) * 4));
        cv.coeff[i] = reinterpret_cast<const uint32_t*>(put(at, csr.coeff.data() + k0, (k1 - k0) * 4));
      }
      ++streamed_chunks;
      visit(cv);
    }
  }

  void query(int q, const std::function<void(const ChunkView&)>& visit) {
    const DeviceProvingKey::View& v = key_.view();
    const void* host[5] = {pk_.a.data(), pk_.b_g1.data(), pk_.b_g2.data(), pk_.l.data(), pk_.h.data()};
    const uint64_t lens[5] = {pk_.a.size(), pk_.b_g1.size(), pk_.b_g2.size(), pk_.l.size(), pk_.h.size()};
    const uint64_t pb = q == 2 ? sizeof(G2Affine) : sizeof(G1Affine);
    const std::vector<uint32_t>* index = q == 0 ? &a_index_ : (q == 1 || q == 2) ? &b_index_ : nullptr;
    if (index && index->empty()) index = nullptr;
    const uint64_t step = points_of(q);
    for (uint64_t first = 0; first < lens[q]; first += step) {
      ChunkView cv{first, std::min(step, lens[q] - first)};
      if (first + cv.count <= v.resident[q]) {
        cv.points = static_cast<const std::byte*>(v.points[q]) + first * pb;
        cv.index = v.index[q] ? v.index[q] + first : nullptr;
      } else {
        uint64_t at = 0;
        cv.points = put(at, static_cast<const std::byte*>(host[q]) + first * pb, cv.count * pb);
        if (index) cv.index = reinterpret_cast<const uint32_t*>(put(at, index->data() + first, cv.count * 4));
        ++streamed_chunks;
      }
      visit(cv);
    }
  }

  const DeviceProvingKey& key_;
  const ProvingKey& pk_;
  const r1cs::Circuit& c_;
  uint64_t points_, rows_;
  cudaStream_t stream_;
  std::vector<uint32_t> a_index_, b_index_;
  std::vector<r1cs::Matrix> rows1_, rows2_;
  std::optional<r1cs::ShortRows> short_[3];  // by r1cs::Matrix: the form a matrix streams in
  DeviceBuffer<std::byte> slot_;
};

// The two steps the engine's way, every buffer poisoned (0xFF) first; step 0's released head is
// poisoned again before the H MSM. one_step: the engine's one-step order instead — the witness
// uploaded once, Q, the witness MSMs in step 0's range (on that witness), then the head
// poisoned and the H MSM on the kept tail. h_window: the carried H MSM's window (0: the
// default). Returns the sums (throws what the steps throw).
// in_place: the witness uploaded in its compact form and read in place (a layout with room for
// exactly its others, grown by 256 bytes as the engine grows it to its planned step). depth: the
// H transforms' split depth (nullopt: split_depth's).
QuerySums run_steps(const DeviceProvingKey& key, const ProvingKey& pk, const r1cs::Circuit& c,
                    std::span<const ff::Fr> w, uint64_t points, uint64_t rows, uint64_t* streamed = nullptr,
                    bool one_step = false, uint32_t h_window = 0, bool in_place = false,
                    std::optional<uint32_t> depth = std::nullopt) {
  Stream stream;
  Event sync = Event::blocking();
  TestFeed feed(key, pk, c, points, rows, stream);
  std::optional<r1cs::CompactWitness> cw;
  std::vector<uint8_t> packed;
  if (in_place) {
    cw = r1cs::compact_witness(w, 2.0);
    packed = pack(*cw);
  }
  StreamLayout l = stream_layout(pk, c, feed.limits(), one_step, h_window,
                                 cw ? std::optional<uint64_t>(cw->values.size()) : std::nullopt, depth);
  if (in_place) l.grow_to(l.q_bytes + 256);
  const void* upload = cw ? static_cast<const void*>(packed.data()) : w.data();
  const uint64_t upload_bytes = cw ? packed.size() : w.size_bytes();
  if (cw) {
    EXPECT_EQ(r1cs::compact_layout(*cw).total, l.cw.total);
  }
  if (h_window) {
    EXPECT_EQ(l.h_window, h_window);
  }
  PinnedBuffer<DeviceSums> sums(1);
  PinnedBuffer<uint64_t> count(1);
  std::memset(static_cast<void*>(sums.data()), 0xff, sizeof(DeviceSums));
  if (one_step) {
    EXPECT_LE(l.m_bytes, l.v1 - l.keep_v1) << "the witness MSMs' workspace reaches the kept H range";
  }
  DeviceBuffer<uint8_t> ws0(l.q_bytes), ws1(one_step ? 256 : l.m_bytes);
  ws0.fill_bytes(0xff, stream);
  ws1.fill_bytes(0xff, stream);
  SNARKD_CUDA_CHECK(cudaMemcpyAsync(ws0.data() + l.w, upload, upload_bytes, cudaMemcpyHostToDevice, stream));
  if (one_step) {
    stream_qap_h(key, l, ws0.data(), feed.feed(), stream, sync.get(), sums.data());
    stream_witness_msms(key, l, ws0.data(), feed.feed(), stream, sync.get(), sums.data(), count.data());
    SNARKD_CUDA_CHECK(cudaMemsetAsync(ws0.data(), 0xff, l.q_bytes - l.keep_bytes, stream));
    stream_h_msm(key, l, ws0.data() + (l.q_bytes - l.keep_bytes), feed.feed(), stream, sync.get(), sums.data());
    if (streamed) *streamed = feed.streamed_chunks;
    return to_query_sums(key, sums[0]);
  }
  SNARKD_CUDA_CHECK(cudaMemcpyAsync(ws1.data() + l.w, upload, upload_bytes, cudaMemcpyHostToDevice, stream));
  stream_qap_h(key, l, ws0.data(), feed.feed(), stream, sync.get(), sums.data());
  SNARKD_CUDA_CHECK(cudaMemsetAsync(ws0.data(), 0xff, l.q_bytes - l.keep_bytes, stream));
  stream_h_msm(key, l, ws0.data() + (l.q_bytes - l.keep_bytes), feed.feed(), stream, sync.get(), sums.data());
  stream_witness_msms(key, l, ws1.data(), feed.feed(), stream, sync.get(), sums.data(), count.data());
  if (streamed) *streamed = feed.streamed_chunks;
  return to_query_sums(key, sums[0]);
}

r1cs::SyntheticCircuit synthetic(uint64_t constraints, uint64_t inputs, uint64_t seed, double bits = 0.95) {
  r1cs::SyntheticParams p;
  p.num_constraints = constraints;
  p.num_inputs = inputs;
  p.seed = seed;
  p.bit_fraction = bits;
  p.zero_fraction = bits / 2;
  return r1cs::generate_synthetic(p);
}

QuerySums cpu_sums(const ProvingKey& pk, const r1cs::Circuit& c, std::span<const ff::Fr> w) {
  groth16::ProveTimings t;
  return groth16::compute_sums(*snarkd::test::bind(pk, c), w, groth16::ProveOptions{}, t);
}

void expect_equal(const QuerySums& got, const QuerySums& want, const std::string& what) {
  EXPECT_TRUE(got.a == want.a) << what << ": A";
  EXPECT_TRUE(got.b1 == want.b1) << what << ": B_G1";
  EXPECT_TRUE(got.b2 == want.b2) << what << ": B_G2";
  EXPECT_TRUE(got.l == want.l) << what << ": L";
  EXPECT_TRUE(got.h == want.h) << what << ": H";
}

// A key placed with `res` in a region of its own (the engine's pool in production).
struct Placed {
  DeviceBuffer<uint8_t> region;
  std::unique_ptr<DeviceProvingKey> key;
  Placed(const ProvingKey& pk, const r1cs::Circuit& c, const KeyResidency& res) {
    region = DeviceBuffer<uint8_t>(DeviceProvingKey::layout_for(*snarkd::test::bind(pk, c), res).total);
    Stream s;
    key = std::make_unique<DeviceProvingKey>(0, *snarkd::test::bind(pk, c), res, region.data(), s);
  }
};

KeyResidency none() { return KeyResidency{false, {0, 0, 0, 0, 0}}; }
KeyResidency half(const ProvingKey& pk) {
  return KeyResidency{true, {pk.a.size() / 2, pk.b_g1.size() / 3, pk.b_g2.size() / 2, 0, pk.h.size() / 2}};
}

TEST(StreamProver, BellpersonStepsMatchTheCpuResidentStreamedAndMixed) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng("stream-prover-bellperson");
  struct Case { uint64_t m, inputs, points, rows; double bits; };
  // m = 2, 1 input: a domain of 4 split into one-point blocks (the fused H falls back).
  // Rows of 256 and 768: A in the short form, B and C with row_ptr; 2048: all three short, the
  // last chunk ragged (3 rows).
  const Case cases[] = {{1, 1, 7, 3, 0.95},          {2, 1, 3, 2, 0.95},         {1000, 3, 97, 61, 0.95},
                        {1000, 3, 97, 256, 0.95},    {4097, 5, 1000, 700, 0.95}, {4097, 5, 1000, 768, 0.95},
                        {4093, 9, 512, 4093, 0.2},   {16387, 9, 4096, 2000, 0.95}, {16387, 9, 4096, 2048, 0.95}};
  for (const Case& k : cases) {
    const auto sc = synthetic(k.m, k.inputs, g(), k.bits);
    const ProvingKey pk = groth16::setup_insecure(sc.circuit, groth16::toxic_waste_from_seed(g()));
    const QuerySums want = cpu_sums(pk, sc.circuit, sc.witness);
    const std::string what = "bellperson m=" + std::to_string(k.m) + " bits=" + std::to_string(k.bits);
    for (const KeyResidency& res : {KeyResidency{}, none(), half(pk)}) {
      Placed placed(pk, sc.circuit, res);
      // Both paths: fused H, B G2 bounded by B G1's counts and H buckets across chunks; the old ones.
      for (const bool fast : {true, false}) {
        const detail::ScopedProverPaths paths(ProverPaths{fast, fast, fast});
        uint64_t streamed = 0;
        const QuerySums got = run_steps(*placed.key, pk, sc.circuit, sc.witness, k.points, k.rows, &streamed);
        expect_equal(got, want,
                     what + (fast ? " [fused, B shared, H buckets]" : " [unfused, B twice, H per chunk]") + " (" + std::to_string(streamed) +
                         " chunks copied)");
      }
      // The engine's one-step order (witness once, witness MSMs before the H MSM).
      expect_equal(run_steps(*placed.key, pk, sc.circuit, sc.witness, k.points, k.rows, nullptr, true), want,
                   what + " [one step]");
      // A carried H window wider than a chunk's default (SNARKD_STREAM_H_WINDOW's path).
      expect_equal(run_steps(*placed.key, pk, sc.circuit, sc.witness, k.points, k.rows, nullptr, true, 16), want,
                   what + " [one step, H window 16]");
      // The witness read in place in its compact form: two steps, and one step with a wider window.
      expect_equal(run_steps(*placed.key, pk, sc.circuit, sc.witness, k.points, k.rows, nullptr, false, 0, true), want,
                   what + " [compact witness in place]");
      expect_equal(run_steps(*placed.key, pk, sc.circuit, sc.witness, k.points, k.rows, nullptr, true, 16, true), want,
                   what + " [one step, compact witness in place, H window 16]");
      // Unsplit H transforms (the engine's in-place layout where memory allows), both step orders.
      for (const bool one : {false, true})
        expect_equal(run_steps(*placed.key, pk, sc.circuit, sc.witness, k.points, k.rows, nullptr, one, 0, one, 0),
                     want, what + (one ? " [one step, compact witness, unsplit H]" : " [unsplit H]"));
    }
  }
}

TEST(StreamProver, SnarkjsFlavourStepsMatchTheCpu) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng("stream-prover-snarkjs");
  const auto sc = synthetic(3000, 4, g());
  ProvingKey pk = groth16::setup_insecure(sc.circuit, groth16::toxic_waste_from_seed(g()));
  // A snarkjs-flavour key of the same shape (prover_test.cpp's construction, abridged): full
  // queries with infinity for absent variables, an n-point H query, c = a∘b.
  auto expand = [](const auto& points, const r1cs::DensityBitmap& d) {
    std::vector<std::decay_t<decltype(points[0])>> out(d.num_bits, std::decay_t<decltype(points[0])>::infinity());
    for (uint64_t j = 0, k = 0; j < d.num_bits; ++j)
      if (d.test(j)) out[j] = points[k++];
    return out;
  };
  ProvingKey sj;
  sj.flavour = KeyFlavour::kSnarkjs;
  sj.vk = pk.vk;
  sj.log_domain = groth16::qap_log_domain(sc.circuit, KeyFlavour::kSnarkjs);
  sj.a = expand(pk.a, pk.a_density);
  sj.b_g1 = expand(pk.b_g1, pk.b_density);
  sj.b_g2 = expand(pk.b_g2, pk.b_density);
  sj.l = pk.l;
  sj.h.assign(sj.domain_size(), pk.h.at(1));
  sj.h[0] = ec::G1Affine::infinity();
  for (size_t i = 1; i < sj.h.size(); ++i) sj.h[i] = pk.h[i % pk.h.size()];
  (void)groth16::BoundKey::bind(sj, sc.circuit);
  std::vector<ff::Fr> w(sc.circuit.num_vars());
  for (auto& x : w) x = ff::Fr::random(g);
  w[0] = ff::Fr::one();
  const QuerySums want = cpu_sums(sj, sc.circuit, w);
  for (const KeyResidency& res : {KeyResidency{}, none()}) {
    Placed placed(sj, sc.circuit, res);
    for (const bool fast : {true, false}) {  // random scalars: B's tails flush often
      const detail::ScopedProverPaths paths(ProverPaths{fast, fast, fast});
      expect_equal(run_steps(*placed.key, sj, sc.circuit, w, 333, 250), want,
                   std::string("snarkjs random witness") + (fast ? " [fused, B shared, H buckets]" : " [unfused, B twice, H per chunk]"));
    }
    expect_equal(run_steps(*placed.key, sj, sc.circuit, w, 333, 250, nullptr, true), want, "snarkjs [one step]");
    expect_equal(run_steps(*placed.key, sj, sc.circuit, w, 333, 512, nullptr, true), want,
                 "snarkjs [one step, short rows]");
    expect_equal(run_steps(*placed.key, sj, sc.circuit, w, 333, 250, nullptr, true, 0, true), want,
                 "snarkjs [one step, compact witness in place]");
  }
}

TEST(StreamProver, RefusesAnUnsatisfiedWitnessNamingTheRow) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng("stream-prover-unsat");
  const auto sc = synthetic(2000, 3, g());
  const ProvingKey pk = groth16::setup_insecure(sc.circuit, groth16::toxic_waste_from_seed(g()));
  std::vector<ff::Fr> w = sc.witness;
  w[sc.circuit.num_inputs + 700] += ff::Fr::one();
  std::string cpu_message;
  try {
    cpu_sums(pk, sc.circuit, w);
  } catch (const groth16::UnsatisfiedWitness& e) {
    cpu_message = e.what();
  }
  ASSERT_FALSE(cpu_message.empty());
  // H's top coefficient flags it; a third pass over streamed or resident rows names the row.
  for (const KeyResidency& res : {none(), KeyResidency{}}) {
    Placed placed(pk, sc.circuit, res);
    for (const bool one_step : {false, true})
      for (const uint64_t rows : {uint64_t(300), uint64_t(512)})  // row_ptr, the short form
        for (const bool in_place : {false, true}) {
          const std::string what = std::string(one_step ? "one step" : "two steps") + ", rows " + std::to_string(rows) +
                                   (in_place ? ", compact witness in place" : "");
          try {
            run_steps(*placed.key, pk, sc.circuit, w, 500, rows, nullptr, one_step, 0, in_place);
            ADD_FAILURE() << "an unsatisfied witness was proven (" << what << ")";
          } catch (const groth16::UnsatisfiedWitness& e) {
            EXPECT_EQ(std::string(e.what()), cpu_message) << what;
          }
        }
  }
}

// Each step's driver with a stop requested after its first chunk: Cancelled before the second,
// nothing left running on the stream (the workspace and the slot may go), the sums untouched;
// the same buffers then give the CPU's sums without a stop.
TEST(StreamProver, AStopEndsEachStepBeforeItsNextChunkWithTheStreamIdle) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng("stream-prover-stop");
  const auto sc = synthetic(4097, 5, g());
  const ProvingKey pk = groth16::setup_insecure(sc.circuit, groth16::toxic_waste_from_seed(g()));
  Placed placed(pk, sc.circuit, none());
  Stream stream;
  Event sync = Event::blocking();
  TestFeed feed(*placed.key, pk, sc.circuit, 500, 700, stream);
  ASSERT_GT(pk.a.size(), 500u);  // every step's first part has a second chunk
  const StreamLayout l = stream_layout(pk, sc.circuit, feed.limits(), false);
  PinnedBuffer<DeviceSums> sums(1);
  PinnedBuffer<uint64_t> count(1);
  DeviceBuffer<uint8_t> ws0(l.q_bytes), ws1(l.m_bytes);
  for (uint8_t* ws : {ws0.data(), ws1.data()})
    SNARKD_CUDA_CHECK(cudaMemcpyAsync(ws + l.w, sc.witness.data(), sc.witness.size() * sizeof(ff::Fr),
                                      cudaMemcpyHostToDevice, stream));
  uint8_t* kept = ws0.data() + (l.q_bytes - l.keep_bytes);
  for (int step = 0; step < 3; ++step) {
    SCOPED_TRACE(step == 0 ? "stream_qap_h" : step == 1 ? "stream_h_msm" : "stream_witness_msms");
    std::memset(static_cast<void*>(sums.data()), 0xab, sizeof(DeviceSums));
    std::stop_source src;
    int visits = 0;
    const ChunkFeed inner = feed.feed();
    const ChunkFeed stopping = [&](StreamPart p, const std::function<void(const ChunkView&)>& visit) {
      inner(p, [&](const ChunkView& c) {
        visit(c);
        if (++visits == 1) src.request_stop();
      });
    };
    try {
      if (step == 0) stream_qap_h(*placed.key, l, ws0.data(), stopping, stream, sync.get(), sums.data(), nullptr, src.get_token());
      if (step == 1) stream_h_msm(*placed.key, l, kept, stopping, stream, sync.get(), sums.data(), nullptr, src.get_token());
      if (step == 2)
        stream_witness_msms(*placed.key, l, ws1.data(), stopping, stream, sync.get(), sums.data(), count.data(), nullptr,
                            src.get_token());
      ADD_FAILURE() << "the step ran to its end after a stop";
    } catch (const Cancelled&) {
    }
    EXPECT_EQ(visits, 1) << "a chunk was visited after the stop";
    EXPECT_EQ(cudaStreamQuery(stream), cudaSuccess) << "work was left on the stream";
    const auto* b = reinterpret_cast<const uint8_t*>(sums.data());
    for (size_t i = 0; i < sizeof(DeviceSums); ++i) ASSERT_EQ(b[i], 0xab) << "sums written after a stop";
  }
  expect_equal(run_steps(*placed.key, pk, sc.circuit, sc.witness, 500, 700), cpu_sums(pk, sc.circuit, sc.witness),
               "after the stops");
}

// Placement: the region holds exactly what layout_for says, the fixed part alone when nothing
// is resident, and a fully resident placed key still runs the one-step prover.
TEST(StreamProver, KeyLayoutsAndPlacement) {
  auto g = snarkd::test::rng("stream-prover-layout");
  const auto sc = synthetic(1500, 4, g());
  const ProvingKey pk = groth16::setup_insecure(sc.circuit, groth16::toxic_waste_from_seed(g()));
  const KeyLayout full = DeviceProvingKey::layout_for(*snarkd::test::bind(pk, sc.circuit), KeyResidency{});
  const KeyLayout nothing = DeviceProvingKey::layout_for(*snarkd::test::bind(pk, sc.circuit), none());
  EXPECT_EQ(nothing.total, nothing.fixed);
  EXPECT_GT(full.total, nothing.total);
  EXPECT_TRUE(full.matrices);
  EXPECT_EQ(full.resident[0], pk.a.size());
  for (uint64_t off : {full.dict, full.tables, full.block_tables, full.twiddles, full.points[2], full.index[1]})
    EXPECT_EQ(off % 256, 0u);
  const KeyLayout h = DeviceProvingKey::layout_for(*snarkd::test::bind(pk, sc.circuit), half(pk));
  EXPECT_EQ(h.resident[3], 0u);
  EXPECT_EQ(h.resident[1], pk.b_g1.size() / 3);
  if (device_count() == 0) GTEST_SKIP() << "no CUDA device (the layouts above were checked)";
  Placed placed(pk, sc.circuit, KeyResidency{});
  EXPECT_TRUE(placed.key->fully_resident());
  EXPECT_EQ(placed.key->resident_bytes(), full.total);
  expect_equal(compute_sums_sync(*placed.key, sc.witness), cpu_sums(pk, sc.circuit, sc.witness), "placed, one step");
  Placed part(pk, sc.circuit, half(pk));
  EXPECT_FALSE(part.key->fully_resident());
  // The layouts of a compact witness read in place and of unsplit H transforms (CUB's sizes).
  StreamLimits lim;
  lim.chunk_points = {500, 500, 500, 500, 500};
  lim.chunks = {4, 4, 4, 4, 4};
  const StreamLayout plain = stream_layout(pk, sc.circuit, lim, true);
  const StreamLayout in_place = stream_layout(pk, sc.circuit, lim, true, 0, 100);
  EXPECT_TRUE(in_place.compact);
  EXPECT_EQ(in_place.v2, r1cs::compact_layout(sc.circuit.num_vars(), 100).total);  // the region [w, v2)
  EXPECT_EQ(plain.m_bytes - in_place.m_bytes, plain.v2 - in_place.v2);
  const StreamLayout unsplit = stream_layout(pk, sc.circuit, lim, true, 0, std::nullopt, 0);
  EXPECT_EQ(plain.depth, 2u);
  EXPECT_EQ(unsplit.depth, 0u);
  EXPECT_GT(unsplit.h_tables - unsplit.ntt_scratch, plain.h_tables - plain.ntt_scratch);
  EXPECT_THROW(stream_layout(pk, sc.circuit, lim, true, 0, std::nullopt, 1), InvalidArgument);
  StreamLayout grown = plain;
  grown.grow_to(plain.q_bytes + 512);
  EXPECT_EQ(grown.q_bytes - grown.v1, plain.q_bytes - plain.v1);  // v1 stays the range's tail
  EXPECT_THROW(grown.grow_to(plain.q_bytes), std::logic_error);
}

}  // namespace
}  // namespace snarkd::cuda
