// The groups the typed GPU-MSM tests run over (both curves, G1 and G2) and readable names for
// them and for the scalar fields (test names such as CudaMsm/Bn254G1.EdgeCases, CudaNtt/Bn254.*).
// Header-only and CUDA-free: the host tests (test_cuda_host) use it too.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include "snarkd/cuda/curve.hpp"

namespace snarkd::cuda::test {

using Groups = ::testing::Types<ec::G1Config, ec::G2Config, ec::bn254::G1Config, ec::bn254::G2Config>;

// "Bls12381" or "Bn254", from a host scalar field.
template <class S>
std::string curve_name() {
  static_assert(std::is_same_v<S, ff::Fr> || std::is_same_v<S, ff::bn254::Fr>);
  return std::is_same_v<S, ff::Fr> ? "Bls12381" : "Bn254";
}

struct GroupNames {
  template <class C>
  static std::string GetName(int) {
    return curve_name<typename C::Scalar>() + (kIsPrimeField<DeviceFieldOf<C>> ? "G1" : "G2");
  }
};

// For tests typed over the device scalar fields (cuda::Fr, cuda::bn254::Fr).
struct ScalarFieldNames {
  template <class F>
  static std::string GetName(int) {
    return curve_name<typename F::Host>();
  }
};

}  // namespace snarkd::cuda::test
