// MSM over fixed bases with precomputed multiples kept resident on the GPU (G1 over Fp, G2 over
// Fp2). The CPU twin is snarkd::msm::msm, which the tests compare against.
//
// A table of t copies of the n bases, copy k = 2^(k·s)·P_i with s = W'·c, turns the W = ⌈256/c⌉
// windows of c bits into W' = ⌈W/t⌉ windows over t·n virtual points: the digit of window w goes
// to window w mod W' and virtual point (w / W')·n + i (msm.hpp, detail::WindowLayout). The
// additions of the accumulation stay W·n, but the bucket reduction and the Horner chain shrink
// by t, so a wider window c pays: n·⌈256/c⌉ additions fall as c grows (16 windows at c = 16,
// 11 at c = 24).
//
// The accumulation is the kind the plain MSM takes for n points (msm.hpp: BLS12-381 G1's
// batch-affine lanes from 2^24, G2's from 2^22; SNARKD_MSM_ACCUMULATE overrides), in passes of a
// whole virtual window (t·n entries where that is above msm's 2^28), so that no bucket continues
// from an earlier pass. H200, c = 24, 2026-12-06: 2^26 points, t = 11 (66 GiB) 344.7 ms against
// 392.9 with XYZZ lanes and 403.7 in passes of 2^28 entries; 2^27, t = 6 (72 GiB) 705.8 against
// 794.0 and 827.0. The run scratch grows with it: 14.8 GiB at 2^26, t = 11.
//
// Use: pick a shape (msm_precomp_choose from a byte budget, or msm_precomp_shape by hand),
// allocate msm_precomp_table_bytes, build the table once (msm_precomp_build, stream-ordered, caller
// scratch), then run msm_precomp per scalar vector with caller scratch. Nothing here allocates,
// frees or synchronises the device except the *_sync wrapper.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <span>

#include "snarkd/cuda/curve.hpp"
#include "snarkd/cuda/field.hpp"
#include "snarkd/cuda/msm.hpp"
#include "snarkd/ec/curve.hpp"
#include "snarkd/ff/fr.hpp"

namespace snarkd::cuda {

// t copies (effective: ⌈W/W'⌉), c-bit windows, W windows folded onto W' virtual windows.
struct MsmPrecompShape {
  uint32_t copies = 1, window_bits = 0, windows = 0, virtual_windows = 0;
};

// The shape for at most `copies` copies and c-bit windows (c ∈ [4, 24]); copies is lowered to
// ⌈W/W'⌉ where more would not remove a window. Throws InvalidArgument on bad arguments.
MsmPrecompShape msm_precomp_shape(uint32_t copies, uint32_t window_bits);

// A built table: copy k of base i at points[k·n + i] (affine, host layout).
template <class F>
struct MsmPrecompTable {
  const Affine<F>* points = nullptr;
  size_t n = 0;
  MsmPrecompShape shape;
};

template <class F>
size_t msm_precomp_table_bytes(size_t n, uint32_t copies);

// Device memory the precomputed MSM takes for n bases of one shape, for a memory plan: the
// resident table (kept), one run's scratch (per concurrent MSM), and the one-off build scratch.
struct MsmPrecompBytes {
  size_t table = 0, run_scratch = 0, build_scratch = 0;
};
template <class F>
MsmPrecompBytes msm_precomp_bytes(size_t n, const MsmPrecompShape& shape);

// The fastest shape whose table fits budget_bytes by a cost model from H200 measurements (see
// msm_precomp_impl.cuh). Throws InvalidArgument when the budget holds less than one copy of the bases.
template <class F>
MsmPrecompShape msm_precomp_choose(size_t n, size_t budget_bytes);

// Device scratch msm_precomp_build needs for n bases (a chunk of XYZZ points).
template <class F>
size_t msm_precomp_build_scratch_bytes(size_t n);

// Writes the shape.copies·n table points to d_table (msm_precomp_table_bytes). d_bases may be
// freed once the stream has passed this call.
template <class F>
void msm_precomp_build(const Affine<F>* d_bases, size_t n, const MsmPrecompShape& shape, Affine<F>* d_table,
                       void* d_scratch, size_t scratch_bytes, cudaStream_t stream);

template <class F>
size_t msm_precomp_scratch_bytes(size_t n, const MsmPrecompShape& shape);

// *d_result = Σ d_scalars[i]·P_i over the table.n bases; same contract as msm().
template <class F>
void msm_precomp(const MsmPrecompTable<F>& table, const Fr* d_scalars, Xyzz<F>* d_result, void* d_scratch,
                 size_t scratch_bytes, cudaStream_t stream);

// Synchronous convenience over host memory (tests, tools): builds the table, runs one MSM.
template <class C>
ec::Jacobian<C> msm_precomp_sync(std::span<const ec::Affine<C>> bases, std::span<const ff::Fr> scalars,
                                 const MsmPrecompShape& shape);

#define SNARKD_CUDA_MSM_PRECOMP_DECLARE(F, C)                                                                   \
  extern template size_t msm_precomp_table_bytes<F>(size_t, uint32_t);                                         \
  extern template MsmPrecompBytes msm_precomp_bytes<F>(size_t, const MsmPrecompShape&);                        \
  extern template MsmPrecompShape msm_precomp_choose<F>(size_t, size_t);                                       \
  extern template size_t msm_precomp_build_scratch_bytes<F>(size_t);                                           \
  extern template void msm_precomp_build<F>(const Affine<F>*, size_t, const MsmPrecompShape&, Affine<F>*,      \
                                            void*, size_t, cudaStream_t);                                      \
  extern template size_t msm_precomp_scratch_bytes<F>(size_t, const MsmPrecompShape&);                         \
  extern template void msm_precomp<F>(const MsmPrecompTable<F>&, const Fr*, Xyzz<F>*, void*, size_t,           \
                                      cudaStream_t);                                                           \
  extern template ec::Jacobian<C> msm_precomp_sync<C>(std::span<const ec::Affine<C>>, std::span<const ff::Fr>, \
                                                      const MsmPrecompShape&);
SNARKD_CUDA_MSM_PRECOMP_DECLARE(Fp, ec::G1Config)
SNARKD_CUDA_MSM_PRECOMP_DECLARE(Fp2, ec::G2Config)
#undef SNARKD_CUDA_MSM_PRECOMP_DECLARE

}  // namespace snarkd::cuda
