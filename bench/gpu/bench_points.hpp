// Host-side inputs for the GPU MSM benchmark (compiled by the C++ compiler, with the fast host
// field arithmetic): random points as multiples of the generator, and the CPU MSM reference.
// Generic over the group C (BLS12-381's ec::G1Config / G2Config, BN254's ec::bn254::G1Config /
// G2Config; instantiated in bench_points.cpp) and the scalar field S (ff::Fr, ff::bn254::Fr).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "snarkd/ec/bn254.hpp"
#include "snarkd/ec/g1.hpp"
#include "snarkd/ec/g2.hpp"
#include "snarkd/ff/fr.hpp"

namespace snarkd::bench {

template <class C>
std::vector<ec::Affine<C>> random_points(size_t n, uint64_t seed);
template <class S>
std::vector<S> random_scalars(size_t n, uint64_t seed);
// The CPU MSM, affine result (for the benchmark's self-check).
template <class C>
ec::Affine<C> cpu_msm(const std::vector<ec::Affine<C>>& b, const std::vector<typename C::Scalar>& s);
// Whether two XYZZ points are the same group element (the split and plain GPU MSM results).
template <class C>
bool same_point(const ec::Xyzz<C>& a, const ec::Xyzz<C>& b);
// Whether `got` = Σ s[i]·tile[i mod tile.size()]: the CPU MSM over the tile with the scalars
// folded per tile index (checks benchmark results over cyclically tiled bases at any n).
template <class C>
bool equals_tiled_msm(const std::vector<ec::Affine<C>>& tile, const std::vector<typename C::Scalar>& s,
                      const ec::Xyzz<C>& got);

// PoRep-like scalars (split benchmark): 50% zero, 45% one, 5% uniformly random.
std::vector<ff::Fr> porep_fr(size_t n, uint64_t seed);
// The GPU split MSM (msm_split_sync) equals the CPU MSM on `b` with PoRep-like scalars.
bool split_self_check_g1(const std::vector<ec::G1Affine>& b, uint64_t seed);

}  // namespace snarkd::bench
