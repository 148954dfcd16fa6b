#include "bench_points.hpp"

#include <random>

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

}  // namespace snarkd::bench
