// The streaming bookkeeping every device with a ChunkStreamer shares: registering a loaded
// key's streamed chunks, dropping them at unload, and reporting the streamer's counters. Kept
// apart from the devices so the simulated and CUDA devices cannot drift on it (the tests run
// the simulated one; the daemon runs the CUDA one).
#pragma once

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "snarkd/engine/device.hpp"
#include "snarkd/engine/key_parts.hpp"
#include "snarkd/engine/residency.hpp"
#include "snarkd/engine/streamer.hpp"

namespace snarkd::engine {

// A loaded key's streamed chunk ids, by key part.
using StreamedIds = std::array<std::vector<ChunkStreamer::ChunkId>, kKeyParts>;

// Registers with the streamer, for each key part, the chunks the plan does not keep resident.
inline StreamedIds add_streamed(ChunkStreamer& streamer, const KeyCatalogue& cat, const ResidencyPlan& plan) {
  StreamedIds ids;
  for (size_t p = 0; p < kKeyParts; ++p) {
    std::vector<StreamChunk> streamed;
    for (const StreamChunk& ch : cat.chunks[p])
      if (!plan.resident(KeyPart(p), ch.index)) streamed.push_back(ch);
    ids[p] = streamer.add(streamed);
  }
  return ids;
}

// Unloads circuit `id` (a no-op if it is not loaded): takes its Loaded out of `loaded` under
// both locks (`load_mu`: loads and unloads one at a time; `mu`: the map), removes its streamed
// chunks from the streamer (if any), then releases it — and with it its resident reservation —
// still under `load_mu`. The caller makes sure no partition of the circuit runs.
template <class L>
void unload_streamed(std::mutex& load_mu, std::mutex& mu, std::map<std::string, std::shared_ptr<const L>>& loaded,
                     ChunkStreamer* streamer, const std::string& id) {
  std::lock_guard ll(load_mu);
  std::shared_ptr<const L> l;
  {
    std::lock_guard g(mu);
    auto it = loaded.find(id);
    if (it == loaded.end()) return;
    l = std::move(it->second);
    loaded.erase(it);
  }
  if (streamer)
    for (const auto& ids : l->ids) streamer->remove(ids);
  l.reset();
}

// The streamer's counters in s (left as they are without a streamer).
inline void put_streamer_stats(const ChunkStreamer* streamer, StreamStats& s) {
  if (!streamer) return;
  const ChunkStreamer::Stats st = streamer->stats();
  s.streamed_bytes = st.bytes;
  s.fills = st.fills;
  s.leases = st.taken;
  s.open_leases = st.open_leases;
  s.subscriptions = st.subscriptions;
}

}  // namespace snarkd::engine
