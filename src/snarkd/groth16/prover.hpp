// The Groth16 prover on the CPU, one code path for both key flavours (see keys.hpp, qap.hpp).
//
//   A = α + Σ_j w_j·a_j + r·δ                    (G1; the A query's variables)
//   B = β + Σ_j w_j·b_j + s·δ                    (G2, and again in G1 for C)
//   C = Σ_aux w_j·l_j + Σ_i h_i·H_i + s·A + r·B₁ − r·s·δ   (G1)
// Every witness MSM goes through msm::msm_split (zeros skipped, ones summed, the rest
// Pippenger): Filecoin witnesses are mostly bits. The H MSM has random scalars: plain msm.
//
// A witness that does not satisfy the circuit is refused (UnsatisfiedWitness naming the first
// failing row) and no proof is made; for snarkjs keys, which carry no C matrix, the finished
// proof is verified instead and refused if it does not verify.
//
// Templates over the curve E (curve.hpp), deduced from the key; instantiated in prover.cpp for
// BLS12-381 and BN254. The names without T (QuerySums, ProofRandomness) are BLS12-381's.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stop_token>
#include <string_view>
#include <vector>

#include "snarkd/groth16/keys.hpp"
#include "snarkd/msm/msm.hpp"
#include "snarkd/r1cs/r1cs.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::groth16 {

template <class E>
class BoundKeyT;  // bound_key.hpp: a key checked against its circuit, the provers' input
using BoundKey = BoundKeyT<Bls12_381>;

// The witness does not satisfy the circuit; row() is the first failing QAP row (a constraint
// index below num_constraints, else an appended input row), or UINT64_MAX when unknown.
class UnsatisfiedWitness : public InvalidArgument {
 public:
  UnsatisfiedWitness(const std::string& what, uint64_t row) : InvalidArgument(what), row_(row) {}
  uint64_t row() const { return row_; }

 private:
  uint64_t row_;
};

// The zero-knowledge blinding scalars. Fresh ones from the OS CSPRNG for every real proof;
// tests fix them to get deterministic proof bytes.
template <class E>
struct ProofRandomnessT {
  typename E::Fr r, s;
};
using ProofRandomness = ProofRandomnessT<Bls12_381>;
template <class E = Bls12_381>
ProofRandomnessT<E> random_proof_randomness();

// Seconds per step, and the witness classification of the A query (the prover reports both).
struct ProveTimings {
  double qap = 0, h = 0, msm_a = 0, msm_b = 0, msm_l = 0, msm_h = 0, check = 0, total = 0;
  msm::SplitStats a_split, l_split;
};

struct ProveOptions {
  size_t threads = 0;       // for the MSMs; 0 = the global pool
  bool self_check = false;  // verify the proof before returning it (always for snarkjs keys)
  // Called on the calling thread as each step starts (progress display): "qap", "h", "msm_a",
  // "msm_b", "msm_l", "msm_h", "check"; kProveSteps of them.
  std::function<void(std::string_view step)> on_step;
  // Checked as each step starts and inside the MSMs (msm::Options::stop): a stop request makes
  // the call throw snarkd::Cancelled (util/cancel.hpp) instead of finishing.
  std::stop_token stop;
};
inline constexpr size_t kProveSteps = 7;

// The five witness MSMs of a proof, before the blinding: Σ w_j·a_j, Σ w_j·b_j (G1 and G2) over
// the A/B queries' variables, Σ w_j·l_j over aux, Σ h_i·H_i. Any backend that computes them
// (CPU, GPU, simulated device) finishes the proof with assemble().
template <class E>
struct QuerySumsT {
  typename E::G1Jacobian a, b1, l, h;
  typename E::G2Jacobian b2;
};
using QuerySums = QuerySumsT<Bls12_381>;

// The curve's scalars in a span whose type comes from the key argument (so vectors convert).
template <class E>
using Scalars = r1cs::Values<typename E::Fr>;

// The proof from the sums and r, s (the formulas at the top). Same sums and r, s → same bytes.
template <class E>
ProofT<E> assemble(const VerifyingKeyT<E>& vk, const QuerySumsT<E>& sums, const ProofRandomnessT<E>& rs);

// The "start" half of prove(): everything but the blinding (refuses an unsatisfied bellperson
// witness the same way). Fills the step timings of t (not check/total).
template <class E>
QuerySumsT<E> compute_sums(const BoundKeyT<E>& key, Scalars<E> witness, const ProveOptions& opt, ProveTimings& t);

// witness = the full assignment, as key.check_witness accepts it (the callers' entry points check
// it; a witness of the wrong length is still refused, one whose ONE is not 1 is not looked at).
template <class E>
ProofT<E> prove(const BoundKeyT<E>& key, Scalars<E> witness, const std::type_identity_t<ProofRandomnessT<E>>& rs,
                const ProveOptions& opt = {}, ProveTimings* timings = nullptr);

// The public inputs of a witness: witness[1 .. num_inputs), what the verifier takes.
template <class F>
std::vector<F> public_inputs(const r1cs::CircuitT<F>& circuit, r1cs::Values<F> witness);

#define SNARKD_PROVER_DECLARE(E)                                                                              \
  extern template ProofRandomnessT<E> random_proof_randomness<E>();                                           \
  extern template ProofT<E> assemble<E>(const VerifyingKeyT<E>&, const QuerySumsT<E>&, const ProofRandomnessT<E>&); \
  extern template QuerySumsT<E> compute_sums<E>(const BoundKeyT<E>&, Scalars<E>, const ProveOptions&, ProveTimings&); \
  extern template ProofT<E> prove<E>(const BoundKeyT<E>&, Scalars<E>, const ProofRandomnessT<E>&,             \
                                     const ProveOptions&, ProveTimings*);                                     \
  extern template std::vector<typename E::Fr> public_inputs<typename E::Fr>(const r1cs::CircuitT<typename E::Fr>&, \
                                                                            Scalars<E>);
SNARKD_PROVER_DECLARE(Bls12_381)
SNARKD_PROVER_DECLARE(Bn254)
#undef SNARKD_PROVER_DECLARE

}  // namespace snarkd::groth16
