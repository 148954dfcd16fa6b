// --only=sort: the MSM's sort alone (cuda/msm_kernels.cuh: 32-bit keys of c + 1 bits, 32-bit
// values, ≤ 2^28 entries a pass), to decide how it should be called. Variants, each checked
// against the first (same keys and values out): input arrays to output arrays with a 64-bit item
// count (64-bit offsets, 17 items a thread on sm_90; the temp holds a third copy of both), the
// same with a 32-bit count (32-bit offsets, 23 items a thread), and in place over both pairs of
// arrays (cub::DoubleBuffer; the temp only CUB's counters). A policy of our own with 11-bit
// digits (two passes over 22-bit keys) did not finish at 2^27 in 90 s (2026-12-05) and is gone.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "msm_bench.hpp"
#include "snarkd/cuda/runtime.hpp"

namespace snarkd::cuda {

namespace {

__global__ void fill_kernel(uint32_t* keys, uint32_t* vals, size_t n, uint32_t mask, uint64_t seed) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    keys[i] = uint32_t(x) & mask;
    vals[i] = uint32_t(i);
  }
}

// One variant, in → out (0, 1) or in place over both pairs of arrays (2; the MSM's call): its temp
// need (temp = nullptr) or the sort. Returns where the sorted keys and values are.
struct Sorted {
  const uint32_t *keys, *vals;
};
Sorted sort_variant(int v, void* temp, size_t& temp_bytes, uint32_t* ki, uint32_t* ko, uint32_t* vi, uint32_t* vo,
                    size_t n, int bits, cudaStream_t s) {
  if (v == 0) SNARKD_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, ki, ko, vi, vo, n, 0, bits, s));
  if (v == 1)
    SNARKD_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, ki, ko, vi, vo, uint32_t(n), 0, bits, s));
  if (v != 2) return {ko, vo};
  cub::DoubleBuffer<uint32_t> k(ki, ko), val(vi, vo);
  SNARKD_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, k, val, uint32_t(n), 0, bits, s));
  return {k.Current(), val.Current()};
}

}  // namespace

void bench_sort(uint32_t reps, const Stream& s) {
  constexpr const char* kNames[] = {"in → out, 64-bit count", "in → out, 32-bit count", "in place, 32-bit count"};
  std::printf("MSM sort: pairs of u32, median of %u runs (ms)\n", reps);
  for (size_t n : {size_t{1} << 27, size_t{1} << 28}) {
    DeviceBuffer<uint32_t> ki(n), vi(n), ko(n), vo(n);
    for (int bits : {21, 22, 23, 25}) {
      std::vector<uint32_t> want_k, want_v;
      for (int v = 0; v < 3; ++v) {
        size_t temp_bytes = 0;
        sort_variant(v, nullptr, temp_bytes, ki.data(), ko.data(), vi.data(), vo.data(), n, bits, s);
        DeviceBuffer<uint8_t> temp(temp_bytes);
        // In place sorts its input: each run starts from a copy of the filled keys (not timed).
        DeviceBuffer<uint32_t> k0(n), v0(n);
        fill_kernel<<<4096, 256, 0, s>>>(k0.data(), v0.data(), n, uint32_t((uint64_t{1} << bits) - 1), 7 + bits);
        SNARKD_CUDA_CHECK(cudaGetLastError());
        Sorted out{};
        std::vector<double> runs;
        for (uint32_t r = 0; r < reps + 1; ++r) {
          SNARKD_CUDA_CHECK(cudaMemcpyAsync(ki.data(), k0.data(), n * 4, cudaMemcpyDeviceToDevice, s));
          SNARKD_CUDA_CHECK(cudaMemcpyAsync(vi.data(), v0.data(), n * 4, cudaMemcpyDeviceToDevice, s));
          Event a(true), b(true);
          a.record(s);
          out = sort_variant(v, temp.data(), temp_bytes, ki.data(), ko.data(), vi.data(), vo.data(), n, bits, s);
          b.record(s);
          b.synchronize();
          if (r > 0) runs.push_back(b.elapsed_ms_since(a));
        }
        std::sort(runs.begin(), runs.end());
        std::vector<uint32_t> got_k(n), got_v(n);
        SNARKD_CUDA_CHECK(cudaMemcpyAsync(got_k.data(), out.keys, n * 4, cudaMemcpyDeviceToHost, s));
        SNARKD_CUDA_CHECK(cudaMemcpyAsync(got_v.data(), out.vals, n * 4, cudaMemcpyDeviceToHost, s));
        s.synchronize();
        bool ok = true;
        if (v == 0)
          want_k = std::move(got_k), want_v = std::move(got_v);
        else
          ok = got_k == want_k && got_v == want_v;
        std::printf("sort 2^%d entries, %d-bit keys, %-24s %8.3f ms (temp %.1f MiB)%s\n", std::bit_width(n) - 1, bits,
                    kNames[v], runs[runs.size() / 2], temp_bytes / double(1 << 20), ok ? "" : "  MISMATCH");
        std::fflush(stdout);
      }
    }
  }
}

}  // namespace snarkd::cuda
