// Inputs and the naive reference for the MSM tests. The reference Σ kᵢ·Pᵢ uses only
// Jacobian::mul and +, none of the code under test.
#pragma once
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "snarkd/ec/g1.hpp"
#include "snarkd/ec/g2.hpp"
#include "snarkd/ff/fr.hpp"

namespace snarkd::test {

using ec::generator;

// n distinct-looking points cheaply: 4 random multiples of the generator, then each point is the
// previous one plus one of those four (one Jacobian addition per point), normalised together.
template <class C>
std::vector<ec::Affine<C>> random_bases(size_t n, std::mt19937_64& g) {
  using J = ec::Jacobian<C>;
  J seeds[4];
  for (J& s : seeds) s = J::from_affine(generator<C>()).mul_scalar(ff::Fr::random(g));
  std::vector<J> pts(n);
  for (size_t i = 0; i < n; ++i) pts[i] = i == 0 ? seeds[0] : pts[i - 1] + seeds[i % 4];
  return ec::batch_to_affine<C>(pts);
}

// Scalars that stress the digit recoding: r − 1, all-ones runs (every digit −1 with a carry
// chain), alternating 0x8000 patterns (digits exactly at ±2^(c−1) for c = 16), powers of two.
inline ff::Fr edge_scalar(std::mt19937_64& g) {
  switch (g() % 6) {
    case 0: return ff::Fr::zero() - ff::Fr::one();
    case 1: return ff::Fr::from_repr_unchecked({~0ull, ~0ull, ~0ull, 0x3fffffffffffffffull});
    case 2: return ff::Fr::from_repr_unchecked({0x8000800080008000ull, 0x8000800080008000ull,
                                                0x8000800080008000ull, 0x0000800080008000ull});
    case 3: return ff::Fr::from_u64(uint64_t(1) << (g() % 64));
    case 4: return ff::Fr::from_u64((uint64_t(1) << (1 + g() % 63)) - 1);
    default: return ff::Fr::zero() - ff::Fr::from_u64(1 + g() % 100000);
  }
}

// Percentages of each kind; the rest are uniformly random.
struct ScalarMix {
  unsigned zero = 0, one = 0, minus_one = 0, edge = 0;
};

inline std::vector<ff::Fr> random_scalars(size_t n, const ScalarMix& mix, std::mt19937_64& g) {
  std::vector<ff::Fr> s(n);
  for (ff::Fr& k : s) {
    unsigned roll = unsigned(g() % 100);
    if (roll < mix.zero) {
      k = ff::Fr::zero();
    } else if ((roll -= mix.zero) < mix.one) {
      k = ff::Fr::one();
    } else if ((roll -= mix.one) < mix.minus_one) {
      k = ff::Fr::zero() - ff::Fr::one();
    } else if ((roll -= mix.minus_one) < mix.edge) {
      k = edge_scalar(g);
    } else {
      k = ff::Fr::random(g);
    }
  }
  return s;
}

// Replaces about 1 in `every` bases with infinity, a copy of an earlier base, or the negation of
// one, so buckets meet P + ∞, P + P and P + (−P).
template <class C>
void add_degenerate_bases(std::vector<ec::Affine<C>>& bases, size_t every, std::mt19937_64& g) {
  for (size_t i = 1; i < bases.size(); ++i) {
    if (g() % every != 0) continue;
    const size_t j = g() % i;
    switch (g() % 3) {
      case 0: bases[i] = ec::Affine<C>::infinity(); break;
      case 1: bases[i] = bases[j]; break;
      default: bases[i] = -bases[j]; break;
    }
  }
}

// 0·P and 1·P skip the multiplication: bit-heavy inputs would otherwise spend seconds on them.
template <class C>
ec::Jacobian<C> naive_msm(std::span<const ec::Affine<C>> bases, std::span<const ff::Fr> scalars) {
  ec::Jacobian<C> acc = ec::Jacobian<C>::infinity();
  for (size_t i = 0; i < bases.size(); ++i) {
    const auto p = ec::Jacobian<C>::from_affine(bases[i]);
    if (scalars[i].is_zero()) continue;
    acc += scalars[i] == ff::Fr::one() ? p : p.mul_scalar(scalars[i]);
  }
  return acc;
}

}  // namespace snarkd::test
