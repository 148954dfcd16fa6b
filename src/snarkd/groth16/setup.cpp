#include "snarkd/groth16/setup.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <memory>
#include <random>
#include <string>

#include "snarkd/ec/fixed_base.hpp"
#include "snarkd/groth16/qap.hpp"
#include "snarkd/poly/lagrange.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/free_vector.hpp"
#include "snarkd/util/random.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::groth16 {
namespace {

template <class F, class G>
ToxicWasteT<F> draw(G& g) {
  // A braced list evaluates left to right: a seed still gives the same τ, α, β, γ, δ.
  return {F::random_nonzero(g), F::random_nonzero(g), F::random_nonzero(g), F::random_nonzero(g), F::random_nonzero(g)};
}

// c·L_i(τ) for the first `rows` points of the domain ⟨ω⟩ of 2^log_n points (ω from `generator`).
template <class F>
std::vector<F> lagrange_at(uint32_t log_n, uint64_t rows, const F& tau, uint64_t generator, const F& c = F::one()) {
  std::vector<F> lag(rows);
  try {
    poly::lagrange_into(std::span<F>(lag), 0, log_n, tau, generator, c);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(std::string("setup: ") + e.what());
  }
  return lag;
}

// out[j] = Σ_i M_ij·L_i(τ) over the non-zeros of m. The columns are split into the pool's
// ranges; the task owning [lo, hi) scans every row and keeps the non-zeros in its range, so it
// alone writes out[lo, hi): no atomics and no per-thread num_vars-long partial sums (4 GiB each
// at 130M variables). The price is that every task reads all column indices (4 bytes per
// non-zero, sequentially); the additions are done once. ±1 coefficients add or subtract.
template <class F>
std::vector<F> column_sums(const r1cs::CircuitT<F>& c, r1cs::Matrix which, std::span<const F> lag) {
  const r1cs::CsrMatrix& m = c.matrix(which);
  const uint64_t rows = m.num_rows();
  std::vector<F> out(c.num_vars());
  parallel_for(out.size(), [&](size_t lo, size_t hi) {
    const uint64_t width = hi - lo;
    for (uint64_t i = 0; i < rows; ++i) {
      for (uint64_t k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k) {
        const uint64_t j = m.col[k];
        if (j - lo >= width) continue;  // unsigned: also rejects j < lo
        const uint32_t ci = m.coeff[k];
        if (ci == r1cs::kCoeffOne) out[j] += lag[i];
        else if (ci == r1cs::kCoeffMinusOne) out[j] -= lag[i];
        else out[j] += c.coeffs[ci] * lag[i];
      }
    }
  });
  return out;
}

// v[j] for the j set in d, in order, in parallel: word ranges count their bits first.
std::vector<Fr> gather(std::span<const Fr> v, const r1cs::DensityBitmap& d) {
  const size_t words = d.words.size(), parts = std::min<size_t>(words, 256);
  std::vector<uint64_t> start(parts + 1, 0);
  auto word_range = [&](size_t p) { return std::pair{words * p / parts, words * (p + 1) / parts}; };
  auto bit_end = [&](size_t w) { return std::min<uint64_t>(64 * w, d.num_bits); };
  parallel_for(parts, [&](size_t p0, size_t p1) {
    for (size_t p = p0; p < p1; ++p) {
      const auto [w0, w1] = word_range(p);
      start[p + 1] = d.count(bit_end(w0), bit_end(w1));
    }
  });
  for (size_t p = 0; p < parts; ++p) start[p + 1] += start[p];
  std::vector<Fr> out(start[parts]);
  parallel_for(parts, [&](size_t p0, size_t p1) {
    for (size_t p = p0; p < p1; ++p) {
      const auto [w0, w1] = word_range(p);
      uint64_t at = start[p];
      for (uint64_t j = bit_end(w0); j < bit_end(w1); ++j)
        if (d.test(j)) out[at++] = v[j];
    }
  });
  return out;
}

// h_i = τⁱ·Z(τ)/δ for i < n − 1.
std::vector<Fr> h_query(uint64_t n, const Fr& tau, const Fr& delta_inv) {
  std::vector<Fr> h(n - 1);
  poly::geometric_into(std::span<Fr>(h), (tau.pow(n) - Fr::one()) * delta_inv, tau);
  return h;
}

template <class P>
std::vector<P> checked(std::vector<P> points, size_t want, const char* query) {
  if (points.size() != want)
    throw InvalidArgument(std::string("setup: the fixed-base backend returned ") + std::to_string(points.size()) +
                          " points for the " + query + " query of " + std::to_string(want) + " scalars");
  return points;
}

// u, v, w: the A, B, C column sums against the Lagrange values of the QAP's rows, A with the
// input rows "x_j · 0 = 0" after the circuit's m constraints (both flavours have them: appended
// by bellperson's prover, part of a zkey's circuit).
template <class F>
struct ColumnSums {
  std::vector<F> u, v, w;
};
template <class F>
ColumnSums<F> qap_column_sums(const r1cs::CircuitT<F>& circuit, std::span<const F> lag) {
  ColumnSums<F> s{column_sums(circuit, r1cs::Matrix::A, lag), column_sums(circuit, r1cs::Matrix::B, lag),
                  column_sums(circuit, r1cs::Matrix::C, lag)};
  const uint64_t m = circuit.num_constraints();
  for (uint64_t j = 0; j < circuit.num_inputs; ++j) s.u[j] += lag[m + j];
  return s;
}

// ic_j = (β u_j + α v_j + w_j)/γ for the inputs, l_j = (β u_j + α v_j + w_j)/δ for the aux.
template <class F>
void ic_and_l(const ToxicWasteT<F>& t, const ColumnSums<F>& s, uint64_t nin, std::vector<F>& ic, std::vector<F>& l) {
  const uint64_t nvar = s.u.size();
  const F gamma_inv = t.gamma.inverse(), delta_inv = t.delta.inverse();
  ic.resize(nin);
  l.resize(nvar - nin);
  parallel_for(nvar, [&](size_t begin, size_t end) {
    for (size_t j = begin; j < end; ++j) {
      const F k = t.beta * s.u[j] + t.alpha * s.v[j] + s.w[j];
      if (j < nin)
        ic[j] = k * gamma_inv;
      else
        l[j - nin] = k * delta_inv;
    }
  });
}

template <class F>
void check_setup_input(const r1cs::CircuitT<F>& circuit, const ToxicWasteT<F>& t) {
  if (auto err = r1cs::find_structure_error(circuit)) throw InvalidArgument("setup: " + *err);
  if (t.gamma.is_zero() || t.delta.is_zero()) throw InvalidArgument("setup: gamma and delta must be non-zero");
}

}  // namespace

template <class F>
ToxicWasteT<F> toxic_waste_from_seed(uint64_t seed) {
  std::mt19937_64 g(seed);
  return draw<F>(g);
}

template <class F>
ToxicWasteT<F> toxic_waste_random() {
  OsRandom g;
  return draw<F>(g);
}

SetupScalars setup_scalars(const r1cs::Circuit& circuit, const ToxicWaste& t) {
  check_setup_input(circuit, t);
  SetupScalars s;
  s.log_domain = qap_log_domain(circuit, KeyFlavour::kBellperson);
  s.alpha = t.alpha;
  s.beta = t.beta;
  s.gamma = t.gamma;
  s.delta = t.delta;
  const uint64_t n = uint64_t{1} << s.log_domain;

  std::vector<Fr> lag =
      lagrange_at(s.log_domain, qap_rows(circuit, KeyFlavour::kBellperson), t.tau, ff::kBellpersonDomainGenerator);
  ColumnSums<Fr> sums = qap_column_sums<Fr>(circuit, lag);
  free_vector(lag);
  ic_and_l(t, sums, circuit.num_inputs, s.ic, s.l);
  free_vector(sums.w);

  s.a_density = bellperson_a_density(circuit);
  s.b_density = r1cs::density(circuit, r1cs::Matrix::B);
  s.a = gather(sums.u, s.a_density);
  free_vector(sums.u);
  s.b = gather(sums.v, s.b_density);
  free_vector(sums.v);
  s.h = h_query(n, t.tau, t.delta.inverse());
  return s;
}

FixedBaseBackend cpu_fixed_base() {
  auto g1 = std::make_shared<const ec::FixedBaseTable<ec::G1Config>>(ec::generator<ec::G1Config>());
  auto g2 = std::make_shared<const ec::FixedBaseTable<ec::G2Config>>(ec::generator<ec::G2Config>());
  return {[g1](std::span<const Fr> s) { return g1->mul_many(s); },
          [g2](std::span<const Fr> s) { return g2->mul_many(s); }};
}

ProvingKey key_from_scalars(SetupScalars&& s, const FixedBaseBackend& backend) {
  ProvingKey pk;
  pk.flavour = KeyFlavour::kBellperson;
  pk.log_domain = s.log_domain;
  const std::vector<Fr> vk1 = {s.alpha, s.beta, s.delta}, vk2 = {s.beta, s.gamma, s.delta};
  const auto p1 = checked(backend.g1(vk1), 3, "vk G1");
  const auto p2 = checked(backend.g2(vk2), 3, "vk G2");
  pk.vk = {p1[0], p1[1], p1[2], p2[0], p2[1], p2[2], checked(backend.g1(s.ic), s.ic.size(), "IC")};
  pk.h = checked(backend.g1(s.h), s.h.size(), "H");
  free_vector(s.h);
  pk.l = checked(backend.g1(s.l), s.l.size(), "L");
  free_vector(s.l);
  pk.a = checked(backend.g1(s.a), s.a.size(), "A");
  free_vector(s.a);
  pk.b_g1 = checked(backend.g1(s.b), s.b.size(), "B (G1)");
  pk.b_g2 = checked(backend.g2(s.b), s.b.size(), "B (G2)");
  free_vector(s.b);
  pk.a_density = std::move(s.a_density);
  pk.b_density = std::move(s.b_density);
  return pk;
}

uint64_t setup_peak_bytes(const r1cs::Circuit& circuit) {
  // n: the domain (rows rounded up to a power of two, as qap_log_domain; not capped here, so an
  // oversized QAP gives a large estimate rather than an exception). v: variables, also bounding
  // the density-compacted A and B queries. Scalars (32 B): the Lagrange values and u, v, w (n +
  // 3v), then ic + l, a, b and h (≤ 3v + n) while the points are made; points (96 B in G1, 192 B
  // in G2): ic + l, a, b_g1 and h (3v + n in G1), b_g2 (v in G2). Bounded by 32·(2n + 6v) +
  // 96·(3v + n) + 192·v, plus 64 MiB for the generator tables and small vectors.
  using u128 = unsigned __int128;
  const u128 rows = u128(circuit.num_constraints()) + circuit.num_inputs;
  u128 n = 2;
  while (n < rows) n <<= 1;
  const u128 v = circuit.num_vars();
  const u128 bytes = 32 * (2 * n + 6 * v) + 96 * (3 * v + n) + 192 * v + (u128(64) << 20);
  return bytes > UINT64_MAX ? UINT64_MAX : uint64_t(bytes);
}

ProvingKey setup_insecure(const r1cs::Circuit& circuit, const ToxicWaste& t) {
  return key_from_scalars(setup_scalars(circuit, t), cpu_fixed_base());
}

template <class F>
r1cs::CircuitT<F> snarkjs_zkey_circuit(const r1cs::CircuitT<F>& c) {
  r1cs::CircuitT<F> z;
  z.num_inputs = c.num_inputs;
  z.num_aux = c.num_aux;
  z.coeffs = c.coeffs;
  // A with room for the input rows: one allocation per vector, not a copy then a doubling.
  const auto copy = [&](auto& to, const auto& from) {
    to.reserve(from.size() + c.num_inputs);
    to.assign(from.begin(), from.end());
  };
  copy(z.a.row_ptr, c.a.row_ptr);
  copy(z.a.col, c.a.col);
  copy(z.a.coeff, c.a.coeff);
  copy(z.b.row_ptr, c.b.row_ptr);
  z.b.col = c.b.col;
  z.b.coeff = c.b.coeff;
  for (uint64_t s = 0; s < c.num_inputs; ++s) {
    z.a.col.push_back(uint32_t(s));
    z.a.coeff.push_back(r1cs::kCoeffOne);
    z.a.row_ptr.push_back(z.a.col.size());
    z.b.row_ptr.push_back(z.b.col.size());
  }
  z.c.row_ptr.assign(z.a.num_rows() + 1, 0);
  return z;
}

namespace {

// The scalars of a snarkjs key: a = u and b = v over every variable, ic, l, and the H query.
template <class F>
struct SnarkjsScalars {
  std::vector<F> ic, a, b, l, h;
};

// h_i = L_{2i+1}(τ)/δ over the 2n domain, through the n-point basis at τ/ω₂ₙ (setup.hpp).
template <class F>
std::vector<F> odd_lagrange_h(uint32_t log_n, const F& tau, const F& delta_inv) {
  const uint64_t n = uint64_t{1} << log_n;
  const F omega_2n = F::root_of_unity(log_n + 1, ff::kSnarkjsDomainGenerator);
  const F c = -(tau.pow(n) - F::one()) * F::from_u64(2).inverse() * delta_inv;
  try {
    return lagrange_at(log_n, n, tau * omega_2n.inverse(), ff::kSnarkjsDomainGenerator, c);
  } catch (const InvalidArgument&) {
    throw InvalidArgument("setup: tau is a point of the 2n-point domain (tau^n = -1)");
  }
}

template <class F>
SnarkjsScalars<F> snarkjs_scalars(const r1cs::CircuitT<F>& circuit, uint32_t log_n, const ToxicWasteT<F>& t) {
  SnarkjsScalars<F> s;
  const uint64_t rows = circuit.num_constraints() + circuit.num_inputs;
  std::vector<F> lag = lagrange_at(log_n, rows, t.tau, ff::kSnarkjsDomainGenerator);
  ColumnSums<F> sums = qap_column_sums<F>(circuit, lag);
  free_vector(lag);
  ic_and_l(t, sums, circuit.num_inputs, s.ic, s.l);
  s.a = std::move(sums.u);
  s.b = std::move(sums.v);
  free_vector(sums.w);
  s.h = odd_lagrange_h(log_n, t.tau, t.delta.inverse());
  return s;
}

// Times each step for the caller's progress callback.
class StepTimer {
 public:
  explicit StepTimer(const SetupProgress& progress) : progress_(progress) {}
  void done(const char* step) {
    const auto now = std::chrono::steady_clock::now();
    if (progress_) progress_(step, std::chrono::duration<double>(now - start_).count());
    start_ = now;
  }

 private:
  const SetupProgress& progress_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// table·s for each scalar, then the scalars are freed.
template <class C, class F>
std::vector<ec::Affine<C>> points_of(const ec::FixedBaseTable<C>& table, std::vector<F>& s) {
  std::vector<ec::Affine<C>> p = table.mul_many(s);
  free_vector(s);
  return p;
}

}  // namespace

template <class E>
ZkeyT<E> setup_snarkjs_insecure(const r1cs::CircuitT<typename E::Fr>& circuit, const ToxicWasteT<typename E::Fr>& t,
                                const SetupProgress& progress) {
  using F = typename E::Fr;
  check_setup_input(circuit, t);
  StepTimer timer(progress);
  ZkeyT<E> z{{}, snarkjs_zkey_circuit(circuit)};
  ProvingKeyT<E>& pk = z.pk;
  pk.flavour = KeyFlavour::kSnarkjs;
  pk.log_domain = qap_log_domain(z.circuit, KeyFlavour::kSnarkjs);
  SnarkjsScalars<F> s = snarkjs_scalars(circuit, pk.log_domain, t);
  timer.done("scalars");

  const ec::FixedBaseTable<typename E::G1> g1(ec::generator<typename E::G1>());
  const ec::FixedBaseTable<typename E::G2> g2(ec::generator<typename E::G2>());
  std::vector<F> vk1 = {t.alpha, t.beta, t.delta}, vk2 = {t.beta, t.gamma, t.delta};
  const auto p1 = points_of(g1, vk1);
  const auto p2 = points_of(g2, vk2);
  pk.vk = {p1[0], p1[1], p1[2], p2[0], p2[1], p2[2], points_of(g1, s.ic)};
  timer.done("vk+IC");
  pk.a = points_of(g1, s.a);
  timer.done("A");
  pk.b_g1 = g1.mul_many(s.b);
  timer.done("B1");
  pk.b_g2 = points_of(g2, s.b);
  timer.done("B2");
  pk.l = points_of(g1, s.l);
  timer.done("C");
  pk.h = points_of(g1, s.h);
  timer.done("H");
  return z;
}

#define SNARKD_SETUP_INSTANTIATE(E)                                                                    \
  template ToxicWasteT<typename E::Fr> toxic_waste_from_seed<typename E::Fr>(uint64_t);                \
  template ToxicWasteT<typename E::Fr> toxic_waste_random<typename E::Fr>();                           \
  template r1cs::CircuitT<typename E::Fr> snarkjs_zkey_circuit(const r1cs::CircuitT<typename E::Fr>&); \
  template ZkeyT<E> setup_snarkjs_insecure<E>(const r1cs::CircuitT<typename E::Fr>&,                   \
                                              const ToxicWasteT<typename E::Fr>&, const SetupProgress&);
SNARKD_SETUP_INSTANTIATE(Bls12_381)
SNARKD_SETUP_INSTANTIATE(Bn254)
#undef SNARKD_SETUP_INSTANTIATE

}  // namespace snarkd::groth16
