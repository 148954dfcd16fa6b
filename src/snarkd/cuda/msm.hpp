// Multi-scalar multiplication Σ kᵢ·Pᵢ on the GPU for G1 (F = Fp) and G2 (F = Fp2) of BLS12-381,
// and of BN254 (F = bn254::Fp, bn254::Fp2), with scalars in the group's field ScalarOf<F>
// (curve.hpp: cuda::Fr, resp. cuda::bn254::Fr): the CPU twin is snarkd::msm::msm (msm/msm.hpp),
// which the tests compare against. Both scalar fields have 254- or 255-bit moduli in 8 words, so
// the digit layout (W·c ≥ 256 bits, a top window that never borrows) is the same for both.
//
// Algorithm (Pippenger with signed digits and sort-based bucket accumulation):
//   1. digits: each scalar (Montgomery form, converted in registers) is cut into W windows of c
//      bits with signed digits d ∈ [−2^(c−1), 2^(c−1)] (a digit above 2^(c−1) borrows 2^c from
//      the next window), so a window needs 2^(c−1) buckets, not 2^c − 1. Entry (window w, point
//      i) becomes key = w·2^c + |d| and value = i | sign << 31; zero digits get a sentinel key
//      that sorts after every other and is never read.
//   2. sort: one CUB radix sort of the keys (c + log₂W bits) groups the points of each bucket.
//   3. accumulate (MsmAccumulation): kChunkedXyzz / kChunkedAffine cut the sorted entries into
//      equal chunks, one per lane, sum each run of one bucket inside a chunk (XYZZ mixed
//      additions, or batch-affine additions sharing one inversion among a thread's 64 lanes) and
//      assemble the buckets that cross chunks in a fix-up (msm_accumulate.hpp); kBucketThreads
//      (the first kernel) gives each bucket one thread that adds its run.
//   4. reduce: per window, Σ j·B_j by running sums over segments of ≥ 32 buckets (several blocks
//      per window when that fills the GPU better), each block's segments added by a tree in
//      shared memory, the blocks' sums by a second tree; then Horner over the windows (c
//      doublings each, one thread): one XYZZ point on the device.
// Windows are processed in passes of at most kMaxEntriesPerPass / n windows, so the sort
// buffers stay ≤ 2^28 entries (4 GiB) for any n. The same code runs the precomputed-bases MSM
// (msm_precomp.hpp) through detail::WindowLayout, whose passes end where a virtual window starts
// and may hold one whole window of more than 2^28 entries (WindowLayout::max_pass_entries).
//
// Stream-ordered contract: msm() only enqueues work on `stream`, never allocates, frees or
// synchronises; the scratch is the caller's (msm_scratch_bytes). Inputs: affine bases with the
// host layout (infinity = (0, 0)) and scalars in Montgomery form (the host layout); any n ≥ 0,
// zero scalars, infinities and repeated bases are fine. The result is written to d_result.
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

inline constexpr size_t kMaxEntriesPerPass = size_t{1} << 28;

// How the buckets accumulate their points (step 3 above). kDefault is resolved per call by
// msm_resolve_accumulation: the environment variable SNARKD_MSM_ACCUMULATE = legacy | xyzz |
// affine when set (read once per process), else the built-in choice (chunked XYZZ for G1, one
// thread per bucket for G2 — see msm_resolve_accumulation and docs/PERFORMANCE.md). The plain
// MSM (msm()) resolves kDefault by size first: batch-affine lanes for BLS12-381 G2 from 2^22
// points and G1 from 2^24 (detail::plain_layout).
enum class MsmAccumulation : uint8_t { kDefault, kBucketThreads, kChunkedXyzz, kChunkedAffine };
const char* msm_accumulation_name(MsmAccumulation a);  // "default", "legacy", "xyzz", "affine"
template <class F>
MsmAccumulation msm_resolve_accumulation(MsmAccumulation a);

struct MsmOptions {
  uint32_t window_bits = 0;  // c; 0 = msm_window<F>(n, accumulation)
  MsmAccumulation accumulation = MsmAccumulation::kDefault;
  uint32_t lane_waves = 0;   // chunked XYZZ: lanes per pass in waves of resident threads (0 = 4)
};

// A plain MSM in the group's own default kind, not the one plain_layout picks by size: the split
// MSM's tails and the provers' H MSMs, whose scratch is part of a partition's working set (G1's
// batch-affine lanes would add ≈ 2.3 GB to a 2^27 partition, not yet weighed in a PoRep run).
template <class F>
MsmOptions group_default_options() {
  return {0, msm_resolve_accumulation<F>(MsmAccumulation::kDefault)};
}

// The window size msm() uses for n points with accumulation `a` when window_bits = 0. Chunked:
// the c ∈ [4, 22] minimising a cost model (entries·(addition + sort) + buckets·reduction, fitted
// to H200 figures), evaluated at n rounded up to a power of two so that c only changes there;
// kBucketThreads: 16 from 2^15 points, 13 from 2^14, ≈ log₂n − 4 below (widths whose top window
// is not nearly empty: one thread adds a bucket's whole run).
template <class F>
uint32_t msm_window(size_t n, MsmAccumulation a = MsmAccumulation::kDefault);
// msm_window<Fp>(n): the G1 default.
uint32_t msm_default_window(size_t n);

// Device scratch msm() needs for n points and window c (0 = default).
template <class F>
size_t msm_scratch_bytes(size_t n, uint32_t window_bits = 0);
template <class F>
size_t msm_scratch_bytes(size_t n, const MsmOptions& options);

// *d_result = Σ d_scalars[i]·d_bases[i]. Throws InvalidArgument when the scratch is too small
// or window_bits is outside [4, 24] (0 = msm_window<F>(n, accumulation)).
template <class F>
void msm(const Affine<F>* d_bases, const ScalarOf<F>* d_scalars, size_t n, Xyzz<F>* d_result, void* d_scratch,
         size_t scratch_bytes, cudaStream_t stream, uint32_t window_bits = 0);
template <class F>
void msm(const Affine<F>* d_bases, const ScalarOf<F>* d_scalars, size_t n, Xyzz<F>* d_result, void* d_scratch,
         size_t scratch_bytes, cudaStream_t stream, const MsmOptions& options);

namespace detail {

// The digit layout shared by msm() and msm_precomp() (msm_precomp.hpp): W windows of c bits are
// folded onto W' = virtual_windows windows over copies·n "virtual" points, where virtual point
// k·n + i is 2^(k·W'·c)·P_i; window w adds its digit of scalar i to bucket (w mod W') of virtual
// point (w / W')·n + i. msm() is the case copies = 1, W' = W. Requires W·c ≥ 256, copies =
// ⌈W/W'⌉, copies·n < 2^31 and c + bit_width(W' − 1) ≤ 32.
struct WindowLayout {
  uint32_t c = 0, windows = 0, virtual_windows = 0, copies = 1;
  size_t max_pass_entries = kMaxEntriesPerPass;  // sort entries per pass (tests lower it to force passes)
  MsmAccumulation accumulation = MsmAccumulation::kDefault;
  // Chunked XYZZ lanes per pass, in whole waves of the threads the device holds at once (0: 4,
  // msm_kernels.cuh kXyzzWaves; at most 16). Fewer waves mean longer chunks and fewer fix-ups.
  uint32_t lane_waves = 0;
};

// The plain layout of msm(): W = ⌈256/c⌉ windows of c = options.window_bits (0: msm_window), no
// copies. Throws InvalidArgument for c outside [4, 24].
template <class F>
WindowLayout plain_layout(size_t n, const MsmOptions& options);

// Throws InvalidArgument naming `who` when the layout breaks a rule above for n points.
void check_layout(const WindowLayout& l, size_t n, const char* who);

template <class F>
size_t pippenger_scratch_bytes(size_t n, const WindowLayout& l);

// *d_result = Σ_w 2^(c·w) Σ_i digit_w(s_i)·P_i with d_points holding the copies·n virtual points.
// Without copies each pass's windows are reduced after the pass, so its buckets take one pass's
// windows of the scratch (msm_scratch_bytes); pippenger_scratch_bytes(n, l) is always enough.
template <class F>
void pippenger(const Affine<F>* d_points, const ScalarOf<F>* d_scalars, size_t n, const WindowLayout& l,
               Xyzz<F>* d_result, void* d_scratch, size_t scratch_bytes, cudaStream_t stream, const char* who);

// One Pippenger over several chunks of points (the streamed H MSM, whose bases arrive in
// chunks): each chunk's passes add into buckets that stay in the scratch between calls, and one
// reduction at the end — instead of a reduction per chunk (2·2^(c−1) additions per window each,
// ≈ 7 M G1 additions per 2^23-point chunk at c = 19). Every call passes the same max_n (≥ each
// chunk's n; it fixes the scratch's carve: pippenger_scratch_bytes(max_n, l)), layout and
// scratch; `first` marks the first chunk with n > 0, which sets the buckets instead of adding to
// them (msm_accumulate.hpp: a run other than a chunk's first starts from its bucket's sum).
// pippenger_reduce then writes Σ over all chunks to *d_result (only after a first chunk).
template <class F>
void pippenger_chunk(const Affine<F>* d_points, const ScalarOf<F>* d_scalars, size_t n, size_t max_n,
                     const WindowLayout& l, bool first, void* d_scratch, size_t scratch_bytes, cudaStream_t stream,
                     const char* who);
template <class F>
void pippenger_reduce(size_t max_n, const WindowLayout& l, Xyzz<F>* d_result, void* d_scratch, size_t scratch_bytes,
                      cudaStream_t stream, const char* who);

}  // namespace detail

// Synchronous convenience over host memory (tests, tools): allocates, copies, runs on a private
// stream of the current device, waits, returns the host point.
template <class C>
ec::Jacobian<C> msm_sync(std::span<const ec::Affine<C>> bases, std::span<const typename C::Scalar> scalars,
                         uint32_t window_bits = 0);
template <class C>
ec::Jacobian<C> msm_sync(std::span<const ec::Affine<C>> bases, std::span<const typename C::Scalar> scalars,
                         const MsmOptions& options);

#define SNARKD_CUDA_MSM_DECLARE(F, C)                                                                                  \
  extern template MsmAccumulation msm_resolve_accumulation<F>(MsmAccumulation);                                        \
  extern template uint32_t msm_window<F>(size_t, MsmAccumulation);                                                     \
  extern template detail::WindowLayout detail::plain_layout<F>(size_t, const MsmOptions&);                             \
  extern template size_t msm_scratch_bytes<F>(size_t, uint32_t);                                                       \
  extern template size_t msm_scratch_bytes<F>(size_t, const MsmOptions&);                                              \
  extern template void msm<F>(const Affine<F>*, const ScalarOf<F>*, size_t, Xyzz<F>*, void*, size_t, cudaStream_t,     \
                              const MsmOptions&);                                                                      \
  extern template ec::Jacobian<C> msm_sync<C>(std::span<const ec::Affine<C>>, std::span<const typename C::Scalar>,     \
                                              const MsmOptions&);                                                      \
  extern template size_t detail::pippenger_scratch_bytes<F>(size_t, const detail::WindowLayout&);                      \
  extern template void detail::pippenger<F>(const Affine<F>*, const ScalarOf<F>*, size_t, const detail::WindowLayout&, \
                                            Xyzz<F>*, void*, size_t, cudaStream_t, const char*);                       \
  extern template void detail::pippenger_chunk<F>(const Affine<F>*, const ScalarOf<F>*, size_t, size_t,                \
                                                  const detail::WindowLayout&, bool, void*, size_t, cudaStream_t,      \
                                                  const char*);                                                        \
  extern template void detail::pippenger_reduce<F>(size_t, const detail::WindowLayout&, Xyzz<F>*, void*, size_t,       \
                                                   cudaStream_t, const char*);                                         \
  extern template void msm<F>(const Affine<F>*, const ScalarOf<F>*, size_t, Xyzz<F>*, void*, size_t, cudaStream_t,     \
                              uint32_t);                                                                               \
  extern template ec::Jacobian<C> msm_sync<C>(std::span<const ec::Affine<C>>, std::span<const typename C::Scalar>,     \
                                              uint32_t);
// BLS12-381 (msm_g1.cu, msm_g2.cu and their kernel units; msm_sync.cpp, msm_host.cpp).
SNARKD_CUDA_MSM_DECLARE(Fp, ec::G1Config)
SNARKD_CUDA_MSM_DECLARE(Fp2, ec::G2Config)
// BN254 (msm_bn254_g1.cu, msm_bn254_g2.cu and their kernel units).
SNARKD_CUDA_MSM_DECLARE(bn254::Fp, ec::bn254::G1Config)
SNARKD_CUDA_MSM_DECLARE(bn254::Fp2, ec::bn254::G2Config)
#undef SNARKD_CUDA_MSM_DECLARE

}  // namespace snarkd::cuda
