// Key binding and setup on the circuits the readers accept, so a count the file does not back
// (a 100-byte .r1cs claiming 2^32 variables) is caught where it would be allocated: scripts/
// fuzz.sh runs this target with -malloc_limit_mb=128, and libFuzzer reports any single
// allocation beyond it. Byte 0: bit 0 picks a snarkd CSR (checksums recomputed) over a circom
// .r1cs; the rest is the file.
//   - Every accepted circuit is bound to a fixed small key: BoundKey::bind must refuse a circuit
//     that does not match it by comparing counts, before it builds anything per variable.
//   - A circuit whose setup_peak_bytes (an upper bound of setup's allocations) is within
//     kSetupBudget gets a full setup (seeded, on generator tables built once); the key must bind
//     to it. The gate is the estimate alone: an estimate that undercounts lets a big circuit
//     through, whose setup then trips the malloc limit.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "csr_checksums.hpp"
#include "fuzz_common.hpp"
#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/r1cs/builder.hpp"
#include "snarkd/r1cs/circom.hpp"
#include "snarkd/r1cs/csr_file.hpp"

namespace {

using namespace snarkd;
using fuzz::try_read;
using fuzz::violated;

constexpr uint64_t kSetupBudget = (uint64_t{64} + 2) << 20;  // setup_peak_bytes counts 64 MiB of fixed cost

const groth16::FixedBaseBackend& backend() {
  static const groth16::FixedBaseBackend b = groth16::cpu_fixed_base();
  return b;
}

// x·x = y with y public: three variables, one constraint.
const groth16::ProvingKey& small_key() {
  static const groth16::ProvingKey pk = [] {
    r1cs::CircuitBuilder b;
    const auto y = b.allocate_input(ff::Fr::from_u64(9));
    const auto x = b.allocate_aux(ff::Fr::from_u64(3));
    b.enforce(x, x, y);
    return groth16::setup_insecure(std::move(b).finish().circuit, groth16::toxic_waste_from_seed(1));
  }();
  return pk;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::vector<uint8_t> file(data + 1, data + size);
  const bool csr = data[0] & 1;
  if (csr) fuzz::fix_csr_checksums(file);
  const std::string path = fuzz::write_input(file.data(), file.size(), csr ? "input.csr" : "input.r1cs");
  const auto circuit = try_read([&] { return csr ? r1cs::read_csr_file(path) : r1cs::read_circom_r1cs(path).circuit; });
  if (!circuit) return 0;
  try_read([&] { return groth16::BoundKey::bind(small_key(), *circuit); });
  if (groth16::setup_peak_bytes(*circuit) > kSetupBudget) return 0;
  auto pk = try_read([&] {
    return groth16::key_from_scalars(groth16::setup_scalars(*circuit, groth16::toxic_waste_from_seed(2)), backend());
  });
  if (!pk) return 0;  // e.g. more QAP rows than any domain
  if (pk->l.size() != circuit->num_aux || pk->vk.ic.size() != circuit->num_inputs) violated("setup: wrong query sizes");
  if (!try_read([&] { return groth16::BoundKey::bind(std::move(*pk), *circuit); }))
    violated("a key from setup does not bind to its own circuit");
  return 0;
}
