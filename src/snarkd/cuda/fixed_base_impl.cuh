// The GPU fixed-base multiplication's templates (fixed_base.hpp), instantiated once per curve in
// fixed_base_g1.cu and fixed_base_g2.cu so that each curve's device code compiles on its own.
#pragma once
#include "snarkd/cuda/fixed_base.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "snarkd/cuda/runtime.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::cuda::fixed_base_detail {

// 128 threads per block: the G2 multiplication kernel needs ~255 registers per thread, and
// smaller blocks let more of them share an SM.
constexpr uint32_t kThreads = 128;
constexpr uint32_t kPointsPerInversion = 32;
constexpr size_t kMaxScalars = size_t{1} << 36;  // grid: 2^29 blocks of 128

inline uint32_t blocks_for(size_t threads) { return uint32_t((threads + kThreads - 1) / kThreads); }

__device__ __forceinline__ Fp invert(const Fp& a) { return a.inverse(); }
// (c0 + c1·u)⁻¹ = (c0 − c1·u)/(c0² + c1²), since u² = −1: one Fp inversion.
__device__ __forceinline__ Fp2 invert(const Fp2& a) {
  const Fp t = (a.c0.sqr() + a.c1.sqr()).inverse();
  return {a.c0 * t, -(a.c1 * t)};
}

// (X/ZZ, Y/ZZZ) with one inversion of ZZ·ZZZ; infinity → (0, 0).
template <class F>
__device__ Affine<F> to_affine(const Xyzz<F>& p) {
  if (p.is_infinity()) return Affine<F>::infinity();
  const F inv = invert(p.ZZ * p.ZZZ);
  return {p.X * (inv * p.ZZZ), p.Y * (inv * p.ZZ)};
}

// Thread t = w·255 + d − 1 computes d·2^(8w)·base.
template <class F>
__global__ void table_kernel(Affine<F> base, Affine<F>* table) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= kFixedBaseTableSize) return;
  const uint32_t w = t / kFixedBaseDigits, d = t % kFixedBaseDigits + 1;
  const Xyzz<F> p = Xyzz<F>::from_affine(base).dbl_n(kFixedBaseWindowBits * w);
  Xyzz<F> r = p;  // d·p, double-and-add from below d's top bit
  for (int b = 30 - __clz(d); b >= 0; --b) {
    r = r.dbl();
    if ((d >> b) & 1) r += p;
  }
  table[t] = to_affine(r);
}

// One thread per scalar: Σ_w table[w·255 + byte_w − 1] over the non-zero bytes of the
// canonical scalar, in XYZZ. The scalar's words shift right by 8 bits per window (funnel
// shifts), so every index is a compile-time constant and the words stay in registers.
template <class F>
__global__ void __launch_bounds__(kThreads) mul_kernel(const Affine<F>* __restrict__ table,
                                                       const Fr* __restrict__ scalars, size_t n, Xyzz<F>* out) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Fr raw_one = Fr::zero();
  raw_one.w[0] = 1;
  Fr k = scalars[i] * raw_one;  // Montgomery → canonical: x·R · 1 · R⁻¹
  Xyzz<F> acc = Xyzz<F>::infinity();
#pragma unroll 1
  for (uint32_t w = 0; w < kFixedBaseWindows; ++w) {
    const uint32_t digit = k.w[0] & kFixedBaseDigits;
#pragma unroll
    for (int q = 0; q < 7; ++q) k.w[q] = __funnelshift_r(k.w[q], k.w[q + 1], kFixedBaseWindowBits);
    k.w[7] >>= kFixedBaseWindowBits;
    if (digit != 0) acc = acc.add_mixed(table[w * kFixedBaseDigits + digit - 1]);
  }
  out[i] = acc;
}

// Thread t converts the points j = t + k·stride (k < 32, j < n) with one inversion: forward,
// out[j].x = product of the earlier non-infinite ZZ·ZZZ of its run (Montgomery's trick);
// backward, 1/(ZZ·ZZZ) = inv·out[j].x, then inv ← inv·ZZ·ZZZ.
template <class F>
__global__ void __launch_bounds__(kThreads) affine_kernel(const Xyzz<F>* __restrict__ pts, size_t n, size_t stride,
                                                          Affine<F>* out) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= stride) return;
  F acc = F::one();
  for (size_t j = t; j < n; j += stride) {
    const Xyzz<F> p = pts[j];
    if (p.is_infinity()) continue;
    out[j].x = acc;
    acc = acc * (p.ZZ * p.ZZZ);
  }
  F inv = invert(acc);
  const size_t count = (n - t + stride - 1) / stride;  // j = t + k·stride < n ⇔ k < count
  for (size_t k = count; k-- > 0;) {
    const size_t j = t + k * stride;
    const Xyzz<F> p = pts[j];
    if (p.is_infinity()) {
      out[j] = Affine<F>::infinity();
      continue;
    }
    const F zz_zzz = p.ZZ * p.ZZZ;
    const F zi = inv * out[j].x;  // 1/(ZZ·ZZZ)
    inv = inv * zz_zzz;
    out[j] = {p.X * (zi * p.ZZZ), p.Y * (zi * p.ZZ)};
  }
}

// Copies count elements between host arrays on the global pool (pageable ↔ pinned staging).
template <class T>
void parallel_copy(T* dst, const T* src, size_t count) {
  parallel_for(count, [&](size_t b, size_t e) { std::memcpy(dst + b, src + b, (e - b) * sizeof(T)); });
}

}  // namespace snarkd::cuda::fixed_base_detail

namespace snarkd::cuda {

template <class F>
void build_fixed_base_table(const Affine<F>& base, Affine<F>* d_table, cudaStream_t stream) {
  using namespace fixed_base_detail;  // inside the function: a header's using-directive would reach its includers
  table_kernel<F><<<blocks_for(kFixedBaseTableSize), kThreads, 0, stream>>>(base, d_table);
  SNARKD_CUDA_CHECK_LAUNCH();
}

template <class F>
size_t fixed_base_mul_scratch_bytes(size_t n) {
  return n * sizeof(Xyzz<F>);
}

template <class F>
void fixed_base_mul(const Affine<F>* d_table, const Fr* d_scalars, size_t n, Affine<F>* d_out, void* d_scratch,
                    size_t scratch_bytes, cudaStream_t stream) {
  using namespace fixed_base_detail;
  if (n > kMaxScalars) throw InvalidArgument("fixed_base_mul: " + std::to_string(n) + " scalars exceed 2^36");
  if (n == 0) return;
  if (d_scratch == nullptr || scratch_bytes < fixed_base_mul_scratch_bytes<F>(n))
    throw InvalidArgument("fixed_base_mul: scratch of " + std::to_string(scratch_bytes) + " bytes, needs " +
                          std::to_string(fixed_base_mul_scratch_bytes<F>(n)));
  auto* xyzz = static_cast<Xyzz<F>*>(d_scratch);
  mul_kernel<F><<<blocks_for(n), kThreads, 0, stream>>>(d_table, d_scalars, n, xyzz);
  SNARKD_CUDA_CHECK_LAUNCH();
  const size_t stride = (n + kPointsPerInversion - 1) / kPointsPerInversion;
  affine_kernel<F><<<blocks_for(stride), kThreads, 0, stream>>>(xyzz, n, stride, d_out);
  SNARKD_CUDA_CHECK_LAUNCH();
}

// One slot: a chunk in flight (its scalars staged in h_in, its points coming back to h_out).
template <class F>
struct FixedBaseStreamer<F>::Impl {
  struct Slot {
    Stream stream;
    Event done = Event::blocking();
    DeviceBuffer<Fr> d_in;
    DeviceBuffer<Affine<F>> d_out;
    DeviceBuffer<uint8_t> scratch;
    PinnedBuffer<Fr> h_in;
    PinnedBuffer<Affine<F>> h_out;
    Affine<F>* dest = nullptr;  // where h_out goes once `done` fires; null: the slot is idle
    size_t count = 0;
  };
  int device = 0;
  size_t chunk = 0;
  DeviceBuffer<Affine<F>> table;
  Slot slots[2];

  // Waits for the slot's chunk and copies its points out.
  void finish(Slot& s) {
    if (s.dest == nullptr) return;
    s.done.synchronize();
    fixed_base_detail::parallel_copy(s.dest, s.h_out.data(), s.count);
    s.dest = nullptr;
  }
};

template <class F>
FixedBaseStreamer<F>::FixedBaseStreamer(int device, const Affine<F>& base, size_t chunk) {
  if (chunk == 0) throw InvalidArgument("FixedBaseStreamer: chunk of 0 scalars");
  DeviceGuard guard(device);
  impl_ = std::make_unique<Impl>();  // the slots' streams and events belong to `device`
  impl_->device = device;
  impl_->chunk = chunk;
  impl_->table = DeviceBuffer<Affine<F>>(kFixedBaseTableSize);
  for (auto& s : impl_->slots) {
    s.d_in = DeviceBuffer<Fr>(chunk);
    s.d_out = DeviceBuffer<Affine<F>>(chunk);
    s.scratch = DeviceBuffer<uint8_t>(fixed_base_mul_scratch_bytes<F>(chunk));
    s.h_in = PinnedBuffer<Fr>(chunk);
    s.h_out = PinnedBuffer<Affine<F>>(chunk);
  }
  Stream& s0 = impl_->slots[0].stream;
  build_fixed_base_table<F>(base, impl_->table.data(), s0);
  s0.synchronize();
}

template <class F>
FixedBaseStreamer<F>::~FixedBaseStreamer() = default;

template <class F>
void FixedBaseStreamer<F>::mul(const Fr* scalars, size_t n, Affine<F>* out) {
  Impl& m = *impl_;
  DeviceGuard guard(m.device);
  for (auto& s : m.slots) {  // a previous call that threw may have left a chunk in flight
    if (s.dest != nullptr) s.done.synchronize();
    s.dest = nullptr;
  }
  size_t k = 0;
  for (size_t begin = 0; begin < n; begin += m.chunk, ++k) {
    typename Impl::Slot& s = m.slots[k % 2];
    m.finish(s);  // chunk k − 2: its points leave h_out, its staging is free again
    const size_t count = std::min(m.chunk, n - begin);
    fixed_base_detail::parallel_copy(s.h_in.data(), scalars + begin, count);
    s.d_in.upload(s.h_in.data(), count, s.stream);
    fixed_base_mul<F>(m.table.data(), s.d_in.data(), count, s.d_out.data(), s.scratch.data(), s.scratch.size(),
                      s.stream);
    s.d_out.download(s.h_out.data(), count, s.stream);
    s.done.record(s.stream);
    s.dest = out + begin;
    s.count = count;
  }
  m.finish(m.slots[k % 2]);  // chunk k − 2 (if any), then k − 1
  m.finish(m.slots[(k + 1) % 2]);
}

#define SNARKD_CUDA_FIXED_BASE_DEFINE(F)                                                                      \
  template void build_fixed_base_table<F>(const Affine<F>&, Affine<F>*, cudaStream_t);                       \
  template size_t fixed_base_mul_scratch_bytes<F>(size_t);                                                   \
  template void fixed_base_mul<F>(const Affine<F>*, const Fr*, size_t, Affine<F>*, void*, size_t, cudaStream_t); \
  template class FixedBaseStreamer<F>;

}  // namespace snarkd::cuda
