// The per-device VRAM ledger: one region allocated once at start-up, carved into reservations.
//
// A partition's memory stage reserves its whole working set in one call — all-or-nothing, so a
// partition never holds part of its memory while waiting for the rest (no hold-and-wait) — and
// the reservation is released by RAII when the partition leaves the device. Requests are served
// FIFO: a request waits until every earlier request of the same ledger has been granted (or
// given up), so a large working set is not starved by a stream of small ones. Placement is
// first-fit over a free list kept sorted by offset and coalesced on release; fragmentation can
// delay the head request, never deadlock it: everything granted is released in finite time, and
// once all is released the region is one free block of the full capacity.
//
// The ledger makes no CUDA call: it hands out offsets into a region its owner allocated (the
// CUDA device's pool, the simulated device's host arena). It also audits itself: every grant is
// checked against the live reservations (no overlap, within capacity) and violations are
// counted, so a test can assert "0 over-commits" from an independent bookkeeping.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>

namespace snarkd::engine {

class VramLedger;

// A granted range [offset, offset + bytes) of the ledger's region. Move-only; releasing it (the
// destructor or release()) wakes the waiters.
class Reservation {
 public:
  Reservation() = default;
  Reservation(Reservation&& o) noexcept { *this = std::move(o); }
  Reservation& operator=(Reservation&& o) noexcept;
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;
  ~Reservation() { release(); }

  explicit operator bool() const { return ledger_ != nullptr; }
  uint64_t offset() const { return offset_; }
  uint64_t bytes() const { return bytes_; }
  const VramLedger* ledger() const { return ledger_; }  // who granted it (null once released)
  void release();

 private:
  friend class VramLedger;
  Reservation(VramLedger* l, uint64_t offset, uint64_t bytes) : ledger_(l), offset_(offset), bytes_(bytes) {}
  VramLedger* ledger_ = nullptr;
  uint64_t offset_ = 0, bytes_ = 0;
};

struct LedgerStats {
  uint64_t capacity = 0;
  uint64_t in_use = 0;        // bytes reserved now
  uint64_t peak_in_use = 0;   // most bytes reserved at once
  uint64_t grants = 0;
  uint64_t waiting = 0;       // requests queued now
  uint64_t overcommits = 0;   // audit failures (must stay 0)
};

class VramLedger {
 public:
  static constexpr uint64_t kAlignment = 256;  // cudaMalloc's guarantee; kernels rely on it

  explicit VramLedger(uint64_t capacity);
  ~VramLedger();
  VramLedger(const VramLedger&) = delete;
  VramLedger& operator=(const VramLedger&) = delete;

  uint64_t capacity() const { return capacity_; }
  static uint64_t round_up(uint64_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

  // Blocks until `bytes` (rounded up to kAlignment) are granted in FIFO order. Returns nullopt
  // if `give_up` returns true (checked whenever the ledger changes and after poke()). Throws
  // InvalidArgument when bytes exceeds the capacity (it could never be granted).
  std::optional<Reservation> reserve(uint64_t bytes, const std::function<bool()>& give_up = {});
  // Grants only if the request would be served at once (no waiter ahead, space free).
  std::optional<Reservation> try_reserve(uint64_t bytes);
  // Wakes waiters so they re-check their give_up predicates (cancellation, shutdown).
  void poke();

  LedgerStats stats() const;

 private:
  friend class Reservation;
  void release(uint64_t offset, uint64_t bytes);
  std::optional<uint64_t> place(uint64_t bytes);  // first fit; mu_ held
  void audit_grant(uint64_t offset, uint64_t bytes);  // mu_ held

  const uint64_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<uint64_t, uint64_t> free_;  // offset → length, disjoint, coalesced
  std::map<uint64_t, uint64_t> live_;  // offset → length of granted reservations (the audit)
  std::deque<uint64_t> queue_;         // tickets of waiting requests, FIFO
  uint64_t next_ticket_ = 0;
  LedgerStats stats_;
};

}  // namespace snarkd::engine
