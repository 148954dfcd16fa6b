// The process-wide engine behind the supraseal-c2 ABI: created on the first proof, never
// destroyed (handles and worker threads may outlive static teardown), its keys registered in
// the a/b/c form (the .params SRS alone) on first use.
//
// Configuration (environment, read once):
//   SNARKD_SUPRASEAL_DEVICES  a device spec (engine/devices.hpp: "cuda:all", "cuda:0,2", "cpu",
//                             "sim:2"); default every visible GPU, else the CPU device
//   SNARKD_SUPRASEAL_WORKERS  workers per device (default 2 on GPUs: one partition's upload and
//                             H overlap another's MSMs; 1 on the CPU, whose stages use every core)
//   SNARKD_SUPRASEAL_VRAM_MIB each device's ledger (default: the device's own default)
//   SNARKD_SUPRASEAL_SELF_CHECK=0  no verification of each job's proofs before they are returned
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "snarkd/engine/engine.hpp"

namespace snarkd::ffi {

class EngineHost {
 public:
  static EngineHost& instance();  // builds the engine (and its devices) on the first call
  static EngineHost* if_created();  // null before the first instance()
  engine::Engine& engine() { return *engine_; }
  // The engine's id for pk, registering it (a/b/c form: upload to every device) on first use.
  // Concurrent first uses of one key register it once.
  std::string key_id(const std::shared_ptr<const groth16::ProvingKey>& pk);
  // Drops pk's registration (its device copies) if no job of it is unfinished; false otherwise.
  bool forget_key(const groth16::ProvingKey* pk) noexcept;
  // forget_key for every registered key that `held` says no SRS handle uses any more.
  template <class Held>
  void forget_unheld(Held&& held) noexcept {
    std::vector<const groth16::ProvingKey*> keys;
    {
      std::lock_guard l(mu_);
      for (const auto& [k, id] : ids_)
        if (!held(k)) keys.push_back(k);
    }
    for (const auto* k : keys) forget_key(k);
  }
  // The engine device for the ABI's gpu_index: −1 any; on GPU engines the ordinal's position
  // (InvalidArgument when out of range); on CPU / simulated engines any index maps onto them.
  int32_t device_for(int gpu_index) const;
  const std::string& spec() const { return spec_; }

 private:
  EngineHost();
  std::string spec_;
  bool gpus_ = false;
  std::unique_ptr<engine::Engine> engine_;
  std::mutex mu_;  // registrations, one at a time (a PoRep key's upload takes a while)
  std::map<const groth16::ProvingKey*, std::string> ids_;
  uint64_t next_ = 0;
};

}  // namespace snarkd::ffi
