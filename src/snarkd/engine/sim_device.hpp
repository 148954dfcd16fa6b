// A simulated proving device, so the engine's scheduling runs (and is tested) without a GPU.
//
// CPU threads stand in for the hardware: a copy engine (one upload at a time per device, FIFO)
// and the SMs (one compute stage at a time per device, FIFO — a partition's kernels fill the
// GPU). "VRAM" is a host arena of the configured size; the ledger hands out its offsets and the
// upload really copies the witness there. The compute stage reads the witness back from the
// arena and computes the real sums with the CPU prover (groth16::compute_sums), then waits out
// the configured stage time. So a scheduling bug that mixes up partitions or overlaps two
// reservations yields an invalid proof; in addition the rest of each reservation is filled with
// a per-partition tag at upload and checked after compute (VramCorruption on a mismatch).
#pragma once
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "snarkd/engine/device.hpp"

namespace snarkd::engine {

struct SimDeviceConfig {
  uint32_t index = 0;
  uint64_t vram_bytes = uint64_t{64} << 20;  // the arena (and ledger) size
  double upload_s = 0;                       // copy-engine time per upload, plus
  double upload_bytes_per_s = 0;             //   witness bytes / this (0: no per-byte time)
  double compute_s = 0;                      // minimum compute-stage time (SMs busy)
  double load_s = 0;                         // time to make a circuit resident
  // Tests: while this file exists, no compute stage ends (it has done its work and waits; a
  // cancel still ends it). A test creates it, sees the partition it needs in its stage, acts
  // (cancel, submit, SIGTERM, kill -9), then removes it: a handshake where a stage time would
  // race a loaded machine's clock. Checked every 5 ms (test-only; the daemon's sim_hold_file).
  std::string hold_file;
  bool hold_uploads = false;  // the hold also keeps uploads from ending (not cancellable)
};

// The tag check after compute failed: some other partition wrote into this reservation.
class VramCorruption : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class SimDevice final : public Device {
 public:
  explicit SimDevice(const SimDeviceConfig& cfg);
  ~SimDevice() override;

  uint32_t index() const override { return cfg_.index; }
  std::string name() const override { return "sim:" + std::to_string(cfg_.index); }
  uint64_t pool_bytes() const override { return cfg_.vram_bytes; }
  uint64_t resident_bytes() const override;
  void load(const CircuitEntry& c) override;
  void unload(const std::string& circuit_id) override;
  // witness + a, b, c (one domain each) + the H scalars: the CUDA prover's shape.
  uint64_t working_set_bytes(const CircuitEntry& c) const override;
  std::unique_ptr<DeviceWorker> make_worker(uint32_t worker_index) override;
  double compute_busy_s() const override;

  const SimDeviceConfig& config() const { return cfg_; }

 private:
  friend class SimWorker;
  class FifoLock;  // ticket lock: engines serve requests in arrival order

  SimDeviceConfig cfg_;
  std::unique_ptr<std::byte[]> arena_;
  std::unique_ptr<FifoLock> copy_engine_, compute_engine_;
  mutable std::mutex mu_;
  std::map<std::string, uint64_t> resident_;  // circuit id → bytes
  std::atomic<uint64_t> busy_ns_{0};
};

}  // namespace snarkd::engine
