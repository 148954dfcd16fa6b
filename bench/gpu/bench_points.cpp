#include "bench_points.hpp"

#include <random>

#include "snarkd/cuda/msm_split.hpp"
#include "snarkd/ec/fixed_base.hpp"
#include "snarkd/msm/msm.hpp"

namespace snarkd::bench {

template <class S>
std::vector<S> random_scalars(size_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<S> s(n);
  for (auto& x : s) x = S::random(g);
  return s;
}

// k·G for random k in the group's own scalar field (the table's Scalar).
template <class C>
std::vector<ec::Affine<C>> random_points(size_t n, uint64_t seed) {
  return ec::FixedBaseTable<C>(ec::generator<C>()).mul_many(random_scalars<typename C::Scalar>(n, seed));
}

template <class C>
ec::Affine<C> cpu_msm(const std::vector<ec::Affine<C>>& b, const std::vector<typename C::Scalar>& s) {
  return msm::msm<C>(b, s).to_affine();
}

template <class C>
bool same_point(const ec::Xyzz<C>& a, const ec::Xyzz<C>& b) {
  return a.to_jacobian() == b.to_jacobian();
}

template <class C>
bool equals_tiled_msm(const std::vector<ec::Affine<C>>& tile, const std::vector<typename C::Scalar>& s,
                      const ec::Xyzz<C>& got) {
  std::vector<typename C::Scalar> folded(tile.size(), C::Scalar::zero());
  for (size_t i = 0; i < s.size(); ++i) folded[i % tile.size()] += s[i];
  return got.to_jacobian() == msm::msm<C>(tile, folded);
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

bool split_self_check_g1(const std::vector<ec::G1Affine>& b, uint64_t seed) {
  const auto s = porep_fr(b.size(), seed);
  return cuda::msm_split_sync<ec::G1Config>(b, s).to_affine() == cpu_msm<ec::G1Config>(b, s);
}

template std::vector<ff::Fr> random_scalars<ff::Fr>(size_t, uint64_t);
template std::vector<ff::bn254::Fr> random_scalars<ff::bn254::Fr>(size_t, uint64_t);
#define SNARKD_BENCH_POINTS_DEFINE(C)                                                                           \
  template std::vector<ec::Affine<C>> random_points<C>(size_t, uint64_t);                                       \
  template ec::Affine<C> cpu_msm<C>(const std::vector<ec::Affine<C>>&, const std::vector<typename C::Scalar>&); \
  template bool same_point<C>(const ec::Xyzz<C>&, const ec::Xyzz<C>&);                                          \
  template bool equals_tiled_msm<C>(const std::vector<ec::Affine<C>>&, const std::vector<typename C::Scalar>&,  \
                                    const ec::Xyzz<C>&);
SNARKD_BENCH_POINTS_DEFINE(ec::G1Config)
SNARKD_BENCH_POINTS_DEFINE(ec::G2Config)
SNARKD_BENCH_POINTS_DEFINE(ec::bn254::G1Config)
SNARKD_BENCH_POINTS_DEFINE(ec::bn254::G2Config)
#undef SNARKD_BENCH_POINTS_DEFINE

}  // namespace snarkd::bench
