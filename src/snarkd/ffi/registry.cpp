#include "snarkd/ffi/registry.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "snarkd/groth16/bellperson_io.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/file.hpp"

namespace snarkd::ffi {

struct SrsRegistry::Srs {
  std::string path;
  std::shared_ptr<const groth16::ProvingKey> pk;
  uint64_t refs = 1;  // guarded by the registry's mutex
};

namespace {

// Filecoin's .params files are tens of GB: the points are checked for canonical encodings only
// (the subgroup checks would take hours, PointCheck::kTrusted), as the upstream library does;
// every proof is verified before it is handed out, so a corrupt key gives an error, not a
// wrong proof. A named pipe is read too (a key another process streams, never on disk);
// access(), not a probing open, checks the path first: opening and closing a FIFO's read end
// would let its writer start into a pipe with no reader.
std::shared_ptr<const groth16::ProvingKey> load(const std::string& path) {
  if (::access(path.c_str(), R_OK) != 0) {
    const int err = errno;
    throw ErrnoError(err, path + ": cannot open: " + std::strerror(err));
  }
  return std::make_shared<const groth16::ProvingKey>(
      groth16::read_params(path, groth16::PointCheck::kTrusted, FileSource::kFileOrFifo));
}

}  // namespace

SrsRegistry& SrsRegistry::instance() {
  static SrsRegistry* r = new SrsRegistry;  // never destroyed: handles may outlive static teardown
  return *r;
}

const void* SrsRegistry::create(const std::string& path, bool cache) {
  // A pipe's next reader gets whatever its next writer sends: never served from the cache.
  if (!cache || is_fifo(path)) {
    auto s = std::make_unique<Srs>(Srs{path, load(path), 1});
    std::lock_guard<std::mutex> g(mu_);
    live_.push_back(s.get());
    return s.release();
  }
  std::lock_guard<std::mutex> c(cache_mu_);
  auto hit = std::find_if(lru_.begin(), lru_.end(), [&](const auto& e) { return e.first == path; });
  if (hit != lru_.end()) {
    std::rotate(lru_.begin(), hit, hit + 1);
  } else {
    auto s = std::make_unique<Srs>(Srs{path, load(path), 1});  // the cache's reference
    std::lock_guard<std::mutex> g(mu_);
    live_.push_back(s.get());
    lru_.insert(lru_.begin(), {path, s.release()});
    if (lru_.size() > kCacheEntries) {
      release_locked(lru_.back().second);
      lru_.pop_back();
    }
  }
  std::lock_guard<std::mutex> g(mu_);
  ++lru_.front().second->refs;  // the caller's
  return lru_.front().second;
}

std::shared_ptr<const groth16::ProvingKey> SrsRegistry::key(const void* handle, const std::string& what) const {
  if (handle == nullptr) throw InvalidArgument(what + " holds no SRS (a null handle)");
  std::lock_guard<std::mutex> g(mu_);
  for (Srs* s : live_)
    if (s == handle) return s->pk;
  throw InvalidArgument(what + " is not a live SRS handle (dropped already?)");
}

bool SrsRegistry::retain(const void* handle) {
  std::lock_guard<std::mutex> g(mu_);
  for (Srs* s : live_)
    if (s == handle) {
      ++s->refs;
      return true;
    }
  return false;
}

bool SrsRegistry::release(const void* handle) {
  std::lock_guard<std::mutex> g(mu_);
  for (Srs* s : live_)
    if (s == handle) {
      release_locked(s);
      return true;
    }
  return false;
}

void SrsRegistry::release_locked(Srs* s) {
  if (--s->refs > 0) return;
  live_.erase(std::find(live_.begin(), live_.end(), s));
  delete s;
}

bool SrsRegistry::evict(const void* handle) {
  std::lock_guard<std::mutex> c(cache_mu_);
  std::lock_guard<std::mutex> g(mu_);
  auto it = std::find(live_.begin(), live_.end(), static_cast<const Srs*>(handle));
  if (it == live_.end()) return false;
  const std::string path = (*it)->path;
  for (auto e = lru_.begin(); e != lru_.end();)
    if (e->first == path) {
      Srs* s = e->second;
      e = lru_.erase(e);
      release_locked(s);
    } else {
      ++e;
    }
  return true;
}

size_t SrsRegistry::live() const {
  std::lock_guard<std::mutex> g(mu_);
  return live_.size();
}

bool SrsRegistry::holds(const groth16::ProvingKey* pk) const {
  std::lock_guard<std::mutex> g(mu_);
  return std::any_of(live_.begin(), live_.end(), [pk](const Srs* s) { return s->pk.get() == pk; });
}

LiveSet<PendingProof>& pending_proofs() {
  static auto* s = new LiveSet<PendingProof>;
  return *s;
}

LiveSet<std::mutex>& gpu_mutexes() {
  static auto* s = new LiveSet<std::mutex>;
  return *s;
}

}  // namespace snarkd::ffi
