#include "bench_points.hpp"

#include <random>

#include "snarkd/cuda/msm_split.hpp"
#include "snarkd/ec/fixed_base.hpp"
#include "snarkd/msm/msm.hpp"

namespace snarkd::bench {

std::vector<ff::Fr> random_fr(size_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<ff::Fr> s(n);
  for (auto& x : s) x = ff::Fr::random(g);
  return s;
}

std::vector<ec::G1Affine> random_g1(size_t n, uint64_t seed) {
  return ec::FixedBaseTable<ec::G1Config>(ec::generator<ec::G1Config>()).mul_many(random_fr(n, seed));
}

std::vector<ec::G2Affine> random_g2(size_t n, uint64_t seed) {
  return ec::FixedBaseTable<ec::G2Config>(ec::generator<ec::G2Config>()).mul_many(random_fr(n, seed));
}

ec::G1Affine cpu_msm_g1(const std::vector<ec::G1Affine>& b, const std::vector<ff::Fr>& s) {
  return msm::msm<ec::G1Config>(b, s).to_affine();
}

ec::G2Affine cpu_msm_g2(const std::vector<ec::G2Affine>& b, const std::vector<ff::Fr>& s) {
  return msm::msm<ec::G2Config>(b, s).to_affine();
}

std::vector<ff::Fr> porep_fr(size_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<ff::Fr> s(n);
  for (auto& x : s) {
    const uint64_t u = g() % 100;
    x = u < 50 ? ff::Fr::zero() : u < 95 ? ff::Fr::one() : ff::Fr::random(g);
  }
  return s;
}

bool same_point(const ec::G1Xyzz& a, const ec::G1Xyzz& b) { return a.to_jacobian() == b.to_jacobian(); }
bool same_point(const ec::G2Xyzz& a, const ec::G2Xyzz& b) { return a.to_jacobian() == b.to_jacobian(); }

bool split_self_check_g1(const std::vector<ec::G1Affine>& b, uint64_t seed) {
  const auto s = porep_fr(b.size(), seed);
  return cuda::msm_split_sync<ec::G1Config>(b, s).to_affine() == cpu_msm_g1(b, s);
}

bool equals_tiled_msm(const std::vector<ec::G1Affine>& tile, const std::vector<ff::Fr>& s, const ec::G1Xyzz& got) {
  std::vector<ff::Fr> folded(tile.size(), ff::Fr::zero());
  for (size_t i = 0; i < s.size(); ++i) folded[i % tile.size()] += s[i];
  return got.to_jacobian() == msm::msm<ec::G1Config>(tile, folded);
}

}  // namespace snarkd::bench
