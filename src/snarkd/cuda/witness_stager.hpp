// A worker's witness upload: the witness (pageable host memory, e.g. a std::vector the engine
// owns) goes to the device through two pinned chunks allocated once, with the worker, on the
// worker's copy stream, double-buffered: the host copies into one chunk while the other is on
// the wire. When enqueue() returns every byte is in a chunk or already copied, so the host
// witness may go; the device copy finishes in stream order. The compute stream waits for it on
// the device (wait_in), not on the host.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "snarkd/cuda/runtime.hpp"
#include "snarkd/r1cs/compact_witness.hpp"

namespace snarkd::cuda {

class WitnessStager {
 public:
  static constexpr size_t kDefaultChunk = size_t{64} << 20;

  // Allocates the two pinned chunks and the events on the current device (set-up time).
  explicit WitnessStager(size_t chunk_bytes = kDefaultChunk);

  // Enqueues the copy of `bytes` from `host` to `d_dst` on `copy_stream`; blocks only while a
  // chunk's previous copy is still on the wire. `d_dst` must stay valid until the copy is done.
  void enqueue(const void* host, size_t bytes, void* d_dst, cudaStream_t copy_stream);
  // The witness from its compact form: its arrays into d_scratch (r1cs::compact_layout(c).total
  // bytes, not overlapping d_dst), then the expansion into d_dst (c.n 32-byte values), both on
  // `copy_stream`; wait_in covers the expansion.
  void enqueue_compact(const r1cs::CompactWitness& c, void* d_scratch, void* d_dst, cudaStream_t copy_stream);
  // The compact form's arrays alone into d_dst (r1cs::compact_layout(c)), for kernels that read
  // it in place (cuda::stream_ops::WitnessView); wait_in covers them.
  void enqueue_compact_arrays(const r1cs::CompactWitness& c, void* d_dst, cudaStream_t copy_stream);
  // Makes `stream` wait (on the device) for the last enqueue's copies.
  void wait_in(cudaStream_t stream) const { uploaded_.wait_in(stream); }
  uint64_t bytes_staged() const { return staged_; }

 private:
  size_t chunk_bytes_;
  PinnedBuffer<std::byte> chunk_[2];
  Event chunk_done_[2] = {Event::blocking(), Event::blocking()};
  Event uploaded_;
  uint64_t staged_ = 0;
};

}  // namespace snarkd::cuda
