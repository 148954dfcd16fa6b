#include "snarkd/engine/cpu_device.hpp"

#include <vector>

namespace snarkd::engine {

namespace {

class CpuWorker final : public DeviceWorker {
 public:
  void upload(const CircuitEntry&, const groth16::AnyScalars& witness, const Reservation&) override {
    witness_ = witness;
  }
  // groth16::compute_sums over the circuit's curve.
  groth16::AnyQuerySums compute(const CircuitEntry& c, Reservation&, StageClock&,
                                const std::stop_token& stop) override {
    const groth16::AnyScalars w = std::move(witness_);  // freed on every way out, a cancel's too
    witness_ = {};
    groth16::ProveOptions opt;
    opt.stop = stop;
    groth16::ProveTimings t;
    return groth16::with_curve(c.curve(), [&](auto e) -> groth16::AnyQuerySums {
      using E = decltype(e);
      return groth16::compute_sums(c.key_of<E>(), groth16::as_curve<E>(w, "the witness"), opt, t);
    });
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
  groth16::AnyScalars witness_;
  groth16::BellpersonSynthesis abc_;
};

}  // namespace

std::unique_ptr<DeviceWorker> CpuDevice::make_worker(uint32_t) { return std::make_unique<CpuWorker>(); }

}  // namespace snarkd::engine
