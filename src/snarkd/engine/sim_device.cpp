#include "snarkd/engine/sim_device.hpp"

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <set>
#include <thread>

#include "snarkd/util/cancel.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::engine {

namespace {

using Clock = std::chrono::steady_clock;

void wait_until(Clock::time_point t) { std::this_thread::sleep_until(t); }

// Returns false if it returned because of a stop request.
bool wait_while_held(const std::string& hold_file, const std::stop_token& stop = {}) {
  while (!hold_file.empty() && std::filesystem::exists(hold_file))
    if (!sleep_until(Clock::now() + std::chrono::milliseconds(5), stop)) return false;
  return true;
}

Clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// The 8-byte pattern that fills a reservation past its witness: distinct per reservation use.
uint64_t tag_of(uint64_t offset, uint64_t serial) {
  uint64_t x = offset * 0x9e3779b97f4a7c15ULL ^ serial;
  x ^= x >> 31;
  return x * 0xbf58476d1ce4e5b9ULL | 1;
}

}  // namespace

class SimDevice::FifoLock {
 public:
  void lock() { lock(std::stop_token{}); }
  // Waits for its turn; a stop request first gives the turn up (it is skipped when it comes) and
  // throws Cancelled, so a cancelled partition does not wait out the stages queued before it.
  void lock(const std::stop_token& stop) {
    std::unique_lock l(mu_);
    const uint64_t ticket = next_++;
    if (cv_.wait(l, stop, [&] { return serving_ == ticket; })) return;
    abandoned_.insert(ticket);
    throw Cancelled("simulated device: cancelled while waiting for the compute engine");
  }
  void unlock() {
    std::lock_guard l(mu_);
    ++serving_;
    while (abandoned_.erase(serving_)) ++serving_;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable_any cv_;
  uint64_t next_ = 0, serving_ = 0;
  std::set<uint64_t> abandoned_;  // tickets whose waiter was cancelled
};

SimDevice::SimDevice(const SimDeviceConfig& cfg)
    : cfg_(cfg), copy_engine_(std::make_unique<FifoLock>()), compute_engine_(std::make_unique<FifoLock>()) {
  if (cfg.vram_bytes == 0 || cfg.vram_bytes > (uint64_t{4} << 30))
    throw InvalidArgument("simulated device: vram_bytes must be in (0, 4 GiB], got " + std::to_string(cfg.vram_bytes));
  arena_.reset(new std::byte[cfg.vram_bytes]);  // default-initialised: untouched pages cost no RSS
}

SimDevice::~SimDevice() = default;

uint64_t SimDevice::resident_bytes() const {
  std::lock_guard l(mu_);
  uint64_t sum = 0;
  for (const auto& [id, bytes] : resident_) sum += bytes;
  return sum;
}

void SimDevice::load(const CircuitEntry& c) {
  const auto& pk = *c.pk;
  const uint64_t bytes = (pk.a.size() + pk.b_g1.size() + pk.l.size() + pk.h.size()) * sizeof(ec::G1Affine) +
                         pk.b_g2.size() * sizeof(ec::G2Affine);
  if (cfg_.load_s > 0) std::this_thread::sleep_for(seconds(cfg_.load_s));
  std::lock_guard l(mu_);
  resident_[c.id] = bytes;
}

void SimDevice::unload(const std::string& circuit_id) {
  std::lock_guard l(mu_);
  resident_.erase(circuit_id);
}

uint64_t SimDevice::working_set_bytes(const CircuitEntry& c) const {
  return c.witness_bytes() + 4 * c.pk->domain_size() * sizeof(ff::Fr);
}

double SimDevice::compute_busy_s() const { return busy_ns_.load() * 1e-9; }

class SimWorker final : public DeviceWorker {
 public:
  SimWorker(SimDevice& d, uint32_t index) : d_(d), serial_(uint64_t{index} << 40) {}

  void upload(const CircuitEntry& c, std::span<const ff::Fr> witness, const Reservation& r) override {
    const uint64_t wbytes = witness.size_bytes();
    if (wbytes > r.bytes() || wbytes != c.witness_bytes())
      throw InvalidArgument("simulated upload: the witness does not fit its reservation");
    std::lock_guard engine(*d_.copy_engine_);
    const auto t0 = Clock::now();
    std::byte* base = d_.arena_.get() + r.offset();
    std::memcpy(base, witness.data(), wbytes);
    tag_ = tag_of(r.offset(), ++serial_);
    for (uint64_t off = wbytes; off + 8 <= r.bytes(); off += 8) std::memcpy(base + off, &tag_, 8);
    double t = d_.cfg_.upload_s;
    if (d_.cfg_.upload_bytes_per_s > 0) t += double(wbytes) / d_.cfg_.upload_bytes_per_s;
    wait_until(t0 + seconds(t));
    if (d_.cfg_.hold_uploads) wait_while_held(d_.cfg_.hold_file);
  }

  groth16::QuerySums compute(const CircuitEntry& c, const Reservation& r, StageClock& clock,
                             const std::stop_token& stop) override {
    const double wait0 = clock.now();
    d_.compute_engine_->lock(stop);
    std::lock_guard engine(*d_.compute_engine_, std::adopt_lock);
    const double wait1 = clock.now();
    if (wait1 > wait0) clock.span(Stage::kWaitCompute, wait0, wait1);
    const auto t0 = Clock::now();
    const std::byte* base = d_.arena_.get() + r.offset();
    const auto* w = reinterpret_cast<const ff::Fr*>(base);
    groth16::ProveOptions opt;
    opt.threads = 1;
    opt.stop = stop;
    const InlinePoolScope inline_pool;  // tiny circuits: pool wake-ups would dominate
    groth16::ProveTimings t;
    // The sums are computed even if the tag check below fails, so the SMs' time is realistic.
    std::exception_ptr failure;
    groth16::QuerySums sums;
    try {
      sums = groth16::compute_sums(*c.pk, *c.circuit, std::span<const ff::Fr>(w, c.num_vars()), opt, t);
    } catch (...) {
      failure = std::current_exception();
    }
    // The SMs stay busy for the configured stage time (and while held); a cancel ends it at
    // once, as a real device's kernels stop at their next boundary.
    const bool finished =
        sleep_until(t0 + seconds(d_.cfg_.compute_s), stop) && wait_while_held(d_.cfg_.hold_file, stop);
    d_.busy_ns_ += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
    if (!finished) throw Cancelled("simulated device: cancelled during the compute stage");
    check_tag(base, c.witness_bytes(), r.bytes());
    if (failure) std::rethrow_exception(failure);
    return sums;
  }

 private:
  void check_tag(const std::byte* base, uint64_t from, uint64_t to) const {
    for (uint64_t off = from; off + 8 <= to; off += 8) {
      uint64_t v;
      std::memcpy(&v, base + off, 8);
      if (v != tag_)
        throw VramCorruption("simulated VRAM corrupted at offset " + std::to_string(off) +
                             " of a reservation: another partition wrote into it");
    }
  }

  SimDevice& d_;
  uint64_t tag_ = 0, serial_ = 0;
};

std::unique_ptr<DeviceWorker> SimDevice::make_worker(uint32_t i) { return std::make_unique<SimWorker>(*this, i); }

}  // namespace snarkd::engine
