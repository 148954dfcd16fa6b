// The witness compaction both device workers do in DeviceWorker::prepare (r1cs::CompactWitness):
// made once per partition before its first reservation, used by each of its uploads when it
// was made from that witness: read in place by a streamed step whose layout has room for it
// (CudaDevice::Loaded::in_place), else expanded where its packed arrays fit after the witness in
// the reservation (workspace the compute stage overwrites only after the expansion). Only BLS12-381 witnesses:
// PoRep's are 95 % bits (4.17 GB → 0.25 GB); circom's BN254 witnesses are random field
// elements. SNARKD_WITNESS_COMPACT=0 turns it off (A/B runs).
#pragma once
#include <cstdint>
#include <optional>

#include "snarkd/engine/device.hpp"
#include "snarkd/r1cs/compact_witness.hpp"

namespace snarkd::engine {

class PreparedWitness {
 public:
  // Compacts `witness` (or forgets the last one when it does not pay); returns the seconds spent.
  double prepare(const CircuitEntry& c, const groth16::AnyScalars& witness);
  // The compact form for an upload of `bytes` at `at` of a reservation of `reserved` bytes, with
  // the offset its arrays go to (after the witness, 256-aligned), or nullptr: upload plainly.
  const r1cs::CompactWitness* usable(const void* data, uint64_t bytes, uint64_t at, uint64_t reserved,
                                     uint64_t* scratch) const;
  // The compact form made from the witness at `data` (`bytes` long), or nullptr.
  const r1cs::CompactWitness* of(const void* data, uint64_t bytes) const;

 private:
  std::optional<r1cs::CompactWitness> compact_;
  const void* of_ = nullptr;
};

}  // namespace snarkd::engine
