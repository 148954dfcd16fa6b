// Helpers shared by the GPU tests: skipping without a device, host↔device round trips.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "snarkd/cuda/runtime.hpp"

namespace snarkd::cuda::test {

// CI machines have nvcc but no GPU: every device test skips cleanly there.
#define SNARKD_SKIP_WITHOUT_GPU()                                          \
  do {                                                                     \
    if (::snarkd::cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device"; \
  } while (0)

// Copies host elements (any type with the device layout) into a new device buffer.
template <class D, class H>
DeviceBuffer<D> to_device(const std::vector<H>& host, cudaStream_t s) {
  static_assert(sizeof(D) == sizeof(H));
  DeviceBuffer<D> d(host.size());
  d.upload(reinterpret_cast<const D*>(host.data()), host.size(), s);
  return d;
}

// Copies a device buffer back into host elements and waits for the copy.
template <class H, class D>
std::vector<H> to_host(const DeviceBuffer<D>& d, cudaStream_t s) {
  static_assert(sizeof(D) == sizeof(H));
  std::vector<H> host(d.size());
  d.download(reinterpret_cast<D*>(host.data()), host.size(), s);
  SNARKD_CUDA_CHECK(cudaStreamSynchronize(s));
  return host;
}

}  // namespace snarkd::cuda::test
