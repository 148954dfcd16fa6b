// The fused GPU H phase (cuda/h_phase.hpp) against its CPU twin groth16::h_scalars, both key
// flavours (bellperson: shift 7, divide by Z, coset inverse NTT; snarkjs: shift ω₂ₙ, evaluations),
// fresh random a, b, c (seed printed) at 2^1 .. 2^21 (the one-, two- and three-pass transforms and
// the ≤ 4-point kernel), the scratch poisoned first; bad arguments throw.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "common/seed.hpp"
#include "gpu_test_util.hpp"
#include "snarkd/cuda/h_phase.hpp"
#include "snarkd/groth16/qap.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {
namespace {

using groth16::KeyFlavour;

std::vector<ff::Fr> random_vector(std::mt19937_64& g, size_t n) {
  std::vector<ff::Fr> v(n);
  for (auto& x : v) x = ff::Fr::random(g);
  return v;
}

void check(KeyFlavour flavour, uint32_t k, std::mt19937_64& g) {
  const size_t n = size_t{1} << k;
  groth16::QapEvaluations e{random_vector(g, n), random_vector(g, n), random_vector(g, n)};
  const ff::Fr shift = groth16::h_coset_shift(flavour, k);
  const NttTables tables(std::max<uint32_t>(k, 1), groth16::domain_generator(flavour), shift);
  Stream s;
  auto a = test::to_device<Fr>(e.a, s), b = test::to_device<Fr>(e.b, s), c = test::to_device<Fr>(e.c, s);
  DeviceBuffer<uint8_t> scratch(h_phase_scratch_bytes(k, tables));
  scratch.fill_bytes(0xa5, s);
  HPhaseParams hp;
  hp.log_n = k;
  hp.bellperson = flavour == KeyFlavour::kBellperson;
  hp.factor = Fr::from_host((shift.pow(uint64_t(n)) - ff::Fr::one()).inverse());
  h_phase(a.data(), b.data(), c.data(), hp, tables, scratch.data(), scratch.size(), s);
  const std::vector<ff::Fr> got = test::to_host<ff::Fr>(a, s);
  const std::vector<ff::Fr> want = groth16::h_scalars(flavour, k, std::move(e));
  ASSERT_LE(want.size(), got.size());
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) bad += got[i] != want[i];
  EXPECT_EQ(bad, 0u) << (hp.bellperson ? "bellperson" : "snarkjs") << " 2^" << k;
}

// Small sizes (the ≤ 4-point kernel, one and two passes; also the compute-sanitizer run) and
// large ones (two passes with both coset tables in use, three passes).
TEST(CudaHPhase, SmallEqualsCpuTwin) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng("cuda_h_phase_small");
  for (KeyFlavour f : {KeyFlavour::kBellperson, KeyFlavour::kSnarkjs})
    for (uint32_t k : {1u, 2u, 3u, 5u, 10u, 11u}) check(f, k, g);
}
TEST(CudaHPhase, LargeEqualsCpuTwin) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng("cuda_h_phase_large");
  for (KeyFlavour f : {KeyFlavour::kBellperson, KeyFlavour::kSnarkjs})
    for (uint32_t k : {14u, 15u, 17u, 21u}) check(f, k, g);
}

TEST(CudaHPhase, BadArguments) {
  SNARKD_SKIP_WITHOUT_GPU();
  const NttTables tables(8, 7, ff::Fr::from_u64(7));
  Stream s;
  DeviceBuffer<Fr> v(256);
  DeviceBuffer<uint8_t> scratch(h_phase_scratch_bytes(8, tables));
  HPhaseParams hp;
  hp.log_n = 9;  // above the tables
  EXPECT_THROW(h_phase(v.data(), v.data(), v.data(), hp, tables, scratch.data(), scratch.size(), s), InvalidArgument);
  hp.log_n = 0;
  EXPECT_THROW(h_phase(v.data(), v.data(), v.data(), hp, tables, scratch.data(), scratch.size(), s), InvalidArgument);
  hp.log_n = 8;
  EXPECT_THROW(h_phase(v.data(), v.data(), v.data(), hp, tables, scratch.data(), scratch.size() - 1, s),
               InvalidArgument);
}

}  // namespace
}  // namespace snarkd::cuda
