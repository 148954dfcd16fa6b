// Σ kᵢ·Pᵢ on the GPU for scalars that are mostly 0 and 1 (Filecoin PoRep witnesses: ~95% bits,
// about half of them zeros), for G1 (F = Fp) and G2 (F = Fp2). CPU twin: msm::msm_split
// (msm/msm.hpp, msm/split.cpp), which the tests compare against; same result as msm() / cuda::msm.
//
// Three stream-ordered phases, because the tail's length is data-dependent and cuda::msm needs
// it on the host:
//   1. msm_split_classify (scalars only): a kernel flags each Montgomery scalar as 0, 1 or other
//      (limbs compared with those of 0 and Fr::one(), no conversion); one CUB three-way
//      partition compacts the indices of the ones (ascending) and of the others; a kernel gathers
//      the other scalars; the counts go to a small device struct and are copied to the caller's
//      host struct. One classification serves every base vector of that length (Groth16's A, B
//      in G1 and B in G2 share the witness).
//   2. msm_split_ones (per base vector, needs no host knowledge, so it can be enqueued before the
//      host waits for the counts): Σ of the bases whose scalar is 1 by a parallel reduction —
//      each thread adds a strided run of the compacted ones with XYZZ mixed additions (8M + 2S
//      each, against ~255/c bucket additions per scalar in Pippenger), then a tree in shared
//      memory per block, then one block adds the block sums.
//   3. msm_split_finish (per base vector, after the caller has synchronised ITS stream, e.g. on an
//      event recorded after phase 1, and read the counts): gathers the bases of the others,
//      cuda::msm over them, and result = ones-sum + tail.
//
// Contract (docs/ARCHITECTURE.md): device pointers, caller-provided device memory (the split
// buffer, split_buffer_bytes; the scratch, msm_split_scratch_bytes), nothing allocated, freed or
// synchronised inside. Bases: affine with the host layout (infinity = (0, 0)); repeated bases
// are fine. Scalars: Fr in Montgomery form (host layout). n < 2^31.
//
// Memory for n scalars: split buffer ≈ 37·n bytes (flags, indices, gathered other scalars);
// scratch for a tail of m points in one piece ≈ m·sizeof(Affine<F>) (gathered bases) +
// msm_scratch_bytes(m): at n = 2^27 (G1, worst case m = n) ≈ 4.6 GiB + 12 GiB + ≈ 5 GiB; less
// scratch makes a longer tail run in chunks (msm_split_finish).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <span>

#include "snarkd/cuda/curve.hpp"
#include "snarkd/cuda/field.hpp"
#include "snarkd/ec/curve.hpp"
#include "snarkd/ff/fr.hpp"

namespace snarkd::cuda {

// How many scalars of each kind a classification found (msm::SplitStats' meaning); this is the
// layout msm_split_classify copies to the host: three little-endian uint64.
struct SplitCounts {
  uint64_t zeros = 0, ones = 0, others = 0;
  bool operator==(const SplitCounts&) const = default;
};

// One classification of n scalars, held in device memory the caller owns. `data` must stay
// untouched from msm_split_classify until the last msm_split_ones / msm_split_finish that reads it
// has run (stream order).
struct DeviceSplit {
  void* data = nullptr;  // device memory of at least split_buffer_bytes(n) bytes
  size_t bytes = 0;      // its size
  size_t n = 0;          // number of scalars classified
};

// Device bytes one classification of n scalars needs.
size_t split_buffer_bytes(size_t n);

// Enqueues phase 1 on `stream`: classifies d_scalars[0, split.n) into split.data and copies the
// counts to *h_counts. *h_counts is valid once the stream has passed this call (the caller
// synchronises its own stream or an event recorded after it); pinned host memory keeps the copy
// asynchronous (pageable memory makes the call wait for the copy). Throws InvalidArgument when
// split.bytes < split_buffer_bytes(split.n), split.data is null (n > 0), h_counts is null or
// n ≥ 2^31.
void msm_split_classify(const Fr* d_scalars, const DeviceSplit& split, SplitCounts* h_counts, cudaStream_t stream);

// Device scratch msm_split_ones and msm_split_finish need for any tail of at most max_others
// points: pass n for set-up time allocation (worst case: every scalar "other"), or counts.others
// for the exact size of one run. Non-decreasing in max_others.
template <class F>
size_t msm_split_scratch_bytes(size_t max_others);

// Enqueues phase 2: *d_ones = Σ d_bases[i] over the scalars classified as 1 (reads the count on
// the device). d_bases holds split.n points. The scratch may be the one msm_split_finish uses next
// on the same stream (it needs msm_split_scratch_bytes<F>(0) at least; InvalidArgument when it
// cannot hold the block sums or the split buffer is too small).
template <class F>
void msm_split_ones(const Affine<F>* d_bases, const DeviceSplit& split, Xyzz<F>* d_ones, void* d_scratch,
                    size_t scratch_bytes, cudaStream_t stream);

// Enqueues phase 3: *d_result = *d_ones + Σ over the "other" scalars of scalar·base (cuda::msm
// over the gathered tail of counts.others points). `counts` are the host counts of this split's
// classification; d_ones is msm_split_ones' output for the same d_bases, enqueued earlier;
// d_result may equal d_ones. A scratch of msm_split_scratch_bytes<F>(counts.others) takes the
// tail in one piece; a smaller one (≥ msm_split_scratch_bytes<F>(1)) in chunks of the longest
// length it holds, one cuda::msm each (same result; each chunk pays the MSM's fixed costs), so a
// caller can size the scratch for the tails it expects rather than for n. Throws InvalidArgument
// when the counts do not sum to split.n (counts of another split, or read before the stream
// reached the copy) or the scratch cannot hold a one-point tail.
template <class F>
void msm_split_finish(const Affine<F>* d_bases, const DeviceSplit& split, const SplitCounts& counts,
                      const Xyzz<F>* d_ones, Xyzz<F>* d_result, void* d_scratch, size_t scratch_bytes,
                      cudaStream_t stream);

// Phases 2 and 3 together for one base vector of a classification whose counts the caller has
// read: msm_split_ones then msm_split_finish into d_result, same contract and scratch. One
// classification serves several base vectors this way — Groth16's B query in G1 and in G2 share
// the witness, so the prover classifies the B scalars once and calls this for Fp and for Fp2
// (the split buffer stays untouched in between; each call's scratch may be the same memory, the
// stream orders them).
template <class F>
void msm_split_run(const Affine<F>* d_bases, const DeviceSplit& split, const SplitCounts& counts, Xyzz<F>* d_result,
                   void* d_scratch, size_t scratch_bytes, cudaStream_t stream);

// Synchronous convenience over host memory (tests, tools): allocates, copies, classifies, waits
// for the counts on a private stream of the current device, runs phases 2–3, returns the host
// point. `counts`, if non-null, receives the classification counts.
template <class C>
ec::Jacobian<C> msm_split_sync(std::span<const ec::Affine<C>> bases, std::span<const ff::Fr> scalars,
                               SplitCounts* counts = nullptr);

#define SNARKD_CUDA_MSM_SPLIT_DECLARE(F, C)                                                                    \
  extern template size_t msm_split_scratch_bytes<F>(size_t);                                                  \
  extern template void msm_split_ones<F>(const Affine<F>*, const DeviceSplit&, Xyzz<F>*, void*, size_t,       \
                                         cudaStream_t);                                                       \
  extern template void msm_split_finish<F>(const Affine<F>*, const DeviceSplit&, const SplitCounts&,          \
                                           const Xyzz<F>*, Xyzz<F>*, void*, size_t, cudaStream_t);            \
  extern template void msm_split_run<F>(const Affine<F>*, const DeviceSplit&, const SplitCounts&, Xyzz<F>*,   \
                                        void*, size_t, cudaStream_t);                                         \
  extern template ec::Jacobian<C> msm_split_sync<C>(std::span<const ec::Affine<C>>, std::span<const ff::Fr>, \
                                                    SplitCounts*);
SNARKD_CUDA_MSM_SPLIT_DECLARE(Fp, ec::G1Config)
SNARKD_CUDA_MSM_SPLIT_DECLARE(Fp2, ec::G2Config)
#undef SNARKD_CUDA_MSM_SPLIT_DECLARE

}  // namespace snarkd::cuda
