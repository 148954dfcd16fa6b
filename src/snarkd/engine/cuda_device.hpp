// A GPU as an engine device: one pool of device memory allocated at start-up and owned by the
// device's ledger — streaming slots, resident keys (cuda::DeviceProvingKey placed in a resident
// reservation, tables included) and partitions' working sets are all carved from it — and
// workers with their own non-blocking copy and compute streams.
//
// After the constructor nothing here calls cudaMalloc/cudaFree, cudaMemGetInfo or
// cudaDeviceSynchronize: loads place keys in the pool and copy on the device's own loader
// stream; partitions use per-stream copies, kernels and events. Keys are pinned in host memory
// once per process at load (cuda/host_pinning.hpp: why that is safe there).
//
// A circuit whose key fits beside the workers' working sets is fully resident and a partition
// is one step: witness upload (cuda::WitnessStager), then cuda::prove_on_stream. Otherwise the
// rest of the key streams through the slots (engine/streamer.hpp, a copy stream per slot,
// event-ordered: a fill waits for the slot's previous readers' events, readers wait for the
// fill's) and a partition runs the two steps of cuda/prover_stream.hpp.
//
// BN254 keys (snarkjs .zkey, circom's circuits) go through cuda/prover_snarkjs.hpp: the whole key
// (points, A/B matrices, dictionary, NTT tables: SnarkjsDeviceKey::region_bytes) is placed in one
// resident reservation, or the load is refused — they never stream (the streamed prover is
// BLS12-381's) — and a partition is one step of one SnarkjsWorkspaceLayout: witness | a | b, c,
// NTT scratch, reused by the MSM scratch | the MSMs' scalars and partials | sums.
//
// Tuning (environment, read at construction): SNARKD_STREAM_SLOTS (4) slots of SNARKD_SLOT_MIB
// (min(600, pool/27) MiB: ≈ 6.3·10^6 G1 points with their index entries; cuda_device.cpp).
#pragma once
#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "snarkd/cuda/host_pinning.hpp"
#include "snarkd/cuda/prover.hpp"
#include "snarkd/cuda/prover_abc.hpp"
#include "snarkd/cuda/prover_snarkjs.hpp"
#include "snarkd/cuda/prover_stream.hpp"
#include "snarkd/cuda/runtime.hpp"
#include "snarkd/engine/device.hpp"
#include "snarkd/engine/key_parts.hpp"
#include "snarkd/engine/residency.hpp"
#include "snarkd/engine/streamed_keys.hpp"
#include "snarkd/engine/streamer.hpp"

namespace snarkd::engine {

class CudaDevice final : public Device {
 public:
  static int count();  // visible GPUs; 0 without a driver
  // Device memory in use on GPU `ordinal` (cudaMemGetInfo: start-up only, e.g. the bench before
  // its devices exist).
  static uint64_t memory_used(uint32_t ordinal);
  // Starts or stops the profiler's collection (ncu --profile-from-start off): a process-wide
  // switch with no synchronisation of its own, for the bench between runs.
  static void profile(bool on);
  // ledger_bytes = 0: the free memory now less a 2 GiB margin (CUDA context, kernel modules);
  // otherwise a cap on all the engine puts on the device. The pool (the ledger's bytes: keys,
  // slots, working sets) is that less room for the workers' streams and events, which CUDA
  // keeps outside it (8 MiB; 1/256 of a smaller cap).
  CudaDevice(uint32_t ordinal, uint64_t ledger_bytes);
  ~CudaDevice() override;

  uint32_t index() const override { return ordinal_; }
  std::string name() const override { return "cuda:" + std::to_string(ordinal_); }
  uint64_t pool_bytes() const override { return pool_bytes_; }
  // BLS12-381 keys of both flavours (cuda/prover.hpp) and BN254 snarkjs keys (prover_snarkjs.hpp).
  bool proves(groth16::CurveId curve) const override {
    return curve == groth16::CurveId::kBls12_381 || curve == groth16::CurveId::kBn254;
  }
  uint64_t resident_bytes() const override;
  VramLedger& ledger() override { return *ledger_; }
  void set_workers(uint32_t workers) override;
  void load(const CircuitEntry& c) override;
  void unload(const std::string& circuit_id) override;
  uint64_t working_set_bytes(const CircuitEntry& c) const override;
  std::vector<DeviceStep> steps(const CircuitEntry& c) const override;
  // Keys with an a/b/c path here: placed alone (AbcDeviceKey) or fully resident bellperson keys.
  uint64_t abc_working_set_bytes(const CircuitEntry& c) const override;
  std::unique_ptr<DeviceWorker> make_worker(uint32_t worker_index) override;
  std::string residency(const std::string& circuit_id) const override;
  StreamStats stream_stats() const override;
  void record_copy_spans(bool on) override;
  std::vector<CopySpan> copy_spans() const override;
  std::string pci_bus_id() const override { return pci_bus_id_; }

  std::byte* pool() const { return pool_.data(); }

  // The host side of a key, once per process however many devices load it: the key's and the
  // circuit's arrays pinned in place, and the A/B density index lists (streamed with their
  // points), pinned likewise.
  struct HostKey {
    std::shared_ptr<const groth16::ProvingKey> pk;  // what is pinned outlives the pins
    std::shared_ptr<const r1cs::Circuit> circuit;
    std::vector<uint32_t> a_list, b_list;
    std::array<std::optional<r1cs::ShortRows>, 3> short_rows;  // the matrices' short forms (key_parts.hpp)
    cuda::PinnedRanges pins;  // declared last: unpinned first
  };

  // The pinned host key of c, shared per process (loads take it; a holder keeps it pinned).
  static std::shared_ptr<const HostKey> host_key(const CircuitEntry& c);

  // A loaded circuit: its chunk catalogue, residency plan, step layout, the key placed in its
  // resident reservation, and its streamed chunks' ids (by part). A BN254 key has only `plan`
  // (full, its region's bytes, one step of its workspace), `key` and `bn254`.
  struct Loaded {
    CircuitEntry entry;
    std::shared_ptr<const HostKey> host;
    KeyCatalogue cat;
    StepSizes sizes;
    ResidencyPlan plan;
    cuda::StreamLayout layout;
    // A streamed partition whose witness is read in its compact form (in_place_layout in
    // cuda_device.cpp): the same step sizes, the freed memory spent on a wider carried H window
    // and unsplit H transforms where they fit; nullopt: none.
    std::optional<cuda::StreamLayout> in_place;
    Reservation key;
    std::unique_ptr<cuda::DeviceProvingKey> dkey;  // BLS12-381 keys
    std::unique_ptr<cuda::SnarkjsDeviceKey<groth16::Bn254>> bn254;  // BN254 keys, placed whole in `key`
    std::unique_ptr<cuda::AbcDeviceKey> abc;  // the a/b/c form's key (null: no such path here)
    cuda::AbcLayout abc_layout;
    StreamedIds ids;
  };
  std::shared_ptr<const Loaded> loaded(const std::string& circuit_id) const;

 private:
  friend class CudaWorker;
  friend class CudaBackend;
  void fill(uint32_t slot, const StreamChunk& chunk, const std::vector<uint32_t>& previous);
  // A key registered without its circuit: its points and tables placed whole (AbcDeviceKey);
  // keys that do not fit beside the working sets are refused (no streaming for this form yet).
  void load_abc_only(const CircuitEntry& c);
  // A BN254 key: placed whole beside one partition's working set (and the working sets of the
  // keys already loaded), or refused.
  void load_bn254(const CircuitEntry& c);
  // The largest working set of the keys loaded here (witness and a/b/c forms): what every later
  // placement must leave room for.
  uint64_t loaded_working_set_bytes() const;

  uint32_t ordinal_;
  uint64_t pool_bytes_ = 0, slot_bytes_ = 0;
  uint32_t workers_ = 1;
  std::string pci_bus_id_;
  cuda::DeviceBuffer<std::byte> pool_;
  std::unique_ptr<VramLedger> ledger_;
  Reservation slots_;
  cuda::Stream loader_;                // key placement
  // Slot fills, one stream per slot: a fill waits for its slot's previous readers, and on one
  // shared stream that wait (behind an H Pippenger of ~75 ms) held up the fills of the other
  // slots that a faster consumer beside it was waiting for.
  std::vector<cuda::Stream> copies_;
  std::vector<cuda::Event> ready_;                   // per slot: recorded after its fill
  std::vector<std::vector<cuda::Event>> consumed_;   // per worker, per slot: after its reads
  std::unique_ptr<ChunkStreamer::Backend> backend_;
  std::unique_ptr<ChunkStreamer> streamer_;
  std::mutex load_mu_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<const Loaded>> loaded_;
  bool record_spans_ = false;          // mu_
  std::vector<CopySpan> spans_;        // mu_
  double copy_busy_s_ = 0;             // mu_: the union of the fills' spans
  std::chrono::steady_clock::time_point copy_busy_until_{};  // mu_
  uint64_t witness_bytes_ = 0;         // mu_
};

}  // namespace snarkd::engine
