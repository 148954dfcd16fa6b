// The engine's view of one proving device: a region of device memory managed by its VramLedger
// (the one owner of that memory: resident keys, tables and streaming slots are resident
// reservations, partitions' working sets the others), resident circuits (loaded once, shared by
// the device's workers), and workers that each carry one partition through its steps.
//
// Two implementations: SimDevice (sim_device.hpp; CPU threads stand in for the copy engine and
// the SMs, real proofs with the CPU kernels) and CudaDevice (cuda_device.hpp, when built).
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "snarkd/engine/ledger.hpp"
#include "snarkd/engine/trace.hpp"
#include "snarkd/groth16/any_curve.hpp"
#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/groth16/keys.hpp"
#include "snarkd/groth16/prove_abc.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::engine {

// A registered circuit: what a job names by id. Immutable once registered. A key of either
// curve bound to its circuit, or a bellperson key registered without its circuit (the .params
// SRS alone), which serves the a/b/c job form only. `key`, `pk` and `circuit` are the BLS12-381
// views the Filecoin paths read; for a BN254 key they are null and only devices that say they
// prove BN254 (Device::proves) ever see the entry.
struct CircuitEntry {
  std::string id;
  groth16::AnyBoundKey any_key;                   // the bound key of either curve (null: a/b/c form)
  std::shared_ptr<const groth16::BoundKey> key;   // BLS12-381: the bound key, or null
  std::shared_ptr<const groth16::ProvingKey> pk;  // BLS12-381: key->shared_pk(), or the a/b/c form's key
  std::shared_ptr<const r1cs::Circuit> circuit;   // BLS12-381: key->shared_circuit(), or null

  template <class E>
  static CircuitEntry bound(std::string id, groth16::BoundKeyPtr<E> k) {
    CircuitEntry e{std::move(id), k, nullptr, nullptr, nullptr};
    if constexpr (std::is_same_v<E, groth16::Bls12_381>) {
      e.pk = k->shared_pk();
      e.circuit = k->shared_circuit();
      e.key = std::move(k);
    }
    return e;
  }
  static CircuitEntry abc_form(std::string id, std::shared_ptr<const groth16::ProvingKey> pk) {
    return {std::move(id), groth16::BoundKeyPtr<groth16::Bls12_381>{}, nullptr, std::move(pk), nullptr};
  }
  // The key's curve (the a/b/c form's bellperson key: BLS12-381).
  groth16::CurveId curve() const { return groth16::curve_of(any_key); }
  bool abc_only() const {
    return std::visit([](const auto& k) { return k == nullptr; }, any_key);
  }
  // The bound key as curve E's (InvalidArgument for another curve or the a/b/c form).
  template <class E>
  const groth16::BoundKeyT<E>& key_of() const {
    const auto& k = groth16::as_curve<E>(any_key, "circuit '" + id + "'");
    if (!k) throw InvalidArgument("circuit '" + id + "' was registered without its circuit (a/b/c jobs only)");
    return *k;
  }
  // Inputs (ONE included) + aux: the circuit's, or what the key's IC and L points imply.
  uint64_t num_vars() const {
    if (abc_only()) return pk->vk.ic.size() + pk->l.size();
    return std::visit([](const auto& k) { return k->num_vars(); }, any_key);
  }
  uint64_t num_inputs() const {
    if (abc_only()) return pk->vk.ic.size();
    return std::visit([](const auto& k) { return k->num_inputs(); }, any_key);
  }
  uint32_t log_domain() const {
    if (abc_only()) return pk->log_domain;
    return std::visit([](const auto& k) { return k->pk().log_domain; }, any_key);
  }
  uint64_t domain_size() const { return uint64_t{1} << log_domain(); }
  // Scalars of both curves are 32 bytes (4 limbs).
  uint64_t witness_bytes() const { return num_vars() * sizeof(ff::Fr); }
};
static_assert(sizeof(ff::Fr) == sizeof(groth16::Bn254::Fr));

// Bytes of one a/b/c partition as it travels (groth16/prove_abc.hpp): inputs and aux, the a, b
// and c rows zero-padded to the domain (n values each), and the three density bit vectors.
inline uint64_t abc_density_words(uint64_t num_inputs, uint64_t num_aux) {
  return 2 * ((num_aux + 63) / 64) + (num_inputs + 63) / 64;
}
inline uint64_t abc_upload_bytes(const CircuitEntry& c) {
  const uint64_t ni = c.num_inputs(), na = c.num_vars() - ni;
  return (c.num_vars() + 3 * c.pk->domain_size()) * sizeof(ff::Fr) + abc_density_words(ni, na) * 8;
}

// How a worker reports sub-stage spans it alone can see (the simulated compute-engine wait).
class StageClock {
 public:
  virtual ~StageClock() = default;
  virtual double now() const = 0;  // seconds on the engine's clock
  virtual void span(Stage stage, double begin_s, double end_s) = 0;
  // Device time of a named phase of the compute stage (the CUDA worker's event timings).
  virtual void phase(const char* name, double seconds) = 0;
};

// One step of a partition's passage through a device: its own all-or-nothing reservation of
// `bytes`, taken when the step starts and released when it ends (the device may shrink it
// during the step, never grow it). `witness`: the step starts by uploading the witness.
struct DeviceStep {
  uint64_t bytes = 0;
  bool witness = true;
};

class DeviceWorker {
 public:
  virtual ~DeviceWorker() = default;
  // Memory stage of a step with `witness`, its reservation granted: move the witness into it
  // (the CUDA worker stages it in pinned memory and enqueues the copy on its copy stream). When
  // this returns, the host witness is no longer needed by this step. The witness is of c.curve().
  virtual void upload(const CircuitEntry& c, const groth16::AnyScalars& witness, const Reservation& r) = 0;
  // Host work on a partition's witness before its first reservation, so that it holds no device
  // memory: the CUDA and simulated workers compact a witness of mostly 0s and 1s here
  // (r1cs::CompactWitness), and their uploads then move that form. `witness` stays alive and
  // unchanged until the partition's last upload. Returns the seconds spent (0: nothing done).
  virtual double prepare(const CircuitEntry& c, const groth16::AnyScalars& witness) {
    (void)c;
    (void)witness;
    return 0;
  }
  // Returns once the device no longer touches memory through work this worker enqueued (its own
  // streams only). The engine calls it before giving back a reservation whose step ends between
  // upload and compute (a cancel there): the CUDA worker's last witness chunks may be on the wire.
  virtual void settle() {}
  // Compute stage of every step but the last (multi-step devices): partial results stay in the
  // worker for the next steps; the device may shrink r (a release, never a wait). Blocks until
  // the step's device work is done. Throws like compute().
  virtual void compute_step(const CircuitEntry& c, uint32_t step, Reservation& r, StageClock& clock,
                            const std::stop_token& stop);
  // Compute stage of the last step: ordered after this worker's last upload; blocks until the
  // sums are on the host. Throws groth16::UnsatisfiedWitness for a witness that does not satisfy
  // the circuit. `stop` is the job's cancellation: checked at every phase boundary (and between
  // streamed chunks), it makes a step throw snarkd::Cancelled once nothing on the device touches
  // the reservation or a streaming slot any more; the engine then starts no further step. The
  // device may shrink r as phases end (a release, never a wait): a streamed partition in one
  // step gives back its witness and QAP buffers before its H MSM ends.
  virtual groth16::AnyQuerySums compute(const CircuitEntry& c, Reservation& r, StageClock& clock,
                                        const std::stop_token& stop) = 0;

  // The a/b/c form (one step; Device::abc_working_set_bytes). Memory stage: move the partition
  // (checked by groth16::check_abc_assignment against c.pk) into the reservation; when it
  // returns the caller's arrays are no longer read. Compute stage: H from a, b, c (no SpMV),
  // then the five MSMs over the density-selected assignments; throws like compute() (a row
  // with a·b ≠ c: groth16::UnsatisfiedWitness). Defaults throw InvalidArgument (no such path).
  virtual void upload_abc(const CircuitEntry& c, const groth16::AbcAssignment& p, const Reservation& r);
  virtual groth16::QuerySums compute_abc(const CircuitEntry& c, const Reservation& r, StageClock& clock,
                                         const std::stop_token& stop);
};

// Copy-engine activity of a device: key chunks streamed through its slots and witness uploads.
struct CopySpan {
  std::chrono::steady_clock::time_point begin, end;
  uint64_t bytes = 0;
};
struct StreamStats {
  uint64_t key_resident_bytes = 0;  // resident key data of every loaded circuit (tables included)
  uint64_t slot_bytes = 0;          // streaming slots held
  uint64_t streamed_bytes = 0;      // key bytes copied into the slots since start
  uint64_t witness_bytes = 0;       // witness bytes uploaded since start
  uint64_t fills = 0, leases = 0;   // chunk copies, and chunk uses (leases ≥ fills: sharing)
  uint64_t open_leases = 0;         // slot leases held now (0 whenever no step runs)
  uint64_t subscriptions = 0;       // chunk subscriptions open now (likewise)
  double copy_busy_s = 0;           // time the copy engine spent on streamed chunks
  uint64_t pinned_host_bytes = 0;   // page-locked host memory holding keys (per host, shared)
};

class Device {
 public:
  virtual ~Device() = default;
  virtual uint32_t index() const = 0;
  virtual std::string name() const = 0;       // "sim:0", "cuda:0"
  virtual uint64_t pool_bytes() const = 0;    // the region its ledger manages
  virtual uint64_t resident_bytes() const = 0;
  virtual VramLedger& ledger() = 0;
  // Working sets wanted side by side (the engine's workers per device): residency planning
  // keeps room for them. Called before any load.
  virtual void set_workers(uint32_t workers) { (void)workers; }
  // Whether the device proves keys of `curve` (the engine loads a circuit only on those that do,
  // and refuses it where none does). Default: BLS12-381 only.
  virtual bool proves(groth16::CurveId curve) const { return curve == groth16::CurveId::kBls12_381; }
  // Makes the circuit resident (key parts carved from the ledger; set-up time). Throws
  // InvalidArgument if it cannot, e.g. when not even one partition would fit.
  virtual void load(const CircuitEntry& c) = 0;
  virtual void unload(const std::string& circuit_id) = 0;
  // One partition's largest working set on this device (its largest step).
  virtual uint64_t working_set_bytes(const CircuitEntry& c) const = 0;
  // How a partition of a loaded circuit passes through the device (default: one step).
  virtual std::vector<DeviceStep> steps(const CircuitEntry& c) const { return {{working_set_bytes(c), true}}; }
  // One a/b/c partition's working set on this device (a bellperson key, loaded); 0 when the
  // device has no a/b/c path for this key (the engine then runs none of its a/b/c jobs here).
  virtual uint64_t abc_working_set_bytes(const CircuitEntry& c) const { (void)c; return 0; }
  virtual std::unique_ptr<DeviceWorker> make_worker(uint32_t worker_index) = 0;
  // Seconds the compute engine has been busy since construction (simulated: exact; CUDA: 0 —
  // the engine measures compute spans instead).
  virtual double compute_busy_s() const { return 0; }
  // Where the circuit's key lives ("fully resident", "streaming: …"); empty if not loaded.
  virtual std::string residency(const std::string& circuit_id) const { (void)circuit_id; return {}; }
  virtual StreamStats stream_stats() const { return {}; }
  // Copy spans of streamed chunks, kept only after record_copy_spans(true) (the bench).
  virtual void record_copy_spans(bool on) { (void)on; }
  virtual std::vector<CopySpan> copy_spans() const { return {}; }
  // A GPU's PCI bus id ("0000:17:00.0", read at start-up), by which the daemon finds it in
  // NVML; "" for devices that are not GPUs.
  virtual std::string pci_bus_id() const { return ""; }
};

}  // namespace snarkd::engine
