// The engine's view of one proving device: a region of device memory managed by a VramLedger,
// resident circuits (proving key + matrices, loaded once, shared by the device's workers), and
// workers that each carry one partition through the memory stage and the compute stage.
//
// Two implementations: SimDevice (sim_device.hpp; CPU threads stand in for the copy engine and
// the SMs, real proofs with the CPU kernels) and CudaDevice (cuda_device.hpp, when built).
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <stop_token>
#include <string>

#include "snarkd/engine/ledger.hpp"
#include "snarkd/engine/trace.hpp"
#include "snarkd/groth16/keys.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::engine {

// A registered circuit: what a job names by id. Immutable once registered.
struct CircuitEntry {
  std::string id;
  std::shared_ptr<const groth16::ProvingKey> pk;  // bound to circuit (groth16::bind_circuit)
  std::shared_ptr<const r1cs::Circuit> circuit;
  uint64_t num_vars() const { return circuit->num_vars(); }
  uint64_t witness_bytes() const { return num_vars() * sizeof(ff::Fr); }
};

// How a worker reports sub-stage spans it alone can see (the simulated compute-engine wait).
class StageClock {
 public:
  virtual ~StageClock() = default;
  virtual double now() const = 0;  // seconds on the engine's clock
  virtual void span(Stage stage, double begin_s, double end_s) = 0;
  // Device time of a named phase of the compute stage (the CUDA worker's event timings).
  virtual void phase(const char* name, double seconds) = 0;
};

class DeviceWorker {
 public:
  virtual ~DeviceWorker() = default;
  // Memory stage, the partition's reservation granted: move the witness into it (the CUDA worker
  // stages it in pinned memory and enqueues the copy on its copy stream). When this returns, the
  // host witness is no longer needed.
  virtual void upload(const CircuitEntry& c, std::span<const ff::Fr> witness, const Reservation& r) = 0;
  // Compute stage: ordered after this worker's last upload; blocks until the sums are on the
  // host. Throws groth16::UnsatisfiedWitness for a witness that does not satisfy the circuit.
  // `stop` is the job's cancellation: checked at every phase boundary, it makes compute throw
  // snarkd::Cancelled once nothing on the device touches the reservation any more.
  virtual groth16::QuerySums compute(const CircuitEntry& c, const Reservation& r, StageClock& clock,
                                     const std::stop_token& stop) = 0;
};

class Device {
 public:
  virtual ~Device() = default;
  virtual uint32_t index() const = 0;
  virtual std::string name() const = 0;       // "sim:0", "cuda:0"
  virtual uint64_t pool_bytes() const = 0;    // the region its ledger manages
  virtual uint64_t resident_bytes() const = 0;
  // Makes the circuit resident (set-up time: may allocate). Throws InvalidArgument if it cannot.
  virtual void load(const CircuitEntry& c) = 0;
  virtual void unload(const std::string& circuit_id) = 0;
  // One partition's whole working set on this device (what the memory stage reserves).
  virtual uint64_t working_set_bytes(const CircuitEntry& c) const = 0;
  virtual std::unique_ptr<DeviceWorker> make_worker(uint32_t worker_index) = 0;
  // Seconds the compute engine has been busy since construction (simulated: exact; CUDA: 0 —
  // the engine measures compute spans instead).
  virtual double compute_busy_s() const { return 0; }
  // A GPU's PCI bus id ("0000:17:00.0", read at start-up), by which the daemon finds it in
  // NVML; "" for devices that are not GPUs.
  virtual std::string pci_bus_id() const { return ""; }
};

}  // namespace snarkd::engine
