#include "snarkd/cuda/host_pinning.hpp"

#include <unistd.h>

#include <cstdio>
#include <map>
#include <mutex>
#include <string>

#include "snarkd/cuda/runtime.hpp"

namespace snarkd::cuda {

namespace {

struct Registration {
  uintptr_t end = 0;
  uint64_t refs = 0;
};

struct Registry {
  std::mutex mu;
  std::map<uintptr_t, Registration> by_begin;  // disjoint page ranges
  size_t bytes = 0;
};

Registry& registry() {
  static Registry r;
  return r;
}

uintptr_t page_size() {
  static const uintptr_t p = uintptr_t(sysconf(_SC_PAGESIZE));
  return p;
}

// Whether [b, e) overlaps a registration other than one starting exactly at b. mu held.
bool overlaps_other(const Registry& r, uintptr_t b, uintptr_t e) {
  auto it = r.by_begin.lower_bound(b);
  if (it != r.by_begin.end() && it->first < e && it->first != b) return true;
  if (it != r.by_begin.begin()) {
    auto prev = std::prev(it);
    if (prev->second.end > b) return true;
  }
  return it != r.by_begin.end() && it->first == b && it->second.end != e;
}

}  // namespace

PinnedRanges& PinnedRanges::operator=(PinnedRanges&& o) noexcept {
  if (this != &o) {
    reset();
    pages_ = std::move(o.pages_);
    o.pages_.clear();
  }
  return *this;
}

PinnedRanges PinnedRanges::pin(const std::vector<std::pair<const void*, size_t>>& ranges) {
  PinnedRanges out;
  Registry& r = registry();
  std::lock_guard l(r.mu);
  for (const auto& [p, bytes] : ranges) {
    if (p == nullptr || bytes == 0) continue;
    const uintptr_t ps = page_size();
    const uintptr_t b = reinterpret_cast<uintptr_t>(p) / ps * ps;
    const uintptr_t e = (reinterpret_cast<uintptr_t>(p) + bytes + ps - 1) / ps * ps;
    if (auto it = r.by_begin.find(b); it != r.by_begin.end() && it->second.end == e) {
      ++it->second.refs;
      out.pages_.push_back(b);
      continue;
    }
    if (overlaps_other(r, b, e)) continue;  // shares pages with another range: left pageable
    const cudaError_t err = cudaHostRegister(reinterpret_cast<void*>(b), e - b, cudaHostRegisterPortable);
    if (err != cudaSuccess) {
      // Still correct unpinned (the copies are staged by the driver: slower, synchronous), so a
      // host that refuses to lock this much memory degrades instead of failing the load.
      cudaGetLastError();  // clear it, so the next CUDA call does not report it
      std::fprintf(stderr, "snarkd: warning: cudaHostRegister of %zu bytes of key data failed (%s); that range "
                           "streams from pageable memory\n", size_t(e - b), cudaGetErrorString(err));
      continue;
    }
    r.by_begin[b] = Registration{e, 1};
    r.bytes += e - b;
    out.pages_.push_back(b);
  }
  return out;
}

void PinnedRanges::reset() {
  if (pages_.empty()) return;
  Registry& r = registry();
  std::lock_guard l(r.mu);
  for (uintptr_t b : pages_) {
    auto it = r.by_begin.find(b);
    if (it == r.by_begin.end() || --it->second.refs > 0) continue;
    cudaHostUnregister(reinterpret_cast<void*>(b));  // no throw from a destructor's path
    r.bytes -= it->second.end - b;
    r.by_begin.erase(it);
  }
  pages_.clear();
}

size_t pinned_host_bytes() {
  Registry& r = registry();
  std::lock_guard l(r.mu);
  return r.bytes;
}

bool is_pinned(const void* p, size_t bytes) {
  Registry& r = registry();
  std::lock_guard l(r.mu);
  const uintptr_t b = reinterpret_cast<uintptr_t>(p);
  auto it = r.by_begin.upper_bound(b);
  if (it == r.by_begin.begin()) return false;
  --it;
  return it->first <= b && b + bytes <= it->second.end;
}

void copy_to_device_async(void* dst, const void* src, size_t bytes, cudaStream_t stream) {
  std::vector<std::pair<uintptr_t, uintptr_t>> pieces;  // [begin, end): each wholly in or out
  {
    Registry& r = registry();
    std::lock_guard l(r.mu);
    uintptr_t b = reinterpret_cast<uintptr_t>(src);
    const uintptr_t e = b + bytes;
    while (b < e) {
      auto next = r.by_begin.upper_bound(b);  // the first registration starting after b
      uintptr_t cut = next == r.by_begin.end() ? e : std::min(e, next->first);
      if (next != r.by_begin.begin()) {
        const auto prev = std::prev(next);
        if (prev->second.end > b) cut = std::min(e, prev->second.end);  // b is inside prev
      }
      pieces.emplace_back(b, cut);
      b = cut;
    }
  }
  const auto base = reinterpret_cast<uintptr_t>(src);
  for (const auto& [b, e] : pieces)
    SNARKD_CUDA_CHECK(cudaMemcpyAsync(static_cast<uint8_t*>(dst) + (b - base), reinterpret_cast<const void*>(b), e - b,
                                      cudaMemcpyHostToDevice, stream));
}

}  // namespace snarkd::cuda
