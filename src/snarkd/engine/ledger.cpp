#include "snarkd/engine/ledger.hpp"

#include <algorithm>
#include <string>

#include "snarkd/util/error.hpp"

namespace snarkd::engine {

Reservation& Reservation::operator=(Reservation&& o) noexcept {
  if (this != &o) {
    release();
    ledger_ = o.ledger_;
    offset_ = o.offset_;
    bytes_ = o.bytes_;
    o.ledger_ = nullptr;
  }
  return *this;
}

void Reservation::release() {
  if (ledger_) ledger_->release(offset_, bytes_);
  ledger_ = nullptr;
}

VramLedger::VramLedger(uint64_t capacity) : capacity_(capacity / kAlignment * kAlignment) {
  if (capacity_ > 0) free_.emplace(0, capacity_);
  stats_.capacity = capacity_;
}

VramLedger::~VramLedger() = default;

std::optional<uint64_t> VramLedger::place(uint64_t bytes) {
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < bytes) continue;
    const uint64_t offset = it->first, len = it->second;
    free_.erase(it);
    if (len > bytes) free_.emplace(offset + bytes, len - bytes);
    return offset;
  }
  return std::nullopt;
}

void VramLedger::audit_grant(uint64_t offset, uint64_t bytes) {
  // Independent of the free list: the new range must lie inside the region and overlap no live
  // reservation, and the sum of live bytes must stay within the capacity.
  bool ok = offset + bytes <= capacity_ && stats_.in_use + bytes <= capacity_;
  auto next = live_.lower_bound(offset);
  if (next != live_.end() && next->first < offset + bytes) ok = false;
  if (next != live_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second > offset) ok = false;
  }
  if (!ok) ++stats_.overcommits;
  live_.emplace(offset, bytes);
  stats_.in_use += bytes;
  stats_.peak_in_use = std::max(stats_.peak_in_use, stats_.in_use);
  ++stats_.grants;
}

std::optional<Reservation> VramLedger::reserve(uint64_t bytes, const std::function<bool()>& give_up) {
  bytes = round_up(std::max<uint64_t>(bytes, 1));
  if (bytes > capacity_)
    throw InvalidArgument("VRAM ledger: a working set of " + std::to_string(bytes) +
                          " bytes exceeds the device's ledger capacity of " + std::to_string(capacity_) + " bytes");
  std::unique_lock lock(mu_);
  const uint64_t ticket = next_ticket_++;
  queue_.push_back(ticket);
  ++stats_.waiting;
  for (;;) {
    if (queue_.front() == ticket) {
      if (auto offset = place(bytes)) {
        queue_.pop_front();
        --stats_.waiting;
        audit_grant(*offset, bytes);
        cv_.notify_all();  // the next in line may fit too
        return Reservation(this, *offset, bytes);
      }
    }
    if (give_up && give_up()) {
      queue_.erase(std::find(queue_.begin(), queue_.end(), ticket));
      --stats_.waiting;
      cv_.notify_all();  // a new head may now be served
      return std::nullopt;
    }
    cv_.wait(lock);
  }
}

std::optional<Reservation> VramLedger::try_reserve(uint64_t bytes) {
  bytes = round_up(std::max<uint64_t>(bytes, 1));
  std::lock_guard lock(mu_);
  if (!queue_.empty() || bytes > capacity_) return std::nullopt;
  auto offset = place(bytes);
  if (!offset) return std::nullopt;
  audit_grant(*offset, bytes);
  return Reservation(this, *offset, bytes);
}

void VramLedger::release(uint64_t offset, uint64_t bytes) {
  std::lock_guard lock(mu_);
  live_.erase(offset);
  stats_.in_use -= bytes;
  auto [it, inserted] = free_.emplace(offset, bytes);
  if (!inserted) ++stats_.overcommits;  // a double release: the audit's business too
  // Coalesce with the neighbours so the region returns to one block when all is released.
  if (auto next = std::next(it); next != free_.end() && it->first + it->second == next->first) {
    it->second += next->second;
    free_.erase(next);
  }
  if (it != free_.begin()) {
    auto prev = std::prev(it);
    if (prev->first + prev->second == it->first) {
      prev->second += it->second;
      free_.erase(it);
    }
  }
  cv_.notify_all();
}

void VramLedger::poke() {
  std::lock_guard lock(mu_);
  cv_.notify_all();
}

LedgerStats VramLedger::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

}  // namespace snarkd::engine
