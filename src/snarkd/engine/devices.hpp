// Devices from a command-line / config spec, for `snarkd bench` and the daemon:
//   "cpu"        the CPU prover (fallback; the ledger budgets host RAM for working sets)
//   "sim"        one simulated device        "sim:K"      K simulated devices
//   "cuda:N"     GPU N                       "cuda:0,2"   GPUs 0 and 2      "cuda:all"  every GPU
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "snarkd/engine/device.hpp"
#include "snarkd/engine/sim_device.hpp"

namespace snarkd::engine {

struct DeviceOptions {
  // The device memory the engine may use per device, all of it (keys, tables, streaming slots
  // and working sets are carved from it); 0 = the default: the simulated device's 1 GiB arena,
  // 16 GiB of host RAM for the CPU device, or a GPU's free memory at start-up less a margin for
  // the CUDA context (CudaDevice).
  uint64_t vram_bytes = 0;
  SimDeviceConfig sim;  // stage times of simulated devices (index and vram_bytes are set here)
};

// Throws InvalidArgument for a malformed spec, or "cuda:…" in a build without the CUDA backend
// or naming a device that does not exist.
std::vector<std::unique_ptr<Device>> make_devices(const std::string& spec, const DeviceOptions& opt);

// The names the spec's devices will have, in order ("cuda:all" → "cuda:0", "cuda:1", …;
// "sim:3" → "sim:0", "sim:1", "sim:2"). Validates like make_devices but constructs nothing (no
// device memory is touched).
std::vector<std::string> device_list(const std::string& spec);

// The spec for the first k devices of `spec` ("cuda:0,2,3", 2 → "cuda:0,2"; "sim:4", 2 → "sim:2").
// Throws InvalidArgument when spec has fewer than k devices (or k = 0).
std::string first_devices(const std::string& spec, uint32_t k);

// Whether this build has the CUDA backend and how many GPUs the process sees (0 without).
int cuda_device_count();

// Keeps c's host key pinned while the handle lives (CUDA builds; null otherwise): the bench holds
// one across its runs, so each engine's load does not pin a PoRep key (~70 GB) again.
std::shared_ptr<const void> keep_host_key_pinned(const CircuitEntry& c);

// Device memory in use on GPU `ordinal` now (start-up only; 0 without CUDA).
uint64_t cuda_memory_used(uint32_t ordinal);

// Profiler collection on or off (ncu --profile-from-start off; nothing without CUDA).
void cuda_profile(bool on);


}  // namespace snarkd::engine
