#include "snarkd/groth16/prove_abc.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstring>

#include "snarkd/groth16/qap.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/msm/msm.hpp"
#include "snarkd/util/cancel.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::groth16 {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string num(uint64_t v) { return std::to_string(v); }

void require(bool ok, const std::string& what) {
  if (!ok) throw InvalidArgument(what);
}

// A span of n values must point somewhere when n > 0 (a null pointer of length 0 is fine).
void require_data(const void* p, uint64_t n, const std::string& what) {
  require(p != nullptr || n == 0, what + " is a null pointer for " + num(n) + " values");
}

void check_bits(const DensityBits& d, uint64_t want_len, const std::string& name, const char* field) {
  const std::string f = name + "." + field;
  require(d.bit_len == want_len, f + "_bit_len is " + num(d.bit_len) + ", the assignment has " + num(want_len) + " values");
  require_data(d.words, d.bit_len, f + "_density");
  const uint64_t set = d.count_set();
  require(set == d.popcount, f + "_popcount is " + num(d.popcount) + ", " + field + "_density has " + num(set) + " bits set");
}

// v zero-padded to n values (the domain the key was made for).
std::vector<Fr> padded(std::span<const Fr> v, uint64_t n) {
  std::vector<Fr> out(n);
  parallel_for(v.size(), [&](size_t b, size_t e) { std::memcpy(&out[b], &v[b], (e - b) * sizeof(Fr)); });
  return out;
}

// The first i with a[i]·b[i] ≠ c[i], if any; the rows are checked in parallel chunks.
std::optional<uint64_t> first_failing(std::span<const Fr> a, std::span<const Fr> b, std::span<const Fr> c) {
  std::atomic<uint64_t> first{UINT64_MAX};
  parallel_for(a.size(), [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end && i < first.load(std::memory_order_relaxed); ++i)
      if (a[i] * b[i] != c[i]) {
        uint64_t cur = first.load();
        while (i < cur && !first.compare_exchange_weak(cur, i)) {
        }
        return;
      }
  });
  const uint64_t f = first.load();
  return f == UINT64_MAX ? std::nullopt : std::optional<uint64_t>(f);
}

// Appends v[i] for the set bits i < d.bit_len, skipping empty words.
void append_selected(std::vector<Fr>& out, std::span<const Fr> v, const DensityBits& d) {
  for (uint64_t w = 0; w * 64 < d.bit_len; ++w) {
    uint64_t bits = d.words[w];
    if (d.bit_len - w * 64 < 64) bits &= (uint64_t{1} << (d.bit_len - w * 64)) - 1;
    while (bits) {
      out.push_back(v[w * 64 + std::countr_zero(bits)]);
      bits &= bits - 1;
    }
  }
}

std::vector<uint64_t> words_of(const r1cs::DensityBitmap& d, uint64_t begin, uint64_t end, uint64_t& popcount) {
  std::vector<uint64_t> w((end - begin + 63) / 64);
  popcount = 0;
  for (uint64_t j = begin; j < end; ++j)
    if (d.test(j)) {
      w[(j - begin) / 64] |= uint64_t{1} << ((j - begin) % 64);
      ++popcount;
    }
  return w;
}

}  // namespace

uint64_t DensityBits::count_set() const {
  uint64_t n = 0;
  for (uint64_t w = 0; w * 64 < bit_len; ++w) {
    uint64_t bits = words[w];
    if (bit_len - w * 64 < 64) bits &= (uint64_t{1} << (bit_len - w * 64)) - 1;
    n += static_cast<uint64_t>(std::popcount(bits));
  }
  return n;
}

void check_abc_assignment(const ProvingKey& pk, const AbcAssignment& asg, const std::string& name) {
  require(pk.flavour == KeyFlavour::kBellperson, "the key is not a bellperson .params key");
  const uint64_t n = pk.domain_size(), rows = asg.a.size();
  require(asg.b.size() == rows && asg.c.size() == rows, name + ": a, b, c differ in length");
  require(rows <= n, name + ".abc_size is " + num(rows) + ", the key's domain holds " + num(n) + " rows");
  require_data(asg.a.data(), rows, name + ".a");
  require_data(asg.b.data(), rows, name + ".b");
  require_data(asg.c.data(), rows, name + ".c");
  require_data(asg.inputs.data(), asg.inputs.size(), name + ".inp_assignment_data");
  require_data(asg.aux.data(), asg.aux.size(), name + ".aux_assignment_data");
  require(asg.inputs.size() == pk.vk.ic.size(), name + ".inp_assignment_size is " + num(asg.inputs.size()) +
                                                    ", the key has " + num(pk.vk.ic.size()) + " inputs (IC points, ONE included)");
  require(asg.aux.size() == pk.l.size(), name + ".aux_assignment_size is " + num(asg.aux.size()) + ", the key has " +
                                             num(pk.l.size()) + " aux variables (L points)");
  require(asg.inputs[0] == Fr::one(), name + ".inp_assignment_data[0] (the constant ONE) is not 1");
  check_bits(asg.a_aux, asg.aux.size(), name, "a_aux");
  check_bits(asg.b_inputs, asg.inputs.size(), name, "b_inp");
  check_bits(asg.b_aux, asg.aux.size(), name, "b_aux");
  require(pk.a.size() == asg.inputs.size() + asg.a_aux.popcount,
          name + ": inp_assignment_size + a_aux_popcount is " + num(asg.inputs.size() + asg.a_aux.popcount) +
              ", the key has " + num(pk.a.size()) + " A points");
  const uint64_t nb = asg.b_inputs.popcount + asg.b_aux.popcount;
  require(pk.b_g1.size() == nb && pk.b_g2.size() == nb,
          name + ": b_inp_popcount + b_aux_popcount is " + num(nb) + ", the key has " + num(pk.b_g1.size()) +
              " B_G1 and " + num(pk.b_g2.size()) + " B_G2 points");
}

QuerySums compute_sums_abc(const ProvingKey& pk, const AbcAssignment& asg, const std::string& name,
                           const ProveOptions& opt, ProveTimings& t) {
  check_abc_assignment(pk, asg, name);
  auto step = [&opt](std::string_view s) {  // the phase boundaries: a stop ends the proof there
    throw_if_stopped(opt.stop, "prove_abc");
    if (opt.on_step) opt.on_step(s);
  };
  step("qap");
  auto t0 = Clock::now();
  if (auto row = first_failing(asg.a, asg.b, asg.c))
    throw UnsatisfiedWitness(name + ": row " + num(*row) + " of a, b, c has a·b ≠ c (the assignment does not satisfy the circuit)", *row);
  const uint64_t n = pk.domain_size();
  QapEvaluations e{padded(asg.a, n), padded(asg.b, n), padded(asg.c, n)};
  t.qap = seconds_since(t0);
  step("h");
  t0 = Clock::now();
  const std::vector<Fr> h = h_scalars(KeyFlavour::kBellperson, pk.log_domain, std::move(e));
  t.h = seconds_since(t0);

  msm::Options mo;
  mo.threads = opt.threads;
  mo.stop = opt.stop;
  step("msm_a");
  t0 = Clock::now();
  std::vector<Fr> s(asg.inputs.begin(), asg.inputs.end());
  s.reserve(pk.a.size());
  append_selected(s, asg.aux, asg.a_aux);
  const ec::G1Jacobian a_sum = msm::msm_split<ec::G1Config>(pk.a, s, &t.a_split, mo);
  t.msm_a = seconds_since(t0);
  step("msm_b");
  t0 = Clock::now();
  s.clear();
  append_selected(s, asg.inputs, asg.b_inputs);
  append_selected(s, asg.aux, asg.b_aux);
  const msm::ScalarSplit b_split = msm::split_scalars(s);
  const ec::G1Jacobian b1_sum = msm::msm_split<ec::G1Config>(pk.b_g1, b_split, mo);
  const ec::G2Jacobian b2_sum = msm::msm_split<ec::G2Config>(pk.b_g2, b_split, mo);
  t.msm_b = seconds_since(t0);
  step("msm_l");
  t0 = Clock::now();
  const ec::G1Jacobian l_sum = msm::msm_split<ec::G1Config>(pk.l, asg.aux, &t.l_split, mo);
  t.msm_l = seconds_since(t0);
  step("msm_h");
  t0 = Clock::now();
  const ec::G1Jacobian h_sum = msm::msm<ec::G1Config>(pk.h, h, mo);
  t.msm_h = seconds_since(t0);

  return QuerySums{a_sum, b1_sum, l_sum, h_sum, b2_sum};
}

Proof prove_abc(const ProvingKey& pk, const AbcAssignment& asg, const ProofRandomness& rs,
                const ProveOptions& opt, ProveTimings* timings) {
  ProveTimings t;
  const auto t_start = Clock::now();
  const Proof proof = assemble(pk.vk, compute_sums_abc(pk, asg, "assignment", opt, t), rs);
  if (opt.on_step) opt.on_step("check");
  const auto t0 = Clock::now();
  if (opt.self_check && !verify(pk.vk, proof, asg.inputs.subspan(1)))
    throw UnsatisfiedWitness("the assignment does not satisfy the circuit (the proof does not verify)", UINT64_MAX);
  t.check = seconds_since(t0);
  t.total = seconds_since(t_start);
  if (timings) *timings = t;
  return proof;
}

AbcAssignment BellpersonSynthesis::view() const {
  return AbcAssignment{a, b, c, inputs, aux,
                       DensityBits{a_aux_words.data(), aux.size(), a_aux_popcount},
                       DensityBits{b_inp_words.data(), inputs.size(), b_inp_popcount},
                       DensityBits{b_aux_words.data(), aux.size(), b_aux_popcount}};
}

BellpersonSynthesis copy_of(const AbcAssignment& v) {
  BellpersonSynthesis s;
  // (pair members, not a structured binding: clang 14, which builds the fuzz targets, cannot
  // capture a binding in a lambda)
  for (const auto& copy : {std::pair{&s.a, v.a}, {&s.b, v.b}, {&s.c, v.c}, {&s.inputs, v.inputs}, {&s.aux, v.aux}}) {
    std::vector<Fr>* dst = copy.first;
    const auto src = copy.second;
    dst->resize(src.size());
    parallel_for(src.size(), [&](size_t b, size_t e) { std::memcpy(dst->data() + b, &src[b], (e - b) * sizeof(Fr)); });
  }
  auto words = [](const DensityBits& d) { return std::vector<uint64_t>(d.words, d.words + (d.bit_len + 63) / 64); };
  s.a_aux_words = words(v.a_aux);
  s.b_inp_words = words(v.b_inputs);
  s.b_aux_words = words(v.b_aux);
  s.a_aux_popcount = v.a_aux.popcount;
  s.b_inp_popcount = v.b_inputs.popcount;
  s.b_aux_popcount = v.b_aux.popcount;
  return s;
}

BellpersonSynthesis synthesize_bellperson(const r1cs::Circuit& circuit, std::span<const Fr> witness) {
  const uint32_t k = qap_log_domain(circuit, KeyFlavour::kBellperson);
  QapEvaluations e = evaluate_qap(circuit, KeyFlavour::kBellperson, k, witness);
  const uint64_t rows = qap_rows(circuit, KeyFlavour::kBellperson), ni = circuit.num_inputs, nv = circuit.num_vars();
  BellpersonSynthesis s;
  for (auto [dst, src] : {std::pair{&s.a, &e.a}, {&s.b, &e.b}, {&s.c, &e.c}}) {
    src->resize(rows);
    *dst = std::move(*src);
  }
  s.inputs.assign(witness.begin(), witness.begin() + static_cast<ptrdiff_t>(ni));
  s.aux.assign(witness.begin() + static_cast<ptrdiff_t>(ni), witness.end());
  const r1cs::DensityBitmap da = r1cs::density(circuit, r1cs::Matrix::A), db = r1cs::density(circuit, r1cs::Matrix::B);
  s.a_aux_words = words_of(da, ni, nv, s.a_aux_popcount);
  s.b_inp_words = words_of(db, 0, ni, s.b_inp_popcount);
  s.b_aux_words = words_of(db, ni, nv, s.b_aux_popcount);
  return s;
}

}  // namespace snarkd::groth16
