#include "snarkd/engine/streamer.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "snarkd/util/error.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::engine {

ChunkStreamer::ChunkStreamer(uint32_t slots, Backend& backend) : backend_(backend), slots_(slots) {
  if (slots == 0) throw InvalidArgument("ChunkStreamer: no slots");
  thread_ = std::thread([this] { run(); });
}

ChunkStreamer::~ChunkStreamer() {
  {
    std::unique_lock l(mu_);
    stop_ = true;
    // Device holds end with work already enqueued (the workers have synchronised their streams
    // by now); a broken device may never run their host functions, so the wait is bounded.
    const bool drained = cv_.wait_for(l, std::chrono::seconds(30), [&] {
      return std::all_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.holds.empty(); });
    });
    if (!drained) std::fprintf(stderr, "snarkd streamer: device holds still open at shutdown\n");
  }
  cv_.notify_all();
  thread_.join();
}

std::vector<ChunkStreamer::ChunkId> ChunkStreamer::add(const std::vector<StreamChunk>& chunks) {
  std::lock_guard l(mu_);
  std::vector<ChunkId> ids;
  for (const StreamChunk& c : chunks) {
    const ChunkId id = next_id_++;
    chunks_.emplace(id, Entry{c, 0, -1});
    ids.push_back(id);
  }
  return ids;
}

void ChunkStreamer::remove(const std::vector<ChunkId>& ids) {
  std::unique_lock l(mu_);
  // A chunk being filled stays until its fill returns (the backend reads its segments).
  cv_.wait(l, [&] {
    return std::none_of(ids.begin(), ids.end(), [&](ChunkId id) {
      auto it = chunks_.find(id);
      return it != chunks_.end() && it->second.slot >= 0 && slots_[size_t(it->second.slot)].filling;
    });
  });
  for (ChunkId id : ids) {
    auto it = chunks_.find(id);
    if (it == chunks_.end()) continue;
    if (it->second.slot >= 0) slots_[size_t(it->second.slot)].chunk.reset();
    chunks_.erase(it);
  }
}

ChunkStreamer::Subscription ChunkStreamer::subscribe(uint32_t consumer, const std::vector<ChunkId>& chunks) {
  std::lock_guard l(mu_);
  const uint64_t key = next_sub_++;
  Sub& s = subs_[key];
  s.consumer = consumer;
  s.cursor = cursor_;
  s.served_at = picks_;
  for (ChunkId id : chunks) {
    auto it = chunks_.find(id);
    if (it == chunks_.end()) throw std::logic_error("ChunkStreamer::subscribe: unknown chunk");
    if (s.left.insert(id).second) ++it->second.demand;
  }
  cv_.notify_all();
  return Subscription(this, key);
}

void ChunkStreamer::drop(Sub& s) {
  for (ChunkId id : s.left)
    if (auto it = chunks_.find(id); it != chunks_.end()) --it->second.demand;
  s.left.clear();
}

ChunkStreamer::Subscription::Subscription(Subscription&& o) noexcept : s_(o.s_), key_(o.key_) { o.s_ = nullptr; }

ChunkStreamer::Subscription::~Subscription() {
  if (!s_) return;
  std::lock_guard l(s_->mu_);
  auto it = s_->subs_.find(key_);
  s_->drop(it->second);
  s_->subs_.erase(it);
  s_->cv_.notify_all();  // slots holding chunks nobody needs now are free
}

size_t ChunkStreamer::Subscription::remaining() const {
  std::lock_guard l(s_->mu_);
  return s_->subs_.at(key_).left.size();
}

std::optional<ChunkStreamer::Lease> ChunkStreamer::Subscription::next(const std::function<bool()>& give_up) {
  ChunkStreamer& st = *s_;
  std::unique_lock l(st.mu_);
  Sub& me = st.subs_.at(key_);
  for (;;) {
    if (me.left.empty()) return std::nullopt;
    if (!st.failed_.empty()) throw std::runtime_error("streaming key chunks failed: " + st.failed_);
    for (uint32_t k = 0; k < st.slots_.size(); ++k) {
      Slot& slot = st.slots_[k];
      if (slot.filling || !slot.chunk || !me.left.count(*slot.chunk)) continue;
      const ChunkId id = *slot.chunk;
      me.left.erase(id);
      Entry& e = st.chunks_.at(id);
      --e.demand;
      ++slot.leases;
      if (std::find(slot.consumers.begin(), slot.consumers.end(), me.consumer) == slot.consumers.end())
        slot.consumers.push_back(me.consumer);
      ++st.stats_.taken;
      return Lease(k, id, &e.chunk, &st, key_);
    }
    if (give_up && give_up()) return std::nullopt;
    st.cv_.wait(l);
  }
}

std::optional<ChunkStreamer::Lease> ChunkStreamer::Subscription::next(const std::stop_token& stop) {
  const std::stop_callback wake(stop, [st = s_] { st->poke(); });
  return next([&stop] { return stop.stop_requested(); });
}

void ChunkStreamer::Lease::release() {
  if (!s_) return;
  std::lock_guard l(s_->mu_);
  --s_->slots_[slot].leases;
  s_->cv_.notify_all();
  s_ = nullptr;
}

ChunkStreamer::DeviceHold* ChunkStreamer::Lease::hold_for_device() {
  if (!s_) return nullptr;  // released: nothing to hold
  std::lock_guard l(s_->mu_);
  s_->slots_[slot].holds.insert(sub_);
  return new DeviceHold{s_, slot, sub_};
}

void ChunkStreamer::done(DeviceHold* hold) {
  if (!hold) return;
  ChunkStreamer& st = *hold->streamer;
  {
    std::lock_guard l(st.mu_);
    auto& holds = st.slots_[hold->slot].holds;
    if (auto it = holds.find(hold->sub); it != holds.end()) holds.erase(it);
  }
  st.cv_.notify_all();
  delete hold;
}

void ChunkStreamer::poke() {
  std::lock_guard l(mu_);
  cv_.notify_all();
}

ChunkStreamer::Stats ChunkStreamer::stats() const {
  std::lock_guard l(mu_);
  Stats s = stats_;
  for (const Slot& slot : slots_) s.open_leases += slot.leases, s.device_holds += slot.holds.size();
  s.subscriptions = subs_.size();
  return s;
}

std::optional<ChunkStreamer::ChunkId> ChunkStreamer::next_for(const Sub& s) const {
  // The first chunk after s.cursor (then from the start) that s needs and no slot holds.
  std::optional<ChunkId> after, first;
  for (ChunkId id : s.left) {
    if (chunks_.at(id).slot >= 0) continue;
    if (id > s.cursor && (!after || id < *after)) after = id;
    if (!first || id < *first) first = id;
  }
  return after ? after : first;
}

size_t ChunkStreamer::in_use(uint64_t key, const Sub& s) const {
  size_t n = 0;
  for (const Slot& sl : slots_)
    if ((sl.chunk && s.left.count(*sl.chunk)) || sl.holds.count(key)) ++n;
  return n;
}

bool ChunkStreamer::pick(uint32_t& slot, ChunkId& id, Sub*& for_sub) {
  // A free slot: not filling, no open lease, holding nothing or a chunk nobody still needs.
  int free_slot = -1;
  for (uint32_t k = 0; k < slots_.size(); ++k) {
    const Slot& s = slots_[k];
    if (s.filling || s.leases > 0 || !s.holds.empty()) continue;
    if (s.chunk && chunks_.at(*s.chunk).demand > 0) continue;
    if (free_slot < 0 || !s.chunk) free_slot = int(k);
    if (!s.chunk) break;
  }
  if (free_slot < 0) return false;
  // The subscriber with the fewest slots in use, then the one served longest ago, that needs a
  // chunk no slot holds.
  Sub* best = nullptr;
  size_t best_held = 0;
  std::optional<ChunkId> best_id;
  for (auto& [key, s] : subs_) {
    if (s.left.empty()) continue;
    const size_t held = in_use(key, s);
    if (best && (held > best_held || (held == best_held && s.served_at >= best->served_at))) continue;
    const std::optional<ChunkId> c = next_for(s);
    if (!c) continue;
    best = &s, best_held = held, best_id = c;
  }
  if (!best) return false;
  slot = uint32_t(free_slot);
  id = *best_id;
  for_sub = best;
  return true;
}

void ChunkStreamer::run() {
  name_this_thread("snarkd-stream");
  std::unique_lock l(mu_);
  for (;;) {
    uint32_t k = 0;
    ChunkId id = 0;
    Sub* for_sub = nullptr;
    cv_.wait(l, [&] { return stop_ || pick(k, id, for_sub); });
    if (stop_) return;
    for_sub->cursor = id;
    for_sub->served_at = ++picks_;
    Slot& slot = slots_[k];
    if (slot.chunk)
      if (auto old = chunks_.find(*slot.chunk); old != chunks_.end()) old->second.slot = -1;
    Entry& e = chunks_.at(id);
    e.slot = int(k);
    slot.chunk = id;
    slot.filling = true;
    const std::vector<uint32_t> previous = std::move(slot.consumers);
    slot.consumers.clear();
    cursor_ = id;
    const StreamChunk* chunk = &e.chunk;  // stable: std::map nodes do not move
    l.unlock();
    try {
      backend_.fill(k, *chunk, previous);
    } catch (const std::exception& ex) {
      // The device failed (a CUDA error): nothing can be streamed any more. Every next() from
      // now on throws, so the partitions waiting for chunks fail instead of hanging.
      std::fprintf(stderr, "snarkd streamer: a fill failed: %s\n", ex.what());
      l.lock();
      failed_ = ex.what();
      cv_.notify_all();
      return;
    }
    l.lock();
    slot.filling = false;
    ++stats_.fills;
    stats_.bytes += chunk->bytes;
    cv_.notify_all();
  }
}

}  // namespace snarkd::engine
