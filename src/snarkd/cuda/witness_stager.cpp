#include "snarkd/cuda/witness_stager.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "snarkd/cuda/witness_expand.hpp"
#include "snarkd/util/threads.hpp"

namespace snarkd::cuda {

namespace {

// memcpy of len bytes on kCopyThreads threads. Staging a PoRep witness (4.2 GB) into the pinned
// chunks on one thread took 1.0–1.15 s (≈ 4 GB/s: the host memcpy, not PCIe), and workers that
// uploaded at the same moment left the device idle (timeline of 2026-11-30, H200, 3 workers).
void parallel_copy(std::byte* dst, const std::byte* src, uint64_t len) {
  constexpr uint64_t kCopyThreads = 4;
  const uint64_t slice = (len + kCopyThreads - 1) / kCopyThreads;
  run_on_threads(kCopyThreads, [&](size_t k) {
    const uint64_t off = std::min(len, k * slice);
    std::memcpy(dst + off, src + off, std::min(slice, len - off));
  });
}

}  // namespace

WitnessStager::WitnessStager(size_t chunk_bytes) : chunk_bytes_(std::max<size_t>(chunk_bytes, 4096)) {
  chunk_[0] = PinnedBuffer<std::byte>(chunk_bytes_);
  chunk_[1] = PinnedBuffer<std::byte>(chunk_bytes_);
}

void WitnessStager::enqueue(const void* host, size_t bytes, void* d_dst, cudaStream_t copy_stream) {
  const auto* src = static_cast<const std::byte*>(host);
  auto* dst = static_cast<std::byte*>(d_dst);
  for (uint64_t off = 0, k = 0; off < bytes; off += chunk_bytes_, k ^= 1) {
    const uint64_t len = std::min<uint64_t>(chunk_bytes_, bytes - off);
    chunk_done_[k].synchronize();  // the chunk's previous copy has left it
    parallel_copy(chunk_[k].data(), src + off, len);
    SNARKD_CUDA_CHECK(cudaMemcpyAsync(dst + off, chunk_[k].data(), len, cudaMemcpyHostToDevice, copy_stream));
    chunk_done_[k].record(copy_stream);
  }
  uploaded_.record(copy_stream);
  staged_ += bytes;
}

void WitnessStager::enqueue_compact_arrays(const r1cs::CompactWitness& c, void* d_dst, cudaStream_t copy_stream) {
  const r1cs::CompactLayout l = r1cs::compact_layout(c);
  auto* s = static_cast<std::byte*>(d_dst);
  enqueue(c.ones.data(), c.ones.size() * 8, s + l.ones, copy_stream);
  enqueue(c.others.data(), c.others.size() * 8, s + l.others, copy_stream);
  enqueue(c.offset.data(), c.offset.size() * 4, s + l.offset, copy_stream);
  enqueue(c.values.data(), c.values.size() * sizeof(ff::Fr), s + l.values, copy_stream);
}

void WitnessStager::enqueue_compact(const r1cs::CompactWitness& c, void* d_scratch, void* d_dst,
                                    cudaStream_t copy_stream) {
  const r1cs::CompactLayout l = r1cs::compact_layout(c);
  enqueue_compact_arrays(c, d_scratch, copy_stream);
  const ff::Fr one = ff::Fr::one();
  std::array<uint64_t, 4> limbs;
  std::memcpy(limbs.data(), &one, sizeof limbs);
  launch_expand_witness(d_scratch, l, c.n, limbs, d_dst, copy_stream);
  uploaded_.record(copy_stream);
}

}  // namespace snarkd::cuda
