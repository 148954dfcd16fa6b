// A device's streaming slots: K fixed buffers in its memory (one resident reservation) through
// which streamed key chunks pass, shared by every worker of the device.
//
// Demand-driven and shared: a worker subscribes to the chunks a step needs (any order does: the
// MSMs and SpMV passes add up per-chunk results), and takes whichever of them is in a slot. One
// thread fills the slots: it picks a free slot (no lease open, no device reads outstanding, its
// chunk wanted by no subscriber) and, for the subscriber that has the fewest slots in use now
// (chunks filled for it and not yet taken, or slots its device reads still occupy; ties: the
// one served longest ago), the next chunk it needs after the last one filled for it,
// cyclically, that no slot holds. Subscribers that want the same chunk at the same time share
// one fill, so the bytes streamed per partition fall as partitions overlap; a newcomer starts
// where the last fill was, so it joins a pass over the same part in progress.
// Why the fewest-in-use rule and the device holds: a consumer enqueues its reads and releases
// its lease at once, so without them a slow consumer (the H MSM: ~75 ms of Pippenger per chunk)
// had every slot filled for it, each fill waiting on the device behind its queue, while the fast
// consumer beside it (another step's witness MSMs: a few ms per chunk) waited for slots.
//
// Why it cannot deadlock (docs/ARCHITECTURE.md): a lease is held only while its consumer enqueues
// (CUDA) or does (simulation) its reads of the slot, never while it waits for anything but the
// device work it enqueued; a device hold (Lease::hold_for_device) ends when the device has done
// reads that were enqueued already, so it ends without anybody's help; a slot whose chunk a
// subscriber still needs is freed once that subscriber takes it, which it does on its next call
// to next() (subscribers are workers inside a step, holding their reservation, so they wait for
// nothing but the streamer); so some slot is always eventually free, and every subscriber that
// needs a chunk is eventually the one with the fewest slots in use and the longest unserved.
// Device-side, a fill waits for the previous consumers' events and a consumer for the fill's
// event; both were recorded before the waits were enqueued, so no wait refers to work that has
// not been issued.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "snarkd/engine/key_parts.hpp"

namespace snarkd::engine {

class ChunkStreamer {
 public:
  using ChunkId = uint64_t;

  // The device's copy mechanics. fill() copies `chunk` into `slot` once the consumers of the
  // slot's previous chunk (`previous`: consumer ids, those given to subscribe()) are done with
  // it: they released their leases on the host, and a CUDA backend makes its copy stream wait
  // for their recorded events. Called on the streamer's thread, one fill at a time.
  class Backend {
   public:
    virtual ~Backend() = default;
    virtual void fill(uint32_t slot, const StreamChunk& chunk, const std::vector<uint32_t>& previous) = 0;
  };

  ChunkStreamer(uint32_t slots, Backend& backend);
  ~ChunkStreamer();  // stops the filler (no subscription may be open)
  ChunkStreamer(const ChunkStreamer&) = delete;
  ChunkStreamer& operator=(const ChunkStreamer&) = delete;

  uint32_t slots() const { return uint32_t(slots_.size()); }

  // The catalogue (circuit load / unload; nobody may be subscribed to removed chunks).
  std::vector<ChunkId> add(const std::vector<StreamChunk>& chunks);
  void remove(const std::vector<ChunkId>& ids);

  // A chunk in a slot, leased to one consumer until release() (or destruction): the consumer
  // releases it once it has enqueued (CUDA: and recorded its event after) or finished
  // (simulation) its reads of the slot.
  // The slot stays in use for subscriber `sub` until done() is called with it: from a CUDA host
  // function enqueued after the reads (it takes a mutex, makes no CUDA call).
  struct DeviceHold {
    ChunkStreamer* streamer;
    uint32_t slot;
    uint64_t sub;
  };
  static void done(DeviceHold* hold);  // deletes it (null: nothing)

  class Lease {
   public:
    Lease(Lease&& o) noexcept : slot(o.slot), id(o.id), chunk(o.chunk), s_(o.s_), sub_(o.sub_) { o.s_ = nullptr; }
    Lease& operator=(Lease&&) = delete;
    ~Lease() { release(); }
    void release();
    // Keeps the slot from being refilled after release() until done(hold): the consumer's reads
    // were enqueued on a device stream and have not run yet. Null once released.
    DeviceHold* hold_for_device();

    uint32_t slot = 0;
    ChunkId id = 0;
    const StreamChunk* chunk = nullptr;

   private:
    friend class ChunkStreamer;
    Lease(uint32_t s, ChunkId i, const StreamChunk* c, ChunkStreamer* st, uint64_t sub)
        : slot(s), id(i), chunk(c), s_(st), sub_(sub) {}
    ChunkStreamer* s_ = nullptr;
    uint64_t sub_ = 0;
  };

  class Subscription {
   public:
    Subscription(Subscription&&) noexcept;
    Subscription& operator=(Subscription&&) = delete;
    ~Subscription();  // gives up what is left

    // Blocks until a chunk this subscription still needs sits filled in a slot, and leases it;
    // nullopt when every chunk has been taken, or when give_up() returned true (checked
    // whenever the streamer changes and after poke()). Throws std::runtime_error once a fill
    // has failed (the device is broken).
    std::optional<Lease> next(const std::function<bool()>& give_up = {});
    // The same, given up once `stop` is requested (its callback wakes the wait): a cancelled
    // step's subscriber leaves at once. Its open leases and the demand it leaves go back to the
    // streamer when they are destroyed (as a Cancelled thrown by the caller unwinds).
    std::optional<Lease> next(const std::stop_token& stop);
    size_t remaining() const;

   private:
    friend class ChunkStreamer;
    Subscription(ChunkStreamer* s, uint64_t key) : s_(s), key_(key) {}
    ChunkStreamer* s_;
    uint64_t key_;
  };
  Subscription subscribe(uint32_t consumer, const std::vector<ChunkId>& chunks);
  void poke();  // wakes next() callers to re-check give_up

  struct Stats {
    uint64_t fills = 0, bytes = 0;  // chunks copied in, and their bytes
    uint64_t taken = 0;             // leases handed out (≥ fills: sharing)
    uint64_t open_leases = 0;       // leases not yet released (now)
    uint64_t device_holds = 0;      // device reads not yet done (now)
    uint64_t subscriptions = 0;     // subscriptions alive (now)
  };
  Stats stats() const;

 private:
  struct Entry {
    StreamChunk chunk;
    uint32_t demand = 0;  // subscribers that still need it
    int slot = -1;        // the slot holding it (filled or filling), −1 none
  };
  struct Slot {
    std::optional<ChunkId> chunk;
    bool filling = false;
    uint32_t leases = 0;              // open leases
    std::vector<uint32_t> consumers;  // who took the chunk it holds
    std::multiset<uint64_t> holds;    // subscribers whose device reads of it are outstanding
  };
  struct Sub {
    uint32_t consumer = 0;
    std::unordered_set<ChunkId> left;
    ChunkId cursor = 0;       // the last chunk filled for it (at first: the last fill's)
    uint64_t served_at = 0;   // fills counter when a chunk was last filled for it
  };

  void run();
  bool pick(uint32_t& slot, ChunkId& id, Sub*& for_sub);  // mu_ held
  std::optional<ChunkId> next_for(const Sub& s) const;    // mu_ held
  size_t in_use(uint64_t key, const Sub& s) const;        // mu_ held
  void drop(Sub& s);                       // mu_ held: give up what s still needs

  Backend& backend_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<ChunkId, Entry> chunks_;
  std::vector<Slot> slots_;
  std::map<uint64_t, Sub> subs_;
  ChunkId next_id_ = 0, cursor_ = 0;
  uint64_t next_sub_ = 0, picks_ = 0;
  Stats stats_;
  bool stop_ = false;
  std::string failed_;  // a fill's error: next() throws it from then on
  std::thread thread_;
};

}  // namespace snarkd::engine
