// What only BN254's NTT domains have: 2^28 points at most, snarkjs's root of unity at that size,
// and no AVX-512 IFMA kernels (kAuto means portable, asking for IFMA throws). The transforms
// themselves run the typed suites of ntt_test.cpp with BLS12-381's.
#include <gtest/gtest.h>

#include "snarkd/ff/bn254.hpp"
#include "snarkd/poly/ntt.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::poly {
namespace {

using Dom = bn254::Domain;
constexpr uint64_t kGen = ff::bn254::kSnarkjsDomainGenerator;

TEST(NttBn254, DomainLimitsAndKernels) {
  EXPECT_EQ(Dom::kMaxLogSize, 28u);
  EXPECT_EQ(Dom(28, kGen).omega(), ff::bn254::kRootOfUnity5);
  EXPECT_THROW(Dom(29, kGen), InvalidArgument);
  EXPECT_EQ(Dom(10, kGen).kernels(), NttKernels::kPortable);
  EXPECT_THROW(Dom(10, kGen, Dom::kDefaultPassLog, NttKernels::kAvx512Ifma), InvalidArgument);
  EXPECT_NO_THROW(Dom(10, kGen, Dom::kDefaultPassLog, NttKernels::kPortable));
}

}  // namespace
}  // namespace snarkd::poly
