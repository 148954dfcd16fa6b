// The objects behind the supraseal-c2 ABI's opaque pointers (SRS handles, pending proofs, GPU
// mutexes) and the SRS cache. Every pointer that comes back from C is looked up in a live set
// before it is used, so a stale, doubled or foreign pointer is an error message, not a crash.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "snarkd/groth16/keys.hpp"
#include "snarkd/groth16/prover.hpp"

namespace snarkd::ffi {

// An error that carries an errno value for the ABI's code (the .params file could not be opened).
class ErrnoError : public std::runtime_error {
 public:
  ErrnoError(int code, const std::string& what) : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

// Reference-counted SRS handles (the crate's SRS: clone_SRS adds a reference, drop_SRS removes
// one) and the by-path cache, which holds one reference per entry.
class SrsRegistry {
 public:
  static SrsRegistry& instance();

  // A handle with one reference for the caller. cache: the shared copy for path (read once, the
  // kCacheEntries most recently used kept), else a private copy; a named pipe is read as it
  // streams and never cached. Throws ErrnoError when the file cannot be opened, DecodeError when
  // it is not a .params file.
  const void* create(const std::string& path, bool cache);
  // The key behind a live handle; InvalidArgument naming `what` for null or unknown handles.
  std::shared_ptr<const groth16::ProvingKey> key(const void* handle, const std::string& what) const;
  bool retain(const void* handle);   // false: unknown handle
  bool release(const void* handle);  // false: unknown handle; the last reference frees the SRS
  bool evict(const void* handle);    // drops the cache's entry for the handle's path
  size_t live() const;               // handles alive (tests)
  bool holds(const groth16::ProvingKey* pk) const;  // some live handle uses pk

  static constexpr size_t kCacheEntries = 4;

 private:
  struct Srs;
  void release_locked(Srs* s);  // with mu_ held
  // Lock order: cache_mu_, then mu_. cache_mu_ is held while a cached file loads (minutes for a
  // Filecoin key), so two callers of one path read it once; mu_ is only ever held briefly, so
  // proofs with loaded handles never wait for a load.
  std::mutex cache_mu_;
  std::vector<std::pair<std::string, Srs*>> lru_;  // most recently used first; guarded by cache_mu_
  mutable std::mutex mu_;
  std::vector<Srs*> live_;  // few: one per loaded file; guarded by mu_, as every Srs::refs
};

// A started call: its engine job (none for zero circuits); finalize awaits it and writes the
// proofs, destroy cancels it.
struct PendingProof {
  bool has_job = false;
  uint64_t job = 0;
  size_t count = 0;
  uint64_t abc_bytes = 0;  // what each partition's upload moves (a, b, c padded to the domain)
};

// A set of live pointers owned here: add() hands out the raw pointer, take() gives ownership back.
template <class T>
class LiveSet {
 public:
  T* add(std::unique_ptr<T> p) {
    std::lock_guard<std::mutex> g(mu_);
    items_.push_back(std::move(p));
    return items_.back().get();
  }
  std::unique_ptr<T> take(const void* p) {  // null when p is not live
    std::lock_guard<std::mutex> g(mu_);
    for (auto it = items_.begin(); it != items_.end(); ++it)
      if (it->get() == p) {
        std::unique_ptr<T> out = std::move(*it);
        items_.erase(it);
        return out;
      }
    return nullptr;
  }
  size_t size() const {
    std::lock_guard<std::mutex> g(mu_);
    return items_.size();
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<T>> items_;  // live handles are few (one per call in flight)
};

LiveSet<PendingProof>& pending_proofs();
LiveSet<std::mutex>& gpu_mutexes();

}  // namespace snarkd::ffi
