#include "snarkd/cuda/runtime.hpp"

namespace snarkd::cuda {

void check(cudaError_t code, const char* call, const char* file, int line) {
  if (code == cudaSuccess) return;
  cudaGetLastError();  // clear a sticky launch error so later checks report their own
  throw Error(code, std::string(file) + ":" + std::to_string(line) + ": " + call + ": " +
                        cudaGetErrorName(code) + ": " + cudaGetErrorString(code));
}

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

}  // namespace snarkd::cuda
