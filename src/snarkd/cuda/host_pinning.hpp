// Page-locked host memory for keys that stream: one registration per host range, shared by every
// device of the process (cudaHostRegisterPortable) and counted, so a key loaded on four GPUs is
// pinned once, in place — the host copy that streams is the only host copy of the key.
//
// When: at a circuit's load (set-up), never in a worker's path. cudaHostRegister takes the
// driver's locks while it pins (seconds for a PoRep key), which may delay other threads' CUDA
// calls; it does not wait for running kernels, and the circuit being loaded has no partition
// in flight (the engine refuses jobs for a circuit until it is loaded, and unloading waits for
// its jobs), so no stream of its own depends on it. The same holds for the unregistration at
// unload.
//
// Ranges are registered by whole pages. A range whose pages overlap another registration (two
// small heap arrays sharing a page) is left unpinned: copies from it stay correct, only slower
// and synchronous. Arrays large enough to stream are page-exclusive (glibc maps allocations
// from 32 MiB on with mmap), so in practice every streamed array is pinned.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace snarkd::cuda {

class PinnedRanges {
 public:
  PinnedRanges() = default;
  PinnedRanges(PinnedRanges&& o) noexcept : pages_(std::move(o.pages_)) { o.pages_.clear(); }
  PinnedRanges& operator=(PinnedRanges&& o) noexcept;
  PinnedRanges(const PinnedRanges&) = delete;
  PinnedRanges& operator=(const PinnedRanges&) = delete;
  ~PinnedRanges() { reset(); }

  // Pins each [p, p + bytes) (empty ranges are skipped). A range the driver refuses to pin stays
  // pageable, with a warning on stderr (copies from it are correct, only slower).
  static PinnedRanges pin(const std::vector<std::pair<const void*, size_t>>& ranges);
  void reset();  // drops this handle's references (unregisters ranges nobody else holds)

 private:
  std::vector<uintptr_t> pages_;  // first page of each registration this handle references
};

// Host bytes the registry keeps page-locked now (each range once, however many devices).
size_t pinned_host_bytes();

// Whether [p, p + bytes) lies inside one registration (a copy from it is asynchronous DMA).
bool is_pinned(const void* p, size_t bytes);

// Host-to-device cudaMemcpyAsync of [src, src + bytes) cut at registration edges. Registrations
// cover whole pages, so a small heap array can start on the last page of a registered key array
// and run past it; the driver refuses such a copy (cudaErrorInvalidValue, seen on the H200 with
// test-size keys). Every copy from host memory the caller does not own goes through here.
void copy_to_device_async(void* dst, const void* src, size_t bytes, cudaStream_t stream);

}  // namespace snarkd::cuda
