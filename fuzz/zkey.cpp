// snarkjs .zkey reader (groth16/zkey.hpp), for the curve of fuzz_curve.hpp. Byte 0: bit 0 picks
// PointCheck::kTrusted over kFull, bit 1 reads only the vk sections (read_zkey_vk); the rest is
// the file. An accepted key must have the shape the header documents, and its circuit must pass
// find_structure_error (the prover indexes the witness with it unchecked). zkey_curve must agree
// with the reader: a file it accepts is the target curve's.
#include <cstddef>
#include <cstdint>

#include "fuzz_common.hpp"
#include "fuzz_curve.hpp"
#include "snarkd/groth16/zkey.hpp"

namespace {

using namespace snarkd::groth16;
using E = snarkd::fuzz::Curve;

void check_shape(const ZkeyT<E>& z) {
  const ProvingKeyT<E>& pk = z.pk;
  if (snarkd::r1cs::find_structure_error(z.circuit)) snarkd::fuzz::violated("accepted circuit is malformed");
  if (pk.vk.ic.empty() || z.circuit.num_inputs != pk.vk.ic.size())
    snarkd::fuzz::violated("num_inputs disagrees with |ic|");
  if (pk.a.size() != pk.num_vars() || pk.b_g1.size() != pk.num_vars() || pk.b_g2.size() != pk.num_vars())
    snarkd::fuzz::violated("A/B query lengths are not nVars");
  if (z.circuit.num_vars() != pk.num_vars()) snarkd::fuzz::violated("circuit and key disagree on nVars");
  if (pk.h.size() != pk.domain_size()) snarkd::fuzz::violated("|h| is not domainSize");
  if (z.circuit.num_constraints() > pk.domain_size()) snarkd::fuzz::violated("more rows than the domain");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  const std::string path = snarkd::fuzz::write_input(data + 1, size - 1, "input.zkey");
  bool accepted = false;
  if (mode & 2) {
    const auto vk = snarkd::fuzz::try_read([&] { return read_zkey_vk<E>(path); });
    if (vk && vk->ic.empty()) snarkd::fuzz::violated("accepted a vk with an empty ic");
    accepted = vk.has_value();
  } else {
    const PointCheck check = mode & 1 ? PointCheck::kTrusted : PointCheck::kFull;
    const auto z = snarkd::fuzz::try_read([&] { return read_zkey<E>(path, check); });
    if (z) check_shape(*z);
    accepted = z.has_value();
  }
  if (accepted && zkey_curve(path) != E::kId) snarkd::fuzz::violated("zkey_curve names another curve");
  return 0;
}
