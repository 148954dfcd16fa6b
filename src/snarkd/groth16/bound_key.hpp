// A proving key with the circuit it proves, checked against each other once: the one shape every
// prover (CPU, CUDA, engine devices) takes, so that a key without its circuit's densities, or a
// key and a circuit of different shapes, cannot reach a prover.
//
// BoundKey::bind is the only way to make one. It attaches the A/B densities a bellperson
// `.params` key leaves to the circuit (all inputs occur in A), and checks every query length
// against the circuit: |a|, |b_g1|, |b_g2| = density counts (or num_vars for snarkjs keys),
// |ic| = num_inputs, |l| = num_aux, |h| = n − 1 (bellperson) or n (snarkjs), and that the QAP
// rows fit the domain. Afterwards the key is immutable (const access only) and travels between
// threads as shared_ptr<const BoundKey>. BoundKeyT<E> for a curve E (curve.hpp); BoundKey is
// BLS12-381's.
//
// Witnesses: check_witness is the one check of a witness against a circuit (length, and the
// constant ONE at index 0); the entry points call it (the CLI's loaders, Engine::submit, the
// daemon's witness decoding, the C ABI through Engine::submit), the provers behind them do not.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "snarkd/groth16/keys.hpp"
#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::groth16 {

template <class E>
class BoundKeyT : public std::enable_shared_from_this<BoundKeyT<E>> {
  struct Token {};

 public:
  using Curve = E;
  using Fr = typename E::Fr;
  using Circuit = r1cs::CircuitT<Fr>;

  // Throws DecodeError naming the first disagreement ("key has 120 A points, the circuit's
  // density has 122"); the counts are checked before the per-variable density bitmaps are built,
  // so a circuit claiming 2^32 variables is refused without allocating for them.
  static std::shared_ptr<const BoundKeyT> bind(ProvingKeyT<E> pk, std::shared_ptr<const Circuit> circuit);
  static std::shared_ptr<const BoundKeyT> bind(ProvingKeyT<E> pk, Circuit circuit);

  BoundKeyT(Token, ProvingKeyT<E> pk, std::shared_ptr<const Circuit> circuit);  // bind() only
  BoundKeyT(const BoundKeyT&) = delete;
  BoundKeyT& operator=(const BoundKeyT&) = delete;

  const ProvingKeyT<E>& pk() const { return pk_; }
  const Circuit& circuit() const { return *circuit_; }
  // The parts for holders that need only one; each keeps this key alive.
  std::shared_ptr<const ProvingKeyT<E>> shared_pk() const { return {this->shared_from_this(), &pk_}; }
  const std::shared_ptr<const Circuit>& shared_circuit() const { return circuit_; }

  KeyFlavour flavour() const { return pk_.flavour; }
  uint64_t num_vars() const { return circuit_->num_vars(); }
  uint64_t num_inputs() const { return circuit_->num_inputs; }
  // check_witness(w, num_vars(), label).
  void check_witness(std::span<const Fr> w, const std::string& label) const;

 private:
  ProvingKeyT<E> pk_;
  std::shared_ptr<const Circuit> circuit_;
};
using BoundKey = BoundKeyT<Bls12_381>;
extern template class BoundKeyT<Bls12_381>;
extern template class BoundKeyT<Bn254>;

// The witness check of the entry points: InvalidArgument "<label>: has 5 witness values, <of>
// has 6 variables" or "<label>: value 0 (the constant ONE) is not 1".
template <class F = Fr>
void check_witness(r1cs::Values<F> w, uint64_t num_vars, const std::string& label,
                   const std::string& of = "the circuit");
extern template void check_witness<ff::Fr>(r1cs::Values<ff::Fr>, uint64_t, const std::string&, const std::string&);
extern template void check_witness<ff::bn254::Fr>(r1cs::Values<ff::bn254::Fr>, uint64_t, const std::string&,
                                                  const std::string&);

}  // namespace snarkd::groth16
