// A slow, obviously-correct Groth16 prover for small circuits: dense row evaluation with every
// coefficient multiplied, naive O(n²) inverse DFT and polynomial product, long division by
// Xⁿ − 1 (bellperson) or naive evaluation on the coset ω₂ₙ·⟨ω⟩ (snarkjs), and MSMs as sums of
// single scalar multiplications. Shares no code with the prover but the group and field types.
// Generic over the curve E (groth16/curve.hpp) and its scalar field F; the circuit's field picks.
#pragma once
#include <gtest/gtest.h>

#include <span>
#include <vector>

#include "snarkd/groth16/keys.hpp"
#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::groth16::test {

template <class F>
F dense_row(const r1cs::CircuitT<F>& c, const r1cs::CsrMatrix& m, uint64_t i, r1cs::Values<F> w) {
  F acc = F::zero();
  for (uint64_t k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k) acc += c.coeffs[m.coeff[k]] * w[m.col[k]];
  return acc;
}

// Coefficients of the polynomial taking values v on ⟨ω⟩: cₖ = n⁻¹ Σᵢ vᵢ ω^(−ik).
template <class F>
std::vector<F> naive_interpolate(const std::vector<F>& v, const F& omega) {
  const size_t n = v.size();
  const F winv = omega.inverse(), ninv = F::from_u64(n).inverse();
  std::vector<F> c(n);
  for (size_t k = 0; k < n; ++k) {
    F acc = F::zero(), step = winv.pow(k), x = F::one();
    for (size_t i = 0; i < n; ++i, x *= step) acc += v[i] * x;
    c[k] = acc * ninv;
  }
  return c;
}

template <class F>
F horner(const std::vector<F>& c, const F& x) {
  F acc = F::zero();
  for (size_t i = c.size(); i-- > 0;) acc = acc * x + c[i];
  return acc;
}

// The H-query scalars by polynomial arithmetic.
template <class F>
std::vector<F> reference_h(KeyFlavour flavour, uint32_t log_n, const std::vector<F>& a, const std::vector<F>& b,
                           const std::vector<F>& c) {
  const size_t n = size_t{1} << log_n;
  const F omega = F::root_of_unity(log_n, domain_generator(flavour));
  const auto pa = naive_interpolate(a, omega), pb = naive_interpolate(b, omega), pc = naive_interpolate(c, omega);
  std::vector<F> p(2 * n - 1);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) p[i + j] += pa[i] * pb[j];
  for (size_t i = 0; i < n; ++i) p[i] -= pc[i];
  std::vector<F> h(n - 1);
  if (flavour == KeyFlavour::kBellperson) {
    for (size_t k = 2 * n - 2; k >= n; --k) {  // p = q·(Xⁿ − 1) + rem
      h[k - n] = p[k];
      p[k - n] += p[k];
    }
    for (size_t i = 0; i < n; ++i) EXPECT_TRUE(p[i].is_zero()) << "remainder at " << i;
    return h;
  }
  const F shift = F::root_of_unity(log_n + 1, domain_generator(flavour));
  h.resize(n);
  F x = shift;
  for (size_t i = 0; i < n; ++i, x *= omega) h[i] = horner(p, x);
  return h;
}

template <class C>
ec::Jacobian<C> naive_msm(std::span<const ec::Affine<C>> bases, r1cs::Values<typename C::Scalar> scalars) {
  EXPECT_EQ(bases.size(), scalars.size());
  auto acc = ec::Jacobian<C>::infinity();
  for (size_t i = 0; i < bases.size(); ++i) acc += ec::Jacobian<C>::from_affine(bases[i]).mul_scalar(scalars[i]);
  return acc;
}

template <class F>
std::vector<F> pick(std::span<const F> w, const r1cs::DensityBitmap& d) {
  std::vector<F> out;
  for (uint64_t j = 0; j < w.size(); ++j)
    if (d.num_bits == 0 || d.test(j)) out.push_back(w[j]);
  return out;
}

// The proof for pk (densities attached), witness w and blinding r, s.
template <class E>
ProofT<E> reference_prove(const ProvingKeyT<E>& pk, const r1cs::CircuitT<typename E::Fr>& cir,
                          r1cs::Values<typename E::Fr> w, const typename E::Fr& r, const typename E::Fr& s) {
  using F = typename E::Fr;
  const size_t n = pk.domain_size(), m = cir.num_constraints();
  std::vector<F> a(n), b(n), c(n);
  for (size_t i = 0; i < m; ++i) {
    a[i] = dense_row(cir, cir.a, i, w);
    b[i] = dense_row(cir, cir.b, i, w);
    c[i] = pk.flavour == KeyFlavour::kSnarkjs ? a[i] * b[i] : dense_row(cir, cir.c, i, w);
  }
  if (pk.flavour == KeyFlavour::kBellperson)
    for (size_t j = 0; j < cir.num_inputs; ++j) a[m + j] = w[j];
  const auto h = reference_h(pk.flavour, pk.log_domain, a, b, c);
  using J1 = typename E::G1Jacobian;
  using J2 = typename E::G2Jacobian;
  using G1 = typename E::G1;
  const J1 d1 = J1::from_affine(pk.vk.delta_g1);
  const J1 A = J1::from_affine(pk.vk.alpha_g1) + naive_msm<G1>(pk.a, pick<F>(w, pk.a_density)) + d1.mul_scalar(r);
  const auto wb = pick<F>(w, pk.b_density);
  const J1 B1 = J1::from_affine(pk.vk.beta_g1) + naive_msm<G1>(pk.b_g1, wb) + d1.mul_scalar(s);
  const J2 B2 = J2::from_affine(pk.vk.beta_g2) + naive_msm<typename E::G2>(pk.b_g2, wb) +
                J2::from_affine(pk.vk.delta_g2).mul_scalar(s);
  const J1 C = naive_msm<G1>(pk.l, w.subspan(cir.num_inputs)) + naive_msm<G1>(pk.h, h) + A.mul_scalar(s) +
               B1.mul_scalar(r) - d1.mul_scalar(r * s);
  return {A.to_affine(), B2.to_affine(), C.to_affine()};
}

}  // namespace snarkd::groth16::test
