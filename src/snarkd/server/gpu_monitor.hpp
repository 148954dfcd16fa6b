// What the GPUs are really doing, from NVIDIA's management library (NVML, the library behind
// nvidia-smi): utilisation, memory used on the whole card, temperature, power. The ledger only
// knows what snarkd reserved; NVML sees the card.
//
// libnvidia-ml.so.1 ships with the driver, not with the CUDA toolkit, so it is loaded at run
// time with dlopen and never linked: a machine without the driver (CI, CPU and simulated
// devices) runs the same binary and reports NVML "unavailable: <why>". NVML calls run only on
// the constructing thread (start-up) and on the monitor's own sampler thread (about once a
// second), never on a worker's; status readers copy the latest sample under a mutex. NVML
// calls are not CUDA calls (no device-wide synchronisation).
//
// Each GPU is found by its PCI bus id (the CUDA device's), because NVML numbers devices in PCI
// order while CUDA's ordinals follow CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace snarkd::server {

struct GpuTarget {
  std::string device;      // the engine's name: "cuda:0"
  std::string pci_bus_id;  // "0000:17:00.0" (cudaDeviceGetPCIBusId); "" = unknown
};

struct GpuSample {
  bool available = false;
  std::string reason;  // why not available
  std::string name;
  double utilization = 0, memory_utilization = 0;  // 0–1
  uint64_t memory_used_bytes = 0, memory_total_bytes = 0;
  double temperature_c = 0, power_w = 0;
  std::chrono::steady_clock::time_point taken{};
};

class GpuMonitor {
 public:
  static constexpr const char* kLibrary = "libnvidia-ml.so.1";
  // Loads `library` (tests pass a fake), initialises NVML, finds each target and takes a first
  // sample; then a sampler thread refreshes the samples every `period` (only when a target was
  // found). Never throws for a missing or failing NVML: nvml_state() says what happened.
  explicit GpuMonitor(std::vector<GpuTarget> targets, std::string library = kLibrary,
                      std::chrono::milliseconds period = std::chrono::seconds(1));
  ~GpuMonitor();  // stops the sampler, shuts NVML down, unloads the library
  GpuMonitor(const GpuMonitor&) = delete;
  GpuMonitor& operator=(const GpuMonitor&) = delete;

  bool available() const { return handles_ready_; }
  // "ok: driver 550.54.15" or "unavailable: <why>".
  std::string nvml_state() const;
  // The latest sample of a target device; available = false with a reason for an unknown name.
  GpuSample sample(const std::string& device) const;
  // Samples every target now on the sampler thread and returns once that pass is done (tests
  // and anyone who wants a fresh figure; without a sampler thread it returns at once).
  void refresh();
  uint64_t passes() const;  // sampling passes completed (the first, in the constructor, is 1)

 private:
  struct Nvml;  // the library's entry points
  void open_library(const std::string& library);
  void find_targets();
  void sample_all();  // NVML calls: constructor and sampler thread only
  void sampler_loop(std::chrono::milliseconds period);

  std::vector<GpuTarget> targets_;
  std::unique_ptr<Nvml> nvml_;
  std::vector<void*> handles_;  // per target; nullptr = not found
  bool handles_ready_ = false;
  std::string state_;           // set in the constructor, read-only afterwards

  mutable std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  std::map<std::string, GpuSample> samples_;
  uint64_t started_ = 0, passes_ = 0, requested_ = 0, served_ = 0;
  bool stop_ = false;
  std::thread sampler_;
};

}  // namespace snarkd::server
