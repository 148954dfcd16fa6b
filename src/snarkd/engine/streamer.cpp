#include "snarkd/engine/streamer.hpp"

#include <algorithm>
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
    std::lock_guard l(mu_);
    stop_ = true;
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
      return Lease(k, id, &e.chunk, &st);
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

void ChunkStreamer::poke() {
  std::lock_guard l(mu_);
  cv_.notify_all();
}

ChunkStreamer::Stats ChunkStreamer::stats() const {
  std::lock_guard l(mu_);
  Stats s = stats_;
  for (const Slot& slot : slots_) s.open_leases += slot.leases;
  s.subscriptions = subs_.size();
  return s;
}

bool ChunkStreamer::pick(uint32_t& slot, ChunkId& id) {
  // A free slot: not filling, no open lease, holding nothing or a chunk nobody still needs.
  int free_slot = -1;
  for (uint32_t k = 0; k < slots_.size(); ++k) {
    const Slot& s = slots_[k];
    if (s.filling || s.leases > 0) continue;
    if (s.chunk && chunks_.at(*s.chunk).demand > 0) continue;
    if (free_slot < 0 || !s.chunk) free_slot = int(k);
    if (!s.chunk) break;
  }
  if (free_slot < 0) return false;
  // The next wanted chunk after the cursor, cyclically, that no slot holds.
  auto wanted = [](const auto& kv) { return kv.second.demand > 0 && kv.second.slot < 0; };
  auto it = std::find_if(chunks_.upper_bound(cursor_), chunks_.end(), wanted);
  if (it == chunks_.end()) it = std::find_if(chunks_.begin(), chunks_.end(), wanted);
  if (it == chunks_.end()) return false;
  slot = uint32_t(free_slot);
  id = it->first;
  return true;
}

void ChunkStreamer::run() {
  name_this_thread("snarkd-stream");
  std::unique_lock l(mu_);
  for (;;) {
    uint32_t k = 0;
    ChunkId id = 0;
    cv_.wait(l, [&] { return stop_ || pick(k, id); });
    if (stop_) return;
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
