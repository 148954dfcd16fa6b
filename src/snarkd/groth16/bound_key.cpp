#include "snarkd/groth16/bound_key.hpp"

#include "snarkd/groth16/qap.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::groth16 {
namespace {

uint64_t query_vars(const r1cs::DensityBitmap& d, uint64_t num_vars) {
  return d.num_bits == 0 ? num_vars : d.count(0, d.num_bits);
}

void expect_len(const char* what, uint64_t got, uint64_t want, const char* why) {
  if (got != want)
    throw DecodeError("key has " + std::to_string(got) + " " + what + " points, " + why + " " +
                      std::to_string(want));
}

// The checks and the densities of bind(), on the key before it is frozen.
template <class E>
void attach(ProvingKeyT<E>& pk, const r1cs::CircuitT<typename E::Fr>& circuit) {
  // The counts first: a circuit file claiming 2^32 variables must be refused before the density
  // bitmaps (num_vars bits each) are built for it.
  expect_len("IC", pk.vk.ic.size(), circuit.num_inputs, "the circuit's inputs (ONE included):");
  expect_len("L", pk.l.size(), circuit.num_aux, "the circuit's aux variables:");
  const uint64_t n = pk.domain_size();
  expect_len("H", pk.h.size(), pk.flavour == KeyFlavour::kBellperson ? n - 1 : n, "the key's domain needs");
  if (qap_rows(circuit, pk.flavour) > n)
    throw DecodeError("the circuit's " + std::to_string(qap_rows(circuit, pk.flavour)) +
                      " QAP rows do not fit the key's domain of " + std::to_string(n));
  // Column indices in range before the densities index bitmaps by them (and before any prover,
  // the GPU's kernels included, reads the witness through them).
  if (auto err = r1cs::find_structure_error(circuit)) throw DecodeError("circuit: " + *err);
  const uint64_t nvar = circuit.num_vars();
  if (pk.flavour == KeyFlavour::kBellperson) {
    pk.a_density = bellperson_a_density(circuit);
    pk.b_density = r1cs::density(circuit, r1cs::Matrix::B);
  } else {  // snarkjs queries cover every variable: no density (whatever the caller left)
    pk.a_density = {};
    pk.b_density = {};
  }
  const uint64_t na = query_vars(pk.a_density, nvar), nb = query_vars(pk.b_density, nvar);
  const char* dens = pk.flavour == KeyFlavour::kBellperson ? "the circuit's density has" : "the circuit has variables:";
  expect_len("A", pk.a.size(), na, dens);
  expect_len("B_G1", pk.b_g1.size(), nb, dens);
  expect_len("B_G2", pk.b_g2.size(), nb, dens);
}

}  // namespace

template <class E>
BoundKeyT<E>::BoundKeyT(Token, ProvingKeyT<E> pk, std::shared_ptr<const Circuit> circuit)
    : pk_(std::move(pk)), circuit_(std::move(circuit)) {}

template <class E>
std::shared_ptr<const BoundKeyT<E>> BoundKeyT<E>::bind(ProvingKeyT<E> pk, std::shared_ptr<const Circuit> circuit) {
  if (!circuit) throw InvalidArgument("BoundKey::bind: no circuit");
  attach(pk, *circuit);
  return std::make_shared<const BoundKeyT>(Token{}, std::move(pk), std::move(circuit));
}

template <class E>
std::shared_ptr<const BoundKeyT<E>> BoundKeyT<E>::bind(ProvingKeyT<E> pk, Circuit circuit) {
  return bind(std::move(pk), std::make_shared<const Circuit>(std::move(circuit)));
}

template <class E>
void BoundKeyT<E>::check_witness(std::span<const Fr> w, const std::string& label) const {
  groth16::check_witness<Fr>(w, num_vars(), label);
}

template <class F>
void check_witness(r1cs::Values<F> w, uint64_t num_vars, const std::string& label, const std::string& of) {
  if (w.size() != num_vars)
    throw InvalidArgument(label + ": has " + std::to_string(w.size()) + " witness values, " + of + " has " +
                          std::to_string(num_vars) + " variables");
  if (w.empty() || w[0] != F::one()) throw InvalidArgument(label + ": value 0 (the constant ONE) is not 1");
}

template class BoundKeyT<Bls12_381>;
template class BoundKeyT<Bn254>;
template void check_witness<ff::Fr>(r1cs::Values<ff::Fr>, uint64_t, const std::string&, const std::string&);
template void check_witness<ff::bn254::Fr>(r1cs::Values<ff::bn254::Fr>, uint64_t, const std::string&,
                                           const std::string&);

}  // namespace snarkd::groth16
