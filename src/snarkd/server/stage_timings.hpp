// A partition's engine results as proto fields — its timestamps as the stage durations, its
// proof and public inputs — shared by the local service (Await/Status) and the cluster node
// (results it writes for other hosts) so both report alike.
#pragma once
#include <algorithm>
#include <string>
#include <variant>
#include <vector>

#include "snarkd/engine/engine.hpp"
#include "snarkd/groth16/any_curve.hpp"
#include "snarkd/util/json.hpp"
#include "snarkd/v1/snarkd.pb.h"

namespace snarkd::server {

// Durations between consecutive stamps; 0 where either stamp is missing.
inline void fill_timings(const engine::PartitionTiming& t, v1::StageTimings& out) {
  auto span = [](double a, double b) { return a > 0 && b > 0 ? std::max(0.0, b - a) : 0.0; };
  out.set_queued_s(span(t.submitted_s, t.dequeued_s));
  out.set_wait_vram_s(span(t.dequeued_s, t.reserved_s));
  out.set_upload_s(span(t.reserved_s, t.uploaded_s));
  out.set_compute_s(span(t.uploaded_s, t.computed_s));
  out.set_finalize_s(span(t.computed_s, t.finalized_s));
}

// Partition k's public inputs (decimal, over the job's curve) and, when with_proof, its proof in
// the curve's wire form (groth16::proof_bytes: 192 bytes for BLS12-381, 256 for BN254) with the
// curve's name beside it.
inline void fill_partition_outputs(const engine::JobResult& r, size_t k, bool with_proof, v1::PartitionResult& p) {
  if (k < r.public_inputs.size())
    std::visit(
        [&](const auto& xs) {
          for (const auto& x : xs) p.add_public_inputs(to_decimal(x));
        },
        r.public_inputs[k]);
  if (with_proof && k < r.proofs.size()) {
    const std::vector<uint8_t> bytes = groth16::proof_bytes(r.proofs[k]);
    p.set_proof(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    p.set_curve(r1cs::curve_name(groth16::curve_of(r.proofs[k])));
  }
}

}  // namespace snarkd::server
