// The per-device VRAM ledger: one region allocated once at start-up, carved into reservations.
//
// Two kinds of reservation share the region:
//   working sets  a partition's step (engine.hpp): reserve() — all-or-nothing, so a partition
//                 never holds part of its memory while waiting for the rest (no hold-and-wait);
//                 released by RAII when the step ends, and it may shrink (give back its head,
//                 keep_tail) during the step, never grow. Placed first fit from the bottom.
//   resident      what the device keeps between partitions (key parts, NTT tables, streaming
//                 slots): reserve_resident() — placed top-down, at the highest range that no
//                 other resident reservation covers, so residents pack at the top and the
//                 working sets' space is the gaps between them (largest_working_gap()).
// Requests are served FIFO: a request waits until every earlier request of the same ledger has
// been granted (or given up), so a large working set is not starved by a stream of small ones.
// Fragmentation can delay the head request, never deadlock it: everything granted to a working
// set is released in finite time, and once all are released the free space is the gaps between
// the residents; a device admits a circuit only if its largest step fits the largest gap.
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
  bool resident() const { return resident_; }
  const VramLedger* ledger() const { return ledger_; }  // who granted it (null once released)
  void release();
  // Keeps the last `keep` bytes (rounded up to the alignment) and gives the head back: a
  // release, so it never waits. offset() moves up. The caller must be done with the head
  // (device work included).
  void keep_tail(uint64_t keep);

 private:
  friend class VramLedger;
  Reservation(VramLedger* l, uint64_t offset, uint64_t bytes, bool resident)
      : ledger_(l), offset_(offset), bytes_(bytes), resident_(resident) {}
  VramLedger* ledger_ = nullptr;
  uint64_t offset_ = 0, bytes_ = 0;
  bool resident_ = false;
};

struct LedgerStats {
  uint64_t capacity = 0;
  uint64_t in_use = 0;        // bytes reserved now by working sets
  uint64_t resident = 0;      // bytes reserved now by resident data (keys, tables, slots)
  uint64_t peak_in_use = 0;   // most bytes reserved at once, resident included
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

  // A working set: blocks until `bytes` (rounded up to kAlignment) are granted in FIFO order.
  // Returns nullopt if `give_up` returns true (checked whenever the ledger changes and after
  // poke()). Throws InvalidArgument when bytes exceed the largest working gap (never grantable).
  std::optional<Reservation> reserve(uint64_t bytes, const std::function<bool()>& give_up = {});
  // Grants only if the request would be served at once (no waiter ahead, space free).
  std::optional<Reservation> try_reserve(uint64_t bytes);
  // Resident data: the highest range of `bytes` that no resident reservation covers, granted
  // FIFO once no working set overlaps it. Throws InvalidArgument when no such range exists.
  std::optional<Reservation> reserve_resident(uint64_t bytes, const std::function<bool()>& give_up = {});
  // The largest range free of resident reservations: what working sets can count on. With
  // `extra` > 0: the same after a reserve_resident(extra) (0 when that would not fit).
  uint64_t largest_working_gap(uint64_t extra = 0) const;
  // Wakes waiters so they re-check their give_up predicates (cancellation, shutdown).
  void poke();

  LedgerStats stats() const;

 private:
  friend class Reservation;
  void release(uint64_t offset, uint64_t bytes, bool resident);
  void trim_front(uint64_t offset, uint64_t bytes, uint64_t drop, bool resident);
  void free_range(uint64_t offset, uint64_t bytes);  // mu_ held: back to the free list
  std::optional<uint64_t> place(uint64_t bytes);                   // first fit; mu_ held
  std::optional<uint64_t> resident_slot(uint64_t bytes) const;      // top-down; mu_ held
  bool take(uint64_t offset, uint64_t bytes);                       // carve a free range; mu_ held
  void audit_grant(uint64_t offset, uint64_t bytes, bool resident);  // mu_ held
  std::optional<Reservation> wait_grant(uint64_t bytes, bool resident, const std::function<bool()>& give_up);

  const uint64_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<uint64_t, uint64_t> free_;      // offset → length, disjoint, coalesced
  std::map<uint64_t, uint64_t> live_;      // offset → length of granted reservations (the audit)
  std::map<uint64_t, uint64_t> resident_;  // offset → length of the resident ones
  std::deque<uint64_t> queue_;             // tickets of waiting requests, FIFO
  uint64_t next_ticket_ = 0;
  LedgerStats stats_;
};

}  // namespace snarkd::engine
