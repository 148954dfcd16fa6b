// Fixed-base batch scalar multiplication on the GPU for G1 (F = Fp) and G2 (F = Fp2):
// out[i] = s[i]·B for one base B and millions of scalars (the Groth16 setup's queries). CPU twin:
// ec::FixedBaseTable::mul_many (ec/fixed_base.hpp), which the tests compare against.
//
// Table: d·2^(8w)·B for the 32 windows w of 8 bits and the digits d ∈ [1, 255], affine, in
// ec::FixedBaseTable's layout (index w·255 + d − 1): 8160 points, 0.78 MB (G1) / 1.57 MB (G2),
// held in L2 during the multiplication. Built on the GPU (build_fixed_base_table): thread
// (w, d) doubles B 8w times and multiplies by d (≤ 255 doublings + 7 additions), then inverts
// its own Z; one-off work of a few milliseconds.
//
// Multiplication, per chunk of n scalars, two kernels:
//   1. one thread per scalar: Montgomery Fr → canonical in registers (one product by 1), then
//      for each non-zero byte d of window w one XYZZ mixed addition of table[w·255 + d − 1]:
//      ≤ 32 additions of 8M + 2S and no doublings (unsigned windows: signed ones would halve
//      the table but not the additions). The XYZZ result goes to the scratch.
//   2. affine conversion by batch inversion: thread t takes the points t, t + T, t + 2T, ...
//      (T = ⌈n/32⌉, coalesced), one inversion for its 32 points (Montgomery's trick, the
//      running products parked in the output's x): ≈ 9 products + 1/32 inversion per point,
//      against a full inversion (~570 products) per point done per thread, which would cost
//      more than the 32 additions (~320 products). A zero scalar gives (0, 0).
//
// Stream-ordered contract: fixed_base_mul only enqueues on `stream`; scratch is the caller's
// (fixed_base_mul_scratch_bytes); no allocation, free or synchronisation. FixedBaseStreamer is
// the host-memory wrapper: it allocates once at construction and streams host arrays through
// the GPU in chunks, so 130M G1 + 130M G2 outputs (12.5 + 25 GiB) never live on the device.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "snarkd/cuda/curve.hpp"
#include "snarkd/cuda/field.hpp"

namespace snarkd::cuda {

inline constexpr uint32_t kFixedBaseWindowBits = 8;
inline constexpr uint32_t kFixedBaseDigits = (1u << kFixedBaseWindowBits) - 1;  // non-zero digits
inline constexpr uint32_t kFixedBaseWindows = 32;                                // 256 / 8 ≥ Fr bits
inline constexpr size_t kFixedBaseTableSize = size_t{kFixedBaseWindows} * kFixedBaseDigits;  // points

// d_table[w·255 + d − 1] = d·2^(8w)·base for the kFixedBaseTableSize points of d_table.
// `base` may be any curve point, infinity included (then every entry is infinity).
template <class F>
void build_fixed_base_table(const Affine<F>& base, Affine<F>* d_table, cudaStream_t stream);

// Device scratch fixed_base_mul needs for n scalars: one XYZZ point each.
template <class F>
size_t fixed_base_mul_scratch_bytes(size_t n);

// d_out[i] = d_scalars[i]·B for i < n, B the table's base; d_scalars in Montgomery form (the
// host layout), d_out affine with the host layout. Throws InvalidArgument when the scratch is
// too small or n exceeds 2^36.
template <class F>
void fixed_base_mul(const Affine<F>* d_table, const Fr* d_scalars, size_t n, Affine<F>* d_out, void* d_scratch,
                    size_t scratch_bytes, cudaStream_t stream);

// Host-memory wrapper: the base's table on `device`, and two slots (own stream, device buffers
// and pinned staging for `chunk` scalars) used alternately, so the GPU works on one chunk while
// the host copies the previous chunk's points out of pinned memory and the next scalars in.
// Device memory ≈ 2·chunk·(32 B + sizeof(Affine<F>) + sizeof(Xyzz<F>)) + the table: 1.2 GiB
// (G1) / 2.4 GiB (G2) at the default chunk; pinned host memory 2·chunk·(32 B + sizeof(Affine<F>)).
template <class F>
class FixedBaseStreamer {
 public:
  static constexpr size_t kDefaultChunk = size_t{1} << 21;

  // Allocates everything and builds the table (waiting for it). Throws InvalidArgument for
  // chunk = 0, cuda::Error on CUDA failures.
  FixedBaseStreamer(int device, const Affine<F>& base, size_t chunk = kDefaultChunk);
  ~FixedBaseStreamer();
  FixedBaseStreamer(const FixedBaseStreamer&) = delete;
  FixedBaseStreamer& operator=(const FixedBaseStreamer&) = delete;

  // out[i] = scalars[i]·base for i < n (host arrays; any n, 0 included); returns when done.
  void mul(const Fr* scalars, size_t n, Affine<F>* out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

#define SNARKD_CUDA_FIXED_BASE_DECLARE(F)                                                                     \
  extern template void build_fixed_base_table<F>(const Affine<F>&, Affine<F>*, cudaStream_t);                \
  extern template size_t fixed_base_mul_scratch_bytes<F>(size_t);                                            \
  extern template void fixed_base_mul<F>(const Affine<F>*, const Fr*, size_t, Affine<F>*, void*, size_t,     \
                                         cudaStream_t);                                                      \
  extern template class FixedBaseStreamer<F>;
SNARKD_CUDA_FIXED_BASE_DECLARE(Fp)
SNARKD_CUDA_FIXED_BASE_DECLARE(Fp2)
#undef SNARKD_CUDA_FIXED_BASE_DECLARE

}  // namespace snarkd::cuda
