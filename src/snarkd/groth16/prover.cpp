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
std::span<const Fr> query_scalars(std::span<const Fr> w, const r1cs::DensityBitmap& d, std::vector<Fr>& store) {
  if (d.num_bits == 0) return w;
  store = gather_by_density(w, d);
  return store;
}

// The blinding's products with the fixed δ₁, δ₂ (r·δ₁, s·δ₁, rs·δ₁, s·δ₂) read fixed-base
// tables (ec/fixed_base.hpp): ≤ 32 mixed additions each instead of ~255 doublings + ~80
// additions, most of a tiny circuit's assemble(). A table pair costs ~8 ms to build and 2.4 MB,
// so it is built on a key's first proof and kept for the process's last kMaxDeltaKeys keys
// (found by the δ points themselves: no key identity needed).
struct DeltaTables {
  ec::G1Affine d1;
  ec::G2Affine d2;
  ec::FixedBaseTable<ec::G1Config> g1;
  ec::FixedBaseTable<ec::G2Config> g2;
  explicit DeltaTables(const VerifyingKey& vk) : d1(vk.delta_g1), d2(vk.delta_g2), g1(d1), g2(d2) {}
};
constexpr size_t kMaxDeltaKeys = 8;

std::shared_ptr<const DeltaTables> delta_tables(const VerifyingKey& vk) {
  static std::mutex mu;
  static std::vector<std::shared_ptr<const DeltaTables>> cache;  // oldest first
  {
    std::lock_guard l(mu);
    for (const auto& e : cache)
      if (e->d1 == vk.delta_g1 && e->d2 == vk.delta_g2) return e;
  }
  auto built = std::make_shared<const DeltaTables>(vk);  // outside the lock: other keys go on
  std::lock_guard l(mu);
  if (cache.size() >= kMaxDeltaKeys) cache.erase(cache.begin());
  cache.push_back(built);
  return built;
}

}  // namespace

ProofRandomness random_proof_randomness() {
  OsRandom g;
  return {Fr::random(g), Fr::random(g)};
}

std::vector<Fr> public_inputs(const r1cs::Circuit& circuit, std::span<const Fr> witness) {
  if (witness.size() < circuit.num_inputs)
    throw InvalidArgument("witness shorter than the circuit's inputs");
  return {witness.begin() + 1, witness.begin() + static_cast<ptrdiff_t>(circuit.num_inputs)};
}

Proof assemble(const VerifyingKey& vk, const QuerySums& sums, const ProofRandomness& rs) {
  using J1 = ec::G1Jacobian;
  using J2 = ec::G2Jacobian;
  const DeltaTables& t = *delta_tables(vk);
  const J1 a = sums.a.add_mixed(vk.alpha_g1) + t.g1.mul(rs.r);
  const J1 b1 = sums.b1.add_mixed(vk.beta_g1) + t.g1.mul(rs.s);
  const J2 b2 = sums.b2.add_mixed(vk.beta_g2) + t.g2.mul(rs.s);
  // s·A + r·B₁ as one two-point MSM (msm's Straus path: one doubling chain for both products).
  const std::array<J1, 2> ab{a, b1};
  const std::vector<ec::G1Affine> ab_affine = ec::batch_to_affine<ec::G1Config>(ab);
  const std::array<Fr, 2> sr{rs.s, rs.r};
  msm::Options one_thread;
  one_thread.threads = 1;
  const J1 sa_rb = msm::msm<ec::G1Config>(ab_affine, sr, one_thread);
  const J1 c = sums.l + sums.h + sa_rb - t.g1.mul(rs.r * rs.s);
  return Proof{ab_affine[0], b2.to_affine(), c.to_affine()};  // A's affine form is already there
}

QuerySums compute_sums(const BoundKey& key, std::span<const Fr> witness, const ProveOptions& opt, ProveTimings& t) {
  const ProvingKey& pk = key.pk();
  const r1cs::Circuit& circuit = key.circuit();
  auto step = [&opt](std::string_view name) {
    throw_if_stopped(opt.stop, "prove");
    if (opt.on_step) opt.on_step(name);
  };
  step("qap");
  auto t0 = Clock::now();
  QapEvaluations e = evaluate_qap(circuit, pk.flavour, pk.log_domain, witness);
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
  const ec::G1Jacobian a_sum =
      msm::msm_split<ec::G1Config>(pk.a, query_scalars(witness, pk.a_density, gathered), &t.a_split, mo);
  t.msm_a = seconds_since(t0);
  t0 = Clock::now();
  step("msm_b");
  const msm::ScalarSplit b_split = msm::split_scalars(query_scalars(witness, pk.b_density, gathered));
  const ec::G1Jacobian b1_sum = msm::msm_split<ec::G1Config>(pk.b_g1, b_split, mo);
  const ec::G2Jacobian b2_sum = msm::msm_split<ec::G2Config>(pk.b_g2, b_split, mo);
  t.msm_b = seconds_since(t0);
  t0 = Clock::now();
  step("msm_l");
  const ec::G1Jacobian l_sum =
      msm::msm_split<ec::G1Config>(pk.l, witness.subspan(circuit.num_inputs), &t.l_split, mo);
  t.msm_l = seconds_since(t0);
  t0 = Clock::now();
  step("msm_h");
  const ec::G1Jacobian h_sum = msm::msm<ec::G1Config>(pk.h, h, mo);
  t.msm_h = seconds_since(t0);
  throw_if_stopped(opt.stop, "prove");

  return QuerySums{a_sum, b1_sum, l_sum, h_sum, b2_sum};
}

Proof prove(const BoundKey& key, std::span<const Fr> witness, const ProofRandomness& rs, const ProveOptions& opt,
            ProveTimings* timings) {
  const ProvingKey& pk = key.pk();
  ProveTimings t;
  const auto t_start = Clock::now();
  const Proof proof = assemble(pk.vk, compute_sums(key, witness, opt, t), rs);
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

}  // namespace snarkd::groth16
