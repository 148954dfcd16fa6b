// Where a circuit's key lives on one device, and how a partition passes through the device.
//
// Fully resident: the key, matrices and tables are carved from the device's ledger once (at
// load) and a partition is one step with one working set — chosen when the whole key fits
// beside `workers` working sets. Otherwise streaming: what fits beside the working sets stays
// resident (the matrices first: the QAP reads them twice; then whole chunks of the query parts
// in the order a, b_g1, l, b_g2, h — most bytes per second of MSM work first, h last because
// its MSM is long enough to hide its copy), the rest stays in pinned host memory and passes
// through the device's streaming slots. A streamed partition runs in one step wherever it fits
// (StepSizes::one: the witness uploaded once, the witness MSMs inside step 0's range before it
// shrinks); otherwise in two steps, each with its own all-or-nothing reservation (no memory is
// held between them; the witness is uploaded in each):
//   step 0 "qap+h"  witness, a, b, NTT scratch (q bytes) → the H scalars; then it shrinks to
//                   the H scalars and the MSM scratch (q_shrunk) for the H MSM over h's chunks;
//   step 1 "msm"    witness + split-MSM buffers (m bytes): A, B (G1, G2) and L over their chunks.
// Every layout puts the witness at offset 0 of the step's reservation (so upload() does not need
// to know the step), and step 0 keeps its tail (keep_tail) when it shrinks.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "snarkd/engine/device.hpp"
#include "snarkd/engine/key_parts.hpp"

namespace snarkd::engine {

// A device's working-set sizes for one circuit (device-specific: its kernels' scratch).
struct StepSizes {
  uint64_t full = 0;      // fully resident: the one step
  uint64_t q = 0;         // streaming step 0 at its peak
  uint64_t q_shrunk = 0;  // step 0 after the shrink (H MSM)
  uint64_t m = 0;         // streaming step 1
  // Streaming in ONE step (the witness uploaded once): step 0's range, laid out so that the
  // witness MSMs' workspace [w | m-workspace] ends before the kept [H scratch | H scalars]
  // (m ≤ one − q_shrunk); 0: the device runs the two steps q, m.
  uint64_t one = 0;
};

// How a streamed partition passes through the device: kAuto and kOne take one step wherever it
// fits (kOne: the simulated device's default, SNARKD_STREAM_STEPS=1 on a CUDA device); kTwo
// always two steps (SNARKD_STREAM_STEPS=2).
enum class StepPolicy : uint8_t { kAuto, kOne, kTwo };

struct ResidencyInput {
  uint64_t gap = 0;          // the ledger's largest working gap now (largest_working_gap())
  uint64_t slots_bytes = 0;  // streaming slots the device would have to reserve (0: held)
  uint32_t workers = 1;      // working sets wanted side by side
  uint64_t keep_gap = 0;     // the largest step of the circuits already loaded: must still fit
  uint64_t fixed_bytes = 0;  // device-specific resident bytes of this circuit (tables, dict)
  StepSizes sizes;
  StepPolicy steps = StepPolicy::kAuto;
};

struct ResidencyPlan {
  bool full = false;          // everything resident, one step
  bool matrices = false;      // the QAP's matrices resident
  bool slots = false;         // the device must reserve its streaming slots for this circuit
  std::array<uint64_t, kQueryParts> resident_points{};  // prefix of each query part resident
  std::array<uint32_t, kQueryParts> resident_chunks{};  // the same in whole chunks
  uint64_t key_bytes = 0;     // this circuit's resident bytes (fixed + matrices + prefixes)
  uint64_t streamed_bytes_per_partition = 0;  // key bytes one partition streams (no sharing)
  std::vector<DeviceStep> steps;
  uint64_t one_step_bytes = 0;  // the one step's range (StepSizes::one), also when two steps were chosen
  uint64_t kept_bytes = 0;      // what step 0 keeps for the H MSM (StepSizes::q_shrunk)

  bool resident(KeyPart p, uint32_t chunk) const {
    return is_query(p) ? chunk < resident_chunks[query_index(p)] : matrices;
  }
};

// Bytes of a resident layout: fixed + matrices (if any) + each query part's resident prefix
// (points and index list, each array 256-aligned). Devices lay out their resident region so.
uint64_t resident_layout_bytes(const KeyCatalogue& k, uint64_t fixed_bytes, bool matrices,
                               const std::array<uint64_t, kQueryParts>& points);

// Throws InvalidArgument naming the sizes when not even one streamed partition fits.
ResidencyPlan plan_residency(const KeyCatalogue& k, const ResidencyInput& in);

// "full" or "rows1 streamed, a 40% resident, …" for logs and the bench.
std::string describe(const KeyCatalogue& k, const ResidencyPlan& p);

}  // namespace snarkd::engine
