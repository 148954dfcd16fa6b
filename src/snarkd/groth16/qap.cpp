#include "snarkd/groth16/qap.hpp"

#include <bit>
#include <string>

#include "snarkd/poly/ntt.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::groth16 {

const char* flavour_name(KeyFlavour f) {
  return f == KeyFlavour::kBellperson ? "bellperson" : "snarkjs";
}

template <class F>
uint32_t qap_log_domain(const r1cs::CircuitT<F>& circuit, KeyFlavour flavour) {
  const uint64_t rows = qap_rows(circuit, flavour);
  const uint32_t k = rows <= 2 ? 1 : static_cast<uint32_t>(std::bit_width(rows - 1));
  if (k > poly::DomainT<F>::kMaxLogSize - 1)  // snarkjs needs ω₂ₙ, so n ≤ 2^(s−1) for both
    throw InvalidArgument("QAP of " + std::to_string(rows) + " rows exceeds the largest domain");
  return k;
}

template <class F>
QapEvaluationsT<F> evaluate_qap(const r1cs::CircuitT<F>& circuit, KeyFlavour flavour, uint32_t log_domain,
                                r1cs::Values<F> witness) {
  const uint64_t n = uint64_t{1} << log_domain, m = circuit.num_constraints();
  if (qap_rows(circuit, flavour) > n)
    throw InvalidArgument("QAP of " + std::to_string(qap_rows(circuit, flavour)) +
                          " rows does not fit a domain of " + std::to_string(n));
  if (witness.size() != circuit.num_vars())
    throw InvalidArgument("witness has " + std::to_string(witness.size()) + " values, the circuit " +
                          std::to_string(circuit.num_vars()) + " variables");
  QapEvaluationsT<F> e{std::vector<F>(n), std::vector<F>(n), std::vector<F>(n)};
  r1cs::evaluate(circuit, r1cs::Matrix::A, witness, std::span<F>(e.a).first(m));
  r1cs::evaluate(circuit, r1cs::Matrix::B, witness, std::span<F>(e.b).first(m));
  if (flavour == KeyFlavour::kSnarkjs) {
    parallel_for(m, [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) e.c[i] = e.a[i] * e.b[i];
    });
  } else {
    r1cs::evaluate(circuit, r1cs::Matrix::C, witness, std::span<F>(e.c).first(m));
    for (uint64_t j = 0; j < circuit.num_inputs; ++j) e.a[m + j] = witness[j];  // w_j · 0 = 0
  }
  return e;
}

template <class F>
std::optional<uint64_t> first_failing_row(const QapEvaluationsT<F>& e) {
  for (uint64_t i = 0; i < e.a.size(); ++i)
    if (e.a[i] * e.b[i] != e.c[i]) return i;
  return std::nullopt;
}

template <class F>
F h_coset_shift(KeyFlavour flavour, uint32_t log_domain) {
  if (flavour == KeyFlavour::kBellperson) return F::from_u64(ff::kBellpersonDomainGenerator);
  return F::root_of_unity(log_domain + 1, ff::kSnarkjsDomainGenerator);
}

template <class F>
std::vector<F> h_scalars(KeyFlavour flavour, uint32_t log_domain, QapEvaluationsT<F>&& e) {
  const uint64_t n = uint64_t{1} << log_domain;
  if (e.a.size() != n || e.b.size() != n || e.c.size() != n)
    throw InvalidArgument("QAP evaluations are not 2^" + std::to_string(log_domain) + " long");
  const poly::DomainT<F> domain(log_domain, domain_generator(flavour));
  const F shift = h_coset_shift<F>(flavour, log_domain);
  for (std::vector<F>* v : {&e.a, &e.b}) {
    poly::intt(domain, *v);
    poly::coset_ntt(domain, *v, shift);
  }
  auto pointwise = [n](auto&& op) {
    parallel_for(n, [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) op(i);
    });
  };
  if (flavour == KeyFlavour::kSnarkjs) {  // a·b − c on the coset; the key absorbs Z = −2
    poly::intt(domain, e.c);
    poly::coset_ntt(domain, e.c, shift);
    pointwise([&](size_t i) { e.a[i] = e.a[i] * e.b[i] - e.c[i]; });
    return std::move(e.a);
  }
  // Bellperson: h = coset_intt((a·b − c)/Z) with Z(s·ωⁱ) = sⁿ − 1 on every coset point. The
  // coset inverse is linear and undoes the coset transform of c's coefficients, so
  //   h = f·(coset_intt(a·b) − intt(c)),  f = 1/(sⁿ − 1):
  // the same vector for any a, b, c (so the callers' check of its top coefficient keeps its
  // meaning) with 6 transforms instead of 7 (c never goes to the coset).
  pointwise([&](size_t i) { e.a[i] *= e.b[i]; });
  poly::coset_intt(domain, e.a, shift);
  poly::intt(domain, e.c);
  const F factor = (shift.pow(n) - F::one()).inverse();
  pointwise([&](size_t i) { e.a[i] = (e.a[i] - e.c[i]) * factor; });
  std::vector<F> h = std::move(e.a);
  h.resize(n - 1);  // deg h ≤ n − 2: the top coefficient is zero for a satisfying witness
  return h;
}

template <class F>
r1cs::DensityBitmap bellperson_a_density(const r1cs::CircuitT<F>& circuit) {
  r1cs::DensityBitmap d = r1cs::density(circuit, r1cs::Matrix::A);
  for (uint64_t j = 0; j < circuit.num_inputs; ++j) d.words[j / 64] |= uint64_t{1} << (j % 64);
  return d;
}

template <class F>
std::vector<F> gather_by_density(r1cs::Values<F> v, const r1cs::DensityBitmap& d) {
  if (d.num_bits == 0) return {v.begin(), v.end()};
  std::vector<F> out;
  out.reserve(d.count(0, d.num_bits));
  for (uint64_t j = 0; j < d.num_bits; ++j)
    if (d.test(j)) out.push_back(v[j]);
  return out;
}

#define SNARKD_QAP_INSTANTIATE(F)                                                                          \
  template uint32_t qap_log_domain<F>(const r1cs::CircuitT<F>&, KeyFlavour);                                \
  template QapEvaluationsT<F> evaluate_qap<F>(const r1cs::CircuitT<F>&, KeyFlavour, uint32_t, r1cs::Values<F>); \
  template std::optional<uint64_t> first_failing_row<F>(const QapEvaluationsT<F>&);                         \
  template std::vector<F> h_scalars<F>(KeyFlavour, uint32_t, QapEvaluationsT<F>&&);                         \
  template F h_coset_shift<F>(KeyFlavour, uint32_t);                                                        \
  template r1cs::DensityBitmap bellperson_a_density<F>(const r1cs::CircuitT<F>&);                           \
  template std::vector<F> gather_by_density<F>(r1cs::Values<F>, const r1cs::DensityBitmap&);
SNARKD_QAP_INSTANTIATE(ff::Fr)
SNARKD_QAP_INSTANTIATE(ff::bn254::Fr)
#undef SNARKD_QAP_INSTANTIATE

}  // namespace snarkd::groth16
