// A simulated proving device, so the engine's scheduling runs (and is tested) without a GPU.
//
// CPU threads stand in for the hardware: a copy engine (one copy at a time per device, FIFO:
// witness uploads and streamed key chunks) and the SMs (one compute stage at a time per device,
// FIFO — a partition's kernels fill the GPU). "VRAM" is a host arena of the configured size,
// managed by the device's ledger like a GPU's pool: resident key parts are copied into it at
// load, streamed chunks into its slots, witnesses into the working sets.
//
// It models the CUDA device's memory plan (residency.hpp): fully resident when the key fits
// beside the workers' working sets — then the compute stage reads the witness back from the
// arena and runs the real CPU prover — otherwise two steps over the same chunk catalogue the
// GPU streams (key_parts.hpp): step 0 evaluates the QAP rows from the matrices' chunks (arena:
// resident region or a slot), writes the H scalars into its reservation, shrinks it and sums
// the H MSM over h's chunks read from the arena; step 1 sums A, B and L over theirs. So a bug in
// slot handling, residency or reservations yields a wrong sum and an invalid proof. Besides,
// every byte of a reservation that no data covers is filled with a per-partition tag at upload
// and checked after compute (VramCorruption on a mismatch).
#pragma once
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

#include "snarkd/engine/device.hpp"
#include "snarkd/engine/key_parts.hpp"
#include "snarkd/engine/residency.hpp"
#include "snarkd/engine/streamed_keys.hpp"
#include "snarkd/engine/streamer.hpp"

namespace snarkd::engine {

struct SimDeviceConfig {
  uint32_t index = 0;
  uint64_t vram_bytes = uint64_t{64} << 20;  // the arena (and ledger) size
  double upload_s = 0;                       // copy-engine time per upload, plus
  double upload_bytes_per_s = 0;             //   witness bytes / this (0: no per-byte time)
  double compute_s = 0;                      // minimum compute-stage time per partition (SMs busy)
  // Streamed partitions: minimum time of step 0 (QAP, H, H MSM) and of step 1 (the witness
  // MSMs); < 0: half of compute_s each. The bench sets them from a GPU's measured phases.
  double step0_s = -1, step1_s = -1;
  // 1: one compute stage at a time (a partition's kernels fill the GPU). 2: the witness MSMs
  // (step 1: PCIe-bound, bases streamed) have a lane of their own beside steps 0 and full
  // partitions (compute-bound): a GPU running them on two streams.
  uint32_t compute_lanes = 1;
  // Streamed keys: one step per partition (the witness uploaded once, as the CUDA device does);
  // false: the two steps q and m, each with its own reservation and witness upload.
  bool one_step = true;
  double load_s = 0;                         // time to make a circuit resident
  double copy_bytes_per_s = 0;               // streamed key chunks over the copy engine (0: instant)
  uint64_t slot_bytes = 0;                   // streaming slot size; 0: vram / 16 in [4 KiB, 1 GiB]
  uint32_t slots = 3;                        // streaming slots (0: keys must fit; at most half of vram)
  // Tests: while this file exists, no compute stage ends (it has done its work and waits; a
  // cancel still ends it) — each step's, on a device whose keys stream. A test creates it, sees
  // the partition it needs in its stage, acts (cancel, submit, SIGTERM, kill -9), then removes
  // it: a handshake where a stage time would race a loaded machine's clock. Checked every 5 ms
  // (test-only; the daemon's sim_hold_file).
  std::string hold_file;
  bool hold_uploads = false;  // the hold also keeps uploads from ending (not cancellable)
  bool hold_fills = false;    // ... and streamed chunk copies (a step then waits for its chunks)
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
  VramLedger& ledger() override { return *ledger_; }
  void set_workers(uint32_t workers) override { workers_ = workers; }
  // Both curves: BLS12-381 keys as planned by residency.hpp (resident or streamed), keys of other
  // curves (BN254 snarkjs keys) fully resident in one step, as the CUDA device places them.
  bool proves(groth16::CurveId) const override { return true; }
  void load(const CircuitEntry& c) override;
  void unload(const std::string& circuit_id) override;
  uint64_t working_set_bytes(const CircuitEntry& c) const override;
  std::vector<DeviceStep> steps(const CircuitEntry& c) const override;
  uint64_t abc_working_set_bytes(const CircuitEntry& c) const override;
  std::unique_ptr<DeviceWorker> make_worker(uint32_t worker_index) override;
  double compute_busy_s() const override;
  std::string residency(const std::string& circuit_id) const override;
  StreamStats stream_stats() const override;
  void record_copy_spans(bool on) override;
  std::vector<CopySpan> copy_spans() const override;

  const SimDeviceConfig& config() const { return cfg_; }
  uint64_t slot_bytes() const { return slot_bytes_; }

  // Working sets of this model (witness w, vectors of n = domain size, Fr each):
  // full = w + 4n; step 0 = [w | b | n/4 scratch | a → H scalars] shrinking to [n/4 | H];
  // step 1 = w + n/2.
  static StepSizes sizes(const CircuitEntry& c);
  // The a/b/c form (one step; the key stays in host memory, unmodelled): the upload's arena
  // layout [inputs | aux | a | b | c (n values each, zero-padded) | density words] — as the
  // CUDA device's — plus n values for the H scalars, the rest of the reservation tagged.
  struct AbcLayout {
    uint64_t w = 0, a = 0, b = 0, c = 0, words = 0, end = 0, total = 0;
  };
  static AbcLayout abc_layout(const CircuitEntry& c);

 private:
  friend class SimWorker;
  friend class SimBackend;
  // Ticket lock: the copy and compute engines serve requests in arrival order.
  class FifoLock {
   public:
    void lock() { lock(std::stop_token{}); }
    // Waits for its turn; a stop request first gives the turn up (it is skipped when it comes)
    // and throws Cancelled, so a cancelled partition does not wait out the stages queued before it.
    void lock(const std::stop_token& stop);
    void unlock();

   private:
    std::mutex mu_;
    std::condition_variable_any cv_;
    uint64_t next_ = 0, serving_ = 0;
    std::set<uint64_t> abandoned_;  // tickets whose waiter was cancelled
  };
  // A loaded circuit: its chunk catalogue, residency plan, resident reservation (the arena
  // holds the resident matrices and query prefixes, streaming only) and streamed chunk ids.
  struct Loaded {
    CircuitEntry entry;
    std::vector<uint32_t> a_index, b_index;
    std::array<std::optional<r1cs::ShortRows>, 3> short_rows;  // the matrices' short forms (key_parts.hpp)
    KeyCatalogue cat;
    StepSizes sizes;
    ResidencyPlan plan;
    Reservation key;
    std::array<std::array<uint64_t, 3>, 3> matrix_at{};  // arena offsets: [A, B, C][row_ptr, col, coeff]
    std::array<std::array<uint64_t, 2>, kQueryParts> part_at{};  // arena offsets: [points, index]
    StreamedIds ids;  // by key part (the streamed chunks)
  };

  std::shared_ptr<const Loaded> loaded(const std::string& id) const;
  double step_seconds(uint32_t step) const {
    const double s = step == 0 ? cfg_.step0_s : cfg_.step1_s;
    return s < 0 ? 0.5 * cfg_.compute_s : s;
  }
  void fill(uint32_t slot, const StreamChunk& chunk);  // the streamer's backend
  std::byte* slot_data(uint32_t slot) const;
  // The test hold (SimDeviceConfig::hold_file): false if it returned because of a stop.
  static bool wait_while_held(const std::string& hold_file, const std::stop_token& stop = {});
  void copy_resident(Loaded& l);
  void load_whole(Loaded& l);  // a key of another curve than BLS12-381: resident whole, one step

  SimDeviceConfig cfg_;
  uint64_t slot_bytes_ = 0;
  uint32_t workers_ = 1;
  std::unique_ptr<std::byte[]> arena_;
  std::unique_ptr<VramLedger> ledger_;
  std::unique_ptr<FifoLock> copy_engine_, compute_engine_, msm_lane_;
  std::unique_ptr<ChunkStreamer::Backend> backend_;
  std::unique_ptr<ChunkStreamer> streamer_;
  std::mutex load_mu_;          // loads and unloads, one at a time
  Reservation slots_;           // the streaming slots, carved at construction
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<const Loaded>> loaded_;
  std::vector<CopySpan> spans_;  // mu_
  bool record_spans_ = false;
  double copy_busy_s_ = 0;       // mu_
  std::atomic<uint64_t> busy_ns_{0}, witness_bytes_{0};
};

}  // namespace snarkd::engine
