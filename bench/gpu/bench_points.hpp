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

// PoRep-like scalars (split benchmark): 50% zero, 45% one, 5% uniformly random.
std::vector<ff::Fr> porep_fr(size_t n, uint64_t seed);
// Whether two XYZZ points are the same group element (the split and plain GPU MSM results).
bool same_point(const ec::G1Xyzz& a, const ec::G1Xyzz& b);
bool same_point(const ec::G2Xyzz& a, const ec::G2Xyzz& b);
// The GPU split MSM (msm_split_sync) equals the CPU MSM on `b` with PoRep-like scalars.
bool split_self_check_g1(const std::vector<ec::G1Affine>& b, uint64_t seed);
// Whether `got` = Σ s[i]·tile[i mod tile.size()]: the CPU MSM over the tile with the scalars
// folded per tile index (checks benchmark results over cyclically tiled bases at any n).
bool equals_tiled_msm(const std::vector<ec::G1Affine>& tile, const std::vector<ff::Fr>& s, const ec::G1Xyzz& got);

}  // namespace snarkd::bench
