// The CPU as an engine device: the fallback prover when no GPU is present (the daemon serves with
// it in CI). "Device memory" is host memory accounted by the ledger (the prover's working set per
// partition), the upload keeps the witness in the worker, and the compute stage runs
// groth16::compute_sums on the whole thread pool, over either curve. One worker is the natural setting: each
// compute stage already uses every core.
#pragma once
#include <cstdint>
#include <string>

#include "snarkd/engine/device.hpp"

namespace snarkd::engine {

class CpuDevice final : public Device {
 public:
  // budget_bytes: what the ledger may hand out for working sets (host RAM).
  CpuDevice(uint32_t index, uint64_t budget_bytes) : index_(index), budget_(budget_bytes), ledger_(budget_bytes) {}

  uint32_t index() const override { return index_; }
  std::string name() const override { return "cpu:" + std::to_string(index_); }
  uint64_t pool_bytes() const override { return budget_; }
  uint64_t resident_bytes() const override { return 0; }  // the key stays where the caller keeps it
  VramLedger& ledger() override { return ledger_; }
  bool proves(groth16::CurveId) const override { return true; }  // the groth16 layer's every curve
  void load(const CircuitEntry&) override {}
  void unload(const std::string&) override {}
  // The witness copy plus a, b, c and the H scalars, as the CPU prover allocates them.
  uint64_t working_set_bytes(const CircuitEntry& c) const override {
    return c.witness_bytes() + 4 * c.domain_size() * sizeof(ff::Fr);
  }
  // The a/b/c form: the partition's copy (abc_upload_bytes) plus the H scalars.
  uint64_t abc_working_set_bytes(const CircuitEntry& c) const override {
    return abc_upload_bytes(c) + c.pk->domain_size() * sizeof(ff::Fr);
  }
  std::unique_ptr<DeviceWorker> make_worker(uint32_t worker_index) override;

 private:
  uint32_t index_;
  uint64_t budget_;
  VramLedger ledger_;
};

}  // namespace snarkd::engine
