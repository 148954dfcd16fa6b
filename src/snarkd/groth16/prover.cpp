#include "snarkd/groth16/prover.hpp"

#include <array>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "snarkd/ec/fixed_base.hpp"
#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/groth16/qap.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/util/cancel.hpp"
#include "snarkd/util/random.hpp"

namespace snarkd::groth16 {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// A query's scalars: the witness itself for a full (snarkjs) query, no copy; else the values of
// the density's variables, gathered into `store`.
template <class F>
std::span<const F> query_scalars(std::span<const F> w, const r1cs::DensityBitmap& d, std::vector<F>& store) {
  if (d.num_bits == 0) return w;
  store = gather_by_density<F>(w, d);
  return store;
}

// The blinding's products with the fixed δ₁, δ₂ (r·δ₁, s·δ₁, rs·δ₁, s·δ₂) read fixed-base
// tables (ec/fixed_base.hpp): ≤ 32 mixed additions each instead of ~255 doublings + ~80
// additions, most of a tiny circuit's assemble(). A table pair costs ~8 ms to build and 2.4 MB,
// so it is built on a key's first proof and kept for the process's last kMaxDeltaKeys keys
// (found by the δ points themselves: no key identity needed).
template <class E>
struct DeltaTables {
  typename E::G1Affine d1;
  typename E::G2Affine d2;
  ec::FixedBaseTable<typename E::G1> g1;
  ec::FixedBaseTable<typename E::G2> g2;
  explicit DeltaTables(const VerifyingKeyT<E>& vk) : d1(vk.delta_g1), d2(vk.delta_g2), g1(d1), g2(d2) {}
};
constexpr size_t kMaxDeltaKeys = 8;

// One cache per curve (each instantiation has its own statics).
template <class E>
std::shared_ptr<const DeltaTables<E>> delta_tables(const VerifyingKeyT<E>& vk) {
  static std::mutex mu;
  static std::vector<std::shared_ptr<const DeltaTables<E>>> cache;  // oldest first
  {
    std::lock_guard l(mu);
    for (const auto& e : cache)
      if (e->d1 == vk.delta_g1 && e->d2 == vk.delta_g2) return e;
  }
  auto built = std::make_shared<const DeltaTables<E>>(vk);  // outside the lock: other keys go on
  std::lock_guard l(mu);
  if (cache.size() >= kMaxDeltaKeys) cache.erase(cache.begin());
  cache.push_back(built);
  return built;
}

}  // namespace

template <class E>
ProofRandomnessT<E> random_proof_randomness() {
  OsRandom g;
  return {E::Fr::random(g), E::Fr::random(g)};
}

template <class F>
std::vector<F> public_inputs(const r1cs::CircuitT<F>& circuit, r1cs::Values<F> witness) {
  if (witness.size() < circuit.num_inputs)
    throw InvalidArgument("witness shorter than the circuit's inputs");
  return {witness.begin() + 1, witness.begin() + static_cast<ptrdiff_t>(circuit.num_inputs)};
}

template <class E>
ProofT<E> assemble(const VerifyingKeyT<E>& vk, const QuerySumsT<E>& sums, const ProofRandomnessT<E>& rs) {
  using J1 = typename E::G1Jacobian;
  using J2 = typename E::G2Jacobian;
  const DeltaTables<E>& t = *delta_tables(vk);
  const J1 a = sums.a.add_mixed(vk.alpha_g1) + t.g1.mul(rs.r);
  const J1 b1 = sums.b1.add_mixed(vk.beta_g1) + t.g1.mul(rs.s);
  const J2 b2 = sums.b2.add_mixed(vk.beta_g2) + t.g2.mul(rs.s);
  // s·A + r·B₁ as one two-point MSM (msm's Straus path: one doubling chain for both products).
  const std::array<J1, 2> ab{a, b1};
  const std::vector<typename E::G1Affine> ab_affine = ec::batch_to_affine<typename E::G1>(ab);
  const std::array<typename E::Fr, 2> sr{rs.s, rs.r};
  msm::Options one_thread;
  one_thread.threads = 1;
  const J1 sa_rb = msm::msm<typename E::G1>(ab_affine, sr, one_thread);
  const J1 c = sums.l + sums.h + sa_rb - t.g1.mul(rs.r * rs.s);
  return ProofT<E>{ab_affine[0], b2.to_affine(), c.to_affine()};  // A's affine form is already there
}

template <class E>
QuerySumsT<E> compute_sums(const BoundKeyT<E>& key, Scalars<E> witness, const ProveOptions& opt, ProveTimings& t) {
  using Fr = typename E::Fr;
  using G1 = typename E::G1;
  const ProvingKeyT<E>& pk = key.pk();
  const auto& circuit = key.circuit();
  auto step = [&opt](std::string_view name) {
    throw_if_stopped(opt.stop, "prove");
    if (opt.on_step) opt.on_step(name);
  };
  step("qap");
  auto t0 = Clock::now();
  QapEvaluationsT<Fr> e = evaluate_qap(circuit, pk.flavour, pk.log_domain, witness);
  if (pk.flavour == KeyFlavour::kBellperson)
    if (auto row = first_failing_row(e))
      throw UnsatisfiedWitness("the witness does not satisfy " +
                                   (*row < circuit.num_constraints()
                                        ? "constraint " + std::to_string(*row)
                                        : "input row " + std::to_string(*row - circuit.num_constraints())),
                               *row);
  t.qap = seconds_since(t0);
  t0 = Clock::now();
  step("h");
  const std::vector<Fr> h = h_scalars(pk.flavour, pk.log_domain, std::move(e));
  t.h = seconds_since(t0);

  msm::Options mo;
  mo.threads = opt.threads;
  mo.stop = opt.stop;
  t0 = Clock::now();
  step("msm_a");
  std::vector<Fr> gathered;
  const typename E::G1Jacobian a_sum =
      msm::msm_split<G1>(pk.a, query_scalars<Fr>(witness, pk.a_density, gathered), &t.a_split, mo);
  t.msm_a = seconds_since(t0);
  t0 = Clock::now();
  step("msm_b");
  const msm::ScalarSplitT<Fr> b_split = msm::split_scalars(query_scalars<Fr>(witness, pk.b_density, gathered));
  const typename E::G1Jacobian b1_sum = msm::msm_split<G1>(pk.b_g1, b_split, mo);
  const typename E::G2Jacobian b2_sum = msm::msm_split<typename E::G2>(pk.b_g2, b_split, mo);
  t.msm_b = seconds_since(t0);
  t0 = Clock::now();
  step("msm_l");
  const typename E::G1Jacobian l_sum =
      msm::msm_split<G1>(pk.l, witness.subspan(circuit.num_inputs), &t.l_split, mo);
  t.msm_l = seconds_since(t0);
  t0 = Clock::now();
  step("msm_h");
  const typename E::G1Jacobian h_sum = msm::msm<G1>(pk.h, h, mo);
  t.msm_h = seconds_since(t0);
  throw_if_stopped(opt.stop, "prove");

  return QuerySumsT<E>{a_sum, b1_sum, l_sum, h_sum, b2_sum};
}

template <class E>
ProofT<E> prove(const BoundKeyT<E>& key, Scalars<E> witness, const std::type_identity_t<ProofRandomnessT<E>>& rs,
                const ProveOptions& opt, ProveTimings* timings) {
  const ProvingKeyT<E>& pk = key.pk();
  ProveTimings t;
  const auto t_start = Clock::now();
  const ProofT<E> proof = assemble(pk.vk, compute_sums(key, witness, opt, t), rs);
  if (opt.on_step) opt.on_step("check");
  const auto t0 = Clock::now();
  if (opt.self_check || pk.flavour == KeyFlavour::kSnarkjs) {
    if (!verify(pk.vk, proof, public_inputs(key.circuit(), witness)))
      throw UnsatisfiedWitness("the witness does not satisfy the circuit (the proof does not verify)",
                               UINT64_MAX);
  }
  t.check = seconds_since(t0);
  t.total = seconds_since(t_start);
  if (timings) *timings = t;
  return proof;
}

#define SNARKD_PROVER_INSTANTIATE(E)                                                                          \
  template ProofRandomnessT<E> random_proof_randomness<E>();                                                  \
  template ProofT<E> assemble<E>(const VerifyingKeyT<E>&, const QuerySumsT<E>&, const ProofRandomnessT<E>&);  \
  template QuerySumsT<E> compute_sums<E>(const BoundKeyT<E>&, Scalars<E>, const ProveOptions&, ProveTimings&); \
  template ProofT<E> prove<E>(const BoundKeyT<E>&, Scalars<E>, const ProofRandomnessT<E>&, const ProveOptions&, \
                              ProveTimings*);                                                                 \
  template std::vector<typename E::Fr> public_inputs<typename E::Fr>(const r1cs::CircuitT<typename E::Fr>&,   \
                                                                     Scalars<E>);
SNARKD_PROVER_INSTANTIATE(Bls12_381)
SNARKD_PROVER_INSTANTIATE(Bn254)
#undef SNARKD_PROVER_INSTANTIATE

}  // namespace snarkd::groth16
