#include "snarkd/cuda/side_stream.hpp"

#include <map>
#include <memory>
#include <tuple>

namespace snarkd::cuda {

SideStream& side_stream(cudaStream_t stream, int slot) {
  thread_local std::map<std::tuple<int, cudaStream_t, int>, std::unique_ptr<SideStream>> by_stream;
  int device = 0;
  SNARKD_CUDA_CHECK(cudaGetDevice(&device));
  std::unique_ptr<SideStream>& s = by_stream[{device, stream, slot}];
  if (!s) s = std::make_unique<SideStream>();
  return *s;
}

}  // namespace snarkd::cuda
