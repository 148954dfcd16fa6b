// The Lagrange basis of a power-of-two domain evaluated at one known point, and geometric
// sequences: the scalars of trusted-setup code that holds τ (groth16/setup.cpp's development
// keys, tools/dev_ptau's powers-of-tau files). Generic over the scalar field F; parallel on the
// global pool.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "snarkd/ff/field.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::poly {

// Elements per block: each block pays one pow (≈ 2·log₂ i products) or one batch inversion
// (≈ 380 squarings), < 0.1 product per element at 4096.
inline constexpr size_t kScalarBlock = 4096;

// out[j] = first·ratio^j. Each block starts from first·ratio^begin, so blocks are independent.
template <class F>
void geometric_into(std::span<F> out, const F& first, const F& ratio) {
  parallel_blocks(out.size(), kScalarBlock, [&](size_t begin, size_t end) {
    F v = first * ratio.pow(uint64_t{begin});
    for (size_t j = begin; j < end; ++j, v *= ratio) out[j] = v;
  });
}

// out[j] = c·L_{first+j}(τ), the Lagrange basis of ⟨ω⟩ (n = 2^log_n, ω = F::root_of_unity(log_n,
// generator): 5 for snarkjs, 7 for bellperson) at τ, where L_i(ωᵏ) = [i = k], times c:
//   c·L_i(τ) = c·(τⁿ − 1)/n · ωⁱ/(τ − ωⁱ).
// (A powers-of-tau file holds α·L_i(τ)·G1 next to L_i(τ)·G1: c costs nothing folded in here.)
// Each block inverts its denominators with one batch inversion (≈ 6 products per element).
// Throws InvalidArgument when τ is a domain point (τⁿ = 1), where the formula divides by zero.
template <class F>
void lagrange_into(std::span<F> out, uint64_t first, uint32_t log_n, const F& tau, uint64_t generator,
                   const F& c = F::one()) {
  const uint64_t n = uint64_t{1} << log_n;
  const F omega = F::root_of_unity(log_n, generator);
  const F z = tau.pow(n) - F::one();
  if (z.is_zero()) throw InvalidArgument("tau is a point of the evaluation domain");
  const F c_z_over_n = c * z * F::from_u64(n).inverse();
  parallel_blocks(out.size(), kScalarBlock, [&](size_t begin, size_t end) {
    std::vector<F> den(end - begin), num(end - begin);  // 2 × 128 KiB: heap, not a pool thread's stack
    F wi = omega.pow(first + begin);
    for (size_t j = begin; j < end; ++j, wi *= omega) {
      den[j - begin] = tau - wi;
      num[j - begin] = c_z_over_n * wi;
    }
    ff::batch_inverse(std::span<F>(den));
    for (size_t j = begin; j < end; ++j) out[j] = den[j - begin] * num[j - begin];
  });
}

}  // namespace snarkd::poly
