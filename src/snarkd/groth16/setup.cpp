#include "snarkd/groth16/setup.hpp"

#include <algorithm>
#include <bit>
#include <memory>
#include <random>
#include <string>

#include "snarkd/ec/fixed_base.hpp"
#include "snarkd/groth16/qap.hpp"
#include "snarkd/poly/lagrange.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/random.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::groth16 {
namespace {

template <class G>
ToxicWaste draw(G& g) {
  // A braced list evaluates left to right: a seed still gives the same τ, α, β, γ, δ.
  return {Fr::random_nonzero(g), Fr::random_nonzero(g), Fr::random_nonzero(g), Fr::random_nonzero(g),
          Fr::random_nonzero(g)};
}

// L_i(τ) for the first `rows` points of the bellperson domain ⟨ω⟩ of 2^log_n points.
std::vector<Fr> lagrange_at(uint32_t log_n, uint64_t rows, const Fr& tau) {
  std::vector<Fr> lag(rows);
  try {
    poly::lagrange_into(std::span<Fr>(lag), 0, log_n, tau, ff::kBellpersonDomainGenerator);
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
std::vector<Fr> column_sums(const r1cs::Circuit& c, r1cs::Matrix which, std::span<const Fr> lag) {
  const r1cs::CsrMatrix& m = c.matrix(which);
  const uint64_t rows = m.num_rows();
  std::vector<Fr> out(c.num_vars());
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

// Frees a vector's memory (clear() keeps the capacity).
void release(std::vector<Fr>& v) { std::vector<Fr>().swap(v); }

}  // namespace

ToxicWaste toxic_waste_from_seed(uint64_t seed) {
  std::mt19937_64 g(seed);
  return draw(g);
}

ToxicWaste toxic_waste_random() {
  OsRandom g;
  return draw(g);
}

SetupScalars setup_scalars(const r1cs::Circuit& circuit, const ToxicWaste& t) {
  if (auto err = r1cs::find_structure_error(circuit)) throw InvalidArgument("setup: " + *err);
  if (t.gamma.is_zero() || t.delta.is_zero()) throw InvalidArgument("setup: gamma and delta must be non-zero");
  SetupScalars s;
  s.log_domain = qap_log_domain(circuit, KeyFlavour::kBellperson);
  s.alpha = t.alpha;
  s.beta = t.beta;
  s.gamma = t.gamma;
  s.delta = t.delta;
  const uint64_t n = uint64_t{1} << s.log_domain, m = circuit.num_constraints();
  const uint64_t nin = circuit.num_inputs, nvar = circuit.num_vars();

  std::vector<Fr> lag = lagrange_at(s.log_domain, qap_rows(circuit, KeyFlavour::kBellperson), t.tau);
  std::vector<Fr> u = column_sums(circuit, r1cs::Matrix::A, lag);
  std::vector<Fr> v = column_sums(circuit, r1cs::Matrix::B, lag);
  std::vector<Fr> w = column_sums(circuit, r1cs::Matrix::C, lag);
  for (uint64_t j = 0; j < nin; ++j) u[j] += lag[m + j];  // the input rows w_j · 0 = 0
  release(lag);

  const Fr gamma_inv = t.gamma.inverse(), delta_inv = t.delta.inverse();
  s.ic.resize(nin);
  s.l.resize(nvar - nin);
  parallel_for(nvar, [&](size_t begin, size_t end) {
    for (size_t j = begin; j < end; ++j) {
      const Fr k = t.beta * u[j] + t.alpha * v[j] + w[j];
      if (j < nin) s.ic[j] = k * gamma_inv;
      else s.l[j - nin] = k * delta_inv;
    }
  });
  release(w);

  s.a_density = bellperson_a_density(circuit);
  s.b_density = r1cs::density(circuit, r1cs::Matrix::B);
  s.a = gather(u, s.a_density);
  release(u);
  s.b = gather(v, s.b_density);
  release(v);
  s.h = h_query(n, t.tau, delta_inv);
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
  release(s.h);
  pk.l = checked(backend.g1(s.l), s.l.size(), "L");
  release(s.l);
  pk.a = checked(backend.g1(s.a), s.a.size(), "A");
  release(s.a);
  pk.b_g1 = checked(backend.g1(s.b), s.b.size(), "B (G1)");
  pk.b_g2 = checked(backend.g2(s.b), s.b.size(), "B (G2)");
  release(s.b);
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

}  // namespace snarkd::groth16
