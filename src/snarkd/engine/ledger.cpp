#include "snarkd/engine/ledger.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "snarkd/util/error.hpp"

namespace snarkd::engine {

Reservation& Reservation::operator=(Reservation&& o) noexcept {
  if (this != &o) {
    release();
    ledger_ = o.ledger_;
    offset_ = o.offset_;
    bytes_ = o.bytes_;
    resident_ = o.resident_;
    o.ledger_ = nullptr;
  }
  return *this;
}

void Reservation::release() {
  if (ledger_) ledger_->release(offset_, bytes_, resident_);
  ledger_ = nullptr;
}

void Reservation::keep_tail(uint64_t keep) {
  keep = VramLedger::round_up(keep);
  if (!ledger_ || keep >= bytes_) return;
  if (keep == 0) return release();
  const uint64_t drop = bytes_ - keep;
  ledger_->trim_front(offset_, bytes_, drop, resident_);
  offset_ += drop;
  bytes_ = keep;
}

VramLedger::VramLedger(uint64_t capacity) : capacity_(capacity / kAlignment * kAlignment) {
  if (capacity_ > 0) free_.emplace(0, capacity_);
  stats_.capacity = capacity_;
}

VramLedger::~VramLedger() = default;

namespace {

// The ranges between resident reservations, bottom to top: [begin, end).
std::vector<std::pair<uint64_t, uint64_t>> gaps(const std::map<uint64_t, uint64_t>& resident, uint64_t capacity) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  uint64_t at = 0;
  for (const auto& [off, len] : resident) {
    if (off > at) out.emplace_back(at, off);
    at = std::max(at, off + len);
  }
  if (capacity > at) out.emplace_back(at, capacity);
  return out;
}

}  // namespace

std::optional<uint64_t> VramLedger::place(uint64_t bytes) {
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < bytes) continue;
    const uint64_t offset = it->first;
    take(offset, bytes);
    return offset;
  }
  return std::nullopt;
}

std::optional<uint64_t> VramLedger::resident_slot(uint64_t bytes) const {
  const auto g = gaps(resident_, capacity_);
  for (auto it = g.rbegin(); it != g.rend(); ++it)
    if (it->second - it->first >= bytes) return it->second - bytes;
  return std::nullopt;
}

bool VramLedger::take(uint64_t offset, uint64_t bytes) {
  auto it = free_.upper_bound(offset);
  if (it == free_.begin()) return false;
  --it;
  const uint64_t start = it->first, len = it->second;
  if (start + len < offset + bytes) return false;
  free_.erase(it);
  if (offset > start) free_.emplace(start, offset - start);
  if (start + len > offset + bytes) free_.emplace(offset + bytes, start + len - offset - bytes);
  return true;
}

uint64_t VramLedger::largest_working_gap(uint64_t extra) const {
  std::lock_guard lock(mu_);
  auto g = gaps(resident_, capacity_);
  extra = extra ? round_up(extra) : 0;
  if (extra) {
    auto it = std::find_if(g.rbegin(), g.rend(), [&](const auto& r) { return r.second - r.first >= extra; });
    if (it == g.rend()) return 0;
    it->second -= extra;  // reserve_resident takes the top of the highest gap that fits
  }
  uint64_t best = 0;
  for (const auto& [b, e] : g) best = std::max(best, e - b);
  return best;
}

void VramLedger::audit_grant(uint64_t offset, uint64_t bytes, bool resident) {
  // Independent of the free list: the new range must lie inside the region and overlap no live
  // reservation, and the sum of live bytes must stay within the capacity.
  const uint64_t total = stats_.in_use + stats_.resident;
  bool ok = offset + bytes <= capacity_ && total + bytes <= capacity_;
  auto next = live_.lower_bound(offset);
  if (next != live_.end() && next->first < offset + bytes) ok = false;
  if (next != live_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second > offset) ok = false;
  }
  if (!ok) ++stats_.overcommits;
  live_.emplace(offset, bytes);
  if (resident) resident_.emplace(offset, bytes);
  (resident ? stats_.resident : stats_.in_use) += bytes;
  stats_.peak_in_use = std::max(stats_.peak_in_use, total + bytes);
  ++stats_.grants;
}

std::optional<Reservation> VramLedger::wait_grant(uint64_t bytes, bool resident, const std::function<bool()>& give_up) {
  std::unique_lock lock(mu_);
  const uint64_t ticket = next_ticket_++;
  queue_.push_back(ticket);
  ++stats_.waiting;
  for (;;) {
    if (queue_.front() == ticket) {
      std::optional<uint64_t> offset;
      if (!resident) {
        offset = place(bytes);
      } else if (auto at = resident_slot(bytes); at && take(*at, bytes)) {
        offset = at;
      }
      if (offset) {
        queue_.pop_front();
        --stats_.waiting;
        audit_grant(*offset, bytes, resident);
        cv_.notify_all();  // the next in line may fit too
        return Reservation(this, *offset, bytes, resident);
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

std::optional<Reservation> VramLedger::reserve(uint64_t bytes, const std::function<bool()>& give_up) {
  bytes = round_up(std::max<uint64_t>(bytes, 1));
  if (const uint64_t gap = largest_working_gap(); bytes > gap)
    throw InvalidArgument("VRAM ledger: a working set of " + std::to_string(bytes) +
                          " bytes exceeds the device's largest free range of " + std::to_string(gap) +
                          " bytes (capacity " + std::to_string(capacity_) + ", less resident data)");
  return wait_grant(bytes, false, give_up);
}

std::optional<Reservation> VramLedger::reserve_resident(uint64_t bytes, const std::function<bool()>& give_up) {
  bytes = round_up(std::max<uint64_t>(bytes, 1));
  {
    std::lock_guard lock(mu_);
    if (!resident_slot(bytes))
      throw InvalidArgument("VRAM ledger: no range of " + std::to_string(bytes) +
                            " bytes is free of resident data (capacity " + std::to_string(capacity_) + ")");
  }
  return wait_grant(bytes, true, give_up);
}

std::optional<Reservation> VramLedger::try_reserve(uint64_t bytes) {
  bytes = round_up(std::max<uint64_t>(bytes, 1));
  std::lock_guard lock(mu_);
  if (!queue_.empty() || bytes > capacity_) return std::nullopt;
  auto offset = place(bytes);
  if (!offset) return std::nullopt;
  audit_grant(*offset, bytes, false);
  return Reservation(this, *offset, bytes, false);
}

void VramLedger::release(uint64_t offset, uint64_t bytes, bool resident) {
  std::lock_guard lock(mu_);
  if (auto it = live_.find(offset); it != live_.end() && it->second == bytes) {
    live_.erase(it);
    if (resident) resident_.erase(offset);
  } else {
    ++stats_.overcommits;  // not a live reservation: a double release, the audit's business
  }
  (resident ? stats_.resident : stats_.in_use) -= bytes;
  free_range(offset, bytes);
  cv_.notify_all();
}

void VramLedger::trim_front(uint64_t offset, uint64_t bytes, uint64_t drop, bool resident) {
  std::lock_guard lock(mu_);
  if (auto it = live_.find(offset); it != live_.end() && it->second == bytes) {
    live_.erase(it);
    live_.emplace(offset + drop, bytes - drop);
    if (resident) {
      resident_.erase(offset);
      resident_.emplace(offset + drop, bytes - drop);
    }
  } else {
    ++stats_.overcommits;
  }
  (resident ? stats_.resident : stats_.in_use) -= drop;
  free_range(offset, drop);
  cv_.notify_all();
}

void VramLedger::free_range(uint64_t offset, uint64_t bytes) {
  auto [it, inserted] = free_.emplace(offset, bytes);
  if (!inserted) ++stats_.overcommits;  // already free: a double release
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
