// The phase mark of the one-stream provers (prove_on_stream, prove_abc_on_stream): host code
// only, kept apart from prover.hpp so that only the two provers include it.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <stop_token>
#include <string>

#include "snarkd/cuda/prover.hpp"
#include "snarkd/cuda/runtime.hpp"
#include "snarkd/util/cancel.hpp"

namespace snarkd::cuda::detail {

// Records the event after phase k (k = −1: before the first) when `phases` is given; on a stop
// request waits for this stream only (the kernels already enqueued end first) and throws
// Cancelled("<what>: cancelled").
inline void mark_phase(const PhaseEvents* phases, size_t k, cudaStream_t stream, const std::stop_token& stop,
                       const char* what) {
  if (phases) SNARKD_CUDA_CHECK(cudaEventRecord(phases->at[k + 1], stream));
  if (stop.stop_requested()) {
    SNARKD_CUDA_CHECK(cudaStreamSynchronize(stream));
    throw Cancelled(std::string(what) + ": cancelled");
  }
}

}  // namespace snarkd::cuda::detail
