// A second stream beside a caller's stream, for a stream-ordered call that splits its kernels over
// two streams and joins them back before it returns: the batch-affine lanes' halves
// (msm_affine.cuh), a pass's reduction beside the next pass's sort (msm_kernels.cuh, pippenger).
#pragma once
#include <cuda_runtime.h>

#include "snarkd/cuda/runtime.hpp"

namespace snarkd::cuda {

// The side stream with its fork event (recorded on the caller's stream, waited for by the side)
// and join event (the other way). One per (host thread, current device, caller's stream, slot),
// created on its first use and kept for the thread's life, so that calls on different streams of
// one thread never queue behind each other on a shared side stream, and the users above (slots 0
// and 1) never behind each other's work. Creating a stream or an event synchronises nothing.
struct SideStream {
  Stream side;
  Event fork, join;
};
SideStream& side_stream(cudaStream_t stream, int slot);

}  // namespace snarkd::cuda
