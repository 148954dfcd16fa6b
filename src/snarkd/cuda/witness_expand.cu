#include <algorithm>

#include "snarkd/cuda/runtime.hpp"
#include "snarkd/cuda/witness_expand.hpp"

namespace snarkd::cuda {
namespace {

struct alignas(16) Value32 {
  ulonglong2 lo, hi;
};

// One thread per value: its word's two bit vectors, one popcount for the others' index.
__global__ void expand_kernel(const uint64_t* ones, const uint64_t* others, const uint32_t* offset,
                              const Value32* values, uint64_t n, Value32 one, Value32* out) {
  const Value32 zero{{0, 0}, {0, 0}};
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t q = i / 64, bit = uint64_t{1} << (i % 64), x = others[q];
    Value32 v = zero;
    if (ones[q] & bit) v = one;
    else if (x & bit) v = values[offset[q] + uint32_t(__popcll(x & (bit - 1)))];
    out[i] = v;
  }
}

}  // namespace

void launch_expand_witness(const void* d_compact, const r1cs::CompactLayout& l, uint64_t n,
                           const std::array<uint64_t, 4>& one, void* out, cudaStream_t stream) {
  if (n == 0) return;
  const auto* base = static_cast<const uint8_t*>(d_compact);
  constexpr uint32_t kThreads = 256;
  const auto blocks = uint32_t(std::clamp<uint64_t>((n + kThreads - 1) / kThreads, 1, 65536));
  const Value32 one_v{{one[0], one[1]}, {one[2], one[3]}};
  expand_kernel<<<blocks, kThreads, 0, stream>>>(
      reinterpret_cast<const uint64_t*>(base + l.ones), reinterpret_cast<const uint64_t*>(base + l.others),
      reinterpret_cast<const uint32_t*>(base + l.offset), reinterpret_cast<const Value32*>(base + l.values), n,
      one_v, static_cast<Value32*>(out));
  SNARKD_CUDA_CHECK_LAUNCH();
}

}  // namespace snarkd::cuda
