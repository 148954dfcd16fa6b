// Host-side inputs for the GPU MSM benchmark (compiled by the C++ compiler, with the fast host
// field arithmetic): random points as multiples of the generator, and the CPU MSM reference.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "snarkd/ec/g1.hpp"
#include "snarkd/ec/g2.hpp"
#include "snarkd/ff/fr.hpp"

namespace snarkd::bench {

std::vector<ec::G1Affine> random_g1(size_t n, uint64_t seed);
std::vector<ec::G2Affine> random_g2(size_t n, uint64_t seed);
std::vector<ff::Fr> random_fr(size_t n, uint64_t seed);
// The CPU MSM, affine result (for the benchmark's self-check).
ec::G1Affine cpu_msm_g1(const std::vector<ec::G1Affine>& b, const std::vector<ff::Fr>& s);
ec::G2Affine cpu_msm_g2(const std::vector<ec::G2Affine>& b, const std::vector<ff::Fr>& s);

}  // namespace snarkd::bench
