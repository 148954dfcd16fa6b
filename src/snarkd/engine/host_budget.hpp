// Host-RAM budget for queued work: a job is charged its witnesses' bytes when it is accepted
// and each partition gives its share back once its witness has been moved to the device, so the
// host holds no more than the witnesses of what is queued. Submitters wait FIFO or are refused.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <string>

namespace snarkd::engine {

// The engine is full: the caller may retry later (the daemon's "busy").
class Busy : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class HostBudget {
 public:
  explicit HostBudget(uint64_t capacity) : capacity_(capacity) {}  // 0 = unlimited

  // Charges `bytes`, waiting FIFO up to `wait` (zero: refuse at once). Throws Busy when it
  // could not within `wait`, InvalidArgument when bytes alone exceed the capacity.
  void acquire(uint64_t bytes, std::chrono::milliseconds wait);
  void release(uint64_t bytes);
  // Wakes every waiter with Busy and refuses every later acquire (engine shutdown).
  void shutdown();
  uint64_t in_use() const;
  uint64_t peak() const;
  uint64_t capacity() const { return capacity_; }

 private:
  const uint64_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<uint64_t> queue_;
  uint64_t next_ticket_ = 0, in_use_ = 0, peak_ = 0;
  bool shut_ = false;
};

}  // namespace snarkd::engine
