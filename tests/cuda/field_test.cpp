// Device Fp / Fr / Fp2 arithmetic of both curves (BLS12-381: cuda::Fr, Fp, Fp2; BN254:
// cuda::bn254::Fr, Fp, Fp2) against the host ff types on 2^20 random elements plus edge values
// (0, 1, p − 1, and the raw limb patterns 1 and p − 1): Fp2's Karatsuba and three-full-product
// multiplications, and the binary-GCD inversion beside Fermat. Host buffers are copied to the
// device as they are — the layout contract — and the results copied back must equal the host
// results bit for bit. Outputs are poisoned (0xFF bytes, never a valid element) before every run.
// Inputs are fresh each run (seed printed, SNARKD_TEST_SEED pins it).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "common/seed.hpp"
#include "gpu_test_util.hpp"
#include "snarkd/cuda/field.hpp"
#include "snarkd/cuda/field_ops.hpp"
#include "snarkd/cuda/fp2.hpp"
#include "snarkd/ff/bn254_tower.hpp"
#include "snarkd/ff/fp2.hpp"

namespace snarkd::cuda {
namespace {

template <class D>
class DeviceFieldTest : public ::testing::Test {};
using DeviceFields = ::testing::Types<Fr, Fp, bn254::Fr, bn254::Fp>;
TYPED_TEST_SUITE(DeviceFieldTest, DeviceFields);

template <class D>
class DeviceFp2Test : public ::testing::Test {};
using DeviceFp2s = ::testing::Types<Fp2, bn254::Fp2>;
TYPED_TEST_SUITE(DeviceFp2Test, DeviceFp2s);

template <class H>
std::vector<H> edge_values() {
  return {H::zero(), H::one(), -H::one(), H::from_montgomery(ff::BigInt<H::N>::from_u64(1)),
          H::from_montgomery(H::kModulusMinusOne)};
}

// a and b: every pair of edge values first, then random elements.
template <class H>
void make_inputs(size_t n, std::mt19937_64& g, std::vector<H>& a, std::vector<H>& b) {
  const std::vector<H> e = edge_values<H>();
  a.resize(n), b.resize(n);
  size_t i = 0;
  for (const H& x : e)
    for (const H& y : e) a[i] = x, b[i] = y, ++i;
  for (; i < n; ++i) a[i] = H::random(g), b[i] = H::random(g);
}

template <class D>
std::vector<typename D::Host> run_op(FieldOp op, const DeviceBuffer<D>& a, const DeviceBuffer<D>& b,
                                     const Stream& s) {
  DeviceBuffer<D> out(a.size());
  out.fill_bytes(0xFF, s);
  field_op<D>(op, a.data(), b.data(), out.data(), a.size(), s);
  return test::to_host<typename D::Host>(out, s);
}

template <class H, class F>
void expect_all(const std::vector<H>& got, size_t n, F&& want, const char* what) {
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i)
    if (got[i] != want(i) && bad++ < 3) ADD_FAILURE() << what << " differs at index " << i;
  EXPECT_EQ(bad, 0u) << what;
}

TYPED_TEST(DeviceFieldTest, LayoutIsTheHostLayout) {
  using D = TypeParam;
  using H = typename D::Host;
  auto g = snarkd::test::rng("cuda-field-layout");
  const H h = H::random(g);
  const D d = D::from_host(h);
  EXPECT_EQ(std::memcmp(&d, &h, sizeof(h)), 0);
  EXPECT_EQ(d.to_host(), h);
  for (size_t i = 0; i < D::kWords; ++i) EXPECT_EQ(d.w[i], uint32_t(h.l[i / 2] >> (32 * (i % 2))));
}

// The host path of the shared type forwards to ff (what host-side callers of cuda::Fr get).
TYPED_TEST(DeviceFieldTest, HostPathMatchesFf) {
  using D = TypeParam;
  using H = typename D::Host;
  auto g = snarkd::test::rng("cuda-field-host");
  for (int i = 0; i < 100; ++i) {
    const H a = H::random(g), b = H::random(g);
    const D x = D::from_host(a), y = D::from_host(b);
    EXPECT_EQ((x * y).to_host(), a * b);
    EXPECT_EQ((x + y).to_host(), a + b);
    EXPECT_EQ((x - y).to_host(), a - b);
    EXPECT_EQ((-x).to_host(), -a);
  }
  EXPECT_EQ(D::one().to_host(), H::one());
  EXPECT_TRUE(D::zero().is_zero());
}

TYPED_TEST(DeviceFieldTest, DeviceOpsMatchHostOnRandomAndEdgeValues) {
  SNARKD_SKIP_WITHOUT_GPU();
  using D = TypeParam;
  using H = typename D::Host;
  constexpr size_t n = size_t{1} << 20;
  auto g = snarkd::test::rng("cuda-field-ops");
  std::vector<H> a, b;
  make_inputs(n, g, a, b);
  Stream s;
  const DeviceBuffer<D> da = test::to_device<D>(a, s), db = test::to_device<D>(b, s);
  expect_all(run_op(FieldOp::kMul, da, db, s), n, [&](size_t i) { return a[i] * b[i]; }, "mul");
  expect_all(run_op(FieldOp::kAdd, da, db, s), n, [&](size_t i) { return a[i] + b[i]; }, "add");
  expect_all(run_op(FieldOp::kSub, da, db, s), n, [&](size_t i) { return a[i] - b[i]; }, "sub");
  expect_all(run_op(FieldOp::kSqr, da, db, s), n, [&](size_t i) { return a[i].square(); }, "sqr");
  expect_all(run_op(FieldOp::kNeg, da, db, s), n, [&](size_t i) { return -a[i]; }, "neg");
}

// The binary-GCD inversion equals the host inverse bit for bit (0 → 0), 2^16 elements.
TYPED_TEST(DeviceFieldTest, DeviceInverseBinaryGcd) {
  SNARKD_SKIP_WITHOUT_GPU();
  using D = TypeParam;
  using H = typename D::Host;
  constexpr size_t n = size_t{1} << 16;
  auto g = snarkd::test::rng("cuda-field-inverse-gcd");
  std::vector<H> a, b;
  make_inputs(n, g, a, b);
  Stream s;
  const DeviceBuffer<D> da = test::to_device<D>(a, s);
  expect_all(run_op(FieldOp::kInverseGcd, da, da, s), n,
             [&](size_t i) { return a[i].is_zero() ? H::zero() : a[i].inverse(); }, "inverse (binary GCD)");
}

// Fp2 on the device: both products, square, add, sub, neg and the inversion, against the host Fp2.
TYPED_TEST(DeviceFp2Test, OpsMatchHost) {
  SNARKD_SKIP_WITHOUT_GPU();
  using D = TypeParam;
  using H = typename D::Host;
  using B = typename H::Base;
  constexpr size_t n = size_t{1} << 18;
  auto g = snarkd::test::rng("cuda-fp2-ops");
  std::vector<B> e0, e1;
  make_inputs<B>(n, g, e0, e1);
  std::vector<H> a(n), b(n);
  for (size_t i = 0; i < n; ++i) a[i] = {e0[i], e1[(i * 7) % n]}, b[i] = {e1[i], e0[(i * 13) % n]};
  Stream s;
  const DeviceBuffer<D> da = test::to_device<D>(a, s), db = test::to_device<D>(b, s);
  expect_all(
      run_op(FieldOp::kMul, da, db, s), n, [&](size_t i) { return a[i] * b[i]; }, "fp2 mul");
  expect_all(run_op(FieldOp::kMulFull, da, db, s), n, [&](size_t i) { return a[i] * b[i]; }, "fp2 mul (3 full)");
  expect_all(run_op(FieldOp::kSqr, da, db, s), n, [&](size_t i) { return a[i].square(); }, "fp2 sqr");
  expect_all(run_op(FieldOp::kAdd, da, db, s), n, [&](size_t i) { return a[i] + b[i]; }, "fp2 add");
  expect_all(run_op(FieldOp::kSub, da, db, s), n, [&](size_t i) { return a[i] - b[i]; }, "fp2 sub");
  expect_all(run_op(FieldOp::kNeg, da, db, s), n, [&](size_t i) { return -a[i]; }, "fp2 neg");
  expect_all(
      run_op(FieldOp::kInverse, da, db, s), size_t{1} << 14,
      [&](size_t i) { return a[i].is_zero() ? H{} : a[i].inverse(); }, "fp2 inverse");
}

// Inverse is checked as a·a⁻¹ = 1 with the host multiplication (0 → 0), on 2^16 elements.
TYPED_TEST(DeviceFieldTest, DeviceInverse) {
  SNARKD_SKIP_WITHOUT_GPU();
  using D = TypeParam;
  using H = typename D::Host;
  constexpr size_t n = size_t{1} << 16;
  auto g = snarkd::test::rng("cuda-field-inverse");
  std::vector<H> a, b;
  make_inputs(n, g, a, b);
  Stream s;
  const DeviceBuffer<D> da = test::to_device<D>(a, s);
  const std::vector<H> inv = run_op(FieldOp::kInverse, da, da, s);
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const bool ok = a[i].is_zero() ? inv[i].is_zero() : a[i] * inv[i] == H::one();
    if (!ok && bad++ < 3) ADD_FAILURE() << "inverse wrong at index " << i;
  }
  EXPECT_EQ(bad, 0u);
}

// Output may alias an input (in-place use by later kernels).
TYPED_TEST(DeviceFieldTest, InPlaceMultiply) {
  SNARKD_SKIP_WITHOUT_GPU();
  using D = TypeParam;
  using H = typename D::Host;
  constexpr size_t n = 4096;
  auto g = snarkd::test::rng("cuda-field-inplace");
  std::vector<H> a, b;
  make_inputs(n, g, a, b);
  Stream s;
  DeviceBuffer<D> da = test::to_device<D>(a, s);
  const DeviceBuffer<D> db = test::to_device<D>(b, s);
  field_op<D>(FieldOp::kMul, da.data(), db.data(), da.data(), n, s);
  expect_all(test::to_host<H>(da, s), n, [&](size_t i) { return a[i] * b[i]; }, "in-place mul");
}

}  // namespace
}  // namespace snarkd::cuda
