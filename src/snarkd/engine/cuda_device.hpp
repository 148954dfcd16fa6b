// A GPU as an engine device: one pool of device memory allocated at start-up (the ledger's
// region), resident keys (cuda::DeviceProvingKey, one per circuit, shared by the workers), and
// workers with their own non-blocking copy and compute streams.
//
// Memory stage (upload): the witness goes through two 64 MiB pinned chunks per worker (allocated
// with the worker, at start-up) on the worker's copy stream, double-buffered: memcpy into one
// chunk while the other is on the wire; an event marks the end of the upload. Compute stage: the
// compute stream waits for that event (on the device, no host block), runs cuda::prove_on_stream,
// and the host thread sleeps on a blocking-sync event until the sums are in pinned memory.
// Nothing here calls a device-wide CUDA API after start-up: no cudaMalloc/cudaFree, no
// cudaDeviceSynchronize, no cudaMemGetInfo — only per-stream copies, kernels and events.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "snarkd/cuda/prover.hpp"
#include "snarkd/cuda/runtime.hpp"
#include "snarkd/engine/device.hpp"

namespace snarkd::engine {

class CudaDevice final : public Device {
 public:
  static int count();  // visible GPUs; 0 without a driver
  // Device memory one resident copy of this circuit's key takes, measured by loading it once
  // (set-up time): what a pool sized from the free memory must leave for register_circuit.
  static uint64_t measure_resident_bytes(uint32_t ordinal, const CircuitEntry& c);
  // ledger_bytes = 0: the free memory now, less key_reserve_bytes and a 2 GiB margin for the
  // CUDA context, streams and the keys' NTT tables.
  CudaDevice(uint32_t ordinal, uint64_t ledger_bytes, uint64_t key_reserve_bytes = 0);
  ~CudaDevice() override;

  uint32_t index() const override { return ordinal_; }
  std::string name() const override { return "cuda:" + std::to_string(ordinal_); }
  uint64_t pool_bytes() const override { return pool_bytes_; }
  uint64_t resident_bytes() const override;
  void load(const CircuitEntry& c) override;
  void unload(const std::string& circuit_id) override;
  uint64_t working_set_bytes(const CircuitEntry& c) const override;
  std::unique_ptr<DeviceWorker> make_worker(uint32_t worker_index) override;
  std::string pci_bus_id() const override { return pci_bus_id_; }

  std::byte* pool() const { return pool_.data(); }
  std::shared_ptr<const cuda::DeviceProvingKey> key(const std::string& circuit_id) const;

 private:
  uint32_t ordinal_;
  uint64_t pool_bytes_ = 0;
  std::string pci_bus_id_;
  cuda::DeviceBuffer<std::byte> pool_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<const cuda::DeviceProvingKey>> keys_;
};

}  // namespace snarkd::engine
