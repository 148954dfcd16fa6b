#include "snarkd/engine/cuda_device.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "snarkd/util/error.hpp"
#include "snarkd/util/threads.hpp"

namespace snarkd::engine {

namespace {
constexpr uint64_t kChunkBytes = uint64_t{64} << 20;
constexpr uint64_t kMarginBytes = uint64_t{2} << 30;
}  // namespace

int CudaDevice::count() { return cuda::device_count(); }

uint64_t CudaDevice::measure_resident_bytes(uint32_t ordinal, const CircuitEntry& c) {
  return cuda::DeviceProvingKey(static_cast<int>(ordinal), *c.pk, *c.circuit).resident_bytes();
}

CudaDevice::CudaDevice(uint32_t ordinal, uint64_t ledger_bytes, uint64_t key_reserve_bytes) : ordinal_(ordinal) {
  cuda::DeviceGuard g(static_cast<int>(ordinal));
  uint64_t bytes = ledger_bytes;
  if (bytes == 0) {
    size_t free_b = 0, total_b = 0;
    SNARKD_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));  // start-up only
    if (free_b <= key_reserve_bytes + kMarginBytes)
      throw InvalidArgument(name() + ": " + std::to_string(free_b >> 20) + " MiB free, less than the keys' reserve");
    bytes = free_b - key_reserve_bytes - kMarginBytes;
  }
  pool_bytes_ = bytes / VramLedger::kAlignment * VramLedger::kAlignment;
  pool_ = cuda::DeviceBuffer<std::byte>(pool_bytes_);
  char bus[32] = {};  // a query, not a device-wide call; start-up anyway
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, static_cast<int>(ordinal)) == cudaSuccess) pci_bus_id_ = bus;
}

CudaDevice::~CudaDevice() = default;

uint64_t CudaDevice::resident_bytes() const {
  std::lock_guard l(mu_);
  uint64_t sum = 0;
  for (const auto& [id, k] : keys_) sum += k->resident_bytes();
  return sum;
}

void CudaDevice::load(const CircuitEntry& c) {
  auto key = std::make_shared<const cuda::DeviceProvingKey>(int(ordinal_), *c.pk, *c.circuit);
  std::lock_guard l(mu_);
  keys_[c.id] = std::move(key);
}

void CudaDevice::unload(const std::string& circuit_id) {
  std::shared_ptr<const cuda::DeviceProvingKey> dropped;
  std::lock_guard l(mu_);
  auto it = keys_.find(circuit_id);
  if (it == keys_.end()) return;
  dropped = std::move(it->second);  // freed here, outside any stage: unregister refuses while in use
  keys_.erase(it);
}

std::shared_ptr<const cuda::DeviceProvingKey> CudaDevice::key(const std::string& circuit_id) const {
  std::lock_guard l(mu_);
  auto it = keys_.find(circuit_id);
  if (it == keys_.end()) throw InvalidArgument(name() + ": circuit '" + circuit_id + "' is not resident");
  return it->second;
}

uint64_t CudaDevice::working_set_bytes(const CircuitEntry& c) const { return key(c.id)->workspace_bytes(); }

namespace {

// memcpy of len bytes on kCopyThreads threads. Staging a PoRep witness (4.2 GB) into the pinned
// chunks on one thread took 1.0–1.15 s (≈ 4 GB/s: the host memcpy, not PCIe), and workers that
// uploaded at the same moment left the device idle (timeline of 2026-11-30, H200, 3 workers).
void parallel_copy(std::byte* dst, const std::byte* src, uint64_t len) {
  constexpr uint64_t kCopyThreads = 4;
  const uint64_t slice = (len + kCopyThreads - 1) / kCopyThreads;
  run_on_threads(kCopyThreads, [&](size_t k) {
    const uint64_t off = std::min(len, k * slice);
    std::memcpy(dst + off, src + off, std::min(slice, len - off));
  });
}

class CudaWorker final : public DeviceWorker {
 public:
  explicit CudaWorker(CudaDevice& d) : d_(d), guard_(int(d.index())) {
    chunk_[0] = cuda::PinnedBuffer<std::byte>(kChunkBytes);
    chunk_[1] = cuda::PinnedBuffer<std::byte>(kChunkBytes);
    sums_ = cuda::PinnedBuffer<cuda::DeviceSums>(1);
    for (auto& e : phase_) e = cuda::Event(true);
  }

  void upload(const CircuitEntry& c, std::span<const ff::Fr> witness, const Reservation& r) override {
    cuda::DeviceGuard g(int(d_.index()));
    const auto key = d_.key(c.id);
    if (r.bytes() < key->workspace_bytes()) throw InvalidArgument(d_.name() + ": reservation smaller than the workspace");
    std::byte* dst = d_.pool() + r.offset() + key->layout().witness;
    const auto* src = reinterpret_cast<const std::byte*>(witness.data());
    const uint64_t total = witness.size_bytes();
    for (uint64_t off = 0, k = 0; off < total; off += kChunkBytes, k ^= 1) {
      const uint64_t len = std::min(kChunkBytes, total - off);
      chunk_done_[k].synchronize();  // the chunk's previous copy has left it
      parallel_copy(chunk_[k].data(), src + off, len);
      SNARKD_CUDA_CHECK(cudaMemcpyAsync(dst + off, chunk_[k].data(), len, cudaMemcpyHostToDevice, copy_));
      chunk_done_[k].record(copy_);
    }
    uploaded_.record(copy_);
    // The host witness may go now: every byte is in a pinned chunk or already copied.
  }

  groth16::QuerySums compute(const CircuitEntry& c, const Reservation& r, StageClock& clock,
                             const std::stop_token& stop) override {
    cuda::DeviceGuard g(int(d_.index()));
    const auto key = d_.key(c.id);
    uploaded_.wait_in(compute_);
    cuda::PhaseEvents ev;
    for (size_t k = 0; k < phase_.size(); ++k) ev.at[k] = phase_[k].get();
    cuda::prove_on_stream(*key, d_.pool() + r.offset(), sums_.data(), compute_, &ev, stop);
    computed_.record(compute_);
    computed_.synchronize();  // this worker's stream only; sleeps (blocking-sync event)
    const auto seconds = cuda::phase_seconds(ev);
    for (size_t k = 0; k < seconds.size(); ++k) clock.phase(cuda::kProverPhaseNames[k], seconds[k]);
    return cuda::to_query_sums(*key, *sums_.data());
  }

 private:
  CudaDevice& d_;
  cuda::DeviceGuard guard_;  // streams and events below belong to the device
  cuda::Stream copy_, compute_;
  cuda::Event chunk_done_[2] = {cuda::Event::blocking(), cuda::Event::blocking()};
  cuda::Event uploaded_, computed_ = cuda::Event::blocking();
  std::array<cuda::Event, cuda::kProverPhases + 1> phase_;  // timing events (constructor)
  cuda::PinnedBuffer<std::byte> chunk_[2];
  cuda::PinnedBuffer<cuda::DeviceSums> sums_;
};

}  // namespace

std::unique_ptr<DeviceWorker> CudaDevice::make_worker(uint32_t) { return std::make_unique<CudaWorker>(*this); }

}  // namespace snarkd::engine
