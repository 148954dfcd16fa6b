// The streaming pieces of the engine, on the host: the chunk catalogue (every point and row in
// exactly one chunk, every chunk within its slot, segments pointing at the right host bytes),
// the residency planner (full vs streaming, priorities, budgets, refusals) and the chunk
// streamer (every subscriber gets each chunk it needs exactly once, no slot is refilled under
// a lease, fills are shared, no deadlock under random concurrent demand).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <set>
#include <thread>

#include "common/seed.hpp"
#include "snarkd/engine/key_parts.hpp"
#include "snarkd/engine/residency.hpp"
#include "snarkd/engine/streamer.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/r1cs/synthetic.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::engine {
namespace {

struct Key {
  std::shared_ptr<r1cs::Circuit> circuit;
  std::shared_ptr<groth16::ProvingKey> pk;
  std::vector<uint32_t> a_index, b_index;
  std::array<std::optional<r1cs::ShortRows>, 3> short_rows;
};

const Key& key() {
  static const Key k = [] {
    Key k;
    r1cs::SyntheticParams p;
    p.num_constraints = 700;
    p.num_inputs = 5;
    auto sc = r1cs::generate_synthetic(p);
    k.circuit = std::make_shared<r1cs::Circuit>(std::move(sc.circuit));
    k.pk = std::make_shared<groth16::ProvingKey>(groth16::setup_insecure(*k.circuit, groth16::toxic_waste_from_seed(3)));
    k.a_index = r1cs::density_indices(k.pk->a_density);
    k.b_index = r1cs::density_indices(k.pk->b_density);
    k.short_rows = short_rows_of(*k.circuit);
    return k;
  }();
  return k;
}

KeyCatalogue catalogue(uint64_t slot) {
  const Key& k = key();
  return make_catalogue(*k.pk, *k.circuit, catalogue_host(k.a_index.data(), k.b_index.data(), k.short_rows), slot);
}

TEST(KeyCatalogue, ChunksCoverEveryPointAndRowOnceWithinTheirSlot) {
  for (uint64_t slot : {uint64_t(4096), uint64_t(10000), uint64_t(1) << 20}) {
    const KeyCatalogue k = catalogue(slot);
    const Key& key0 = key();
    // A bellperson key: pass 1 reads A and B, pass 2 C; a resident key holds all three.
    EXPECT_EQ(k.matrices(), (std::vector{r1cs::Matrix::A, r1cs::Matrix::B, r1cs::Matrix::C}));
    const uint64_t lens[] = {key0.pk->a.size(), key0.pk->b_g1.size(), key0.pk->b_g2.size(), key0.pk->l.size(),
                             key0.pk->h.size()};
    for (size_t part = 0; part < kKeyParts; ++part) {
      const auto& chunks = k.chunks[part];
      const uint64_t total = is_query(KeyPart(part)) ? lens[part - 2] : key0.circuit->num_constraints();
      uint64_t next = 0;
      for (size_t i = 0; i < chunks.size(); ++i) {
        const StreamChunk& c = chunks[i];
        EXPECT_EQ(c.index, i);
        EXPECT_EQ(c.first, next) << key_part_name(KeyPart(part)) << " chunk " << i;
        EXPECT_GT(c.count, 0u);
        EXPECT_LE(c.bytes, slot);
        for (const CopySegment& s : c.segments) {
          EXPECT_EQ(s.offset % kSegmentAlign, 0u);
          EXPECT_LE(s.offset + s.bytes, c.bytes);
        }
        next += c.count;
      }
      EXPECT_EQ(next, total) << key_part_name(KeyPart(part)) << " slot " << slot;
    }
    // Query segments are the points (and index entries) of the chunk's range.
    for (const StreamChunk& c : k.of(KeyPart::kB2)) {
      EXPECT_EQ(c.segments[0].host, reinterpret_cast<const std::byte*>(key0.pk->b_g2.data() + c.first));
      EXPECT_EQ(c.segments[0].bytes, c.count * sizeof(ec::G2Affine));
      ASSERT_EQ(c.segments.size(), 2u);
      EXPECT_EQ(c.segments[1].host, reinterpret_cast<const std::byte*>(key0.b_index.data() + c.first));
    }
    for (const StreamChunk& c : k.of(KeyPart::kL)) EXPECT_EQ(c.segments.size(), 1u);
    // Rows chunks, A and B then C: per matrix row_ptr (absolute) or, in the short form (whole row
    // groups), group_start and len, then col and coeff, for the chunk's rows; RowsAt names the
    // segments' offsets. A 4096-byte slot cannot hold a row group of A and B: row_ptr there.
    if (slot == 4096) {
      EXPECT_FALSE(k.short_rows[0]);
    }
    if (slot == uint64_t(1) << 20) {
      EXPECT_TRUE(k.short_rows[0] && k.short_rows[1]);
    }
    for (size_t part = 0; part < 2; ++part) {
      const std::vector<r1cs::Matrix>& ms = k.rows_matrices[part];
      const size_t per = k.short_rows[part] ? 4 : 3;
      for (const StreamChunk& c : k.of(KeyPart(part))) {
        ASSERT_EQ(c.segments.size(), per * ms.size());
        for (size_t i = 0; i < ms.size(); ++i) {
          const r1cs::CsrMatrix& csr = key0.circuit->matrix(ms[i]);
          const CopySegment* s = &c.segments[per * i];
          const RowsAt& at = c.rows[i];
          EXPECT_EQ(at.short_form, k.short_rows[part]);
          EXPECT_EQ(at.starts, s[0].offset);
          if (at.short_form) {
            const r1cs::ShortRows& sr = *key0.short_rows[size_t(ms[i])];
            EXPECT_EQ(c.first % r1cs::kRowGroup, 0u);
            EXPECT_EQ(s[0].host, reinterpret_cast<const std::byte*>(sr.group_start.data() + c.first / r1cs::kRowGroup));
            EXPECT_EQ(s[0].bytes, (c.count + r1cs::kRowGroup - 1) / r1cs::kRowGroup * 8);
            EXPECT_EQ(s[1].host, reinterpret_cast<const std::byte*>(sr.len.data() + c.first));
            EXPECT_EQ(s[1].bytes, c.count);
            EXPECT_EQ(at.len, s[1].offset);
          } else {
            EXPECT_EQ(s[0].host, reinterpret_cast<const std::byte*>(csr.row_ptr.data() + c.first));
            EXPECT_EQ(s[0].bytes, (c.count + 1) * 8);
          }
          const uint64_t k0 = csr.row_ptr[c.first], nnz = csr.row_ptr[c.first + c.count] - k0;
          EXPECT_EQ(s[per - 2].host, reinterpret_cast<const std::byte*>(csr.col.data() + k0));
          EXPECT_EQ(s[per - 1].host, reinterpret_cast<const std::byte*>(csr.coeff.data() + k0));
          EXPECT_EQ(s[per - 1].bytes, nnz * 4);
          EXPECT_EQ(at.col, s[per - 2].offset);
          EXPECT_EQ(at.coeff, s[per - 1].offset);
        }
      }
    }
    EXPECT_EQ(k.rows_matrices[1], std::vector{r1cs::Matrix::C});
  }
  EXPECT_THROW(catalogue(300), InvalidArgument);  // not even one G2 point
  EXPECT_THROW(make_catalogue(*key().pk, *key().circuit, CatalogueHost{}, 4096), InvalidArgument);
}

StepSizes sizes() {
  StepSizes s;
  s.full = 100'000;
  s.q = 60'000;
  s.q_shrunk = 20'000;
  s.m = 30'000;
  return s;
}

uint64_t full_key_bytes(const KeyCatalogue& k, uint64_t fixed) {
  std::array<uint64_t, kQueryParts> all{};
  for (size_t i = 0; i < kQueryParts; ++i) all[i] = k.query[i].len;
  return resident_layout_bytes(k, fixed, true, all);
}

TEST(Residency, FullWhenTheKeyFitsBesideTheWorkersWorkingSets) {
  const KeyCatalogue k = catalogue(4096);
  const uint64_t fixed = 1000, key_bytes = full_key_bytes(k, fixed);
  ResidencyInput in;
  in.fixed_bytes = fixed;
  in.sizes = sizes();
  in.workers = 3;
  in.gap = key_bytes + 3 * in.sizes.full;
  ResidencyPlan p = plan_residency(k, in);
  EXPECT_TRUE(p.full);
  EXPECT_EQ(p.key_bytes, key_bytes);
  ASSERT_EQ(p.steps.size(), 1u);
  EXPECT_EQ(p.steps[0].bytes, in.sizes.full);
  EXPECT_EQ(p.streamed_bytes_per_partition, 0u);
  EXPECT_EQ(describe(k, p).rfind("fully resident", 0), 0u);
  in.gap -= 1;  // one byte short of three working sets: streaming
  p = plan_residency(k, in);
  EXPECT_FALSE(p.full);
  ASSERT_EQ(p.steps.size(), 2u);
  EXPECT_EQ(p.steps[0].bytes, in.sizes.q);
  EXPECT_EQ(p.steps[1].bytes, in.sizes.m);
}

TEST(Residency, StreamingKeepsRoomForTheWorkersAndFillsTheRestByPriority) {
  const KeyCatalogue k = catalogue(4096);
  ResidencyInput in;
  in.sizes = sizes();
  in.workers = 2;
  const uint64_t room = in.sizes.q + std::max(in.sizes.m, in.sizes.q_shrunk);  // 90,000
  // No budget beyond the room: nothing resident, everything streamed.
  in.gap = room;
  ResidencyPlan p = plan_residency(k, in);
  EXPECT_FALSE(p.matrices);
  for (uint64_t pts : p.resident_points) EXPECT_EQ(pts, 0u);
  uint64_t all = 0;
  for (const auto& cs : k.chunks)
    for (const StreamChunk& c : cs) all += c.bytes;
  EXPECT_EQ(p.streamed_bytes_per_partition, all);
  // The matrices first, then whole chunks of a, b_g1, l, b_g2, h in that order.
  in.gap = room + k.matrices_bytes + 5000;
  p = plan_residency(k, in);
  EXPECT_TRUE(p.matrices);
  const size_t a = query_index(KeyPart::kA), b1 = query_index(KeyPart::kB1), h = query_index(KeyPart::kH);
  EXPECT_GT(p.resident_chunks[a], 0u);
  EXPECT_EQ(p.resident_points[a] % k.query[a].chunk_points == 0 || p.resident_points[a] == k.query[a].len, true);
  EXPECT_EQ(p.resident_chunks[h], 0u);
  EXPECT_LE(p.key_bytes, in.gap - room);
  EXPECT_EQ(p.key_bytes, resident_layout_bytes(k, 0, true, p.resident_points));
  // Whatever the budget: within it, and the query parts fill in the order a, b_g1, l, b_g2, h
  // (a part only once the one before it is whole).
  const KeyPart order[] = {KeyPart::kA, KeyPart::kB1, KeyPart::kL, KeyPart::kB2, KeyPart::kH};
  for (uint64_t extra = 0; extra < full_key_bytes(k, 0); extra += 3000) {
    in.gap = room + extra;
    p = plan_residency(k, in);
    EXPECT_LE(p.key_bytes, extra);
    if (p.matrices) EXPECT_GE(extra, k.matrices_bytes);
    for (size_t i = 1; i < 5; ++i)
      if (p.resident_points[query_index(order[i])] > 0)
        EXPECT_EQ(p.resident_points[query_index(order[i - 1])], k.query[query_index(order[i - 1])].len) << extra;
    for (size_t part = 0; part < kKeyParts; ++part)
      for (const StreamChunk& c : k.chunks[part]) {
        const bool res = p.resident(KeyPart(part), c.index);
        if (is_query(KeyPart(part))) EXPECT_EQ(res, c.first + c.count <= p.resident_points[query_index(KeyPart(part))]);
      }
  }
}

TEST(Residency, RefusesWhenNotEvenOneStreamedPartitionFitsAndKeepsOtherCircuitsSteps) {
  const KeyCatalogue k = catalogue(4096);
  ResidencyInput in;
  in.sizes = sizes();
  in.fixed_bytes = 5000;
  in.slots_bytes = 3 * 4096;
  in.gap = align_segment(5000) + 3 * 4096 + in.sizes.q - 1;
  try {
    plan_residency(k, in);
    ADD_FAILURE() << "planned a device that is too small";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("too small"), std::string::npos) << e.what();
  }
  in.gap += 1;
  const ResidencyPlan p = plan_residency(k, in);
  EXPECT_TRUE(p.slots);
  EXPECT_EQ(p.key_bytes, align_segment(5000));
  // A loaded circuit whose step is larger than this one's: its room is kept.
  in.keep_gap = in.sizes.q + 1;
  EXPECT_THROW(plan_residency(k, in), InvalidArgument);
  in.gap = 100'000'000;
  in.workers = 1;
  in.keep_gap = in.gap;  // keeping the whole gap leaves nothing for the key: streaming
  EXPECT_THROW(plan_residency(k, in), InvalidArgument);
}

// ---- the streamer ---------------------------------------------------------------------------

// Slot memory of the fake device: each fill writes the chunk's id; consumers check it under
// their lease (a refill under a lease would change it).
class FakeBackend final : public ChunkStreamer::Backend {
 public:
  explicit FakeBackend(uint32_t slots) : mem(slots) {}
  void fill(uint32_t slot, const StreamChunk& chunk, const std::vector<uint32_t>& previous) override {
    mem[slot].store(uint64_t(chunk.first) + 1);
    if (chunk.first % 3 == 0) std::this_thread::yield();
    ++fills;
    for (uint32_t c : previous) EXPECT_LT(c, 64u);
  }
  std::vector<std::atomic<uint64_t>> mem;
  std::atomic<uint64_t> fills{0};
};

std::vector<StreamChunk> fake_chunks(size_t n) {
  std::vector<StreamChunk> v(n);
  for (size_t i = 0; i < n; ++i) {
    v[i].index = uint32_t(i);
    v[i].first = i;  // the test's chunk identity
    v[i].count = 1;
    v[i].bytes = 100;
  }
  return v;
}

TEST(ChunkStreamer, EverySubscriberGetsEachChunkOnceAndSlotsAreNotRefilledUnderALease) {
  auto g = test::rng("chunk-streamer");
  for (uint32_t slots : {1u, 2u, 3u, 5u}) {
    FakeBackend be(slots);
    ChunkStreamer st(slots, be);
    const auto ids = st.add(fake_chunks(40));
    std::atomic<uint64_t> bad{0}, got{0};
    std::vector<std::thread> ts;
    for (uint32_t c = 0; c < 6; ++c) {
      const uint64_t seed = g();
      ts.emplace_back([&, c, seed] {
        std::mt19937_64 r(seed);
        for (int round = 0; round < 30; ++round) {
          std::vector<ChunkStreamer::ChunkId> want;
          for (auto id : ids)
            if (r() % 3 == 0) want.push_back(id);
          std::set<ChunkStreamer::ChunkId> seen;
          auto sub = st.subscribe(c, want);
          while (auto lease = sub.next()) {
            if (!seen.insert(lease->id).second) ++bad;  // taken twice
            const uint64_t expect = lease->chunk->first + 1;
            if (be.mem[lease->slot].load() != expect) ++bad;
            if (r() % 4 == 0) std::this_thread::yield();
            if (be.mem[lease->slot].load() != expect) ++bad;  // refilled under the lease
            ++got;
          }
          if (seen != std::set<ChunkStreamer::ChunkId>(want.begin(), want.end())) ++bad;
        }
      });
    }
    for (auto& t : ts) t.join();
    EXPECT_EQ(bad.load(), 0u) << slots << " slots";
    const ChunkStreamer::Stats s = st.stats();
    EXPECT_EQ(s.taken, got.load());
    EXPECT_EQ(s.fills, be.fills.load());
    EXPECT_LE(s.fills, s.taken);
    std::printf("%u slots: %llu chunk uses from %llu fills\n", slots, (unsigned long long)s.taken,
                (unsigned long long)s.fills);
  }
}

TEST(ChunkStreamer, SubscribersAtTheSameTimeShareFills) {
  FakeBackend be(2);
  ChunkStreamer st(2, be);
  const auto ids = st.add(fake_chunks(12));
  // Both subscribe before either takes anything: each fill serves both.
  auto s1 = st.subscribe(0, ids);
  auto s2 = st.subscribe(1, ids);
  size_t n1 = 0, n2 = 0;
  for (;;) {
    auto a = s1.next();
    auto b = s2.next();
    n1 += bool(a);
    n2 += bool(b);
    if (!a && !b) break;
  }
  EXPECT_EQ(n1, 12u);
  EXPECT_EQ(n2, 12u);
  EXPECT_EQ(st.stats().fills, 12u);
  EXPECT_EQ(st.stats().taken, 24u);
}

// A slow consumer (the H MSM) enqueues its reads and releases its leases at once; its device
// holds keep the slots in use. A consumer beside it (another step's witness MSMs) must get the
// slots that free up, although the slow one still needs chunks: the fewest-in-use rule.
TEST(ChunkStreamer, SlotsFreedBesideASlowConsumerGoToTheOneWithFewestInUse) {
  FakeBackend be(3);
  ChunkStreamer st(3, be);
  const auto ids = st.add(fake_chunks(30));
  auto slow = st.subscribe(0, std::vector<ChunkStreamer::ChunkId>(ids.begin(), ids.begin() + 10));
  std::vector<ChunkStreamer::DeviceHold*> slow_holds;
  for (int k = 0; k < 3; ++k) {  // its reads of all three slots are queued on the device
    auto l = slow.next();
    ASSERT_TRUE(l);
    slow_holds.push_back(l->hold_for_device());
  }
  EXPECT_EQ(st.stats().device_holds, 3u);
  auto fast = st.subscribe(1, std::vector<ChunkStreamer::ChunkId>(ids.begin() + 10, ids.end()));
  std::atomic<bool> timed_out{false};
  std::thread watchdog([&] {  // a wrong policy would leave `fast` waiting for ever
    for (int i = 0; i < 200 && !timed_out; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    timed_out = true;
    st.poke();
  });
  ChunkStreamer::done(slow_holds[0]);  // one slot's device reads are done
  size_t got = 0;
  while (auto l = fast.next([&] { return timed_out.load(); })) {
    EXPECT_GE(l->chunk->first, 10u);
    ChunkStreamer::DeviceHold* h = l->hold_for_device();
    l.reset();
    ChunkStreamer::done(h);  // fast: done at once
    ++got;
  }
  EXPECT_EQ(got, 20u) << "the fast consumer starved beside the slow one's device holds";
  EXPECT_EQ(st.stats().device_holds, 2u);
  timed_out = true;
  watchdog.join();
  ChunkStreamer::done(slow_holds[1]);
  ChunkStreamer::done(slow_holds[2]);
  size_t rest = 0;
  while (auto l = slow.next()) ++rest;
  EXPECT_EQ(rest, 7u);
  EXPECT_EQ(st.stats().device_holds, 0u);
}

TEST(ChunkStreamer, GiveUpAndDroppedSubscriptionsFreeTheirSlots) {
  FakeBackend be(1);
  ChunkStreamer st(1, be);
  const auto ids = st.add(fake_chunks(4));
  {
    auto s = st.subscribe(0, ids);
    auto first = s.next();
    ASSERT_TRUE(first);
  }  // dropped with 3 chunks left and its lease released: the slot is free again
  std::atomic<bool> stop{false};
  std::optional<ChunkStreamer::Subscription> waiting(st.subscribe(1, {ids[0]}));
  auto held = waiting->next();  // holds the only slot's lease
  ASSERT_TRUE(held);
  auto other = st.subscribe(2, {ids[3]});
  std::thread t([&] {
    auto l = other.next([&] { return stop.load(); });
    EXPECT_FALSE(l);  // gave up: the slot stayed leased
  });
  stop = true;
  st.poke();
  t.join();
  held.reset();
  auto l = other.next();
  ASSERT_TRUE(l);
  EXPECT_EQ(l->chunk->first, 3u);
  l.reset();
  st.remove(ids);
}

}  // namespace
}  // namespace snarkd::engine
