#include "snarkd/engine/cpu_device.hpp"

#include <vector>

namespace snarkd::engine {

namespace {

class CpuWorker final : public DeviceWorker {
 public:
  void upload(const CircuitEntry&, std::span<const ff::Fr> witness, const Reservation&) override {
    witness_.assign(witness.begin(), witness.end());
  }
  groth16::QuerySums compute(const CircuitEntry& c, Reservation&, StageClock&,
                             const std::stop_token& stop) override {
    const std::vector<ff::Fr> w = std::move(witness_);  // freed on every way out, a cancel's too
    witness_ = {};
    groth16::ProveOptions opt;
    opt.stop = stop;
    groth16::ProveTimings t;
    return groth16::compute_sums(*c.key, w, opt, t);
  }
  // The a/b/c form: the upload is a copy the worker owns (the caller may free its arrays).
  void upload_abc(const CircuitEntry&, const groth16::AbcAssignment& p, const Reservation&) override {
    abc_ = groth16::copy_of(p);
  }
  groth16::QuerySums compute_abc(const CircuitEntry& c, const Reservation&, StageClock&,
                                 const std::stop_token& stop) override {
    const groth16::BellpersonSynthesis p = std::move(abc_);
    abc_ = {};
    groth16::ProveOptions opt;
    opt.stop = stop;
    groth16::ProveTimings t;
    return groth16::compute_sums_abc(*c.pk, p.view(), "partition", opt, t);
  }

 private:
  std::vector<ff::Fr> witness_;
  groth16::BellpersonSynthesis abc_;
};

}  // namespace

std::unique_ptr<DeviceWorker> CpuDevice::make_worker(uint32_t) { return std::make_unique<CpuWorker>(); }

}  // namespace snarkd::engine
