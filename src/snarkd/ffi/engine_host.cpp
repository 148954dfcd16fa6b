#include "snarkd/ffi/engine_host.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>

#include "snarkd/engine/devices.hpp"
#include "snarkd/util/env.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::ffi {

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

}  // namespace

namespace {
std::atomic<EngineHost*> created{nullptr};
}  // namespace

EngineHost& EngineHost::instance() {
  static EngineHost* h = [] {
    auto* p = new EngineHost;  // never destroyed (see the header)
    created = p;
    return p;
  }();
  return *h;
}

EngineHost* EngineHost::if_created() { return created.load(); }

EngineHost::EngineHost() {
  spec_ = env_or("SNARKD_SUPRASEAL_DEVICES", engine::cuda_device_count() > 0 ? "cuda:all" : "cpu");
  gpus_ = spec_.rfind("cuda", 0) == 0;
  engine::DeviceOptions dopt;
  const bool cpu = spec_ == "cpu";
  // The CPU device's ledger budgets host RAM: all of it by default (a PoRep partition's a/b/c
  // copy and H scalars are ≈ 21 GB, more than the device's 16 GiB default).
  const uint64_t ram = uint64_t(::sysconf(_SC_PHYS_PAGES)) * uint64_t(::sysconf(_SC_PAGESIZE));
  dopt.vram_bytes = env_u64("SNARKD_SUPRASEAL_VRAM_MIB", 0) << 20;
  if (dopt.vram_bytes == 0 && cpu) dopt.vram_bytes = ram;
  engine::EngineConfig cfg;
  cfg.workers_per_device = uint32_t(env_u64("SNARKD_SUPRASEAL_WORKERS", cpu ? 1 : 2));
  const char* check = std::getenv("SNARKD_SUPRASEAL_SELF_CHECK");
  cfg.self_check = !(check && std::string(check) == "0");
  cfg.record_timeline = false;  // a long-running library: no growing span log
  engine_ = std::make_unique<engine::Engine>(engine::make_devices(spec_, dopt), cfg);
}

std::string EngineHost::key_id(const std::shared_ptr<const groth16::ProvingKey>& pk) {
  std::lock_guard l(mu_);
  if (auto it = ids_.find(pk.get()); it != ids_.end()) return it->second;
  const std::string id = "srs-" + std::to_string(next_++);
  engine_->register_abc_key(id, pk);
  ids_[pk.get()] = id;
  return id;
}

bool EngineHost::forget_key(const groth16::ProvingKey* pk) noexcept {
  try {
    std::lock_guard l(mu_);
    auto it = ids_.find(pk);
    if (it == ids_.end()) return true;
    engine_->unregister_circuit(it->second);  // throws while its jobs are unfinished
    ids_.erase(it);
    return true;
  } catch (...) {
    return false;
  }
}

int32_t EngineHost::device_for(int gpu_index) const {
  const auto n = int32_t(engine_->devices().size());
  if (gpu_index < 0) return -1;
  if (!gpus_) return gpu_index % n;
  if (gpu_index >= n)
    throw InvalidArgument("gpu_index is " + std::to_string(gpu_index) + ", the engine has " + std::to_string(n) +
                          " GPUs (" + spec_ + ")");
  return gpu_index;
}

}  // namespace snarkd::ffi
