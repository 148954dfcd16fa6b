// GPU NTT over both scalar fields (BLS12-381's Fr, BN254's Fr: typed tests, CudaNtt/Bls12381.*
// and CudaNtt/Bn254.*) against independent references. Expected values come from the host: naive
// evaluation (Horner at s·ω^k, with ω computed here as g^((r−1)/n), not by the code under test)
// for every output up to 2^10 and at random outputs beyond, and the CPU twin snarkd::poly (ntt,
// intt, coset_ntt, coset_intt over DomainT<F::Host>) for whole vectors up to 2^24. Both
// generators, 5 (snarkjs, the BN254 domains' generator) and 7 (bellperson), are quadratic
// non-residues for both fields. Inputs are fresh random vectors (seed printed, SNARKD_TEST_SEED
// pins it); the scratch is poisoned (0xFF) before every transform, so an unwritten output cannot
// pass.
#include <gtest/gtest.h>

#include <random>
#include <span>
#include <vector>

#include "common/fr_util.hpp"
#include "common/seed.hpp"
#include "gpu_test_util.hpp"
#include "group_names.hpp"
#include "snarkd/cuda/ntt.hpp"
#include "snarkd/ff/bn254.hpp"
#include "snarkd/ff/fr.hpp"
#include "snarkd/poly/ntt.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {
namespace {

constexpr uint64_t kGenerators[] = {ff::kSnarkjsDomainGenerator, ff::kBellpersonDomainGenerator};
static_assert(ff::bn254::kSnarkjsDomainGenerator == ff::kSnarkjsDomainGenerator);

struct Variant {
  Direction dir;
  bool coset;
};
constexpr Variant kVariants[] = {
    {Direction::kForward, false}, {Direction::kInverse, false}, {Direction::kForward, true}, {Direction::kInverse, true}};

// Output k of the variant, computed naively from the input.
template <class H>
H naive_output(std::span<const H> in, uint32_t log_n, uint64_t generator, Variant v, const H& shift, size_t k) {
  const H w = snarkd::test::expected_root<H>(log_n, generator);
  if (v.dir == Direction::kForward)
    return snarkd::test::evaluate(in, (v.coset ? shift : H::one()) * w.pow(uint64_t(k)));
  const H n_inv = H::from_u64(in.size()).inverse();
  const H s_inv_k = v.coset ? shift.inverse().pow(uint64_t(k)) : H::one();
  return snarkd::test::evaluate(in, w.inverse().pow(uint64_t(k))) * n_inv * s_inv_k;
}

// The CPU twin applied to a copy.
template <class H>
std::vector<H> cpu_twin(std::vector<H> x, uint32_t log_n, uint64_t generator, Variant v, const H& shift) {
  const poly::DomainT<H> d(log_n, generator);
  if (v.dir == Direction::kForward) {
    v.coset ? poly::coset_ntt(d, x, shift) : poly::ntt(d, x);
  } else {
    v.coset ? poly::coset_intt(d, x, shift) : poly::intt(d, x);
  }
  return x;
}

// One GPU transform over `batch` vectors through the stream-ordered API, scratch poisoned.
template <class D>
std::vector<typename D::Host> gpu(const std::vector<typename D::Host>& in, uint32_t log_n, Variant v,
                                  const NttTablesT<D>& t) {
  const uint32_t batch = uint32_t(in.size() >> log_n);
  Stream s;
  DeviceBuffer<D> d = test::to_device<D>(in, s);
  DeviceBuffer<uint8_t> scratch(ntt_scratch_bytes(log_n, batch));
  scratch.fill_bytes(0xFF, s);
  ntt(d.data(), log_n, v.dir, v.coset, t, scratch.data(), s, batch);
  return test::to_host<typename D::Host>(d, s);
}

std::string describe(uint32_t log_n, uint64_t g, Variant v) {
  return "log_n=" + std::to_string(log_n) + " generator=" + std::to_string(g) +
         (v.dir == Direction::kForward ? " forward" : " inverse") + (v.coset ? " coset" : "");
}

// Tables per generator, built once (up to 2^24, coset shift = the generator, bellperson's choice).
template <class D>
const NttTablesT<D>& tables(uint64_t g) {
  using H = typename D::Host;
  static const NttTablesT<D> t5(24, 5, H::from_u64(5)), t7(24, 7, H::from_u64(7));
  return g == 5 ? t5 : t7;
}

template <class D>
class CudaNtt : public ::testing::Test {};
using ScalarFields = ::testing::Types<Fr, bn254::Fr>;
TYPED_TEST_SUITE(CudaNtt, ScalarFields, test::ScalarFieldNames);

TYPED_TEST(CudaNtt, EveryOutputMatchesNaiveUpTo1024) {
  SNARKD_SKIP_WITHOUT_GPU();
  using D = TypeParam;
  using H = typename D::Host;
  auto rng = snarkd::test::current_test_rng();
  for (uint64_t g : kGenerators)
    for (uint32_t log_n = 0; log_n <= 10; ++log_n)
      for (Variant v : kVariants) {
        const std::vector<H> in = snarkd::test::random_vector<H>(rng, size_t{1} << log_n);
        const std::vector<H> out = gpu(in, log_n, v, tables<D>(g));
        for (size_t k = 0; k < out.size(); ++k)
          ASSERT_EQ(out[k], naive_output<H>(in, log_n, g, v, tables<D>(g).coset_shift(), k))
              << describe(log_n, g, v) << " k=" << k;
      }
}

// Multi-pass sizes (2 and 3 passes) against the CPU twin on whole vectors, plus naive values at
// a few random outputs (independent of both implementations).
TYPED_TEST(CudaNtt, MultiPassMatchesCpuTwinAndNaiveSamples) {
  SNARKD_SKIP_WITHOUT_GPU();
  using D = TypeParam;
  using H = typename D::Host;
  auto rng = snarkd::test::current_test_rng();
  for (uint64_t g : kGenerators)
    for (uint32_t log_n : {11u, 12u, 14u, 17u, 20u, 21u, 22u, 24u})
      for (Variant v : kVariants) {
        if (log_n == 24 && g == 5) continue;  // one generator at the largest size keeps it short
        const std::vector<H> in = snarkd::test::random_vector<H>(rng, size_t{1} << log_n);
        const std::vector<H> out = gpu(in, log_n, v, tables<D>(g));
        const std::vector<H> want = cpu_twin(in, log_n, g, v, tables<D>(g).coset_shift());
        size_t bad = 0;
        for (size_t k = 0; k < out.size(); ++k)
          if (out[k] != want[k] && bad++ < 3) ADD_FAILURE() << describe(log_n, g, v) << " differs at k=" << k;
        ASSERT_EQ(bad, 0u) << describe(log_n, g, v);
        if (log_n > 20) continue;  // naive samples cost O(n) each on the host
        for (size_t k : {size_t{0}, size_t{1}, out.size() - 1, size_t(rng() % out.size())})
          ASSERT_EQ(out[k], naive_output<H>(in, log_n, g, v, tables<D>(g).coset_shift(), k)) << describe(log_n, g, v);
      }
}

// The smallest two- and three-pass sizes, all variants, against the CPU twin: quick enough to run
// under compute-sanitizer (scripts/gpu/run_device.sh).
TYPED_TEST(CudaNtt, SmallestMultiPassSizes) {
  SNARKD_SKIP_WITHOUT_GPU();
  using D = TypeParam;
  using H = typename D::Host;
  auto rng = snarkd::test::current_test_rng();
  for (uint32_t log_n : {11u, 21u})
    for (Variant v : kVariants) {
      const std::vector<H> in = snarkd::test::random_vector<H>(rng, size_t{1} << log_n);
      ASSERT_EQ(gpu(in, log_n, v, tables<D>(7)), cpu_twin(in, log_n, 7, v, tables<D>(7).coset_shift()))
          << describe(log_n, 7, v);
    }
}

TYPED_TEST(CudaNtt, RoundTrips) {
  SNARKD_SKIP_WITHOUT_GPU();
  using D = TypeParam;
  using H = typename D::Host;
  auto rng = snarkd::test::current_test_rng();
  for (uint32_t log_n : {1u, 3u, 9u, 10u, 13u, 18u, 23u, 24u}) {
    const std::vector<H> in = snarkd::test::random_vector<H>(rng, size_t{1} << log_n);
    const NttTablesT<D>& t = tables<D>(7);
    EXPECT_EQ(gpu(gpu(in, log_n, kVariants[0], t), log_n, kVariants[1], t), in) << "plain, log_n=" << log_n;
    EXPECT_EQ(gpu(gpu(in, log_n, kVariants[2], t), log_n, kVariants[3], t), in) << "coset, log_n=" << log_n;
  }
}

// A batch of vectors gives each vector's own transform (the CPU twin's), at one-, two- and
// three-pass sizes.
TYPED_TEST(CudaNtt, BatchedEqualsPerVector) {
  SNARKD_SKIP_WITHOUT_GPU();
  using D = TypeParam;
  using H = typename D::Host;
  auto rng = snarkd::test::current_test_rng();
  constexpr size_t kBatch = 3;
  for (uint32_t log_n : {2u, 5u, 12u, 21u})
    for (Variant v : kVariants) {
      const size_t n = size_t{1} << log_n;
      const std::vector<H> in = snarkd::test::random_vector<H>(rng, kBatch * n);
      const std::vector<H> out = gpu(in, log_n, v, tables<D>(5));
      for (size_t b = 0; b < kBatch; ++b) {
        const std::vector<H> one(in.begin() + b * n, in.begin() + (b + 1) * n);
        const std::vector<H> want = cpu_twin(one, log_n, 5, v, tables<D>(5).coset_shift());
        ASSERT_TRUE(std::equal(want.begin(), want.end(), out.begin() + b * n)) << describe(log_n, 5, v) << " vector " << b;
      }
    }
}

// Tables of another maximum size (28: two-level inter-pass twiddles; 12: one mid table) and
// another coset shift give the same transforms.
TYPED_TEST(CudaNtt, OtherTableSizesAndShift) {
  SNARKD_SKIP_WITHOUT_GPU();
  using D = TypeParam;
  using H = typename D::Host;
  auto rng = snarkd::test::current_test_rng();
  const H shift = H::random(rng);
  const NttTablesT<D> big(28, 7, shift), small(12, 7, shift);
  for (uint32_t log_n : {4u, 11u, 12u, 16u, 21u, 22u})
    for (Variant v : kVariants) {
      const std::vector<H> in = snarkd::test::random_vector<H>(rng, size_t{1} << log_n);
      const std::vector<H> want = cpu_twin(in, log_n, 7, v, shift);
      ASSERT_EQ(gpu(in, log_n, v, big), want) << "max 28, " << describe(log_n, 7, v);
      if (log_n <= 12) {
        ASSERT_EQ(gpu(in, log_n, v, small), want) << "max 12, " << describe(log_n, 7, v);
      }
    }
}

TYPED_TEST(CudaNtt, SyncWrapperMatchesStreamApi) {
  SNARKD_SKIP_WITHOUT_GPU();
  using D = TypeParam;
  using H = typename D::Host;
  auto rng = snarkd::test::current_test_rng();
  std::vector<H> x = snarkd::test::random_vector<H>(rng, size_t{1} << 15);
  const std::vector<H> want = cpu_twin(x, 15, 7, kVariants[2], tables<D>(7).coset_shift());
  ntt_sync(x, 15, Direction::kForward, true, tables<D>(7));
  EXPECT_EQ(x, want);
}

// ω from generator 5 at 2^28 is the curve's constant (ff/bn254.hpp: snarkjs's BN254 domains; the
// BLS12-381 one at 2^32 squared four times), so the tables and the CPU domains agree on ω.
TYPED_TEST(CudaNtt, DomainGeneratorIsSnarkjs) {
  using H = typename TypeParam::Host;
  H w;
  if constexpr (std::is_same_v<H, ff::Fr>)
    w = ff::kRootOfUnity5;
  else
    w = ff::bn254::kRootOfUnity5;
  for (uint32_t k = NttTablesT<TypeParam>::kMaxLogN; k < H::kTwoAdicity; ++k) w = w.square();
  EXPECT_EQ(w, snarkd::test::expected_root<H>(NttTablesT<TypeParam>::kMaxLogN, 5));
  EXPECT_EQ(NttTablesT<TypeParam>::kMaxLogN, 28u);
  EXPECT_EQ(poly::DomainT<H>(NttTablesT<TypeParam>::kMaxLogN, 5).omega(), w);
}

// detail::ntt_fused's last-pass work (the H phase's building blocks) against the CPU twin's
// transform followed by the same operation: each Pointwise op and the inverse's scale override,
// every variant, at the ≤ 4-point kernel and one, two and three passes. The untouched operand
// must stay as it was; for kMul and kMulSub the transform's own vector must too.
TYPED_TEST(CudaNtt, FusedLastPassOperations) {
  SNARKD_SKIP_WITHOUT_GPU();
  using D = TypeParam;
  using H = typename D::Host;
  using detail::Pointwise;
  auto rng = snarkd::test::current_test_rng();
  const NttTablesT<D>& t = tables<D>(7);
  for (uint32_t log_n : {0u, 2u, 9u, 13u, 21u})
    for (Variant v : kVariants)
      for (Pointwise op : {Pointwise::kNone, Pointwise::kMul, Pointwise::kSub, Pointwise::kMulSub}) {
        const size_t n = size_t{1} << log_n;
        const std::vector<H> x = snarkd::test::random_vector<H>(rng, n), a = snarkd::test::random_vector<H>(rng, n),
                             b = snarkd::test::random_vector<H>(rng, n);
        const H kappa = H::random(rng);
        std::vector<H> y = cpu_twin(x, log_n, 7, v, t.coset_shift());
        if (v.dir == Direction::kInverse)  // scale override: κ instead of 1/n
          for (H& e : y) e = e * H::from_u64(n) * kappa;
        Stream s;
        DeviceBuffer<D> dx = test::to_device<D>(x, s), da = test::to_device<D>(a, s), db = test::to_device<D>(b, s);
        DeviceBuffer<uint8_t> scratch(std::max<size_t>(ntt_scratch_bytes(log_n), 1));
        scratch.fill_bytes(0xFF, s);
        detail::NttFusionT<D> f{};
        f.scale_override = true;
        f.scale = D::from_host(kappa);
        f.pointwise = op, f.pointwise_a = da.data(), f.pointwise_b = db.data();
        detail::ntt_fused(dx.data(), log_n, v.dir, v.coset, t, scratch.data(), s, 1, f);
        const std::vector<H> gx = test::to_host<H>(dx, s), ga = test::to_host<H>(da, s),
                             gb = test::to_host<H>(db, s);
        const std::string what = describe(log_n, 7, v) + " op=" + std::to_string(int(op));
        EXPECT_EQ(gb, b) << what;
        size_t bad = 0;
        for (size_t k = 0; k < n; ++k) {
          switch (op) {
            case Pointwise::kNone: bad += gx[k] != y[k] || ga[k] != a[k]; break;
            case Pointwise::kSub: bad += gx[k] != y[k] - b[k] || ga[k] != a[k]; break;
            case Pointwise::kMul: bad += ga[k] != a[k] * y[k]; break;
            case Pointwise::kMulSub: bad += ga[k] != a[k] * b[k] - y[k]; break;
          }
        }
        EXPECT_EQ(bad, 0u) << what;
        // kMul / kMulSub fold the output into a instead of storing it: a one-pass transform
        // (in place) leaves x as it was.
        if ((op == Pointwise::kMul || op == Pointwise::kMulSub) && log_n <= 10) {
          EXPECT_EQ(gx, x) << what;
        }
      }
  Stream s;
  DeviceBuffer<D> d(16);
  detail::NttFusionT<D> f{};
  f.pointwise = detail::Pointwise::kSub;  // no b
  EXPECT_THROW(detail::ntt_fused(d.data(), 4, Direction::kForward, false, t, nullptr, s, 1, f), InvalidArgument);
  f.pointwise = detail::Pointwise::kMul;  // no a
  EXPECT_THROW(detail::ntt_fused(d.data(), 4, Direction::kForward, false, t, nullptr, s, 1, f), InvalidArgument);
}

TYPED_TEST(CudaNtt, RejectsBadArguments) {
  SNARKD_SKIP_WITHOUT_GPU();
  using D = TypeParam;
  using H = typename D::Host;
  const NttTablesT<D> t(12, 7, H::from_u64(7));
  Stream s;
  DeviceBuffer<D> d(size_t{1} << 13);
  EXPECT_THROW(ntt(d.data(), 13, Direction::kForward, false, t, nullptr, s), InvalidArgument);
  EXPECT_THROW(ntt(d.data(), 12, Direction::kForward, false, t, nullptr, s), InvalidArgument);  // scratch
  EXPECT_THROW(ntt(d.data(), 4, Direction::kForward, false, t, nullptr, s, 0), InvalidArgument);
  EXPECT_THROW(NttTablesT<D>(29, 7, H::one()), InvalidArgument);
  EXPECT_THROW(NttTablesT<D>(10, 7, H::zero()), InvalidArgument);
  EXPECT_THROW(NttTablesT<D>(10, 4, H::one()), InvalidArgument);  // 4 is a square: no 2^s-th root
}

}  // namespace
}  // namespace snarkd::cuda
