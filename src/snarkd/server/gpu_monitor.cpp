#include "snarkd/server/gpu_monitor.hpp"

#include <dlfcn.h>

#include "snarkd/util/thread_pool.hpp"

namespace snarkd::server {

// NVML's C interface as nvml.h declares it (the entry points have been stable since NVML 5;
// the _v2 ones since driver 325). Only what the monitor calls.
namespace nvml {
using Return = int;  // nvmlReturn_t: 0 = NVML_SUCCESS
using Device = void*;
constexpr Return kSuccess = 0;
constexpr int kTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU
struct Utilization {                // nvmlUtilization_t: percent over the last sample period
  unsigned int gpu, memory;
};
struct Memory {  // nvmlMemory_t: bytes
  unsigned long long total, free, used;
};
}  // namespace nvml

struct GpuMonitor::Nvml {
  void* lib = nullptr;
  bool initialised = false;
  nvml::Return (*init)() = nullptr;
  nvml::Return (*shutdown)() = nullptr;
  const char* (*error_string)(nvml::Return) = nullptr;
  nvml::Return (*driver_version)(char*, unsigned) = nullptr;
  nvml::Return (*by_bus_id)(const char*, nvml::Device*) = nullptr;
  nvml::Return (*name)(nvml::Device, char*, unsigned) = nullptr;
  nvml::Return (*utilization)(nvml::Device, nvml::Utilization*) = nullptr;
  nvml::Return (*memory)(nvml::Device, nvml::Memory*) = nullptr;
  nvml::Return (*temperature)(nvml::Device, int, unsigned*) = nullptr;
  nvml::Return (*power)(nvml::Device, unsigned*) = nullptr;  // milliwatts

  std::string error(const char* call, nvml::Return rc) const {
    const char* text = error_string ? error_string(rc) : nullptr;
    return std::string(call) + ": " + (text ? text : "error " + std::to_string(rc));
  }
  ~Nvml() {
    if (initialised) shutdown();
    if (lib) ::dlclose(lib);
  }
};

namespace {

template <class F>
bool resolve(void* lib, const char* symbol, F& out) {
  out = reinterpret_cast<F>(::dlsym(lib, symbol));
  return out != nullptr;
}

}  // namespace

GpuMonitor::GpuMonitor(std::vector<GpuTarget> targets, std::string library, std::chrono::milliseconds period)
    : targets_(std::move(targets)), nvml_(std::make_unique<Nvml>()), handles_(targets_.size(), nullptr) {
  open_library(library);
  if (nvml_->initialised) find_targets();
  sample_all();
  if (handles_ready_) sampler_ = std::thread([this, period] { sampler_loop(period); });
}

GpuMonitor::~GpuMonitor() {
  {
    std::lock_guard l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  done_cv_.notify_all();
  if (sampler_.joinable()) sampler_.join();
}

void GpuMonitor::open_library(const std::string& library) {
  Nvml& n = *nvml_;
  n.lib = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!n.lib) {
    const char* why = ::dlerror();
    state_ = "unavailable: " + std::string(why ? why : library + " cannot be loaded");
    return;
  }
  const bool ok = resolve(n.lib, "nvmlInit_v2", n.init) && resolve(n.lib, "nvmlShutdown", n.shutdown) &&
                  resolve(n.lib, "nvmlErrorString", n.error_string) &&
                  resolve(n.lib, "nvmlSystemGetDriverVersion", n.driver_version) &&
                  resolve(n.lib, "nvmlDeviceGetHandleByPciBusId_v2", n.by_bus_id) &&
                  resolve(n.lib, "nvmlDeviceGetName", n.name) &&
                  resolve(n.lib, "nvmlDeviceGetUtilizationRates", n.utilization) &&
                  resolve(n.lib, "nvmlDeviceGetMemoryInfo", n.memory) &&
                  resolve(n.lib, "nvmlDeviceGetTemperature", n.temperature) &&
                  resolve(n.lib, "nvmlDeviceGetPowerUsage", n.power);
  if (!ok) {
    state_ = "unavailable: " + library + " lacks an NVML entry point this daemon calls";
    return;
  }
  if (const nvml::Return rc = n.init(); rc != nvml::kSuccess) {
    state_ = "unavailable: " + n.error("nvmlInit", rc);
    return;
  }
  n.initialised = true;
  char version[96] = {};
  state_ = n.driver_version(version, sizeof version) == nvml::kSuccess ? std::string("ok: driver ") + version : "ok";
}

void GpuMonitor::find_targets() {
  for (size_t k = 0; k < targets_.size(); ++k) {
    if (targets_[k].pci_bus_id.empty()) continue;
    nvml::Device d = nullptr;
    if (nvml_->by_bus_id(targets_[k].pci_bus_id.c_str(), &d) == nvml::kSuccess) {
      handles_[k] = d;
      handles_ready_ = true;
    }
  }
}

// One figure NVML cannot give (NOT_SUPPORTED on some boards: power, temperature) stays 0;
// utilisation or memory failing makes the sample unavailable with NVML's reason.
void GpuMonitor::sample_all() {
  std::map<std::string, GpuSample> fresh;
  const auto now = std::chrono::steady_clock::now();
  for (size_t k = 0; k < targets_.size(); ++k) {
    GpuSample s;
    s.taken = now;
    const GpuTarget& t = targets_[k];
    if (!nvml_->initialised) {
      s.reason = "NVML " + state_;
    } else if (t.pci_bus_id.empty()) {
      s.reason = "the CUDA device's PCI bus id is unknown";
    } else if (!handles_[k]) {
      s.reason = "NVML has no device at PCI bus id " + t.pci_bus_id;
    } else {
      const Nvml& n = *nvml_;
      nvml::Utilization u{};
      nvml::Memory m{};
      char name[96] = {};
      unsigned temp = 0, milliwatts = 0;
      if (const nvml::Return rc = n.utilization(handles_[k], &u); rc != nvml::kSuccess) {
        s.reason = n.error("nvmlDeviceGetUtilizationRates", rc);
      } else if (const nvml::Return rc2 = n.memory(handles_[k], &m); rc2 != nvml::kSuccess) {
        s.reason = n.error("nvmlDeviceGetMemoryInfo", rc2);
      } else {
        s.available = true;
        s.utilization = u.gpu / 100.0;
        s.memory_utilization = u.memory / 100.0;
        s.memory_used_bytes = m.used;
        s.memory_total_bytes = m.total;
        if (n.name(handles_[k], name, sizeof name) == nvml::kSuccess) s.name = name;
        if (n.temperature(handles_[k], nvml::kTemperatureGpu, &temp) == nvml::kSuccess) s.temperature_c = temp;
        if (n.power(handles_[k], &milliwatts) == nvml::kSuccess) s.power_w = milliwatts / 1000.0;
      }
    }
    fresh[t.device] = std::move(s);
  }
  std::lock_guard l(mu_);
  samples_ = std::move(fresh);
  ++passes_;
  started_ = std::max(started_, passes_);
}

void GpuMonitor::sampler_loop(std::chrono::milliseconds period) {
  name_this_thread("snarkd-nvml");
  std::unique_lock l(mu_);
  while (!stop_) {
    // served_ starts at 0 with requested_: a refresh() before this thread first got here counts.
    cv_.wait_for(l, period, [&] { return stop_ || requested_ != served_; });
    if (stop_) break;
    served_ = requested_;
    ++started_;
    l.unlock();
    sample_all();
    l.lock();
    done_cv_.notify_all();
  }
}

void GpuMonitor::refresh() {
  std::unique_lock l(mu_);
  if (!sampler_.joinable()) return;
  const uint64_t target = started_ + 1;  // the next pass to start began after this call
  ++requested_;
  cv_.notify_all();
  done_cv_.wait(l, [&] { return stop_ || passes_ >= target; });
}

uint64_t GpuMonitor::passes() const {
  std::lock_guard l(mu_);
  return passes_;
}

std::string GpuMonitor::nvml_state() const { return state_; }

GpuSample GpuMonitor::sample(const std::string& device) const {
  std::lock_guard l(mu_);
  const auto it = samples_.find(device);
  if (it != samples_.end()) return it->second;
  GpuSample s;
  s.reason = "not a GPU";
  return s;
}

}  // namespace snarkd::server
