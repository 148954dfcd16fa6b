#include "snarkd/engine/cpu_device.hpp"

#include <vector>

namespace snarkd::engine {

namespace {

class CpuWorker final : public DeviceWorker {
 public:
  void upload(const CircuitEntry&, std::span<const ff::Fr> witness, const Reservation&) override {
    witness_.assign(witness.begin(), witness.end());
  }
  groth16::QuerySums compute(const CircuitEntry& c, const Reservation&, StageClock&) override {
    groth16::ProveTimings t;
    groth16::QuerySums sums = groth16::compute_sums(*c.pk, *c.circuit, witness_, groth16::ProveOptions{}, t);
    std::vector<ff::Fr>().swap(witness_);
    return sums;
  }

 private:
  std::vector<ff::Fr> witness_;
};

}  // namespace

std::unique_ptr<DeviceWorker> CpuDevice::make_worker(uint32_t) { return std::make_unique<CpuWorker>(); }

}  // namespace snarkd::engine
