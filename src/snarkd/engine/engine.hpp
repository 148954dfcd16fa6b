// The proving engine: jobs of one or many partitions, proven on one or more devices by N
// workers per device, each partition passing a memory stage and a compute stage.
//
//   submit ──► host budget (witness bytes; wait FIFO or Busy) ──► queue ordered by
//   (priority desc, submit order, partition) ──► a worker of any device pops the head and
//   runs the partition's steps (Device::steps: one; two only for a streamed key whose one
//   step does not fit), each:
//     memory stage   reserve the step's working set on the device's VRAM ledger (all-or-nothing,
//                    FIFO), move the witness in (after the last step that needs it, the
//                    witness's host bytes go back);
//     compute stage  SpMV, H, MSMs on the device (the worker's own stream; streamed key chunks
//                    through the device's slots), release the reservation;
//   finalize         blind the sums into the proof (CPU, ~ms);
//   the last partition of a job batch-verifies all of the job's proofs (self-check) before the
//   job is reported done. Partitions of many jobs are in flight at once.
//
// Deadlock freedom (docs/ARCHITECTURE.md): a partition holds at most one reservation, taken in
// one piece and released (or shrunk, never grown) before it asks for another, and the only
// things it waits for while holding it are the device's compute engine and streamed chunks,
// whose providers wait for nothing a reservation holder has. One acquisition order (host
// budget → ledger → compute / slots), no hold-and-wait on VRAM, so no cycle can form. A
// watchdog counts "no progress while work is in flight" as a deadlock (tests assert 0).
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "snarkd/engine/device.hpp"
#include "snarkd/engine/host_budget.hpp"
#include "snarkd/engine/trace.hpp"
#include "snarkd/groth16/keys.hpp"
#include "snarkd/groth16/prover.hpp"

namespace snarkd::engine {

using JobId = uint64_t;

enum class Priority : uint8_t { kLow = 0, kNormal = 1, kHigh = 2, kCritical = 3 };
const char* priority_name(Priority p);  // "low", "normal", "high", "critical"

enum class JobState : uint8_t { kQueued, kRunning, kDone, kFailed, kCancelled };
const char* job_state_name(JobState s);
inline bool is_terminal(JobState s) { return s >= JobState::kDone; }

// One partition of the a/b/c form (bellperson's synthesis result, groth16/prove_abc.hpp). The
// view's arrays belong to whoever fills `keep` (the engine holds it until the partition's
// memory stage has consumed them) or, with `keep` empty, to the caller, who keeps them alive
// until Engine::await_consumed returns for the job.
struct AbcPartition {
  groth16::AbcAssignment view;
  std::shared_ptr<const void> keep;
};

// A job is either form: `witnesses` (a circuit's full assignments, over the circuit's curve; the
// device runs the SpMV) or `abc` (a bellperson key, with or without its circuit: a, b, c already
// evaluated).
struct JobRequest {
  std::string circuit_id;
  Priority priority = Priority::kNormal;
  std::vector<groth16::AnyScalars> witnesses;  // one full assignment per partition (moved in)
  std::vector<AbcPartition> abc;               // or: one a/b/c partition each
  // Tests and the supraseal ABI: fixed r, s per partition. Empty: fresh from the OS CSPRNG.
  std::vector<groth16::AnyRandomness> randomness;
  int32_t device = -1;  // ≥ 0: only this device (its index in the engine's list) runs the job
};

// One partition's passage, seconds on the engine's clock (0 where it never got there).
// Device time of one phase of a compute stage (CUDA: "qap", "h", "msm_a", … from events).
struct PhaseTime {
  std::string name;
  double seconds = 0;
};

struct PartitionTiming {
  uint32_t device = 0, worker = 0;
  uint32_t reserved_device = 0;  // the device whose ledger granted the working set
  double submitted_s = 0, dequeued_s = 0, reserved_s = 0, uploaded_s = 0, computed_s = 0, finalized_s = 0;
  // Positions in one engine-wide sequence of submits and pops (exact priority checks: a
  // partition submitted before another was popped has the smaller submit_order).
  uint64_t submit_order = 0, dequeue_order = 0;
  std::vector<PhaseTime> phases;  // compute-stage phases the device reported (may be empty)
  double prepare_seconds = 0;     // host work on the witness before the first reservation (compaction)
};

struct JobResult {
  JobId id = 0;
  JobState state = JobState::kQueued;
  std::string circuit_id;
  Priority priority = Priority::kNormal;
  std::string error;                            // kFailed: what went wrong, naming the partition
  groth16::CurveId curve = groth16::CurveId::kBls12_381;  // the circuit's
  std::vector<groth16::AnyProof> proofs;        // kDone: one per partition
  std::vector<groth16::AnyScalars> public_inputs;  // per partition
  std::vector<PartitionTiming> timings;
  bool verified = false;                        // the self-check ran and accepted every proof
  bool unsatisfied = false;  // kFailed because the assignment does not satisfy the circuit
};

struct EngineConfig {
  uint32_t workers_per_device = 2;
  uint64_t host_budget_bytes = 0;  // 0 = unlimited
  bool self_check = true;          // batch-verify every job's proofs before reporting it done
  bool record_timeline = true;
  double watchdog_s = 30;          // no progress for this long with work in flight = a deadlock
};

// What one worker is doing now (for the daemon's Status and its live page).
struct WorkerStatus {
  uint32_t device = 0, worker = 0;
  std::string stage = "idle";  // "idle" or a stage_name() (trace.hpp)
  JobId job = 0;               // 0 when idle
  uint32_t partition = 0;
  double since_s = 0;          // engine clock: when the stage began
};

struct EngineStats {
  uint64_t submitted = 0, completed = 0, failed = 0, cancelled = 0;
  uint64_t queued_partitions = 0, in_flight_partitions = 0;
  uint64_t invalid_proofs = 0;      // self-check rejections
  uint64_t deadlocks = 0;           // watchdog firings
  uint64_t vram_overcommits = 0;    // ledger audit failures, all devices
  uint64_t peak_vram_bytes = 0;     // max over devices of the ledger's peak use
  uint64_t host_in_use_bytes = 0, host_peak_bytes = 0;
  std::vector<double> compute_busy_s;  // per device (simulated devices: the SMs' busy time)
  std::vector<LedgerStats> ledgers;    // per device, in device order
  std::vector<WorkerStatus> workers;   // device-major: workers_per_device entries per device
};

class Engine {
 public:
  Engine(std::vector<std::unique_ptr<Device>> devices, const EngineConfig& cfg);
  ~Engine();  // cancels what is queued, lets in-flight partitions finish their stage, joins
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Makes a circuit resident on every device that proves its curve (Device::proves). Throws
  // InvalidArgument if the id is taken, no device proves the curve, or one partition's working
  // set exceeds a device's ledger.
  void register_circuit(const std::string& id, groth16::AnyBoundKey key);
  // A bellperson key without its circuit, for a/b/c jobs only (supraseal's SRS), resident on
  // every device with an a/b/c path for it (InvalidArgument if none has, or for a snarkjs key).
  void register_abc_key(const std::string& id, std::shared_ptr<const groth16::ProvingKey> pk);
  // Throws InvalidArgument while jobs of the circuit are unfinished, or for an unknown id.
  void unregister_circuit(const std::string& id);
  std::vector<std::string> circuits() const;

  // Accepts a job or throws: InvalidArgument (unknown circuit, no partitions, a witness of the
  // wrong length or with w[0] ≠ 1, randomness of the wrong count), Busy (host budget full for
  // longer than `wait`). The job id is ours, never the caller's.
  // a/b/c jobs: InvalidArgument also for a partition that does not fit the key
  // (groth16::check_abc_assignment, named "partition k"), a witness-form job of an a/b/c-only
  // key, or a device index that is out of range or has no a/b/c path for the key.
  JobId submit(JobRequest req, std::chrono::milliseconds wait = std::chrono::milliseconds::max());
  // Blocks until no partition of the job reads its a/b/c arrays any more: each has passed its
  // memory stage or left (job finished). Then a caller that lent the arrays may free them.
  // InvalidArgument for an unknown id.
  void await_consumed(JobId id);
  // The job's result once terminal; nullopt if `timeout` passed first. InvalidArgument for an
  // unknown id.
  std::optional<JobResult> await(JobId id, std::optional<std::chrono::milliseconds> timeout = std::nullopt);
  JobResult peek(JobId id) const;  // current state without waiting
  // Cancels a queued or running job: queued partitions leave at once, in-flight ones stop at
  // their device's next phase boundary (the job's stop token) and give their memory back.
  // False if the job had already finished.
  bool cancel(JobId id);
  // Waits until the job is finished and none of its partitions is on a device any more (a
  // cancelled job's stop has taken effect). False if `timeout` passed first; InvalidArgument
  // for an unknown id.
  bool wait_stopped(JobId id, std::chrono::milliseconds timeout);

  // Drops a finished job's record (a long-running daemon keeps its own results). InvalidArgument
  // for an unknown or unfinished job.
  void forget(JobId id);
  // While paused, workers start no new partition (in-flight ones finish): the daemon's drain.
  void set_paused(bool paused);

  EngineStats stats() const;
  // Blocks until the number of finished jobs (completed + failed + cancelled) differs from
  // `seen` or `timeout` passes, and returns that number: the daemon's watcher wakes when a job
  // ends instead of polling stats().
  uint64_t wait_finished(uint64_t seen, std::chrono::milliseconds timeout) const;
  Timeline timeline() const;  // spans so far (record_timeline)
  double now() const;         // seconds since the engine started
  const std::vector<std::unique_ptr<Device>>& devices() const;

 private:
  void register_entry(CircuitEntry entry);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace snarkd::engine
