// What the engine records about each partition's passage through a device, for the bench's
// table, JSON and timeline picture (timeline.hpp). Times are seconds since the engine started
// (steady clock).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace snarkd::engine {

// The stages a partition passes on a worker, in order. kWaitVram and kWaitCompute are lock
// waits (the ledger's FIFO, the device's compute engine); the timeline draws them hatched.
enum class Stage : uint8_t {
  kWaitVram,     // waiting for the ledger to grant the working set (all-or-nothing, FIFO)
  kUpload,       // memory stage: witness to the device on the copy stream
  kWaitCompute,  // waiting for the compute engine (simulated device only)
  kCompute,      // compute stage: SpMV, H, MSMs on the worker's stream
  kFinalize,     // host: assembly of the proof from the device's sums (reservation released)
  kCopy,         // the device's copy engine streaming key chunks (its own lane per device)
};
inline constexpr size_t kNumStages = 6;
// "wait_vram", "upload", "wait_compute", "compute", "finalize", "copy"
const char* stage_name(Stage s);

struct StageSpan {
  uint32_t device = 0;   // device index
  uint32_t worker = 0;   // worker index within the device (kCopy: workers_per_device)
  uint64_t job = 0;      // engine job id
  uint32_t partition = 0;
  Stage stage = Stage::kUpload;
  double begin_s = 0, end_s = 0;
};

struct Timeline {
  uint32_t devices = 0;
  uint32_t workers_per_device = 0;
  double wall_s = 0;  // the picture's time axis runs 0 .. wall_s
  std::vector<StageSpan> spans;
};

}  // namespace snarkd::engine
