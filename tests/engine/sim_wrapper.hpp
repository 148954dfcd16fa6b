// A device that passes everything to a simulated device inside it, for tests that change one
// behaviour (the curves it proves, its workers' uploads, a count of their steps) and keep the rest.
// The a/b/c form is not passed on: wrappers' workers would have to forward it too.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "snarkd/engine/sim_device.hpp"

namespace snarkd::test {

class WrappedSimDevice : public engine::Device {
 public:
  explicit WrappedSimDevice(const engine::SimDeviceConfig& cfg) : inner_(cfg) {}
  uint32_t index() const override { return inner_.index(); }
  std::string name() const override { return inner_.name(); }
  uint64_t pool_bytes() const override { return inner_.pool_bytes(); }
  uint64_t resident_bytes() const override { return inner_.resident_bytes(); }
  engine::VramLedger& ledger() override { return inner_.ledger(); }
  void set_workers(uint32_t w) override { inner_.set_workers(w); }
  bool proves(groth16::CurveId c) const override { return inner_.proves(c); }
  void load(const engine::CircuitEntry& c) override { inner_.load(c); }
  void unload(const std::string& id) override { inner_.unload(id); }
  uint64_t working_set_bytes(const engine::CircuitEntry& c) const override { return inner_.working_set_bytes(c); }
  std::vector<engine::DeviceStep> steps(const engine::CircuitEntry& c) const override { return inner_.steps(c); }
  std::unique_ptr<engine::DeviceWorker> make_worker(uint32_t w) override { return inner_.make_worker(w); }
  double compute_busy_s() const override { return inner_.compute_busy_s(); }
  std::string residency(const std::string& id) const override { return inner_.residency(id); }
  engine::StreamStats stream_stats() const override { return inner_.stream_stats(); }

 protected:
  engine::SimDevice inner_;
};

}  // namespace snarkd::test
