#include "snarkd/engine/host_budget.hpp"

#include <algorithm>

#include "snarkd/util/error.hpp"

namespace snarkd::engine {

void HostBudget::acquire(uint64_t bytes, std::chrono::milliseconds wait) {
  std::unique_lock lock(mu_);
  auto charge = [&] {
    in_use_ += bytes;
    peak_ = std::max(peak_, in_use_);
  };
  if (shut_) throw Busy("busy: the engine is shutting down");
  if (capacity_ == 0) return charge();
  if (bytes > capacity_)
    throw InvalidArgument("the job's witnesses need " + std::to_string(bytes) +
                          " bytes of host memory, more than the engine's whole host budget of " +
                          std::to_string(capacity_) + " bytes");
  const uint64_t ticket = next_ticket_++;
  queue_.push_back(ticket);
  auto fits = [&] { return shut_ || (queue_.front() == ticket && in_use_ + bytes <= capacity_); };
  bool ok = true;
  if (wait == std::chrono::milliseconds::max())
    cv_.wait(lock, fits);  // now + max() would overflow the deadline
  else
    ok = cv_.wait_for(lock, wait, fits);
  queue_.erase(std::find(queue_.begin(), queue_.end(), ticket));
  cv_.notify_all();  // the next in line may fit, or became the head
  if (shut_) throw Busy("busy: the engine is shutting down");
  if (!ok)
    throw Busy("busy: the host budget holds " + std::to_string(in_use_) + " of " + std::to_string(capacity_) +
               " bytes of queued witnesses; this job needs " + std::to_string(bytes) + " more");
  charge();
}

void HostBudget::release(uint64_t bytes) {
  std::lock_guard lock(mu_);
  in_use_ -= std::min(bytes, in_use_);
  cv_.notify_all();
}

void HostBudget::shutdown() {
  std::lock_guard lock(mu_);
  shut_ = true;
  cv_.notify_all();
}

uint64_t HostBudget::in_use() const {
  std::lock_guard lock(mu_);
  return in_use_;
}

uint64_t HostBudget::peak() const {
  std::lock_guard lock(mu_);
  return peak_;
}

}  // namespace snarkd::engine
