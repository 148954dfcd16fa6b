// A slow, obviously-correct Groth16 prover for small circuits: dense row evaluation with every
// coefficient multiplied, naive O(n²) inverse DFT and polynomial product, long division by
// Xⁿ − 1 (bellperson) or naive evaluation on the coset ω₂ₙ·⟨ω⟩ (snarkjs), and MSMs as sums of
// single scalar multiplications. Shares no code with the prover but the group and field types.
#pragma once
#include <gtest/gtest.h>

#include <span>
#include <vector>

#include "snarkd/groth16/keys.hpp"
#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::groth16::test {

inline Fr dense_row(const r1cs::Circuit& c, const r1cs::CsrMatrix& m, uint64_t i, std::span<const Fr> w) {
  Fr acc = Fr::zero();
  for (uint64_t k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k) acc += c.coeffs[m.coeff[k]] * w[m.col[k]];
  return acc;
}

// Coefficients of the polynomial taking values v on ⟨ω⟩: cₖ = n⁻¹ Σᵢ vᵢ ω^(−ik).
inline std::vector<Fr> naive_interpolate(const std::vector<Fr>& v, const Fr& omega) {
  const size_t n = v.size();
  const Fr winv = omega.inverse(), ninv = Fr::from_u64(n).inverse();
  std::vector<Fr> c(n);
  for (size_t k = 0; k < n; ++k) {
    Fr acc = Fr::zero(), step = winv.pow(k), x = Fr::one();
    for (size_t i = 0; i < n; ++i, x *= step) acc += v[i] * x;
    c[k] = acc * ninv;
  }
  return c;
}

inline Fr horner(const std::vector<Fr>& c, const Fr& x) {
  Fr acc = Fr::zero();
  for (size_t i = c.size(); i-- > 0;) acc = acc * x + c[i];
  return acc;
}

// The H-query scalars by polynomial arithmetic.
inline std::vector<Fr> reference_h(KeyFlavour flavour, uint32_t log_n, const std::vector<Fr>& a,
                                   const std::vector<Fr>& b, const std::vector<Fr>& c) {
  const size_t n = size_t{1} << log_n;
  const Fr omega = Fr::root_of_unity(log_n, domain_generator(flavour));
  const auto pa = naive_interpolate(a, omega), pb = naive_interpolate(b, omega), pc = naive_interpolate(c, omega);
  std::vector<Fr> p(2 * n - 1);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) p[i + j] += pa[i] * pb[j];
  for (size_t i = 0; i < n; ++i) p[i] -= pc[i];
  std::vector<Fr> h(n - 1);
  if (flavour == KeyFlavour::kBellperson) {
    for (size_t k = 2 * n - 2; k >= n; --k) {  // p = q·(Xⁿ − 1) + rem
      h[k - n] = p[k];
      p[k - n] += p[k];
    }
    for (size_t i = 0; i < n; ++i) EXPECT_TRUE(p[i].is_zero()) << "remainder at " << i;
    return h;
  }
  const Fr shift = Fr::root_of_unity(log_n + 1, domain_generator(flavour));
  h.resize(n);
  Fr x = shift;
  for (size_t i = 0; i < n; ++i, x *= omega) h[i] = horner(p, x);
  return h;
}

template <class C>
ec::Jacobian<C> naive_msm(std::span<const ec::Affine<C>> bases, std::span<const Fr> scalars) {
  EXPECT_EQ(bases.size(), scalars.size());
  auto acc = ec::Jacobian<C>::infinity();
  for (size_t i = 0; i < bases.size(); ++i) acc += ec::Jacobian<C>::from_affine(bases[i]).mul_scalar(scalars[i]);
  return acc;
}

inline std::vector<Fr> pick(std::span<const Fr> w, const r1cs::DensityBitmap& d) {
  std::vector<Fr> out;
  for (uint64_t j = 0; j < w.size(); ++j)
    if (d.num_bits == 0 || d.test(j)) out.push_back(w[j]);
  return out;
}

// The proof for pk (densities attached), witness w and blinding r, s.
inline Proof reference_prove(const ProvingKey& pk, const r1cs::Circuit& cir, std::span<const Fr> w,
                             const Fr& r, const Fr& s) {
  const size_t n = pk.domain_size(), m = cir.num_constraints();
  std::vector<Fr> a(n), b(n), c(n);
  for (size_t i = 0; i < m; ++i) {
    a[i] = dense_row(cir, cir.a, i, w);
    b[i] = dense_row(cir, cir.b, i, w);
    c[i] = pk.flavour == KeyFlavour::kSnarkjs ? a[i] * b[i] : dense_row(cir, cir.c, i, w);
  }
  if (pk.flavour == KeyFlavour::kBellperson)
    for (size_t j = 0; j < cir.num_inputs; ++j) a[m + j] = w[j];
  const auto h = reference_h(pk.flavour, pk.log_domain, a, b, c);
  using J1 = ec::G1Jacobian;
  using J2 = ec::G2Jacobian;
  const J1 d1 = J1::from_affine(pk.vk.delta_g1);
  const J1 A = J1::from_affine(pk.vk.alpha_g1) + naive_msm<ec::G1Config>(pk.a, pick(w, pk.a_density)) + d1.mul_scalar(r);
  const auto wb = pick(w, pk.b_density);
  const J1 B1 = J1::from_affine(pk.vk.beta_g1) + naive_msm<ec::G1Config>(pk.b_g1, wb) + d1.mul_scalar(s);
  const J2 B2 = J2::from_affine(pk.vk.beta_g2) + naive_msm<ec::G2Config>(pk.b_g2, wb) +
                J2::from_affine(pk.vk.delta_g2).mul_scalar(s);
  const J1 C = naive_msm<ec::G1Config>(pk.l, w.subspan(cir.num_inputs)) + naive_msm<ec::G1Config>(pk.h, h) +
               A.mul_scalar(s) + B1.mul_scalar(r) - d1.mul_scalar(r * s);
  return {A.to_affine(), B2.to_affine(), C.to_affine()};
}

}  // namespace snarkd::groth16::test
