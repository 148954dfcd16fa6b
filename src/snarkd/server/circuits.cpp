#include "snarkd/server/circuits.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <type_traits>

#include "snarkd/ec/encoding.hpp"
#include "snarkd/groth16/bellperson_io.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/groth16/zkey.hpp"
#include "snarkd/r1cs/circom.hpp"
#include "snarkd/r1cs/csr_file.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::server {
namespace {

r1cs::Circuit read_circuit_file(const std::string& path) {
  char magic[8] = {};
  std::ifstream f(path, std::ios::binary);
  if (!f) throw DecodeError(path + ": cannot open the circuit file");
  f.read(magic, sizeof magic);
  if (std::memcmp(magic, "r1cs", 4) == 0) return r1cs::read_circom_r1cs(path).circuit;
  if (std::memcmp(magic, r1cs::kCsrMagic, sizeof magic) == 0) return r1cs::read_csr_file(path);
  throw DecodeError(path + ": not a circuit (expected a circom .r1cs or a snarkd CSR file)");
}

// What the key's bytes vouch for (its IC and L points were read from the file) against what the
// circuit file's header claims, before BoundKey::bind allocates per-variable bitmaps: a small
// circuit file claiming 2^32 variables used to cost 1 GiB and seconds before the refusal.
void check_counts_fit(const groth16::ProvingKey& pk, const r1cs::Circuit& c, const CircuitSpec& spec) {
  if (pk.vk.ic.size() != c.num_inputs || pk.l.size() != c.num_aux)
    throw InvalidArgument(spec.params + " does not fit " + spec.circuit + ": the key has " +
                          std::to_string(pk.vk.ic.size()) + " inputs and " + std::to_string(pk.l.size()) +
                          " aux variables (IC and L points), the circuit claims " + std::to_string(c.num_inputs) +
                          " and " + std::to_string(c.num_aux));
}

}  // namespace

void check_circuit_files(const CircuitSpec& spec) {
  const std::pair<const std::string*, const char*> files[] = {
      {&spec.params, "params file"}, {&spec.circuit, "circuit file"}, {&spec.zkey, "zkey file"}};
  for (const auto& [path, what] : files) {
    if (path->empty()) continue;
    struct stat st;  // stat, not open: a FIFO must not block the caller
    if (::stat(path->c_str(), &st) != 0)
      throw InvalidArgument("circuit '" + spec.id + "': " + *path + ": cannot open the " + what + " (" +
                            std::strerror(errno) + ")");
    if (!S_ISREG(st.st_mode))
      throw InvalidArgument("circuit '" + spec.id + "': " + *path + ": the " + what + " is not a regular file");
    if (::access(path->c_str(), R_OK) != 0)
      throw InvalidArgument("circuit '" + spec.id + "': " + *path + ": cannot read the " + what + " (" +
                            std::strerror(errno) + ")");
  }
}

std::string describe_source(const CircuitSpec& s) {
  if (!s.zkey.empty()) return "snarkjs zkey " + s.zkey;
  return "bellperson params " + s.params + " + circuit " + s.circuit;
}

namespace {

// A .zkey of whichever curve its q names (BN254 keys are circom's), bound to its own A and B.
groth16::AnyBoundKey load_zkey(const CircuitSpec& spec, groth16::PointCheck check) {
  return groth16::with_curve(groth16::zkey_curve(spec.zkey), [&](auto e) -> groth16::AnyBoundKey {
    using E = decltype(e);
    groth16::ZkeyT<E> zk = groth16::read_zkey<E>(spec.zkey, check);
    return groth16::BoundKeyT<E>::bind(std::move(zk.pk), std::move(zk.circuit));
  });
}

// bellperson .params are BLS12-381's, and so are the circuit files read with them.
groth16::AnyBoundKey load_params(const CircuitSpec& spec, groth16::PointCheck check) {
  r1cs::Circuit circuit = read_circuit_file(spec.circuit);
  groth16::ProvingKey pk = groth16::read_params(spec.params, check);
  check_counts_fit(pk, circuit, spec);
  try {
    return groth16::BoundKey::bind(std::move(pk), std::move(circuit));
  } catch (const std::exception& e) {
    throw InvalidArgument(spec.params + " does not fit " + spec.circuit + ": " + e.what());
  }
}

// The verifying key's points as hashed: BLS12-381's uncompressed encodings (the digests of
// daemons from before BN254), other curves' snarkjs LEM bytes (unique per point as well).
template <class E, class P>
void hash_point(Sha256& h, const P& p) {
  if constexpr (std::is_same_v<E, groth16::Bls12_381>) {
    if constexpr (std::is_same_v<P, typename E::G1Affine>) {
      const auto b = ec::encode_g1_uncompressed(p);
      h.update(b.data(), b.size());
    } else {
      const auto b = ec::encode_g2_uncompressed(p);
      h.update(b.data(), b.size());
    }
  } else if constexpr (std::is_same_v<P, typename E::G1Affine>) {
    const auto b = E::encode_g1_lem(p);
    h.update(b.data(), b.size());
  } else {
    const auto b = E::encode_g2_lem(p);
    h.update(b.data(), b.size());
  }
}

}  // namespace

uint64_t KeyShape::witness_bytes() const {
  return groth16::with_curve(curve, [&](auto e) { return num_vars * sizeof(typename decltype(e)::Fr); });
}

KeyShape key_shape(const groth16::AnyBoundKey& key) {
  return std::visit(
      [](const auto& k) {
        KeyShape s;
        s.curve = std::decay_t<decltype(*k)>::Curve::kId;
        s.flavour = k->flavour();
        s.constraints = k->circuit().num_constraints();
        s.num_vars = k->num_vars();
        s.num_inputs = k->num_inputs();
        s.log_domain = k->pk().log_domain;
        return s;
      },
      key);
}

LoadedCircuit load_circuit_files(const CircuitSpec& spec) {
  if (spec.id.empty()) throw InvalidArgument("circuit id is empty");
  if (spec.zkey.empty() == (spec.params.empty() || spec.circuit.empty()))
    throw InvalidArgument("circuit '" + spec.id + "': give either a zkey, or params and a circuit file");
  check_circuit_files(spec);
  const auto t0 = std::chrono::steady_clock::now();
  const auto check = spec.check_key ? groth16::PointCheck::kFull : groth16::PointCheck::kTrusted;
  LoadedCircuit lc;
  lc.spec = spec;
  lc.key = spec.zkey.empty() ? load_params(spec, check) : load_zkey(spec, check);
  lc.shape = key_shape(lc.key);
  lc.key_hash = key_digest(lc.key);
  lc.load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return lc;
}

template <class E>
Digest key_digest(const groth16::ProvingKeyT<E>& pk, const r1cs::CircuitT<typename E::Fr>& c) {
  Sha256 h;
  h.update_str("snarkd.key.v1");
  if constexpr (!std::is_same_v<E, groth16::Bls12_381>) h.update_str(E::kName);
  h.update_u64(uint64_t(pk.flavour));
  h.update_u64(pk.log_domain);
  h.update_u64(c.num_constraints());
  h.update_u64(c.num_vars());
  h.update_u64(c.num_inputs);
  const groth16::VerifyingKeyT<E>& vk = pk.vk;
  for (const auto* p : {&vk.alpha_g1, &vk.beta_g1, &vk.delta_g1}) hash_point<E>(h, *p);
  for (const auto* p : {&vk.beta_g2, &vk.gamma_g2, &vk.delta_g2}) hash_point<E>(h, *p);
  h.update_u64(vk.ic.size());
  for (const auto& p : vk.ic) hash_point<E>(h, p);
  return h.finish();
}

template Digest key_digest<groth16::Bls12_381>(const groth16::ProvingKeyT<groth16::Bls12_381>&, const r1cs::Circuit&);
template Digest key_digest<groth16::Bn254>(const groth16::ProvingKeyT<groth16::Bn254>&,
                                           const r1cs::CircuitT<ff::bn254::Fr>&);

Digest key_digest(const groth16::AnyBoundKey& key) {
  return std::visit([](const auto& k) { return key_digest(k->pk(), k->circuit()); }, key);
}

}  // namespace snarkd::server
