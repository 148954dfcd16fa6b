// The VRAM ledger and the host budget: all-or-nothing grants, FIFO order, give-up, coalescing,
// and a concurrent stress whose holders write into a shared arena and check nobody else did.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include "common/seed.hpp"
#include "snarkd/engine/host_budget.hpp"
#include "snarkd/engine/ledger.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::engine {
namespace {

using namespace std::chrono_literals;

TEST(Ledger, GrantsAlignedDisjointRangesAndCoalesces) {
  VramLedger l(4096);
  auto a = l.reserve(1);
  auto b = l.reserve(300);
  auto c = l.reserve(1000);
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(a->bytes(), 256u);
  EXPECT_EQ(b->bytes(), 512u);
  EXPECT_EQ(c->bytes(), 1024u);
  for (auto* r : {&*a, &*b, &*c}) EXPECT_EQ(r->offset() % VramLedger::kAlignment, 0u);
  EXPECT_EQ(l.stats().in_use, 1792u);
  EXPECT_FALSE(l.try_reserve(4096));
  b->release();
  a->release();
  c->release();
  EXPECT_EQ(l.stats().in_use, 0u);
  auto whole = l.try_reserve(4096);  // only if the free list coalesced back into one block
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->offset(), 0u);
  EXPECT_EQ(l.stats().peak_in_use, 4096u);
  EXPECT_EQ(l.stats().overcommits, 0u);
}

TEST(Ledger, RefusesWhatCouldNeverFit) {
  VramLedger l(1024);
  EXPECT_THROW(l.reserve(1025), InvalidArgument);
  EXPECT_FALSE(l.try_reserve(2048));
}

TEST(Ledger, ServesInArrivalOrderSoLargeRequestsAreNotStarved) {
  VramLedger l(1024);
  auto held = l.reserve(512);
  std::atomic<int> order{0};
  int big_at = -1, small_at = -1;
  std::thread big([&] {
    auto r = l.reserve(1024);  // must wait for `held`
    big_at = order++;
  });
  while (l.stats().waiting < 1) std::this_thread::sleep_for(1ms);
  std::thread small([&] {
    auto r = l.reserve(256);  // would fit now, but the big request is ahead of it
    small_at = order++;
  });
  while (l.stats().waiting < 2) std::this_thread::sleep_for(1ms);
  EXPECT_FALSE(l.try_reserve(256)) << "try_reserve jumped the queue";
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(order.load(), 0);
  held->release();
  big.join();
  small.join();
  EXPECT_EQ(big_at, 0);
  EXPECT_EQ(small_at, 1);
}

TEST(Ledger, GiveUpLeavesTheQueueAndUnblocksTheNext) {
  VramLedger l(1024);
  auto held = l.reserve(1024);
  std::atomic<bool> cancel{false};
  std::optional<Reservation> got;
  std::thread waiter([&] { got = l.reserve(1024, [&] { return cancel.load(); }); });
  while (l.stats().waiting < 1) std::this_thread::sleep_for(1ms);
  cancel = true;
  l.poke();
  waiter.join();
  EXPECT_FALSE(got);
  EXPECT_EQ(l.stats().waiting, 0u);
  held->release();
  EXPECT_TRUE(l.try_reserve(1024));
}

// Threads reserve random sizes, stamp their range of a shared arena with their id, hold it a
// little, and check the stamp is intact: an overlapping grant would show up here and in the
// ledger's own audit.
TEST(Ledger, ConcurrentStressNeverOverlaps) {
  auto g = test::rng("ledger-stress");
  const uint64_t cap = 64 * 1024;
  VramLedger l(cap);
  std::vector<uint8_t> arena(cap);
  std::atomic<uint64_t> clobbered{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 6; ++t) {
    const uint64_t seed = g();
    ts.emplace_back([&, t, seed] {
      std::mt19937_64 r(seed);
      for (int i = 0; i < 400; ++i) {
        auto res = l.reserve(1 + r() % (cap / 2));
        uint8_t* p = arena.data() + res->offset();
        std::memset(p, t + 1, res->bytes());
        if (r() % 4 == 0) std::this_thread::yield();
        for (uint64_t k = 0; k < res->bytes(); ++k)
          if (p[k] != t + 1) {
            ++clobbered;
            break;
          }
      }
    });
  }
  for (auto& th : ts) th.join();
  EXPECT_EQ(clobbered.load(), 0u);
  const LedgerStats s = l.stats();
  EXPECT_EQ(s.overcommits, 0u);
  EXPECT_EQ(s.in_use, 0u);
  EXPECT_EQ(s.grants, 2400u);
  EXPECT_LE(s.peak_in_use, cap);
}

// Residents pack at the top; the working sets' space is the gaps between them.
TEST(Ledger, ResidentsPackAtTheTopAndLeaveOneGap) {
  VramLedger l(64 * 256);
  auto r1 = l.reserve_resident(4 * 256);
  auto r2 = l.reserve_resident(300);  // rounded to 512
  ASSERT_TRUE(r1 && r2);
  EXPECT_TRUE(r1->resident());
  EXPECT_EQ(r1->offset(), 60u * 256);
  EXPECT_EQ(r2->offset(), 58u * 256);
  EXPECT_EQ(l.largest_working_gap(), 58u * 256);
  EXPECT_EQ(l.largest_working_gap(8 * 256), 50u * 256);  // after one more resident
  EXPECT_EQ(l.largest_working_gap(59 * 256), 0u);        // would not fit
  const LedgerStats s = l.stats();
  EXPECT_EQ(s.resident, 6u * 256);
  EXPECT_EQ(s.in_use, 0u);  // working sets only
  EXPECT_THROW(l.reserve(59 * 256), InvalidArgument);  // larger than any gap: never grantable
  auto ws = l.reserve(58 * 256);
  ASSERT_TRUE(ws);
  EXPECT_EQ(ws->offset(), 0u);
  EXPECT_EQ(l.stats().peak_in_use, 64u * 256);
  ws->release();
  r1->release();  // a hole at the top: the next resident goes there, above the other
  auto r3 = l.reserve_resident(2 * 256);
  EXPECT_EQ(r3->offset(), 62u * 256);
  EXPECT_EQ(l.largest_working_gap(), 58u * 256);
  EXPECT_THROW(l.reserve_resident(61 * 256), InvalidArgument);
  EXPECT_EQ(l.stats().overcommits, 0u);
}

// A resident request waits (FIFO) until no working set overlaps its range.
TEST(Ledger, ResidentWaitsForTheWorkingSetsUnderIt) {
  VramLedger l(16 * 256);
  auto ws = l.reserve(16 * 256);
  std::optional<Reservation> got;
  std::thread t([&] { got = l.reserve_resident(4 * 256); });
  while (l.stats().waiting < 1) std::this_thread::sleep_for(1ms);
  EXPECT_FALSE(l.try_reserve(256)) << "a working set passed a waiting resident";
  ws->release();
  t.join();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->offset(), 12u * 256);
  EXPECT_EQ(l.stats().overcommits, 0u);
}

// keep_tail gives the head back at once (a release) and the freed head is grantable.
TEST(Ledger, KeepTailReleasesTheHead) {
  VramLedger l(16 * 256);
  auto r = l.reserve(12 * 256);
  auto other = l.reserve(4 * 256);
  ASSERT_TRUE(r && other);
  const uint64_t end = r->offset() + r->bytes();
  r->keep_tail(5 * 256 - 100);  // rounded up to 5 · 256
  EXPECT_EQ(r->bytes(), 5u * 256);
  EXPECT_EQ(r->offset() + r->bytes(), end);
  EXPECT_EQ(l.stats().in_use, 9u * 256);
  auto head = l.try_reserve(7 * 256);
  ASSERT_TRUE(head);
  EXPECT_EQ(head->offset(), 0u);
  r->keep_tail(r->bytes());  // no-op
  r->release();
  head->release();
  other->release();
  EXPECT_EQ(l.stats().in_use, 0u);
  EXPECT_TRUE(l.try_reserve(16 * 256));  // coalesced back into one block
  EXPECT_EQ(l.stats().overcommits, 0u);
}

TEST(HostBudget, RefusesWhenFullAndWaitsFifo) {
  HostBudget h(1000);
  h.acquire(600, 0ms);
  EXPECT_THROW(h.acquire(500, 0ms), Busy);
  EXPECT_THROW(h.acquire(1001, 0ms), InvalidArgument);
  std::atomic<bool> got{false};
  std::thread t([&] {
    h.acquire(500, std::chrono::milliseconds::max());
    got = true;
  });
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(got.load());
  h.release(600);
  t.join();
  EXPECT_TRUE(got.load());
  EXPECT_EQ(h.in_use(), 500u);
  EXPECT_EQ(h.peak(), 600u);
  try {
    h.acquire(600, 10ms);
    FAIL() << "expected Busy";
  } catch (const Busy& e) {
    EXPECT_NE(std::string(e.what()).find("busy"), std::string::npos) << e.what();
  }
}

TEST(HostBudget, ShutdownWakesWaitersWithBusy) {
  HostBudget h(100);
  h.acquire(100, 0ms);
  std::atomic<bool> busy{false};
  std::thread t([&] {
    try {
      h.acquire(50, std::chrono::milliseconds::max());
    } catch (const Busy&) {
      busy = true;
    }
  });
  std::this_thread::sleep_for(20ms);
  h.shutdown();
  t.join();
  EXPECT_TRUE(busy.load());
  EXPECT_THROW(h.acquire(1, 0ms), Busy);
}

}  // namespace
}  // namespace snarkd::engine
