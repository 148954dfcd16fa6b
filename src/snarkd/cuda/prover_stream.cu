// Kernels of the streamed GPU prover (prover_stream.hpp). Each thread's work is a
// stream_ops function the host tests run on the CPU too; these are the grid loops around them.
#include <algorithm>
#include <cstdint>

#include "snarkd/cuda/prover_kernels.cuh"
#include "snarkd/cuda/prover_stream.hpp"
#include "snarkd/r1cs/short_rows.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {

using stream_ops::WitnessView;

namespace {

using detail::prover_kernels::blocks_for;
using detail::prover_kernels::first_index;
using detail::prover_kernels::grid_stride;
using detail::prover_kernels::kThreads;
using detail::prover_kernels::mul_kernel;
using detail::prover_kernels::sub_scale_kernel;
constexpr uint32_t kSumThreads = 128;  // sum_points: 128 G2 XYZZ points = 48 KiB of shared memory

static_assert(kThreads == r1cs::kRowGroup, "a block scans one row group of a short-form chunk");

// x summed over the threads of the block before this one (blockDim = kThreads). Every thread of
// the block calls it; sums holds a value per warp.
__device__ uint32_t block_exclusive_sum(uint32_t x, uint32_t* sums) {
  const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  uint32_t incl = x;
  for (uint32_t d = 1; d < 32; d <<= 1) {
    const uint32_t y = __shfl_up_sync(0xffffffffu, incl, d);
    if (lane >= d) incl += y;
  }
  __syncthreads();  // the previous call's readers are done with sums
  if (lane == 31) sums[warp] = incl;
  __syncthreads();
  uint32_t before = incl - x;
  for (uint32_t k = 0; k < warp; ++k) before += sums[k];
  return before;
}

struct RowSpan {
  uint64_t start = 0, len = 0;
};

// The non-zeros of row g0 + threadIdx.x of matrix i (g0 a multiple of kThreads, relative to the
// chunk): from row_ptr, or in the short form the group's start plus the lengths before the row
// (a block scan; v.len[i] is the same for the whole block, so all its threads get here).
__device__ RowSpan row_span(const ChunkView& v, int i, uint64_t g0, uint32_t* sums) {
  const uint64_t r = g0 + threadIdx.x;
  if (!v.len[i]) {
    if (r >= v.count) return {};
    const uint64_t* p = v.row_ptr[i];
    return {p[r] - p[0], p[r + 1] - p[r]};
  }
  const uint32_t len = r < v.count ? v.len[i][r] : 0;
  const uint32_t before = block_exclusive_sum(len, sums);
  return {v.group_start[i][g0 / kThreads] - v.group_start[i][0] + before, len};
}

__device__ Fr span_dot(const ChunkView& v, int i, const RowSpan& s, const Fr* dict, const WitnessView& w) {
  return stream_ops::span_dot(v.col[i], v.coeff[i], s.start, s.len, dict, w);
}

// Pass 1 over a rows chunk (A and B): a and b. Launched with kThreads threads a block, a block
// taking one row group per grid-stride step (uniform trip counts: row_span scans in the block).
__global__ void __launch_bounds__(kThreads) qap_pass1_kernel(ChunkView v, const Fr* dict, WitnessView w, Fr* a, Fr* b) {
  __shared__ uint32_t sums[kThreads / 32];
  for (uint64_t g0 = uint64_t(blockIdx.x) * kThreads; g0 < v.count; g0 += grid_stride()) {
    const RowSpan sa = row_span(v, 0, g0, sums), sb = row_span(v, 1, g0, sums);
    const uint64_t r = g0 + threadIdx.x;
    if (r >= v.count) continue;
    a[v.first + r] = span_dot(v, 0, sa, dict, w);
    b[v.first + r] = span_dot(v, 1, sb, dict, w);
  }
}

// *flag = detail::kUnsatisfiedRowUnknown when *x ≠ 0 (H's top coefficient, prover_stream.hpp).
__global__ void flag_nonzero_kernel(const Fr* x, unsigned long long* flag) {
  if (first_index() == 0 && *x != Fr::zero()) *flag = detail::kUnsatisfiedRowUnknown;
}

// The first i < m with x_i ≠ y_i, by atomicMin into *first.
__global__ void first_mismatch_kernel(const Fr* x, const Fr* y, uint64_t m, unsigned long long* first) {
  for (uint64_t i = first_index(); i < m; i += grid_stride())
    if (x[i] != y[i]) atomicMin(first, static_cast<unsigned long long>(i));
}

// Pass 2: c = C·w (bellperson; the chunk holds C alone) or (A·w)(B·w) (snarkjs: c = a∘b). Same
// launch shape as pass 1.
__global__ void __launch_bounds__(kThreads)
    qap_pass2_kernel(ChunkView v, const Fr* dict, WitnessView w, Fr* c, bool bellperson) {
  __shared__ uint32_t sums[kThreads / 32];
  for (uint64_t g0 = uint64_t(blockIdx.x) * kThreads; g0 < v.count; g0 += grid_stride()) {
    const RowSpan s0 = row_span(v, 0, g0, sums);
    const RowSpan s1 = bellperson ? RowSpan{} : row_span(v, 1, g0, sums);
    const uint64_t r = g0 + threadIdx.x;
    if (r >= v.count) continue;
    const Fr x = span_dot(v, 0, s0, dict, w);
    c[v.first + r] = bellperson ? x : x * span_dot(v, 1, s1, dict, w);
  }
}

__global__ void qap_tail_kernel(Fr* a, Fr* b, WitnessView w, uint64_t m, uint64_t n, uint64_t num_inputs,
                                bool bellperson, uint64_t* one_ok) {
  if (first_index() == 0 && one_ok) *one_ok = w[0] == Fr::one() ? 1 : 0;
  for (uint64_t i = m + first_index(); i < n; i += grid_stride()) {
    const uint64_t j = i - m;
    a[i] = bellperson && j < num_inputs ? w[j] : Fr::zero();
    if (b) b[i] = Fr::zero();
  }
}

__global__ void fill_zero_kernel(Fr* v, uint64_t count) {
  for (uint64_t i = first_index(); i < count; i += grid_stride()) v[i] = Fr::zero();
}

__global__ void split_layer_kernel(Fr* v, uint32_t level, bool dit, bool inverse, stream_ops::BlockScale scale,
                                   stream_ops::SplitTwiddles t) {
  const uint64_t pairs = uint64_t{1} << (t.log_n - 1);
  for (uint64_t p = first_index(); p < pairs; p += grid_stride())
    stream_ops::split_butterfly(v, p, level, dit, inverse, scale, t);
}

__global__ void gather_split_kernel(const Fr* v, uint64_t first, uint64_t count, uint32_t log_n, uint32_t depth,
                                    Fr* out) {
  for (uint64_t k = first_index(); k < count; k += grid_stride())
    out[k] = v[stream_ops::split_position(first + k, log_n, depth)];
}

// Counts a chunk's "other" scalars: a warp's count by shuffles, one atomic per warp.
__global__ void count_others_kernel(ChunkView v, WitnessView w, uint64_t offset, unsigned long long* counter) {
  unsigned long long n = 0;
  for (uint64_t k = first_index(); k < v.count; k += grid_stride())
    n += stream_ops::scalar_kind(stream_ops::chunk_scalar(w, v.index, offset, v.first, k)) == stream_ops::kOther;
  for (int d = 16; d > 0; d /= 2) n += __shfl_down_sync(0xffffffffu, n, d);
  if ((threadIdx.x & 31) == 0 && n) atomicAdd(counter, n);
}

// The threads walk the chunk in tiles of 32 points a warp (point k of a tile read by lane k); the
// others go to the tail at once, the ones queue in the warp's ring of 64 indices and each time 32
// are queued every lane adds one to its accumulator (kept in device memory across chunks). A lane
// per point instead ran one mixed addition per tile whenever any of its 32 points was a one: with
// PoRep's mix of 0s and 1s, about half the lanes idle in every addition (0.31 s of a streamed
// partition's device time on the H200 in ones_gather).
// Two loads no longer stall each step: the next tile's scalar (through the density index, two
// dependent loads) is read before this tile's addition, and a one's point is asked for in L1 when
// it is queued, a tile or two before a lane adds it (the kernel holds 8 warps an SM at its
// registers, too few to hide a load per addition).
constexpr uint32_t kRing = 64;

template <class T>
__device__ __forceinline__ void prefetch_l1(const T* p) {
  const char* c = reinterpret_cast<const char*>(p);
  for (uint32_t off = 0; off < sizeof(T); off += 128) asm volatile("prefetch.global.L1 [%0];" ::"l"(c + off));
  asm volatile("prefetch.global.L1 [%0];" ::"l"(c + sizeof(T) - 1));  // a point may straddle a line
}

// A lane's scalars read a tile ahead: step(k) gives scalar k's class and value (zero past the
// chunk) and reads k + stride's. Plain: one load a scalar (two through a density index), first
// used a tile later. Compact (stream_ops::CompactWord): the bit words two tiles ahead and an
// other's value one tile ahead, so no branch waits on a load issued in the same step.
template <bool kCompact>
struct ScalarAhead;

template <>
struct ScalarAhead<false> {
  const ChunkView& v;
  const WitnessView& w;
  uint64_t offset, stride;
  Fr next = Fr::zero();
  __device__ Fr read(uint64_t k) const {
    return k < v.count ? w.plain[stream_ops::chunk_index(v.index, offset, v.first, k)] : Fr::zero();
  }
  __device__ void start(uint64_t k) { next = read(k); }
  __device__ uint32_t step(uint64_t k, Fr& s) {
    s = next;
    next = read(k + stride);
    return k < v.count ? stream_ops::scalar_kind(s) : stream_ops::kZero;
  }
};

template <>
struct ScalarAhead<true> {
  const ChunkView& v;
  const WitnessView& w;
  uint64_t offset, stride;
  stream_ops::CompactWord word;  // scalar k + stride's, read in the last step
  uint32_t kind = stream_ops::kZero;
  Fr value = Fr::zero();  // scalar k's, when an other
  __device__ stream_ops::CompactWord read(uint64_t k) const {
    return k < v.count ? stream_ops::compact_word(w, stream_ops::chunk_index(v.index, offset, v.first, k))
                       : stream_ops::CompactWord{};
  }
  __device__ void resolve(const stream_ops::CompactWord& c) {
    kind = c.kind();
    value = kind == stream_ops::kOther ? stream_ops::other_value(w, c) : Fr::zero();
  }
  __device__ void start(uint64_t k) {
    resolve(read(k));
    word = read(k + stride);
  }
  __device__ uint32_t step(uint64_t k, Fr& s) {
    const uint32_t kd = kind;
    s = value;
    resolve(word);
    word = read(k + 2 * stride);
    return kd;
  }
};

template <class F, bool kCompact>
__global__ void __launch_bounds__(kThreads) ones_gather_kernel(ChunkView v, WitnessView w, uint64_t offset,
                                                               Xyzz<F>* accum, Affine<F>* tail_bases,
                                                               Fr* tail_scalars, unsigned long long* tail_count) {
  __shared__ uint32_t ring[kThreads / 32][kRing];
  const uint64_t t = first_index(), stride = grid_stride();
  const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x / 32;
  uint32_t* q = ring[warp];
  const auto* points = static_cast<const Affine<F>*>(v.points);
  Xyzz<F> acc = accum[t];
  uint32_t head = 0, queued = 0;  // warp-uniform
  const uint64_t warp_first = t - lane;
  ScalarAhead<kCompact> ahead{v, w, offset, stride};
  ahead.start(t);
  for (uint64_t base = warp_first; base < v.count; base += stride) {
    const uint64_t k = base + lane;
    Fr s;
    const uint32_t kind = ahead.step(k, s);
    if (kind == stream_ops::kOther) {
      const unsigned long long at = atomicAdd(tail_count, 1ull);
      tail_bases[at] = points[k];
      tail_scalars[at] = s;
    } else if (kind == stream_ops::kOne) {
      prefetch_l1(points + k);
    }
    const uint32_t ones = __ballot_sync(0xffffffffu, kind == stream_ops::kOne);
    if (kind == stream_ops::kOne)  // chunk offsets stay below 2^32 (a chunk is one slot)
      q[(head + queued + __popc(ones & ((1u << lane) - 1))) % kRing] = uint32_t(k);
    queued += __popc(ones);
    __syncwarp();
    if (queued >= 32) {
      acc = acc.add_mixed(points[q[(head + lane) % kRing]]);
      head = (head + 32) % kRing;
      queued -= 32;
    }
    __syncwarp();
  }
  if (lane < queued) acc = acc.add_mixed(points[q[(head + lane) % kRing]]);
  accum[t] = acc;
}

template <class F>
__global__ void set_infinity_kernel(Xyzz<F>* p, uint64_t count) {
  for (uint64_t i = first_index(); i < count; i += grid_stride()) p[i] = Xyzz<F>::infinity();
}

// Block b sums in[i·stride] for i ∈ [b·per_block, min(count, (b + 1)·per_block)): each thread a
// strided run, then a tree in shared memory; the sum goes to *out, or without one to the block's
// first element in[b·per_block·stride].
template <class F>
__global__ void sum_points_kernel(Xyzz<F>* in, uint64_t count, uint64_t stride, uint64_t per_block, Xyzz<F>* out) {
  __shared__ Xyzz<F> sh[kSumThreads];
  const uint64_t first = uint64_t(blockIdx.x) * per_block, end = first + per_block < count ? first + per_block : count;
  Xyzz<F> acc = Xyzz<F>::infinity();
  for (uint64_t i = first + threadIdx.x; i < end; i += kSumThreads) acc += in[i * stride];
  sh[threadIdx.x] = acc;
  __syncthreads();
  for (uint32_t half = kSumThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) sh[threadIdx.x] = sh[threadIdx.x] + sh[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) *(out ? out : &in[first * stride]) = sh[0];
}

}  // namespace

namespace detail {

void launch_qap_pass1(const ChunkView& v, const Fr* dict, WitnessView w, Fr* a, Fr* b, cudaStream_t stream) {
  if (v.count == 0) return;
  qap_pass1_kernel<<<blocks_for(v.count), kThreads, 0, stream>>>(v, dict, w, a, b);
  SNARKD_CUDA_CHECK_LAUNCH();
}

void launch_flag_nonzero(const Fr* x, unsigned long long* flag, cudaStream_t stream) {
  flag_nonzero_kernel<<<1, 32, 0, stream>>>(x, flag);
  SNARKD_CUDA_CHECK_LAUNCH();
}

void launch_first_mismatch(const Fr* x, const Fr* y, uint64_t m, unsigned long long* first, cudaStream_t stream) {
  if (m == 0) return;
  first_mismatch_kernel<<<blocks_for(m), kThreads, 0, stream>>>(x, y, m, first);
  SNARKD_CUDA_CHECK_LAUNCH();
}

void launch_qap_pass2(const ChunkView& v, const Fr* dict, WitnessView w, Fr* c, bool bellperson, cudaStream_t stream) {
  if (v.count == 0) return;
  qap_pass2_kernel<<<blocks_for(v.count), kThreads, 0, stream>>>(v, dict, w, c, bellperson);
  SNARKD_CUDA_CHECK_LAUNCH();
}

void launch_qap_tail(Fr* a, Fr* b, WitnessView w, uint64_t m, uint64_t n, uint64_t num_inputs, bool bellperson,
                     uint64_t* witness_one_ok, cudaStream_t stream) {
  qap_tail_kernel<<<blocks_for(n > m ? n - m : 1), kThreads, 0, stream>>>(a, b, w, m, n, num_inputs, bellperson,
                                                                         witness_one_ok);
  SNARKD_CUDA_CHECK_LAUNCH();
}

void launch_fill_zero(Fr* v, uint64_t count, cudaStream_t stream) {
  if (count == 0) return;
  fill_zero_kernel<<<blocks_for(count), kThreads, 0, stream>>>(v, count);
  SNARKD_CUDA_CHECK_LAUNCH();
}

void launch_split_layer(Fr* v, uint32_t level, bool dit, bool inverse, stream_ops::BlockScale scale,
                        const stream_ops::SplitTwiddles& t, cudaStream_t stream) {
  split_layer_kernel<<<blocks_for(uint64_t{1} << (t.log_n - 1)), kThreads, 0, stream>>>(v, level, dit, inverse, scale, t);
  SNARKD_CUDA_CHECK_LAUNCH();
}

void launch_mul(Fr* a, const Fr* b, uint64_t n, cudaStream_t stream) {
  mul_kernel<Fr><<<blocks_for(n), kThreads, 0, stream>>>(a, b, n);
  SNARKD_CUDA_CHECK_LAUNCH();
}

void launch_sub_scale(Fr* a, const Fr* b, uint64_t n, Fr factor, bool scale, cudaStream_t stream) {
  sub_scale_kernel<Fr><<<blocks_for(n), kThreads, 0, stream>>>(a, b, n, factor, scale);
  SNARKD_CUDA_CHECK_LAUNCH();
}

void launch_gather_split(const Fr* v, uint64_t first, uint64_t count, uint32_t log_n, uint32_t depth, Fr* out,
                         cudaStream_t stream) {
  if (count == 0) return;
  gather_split_kernel<<<blocks_for(count), kThreads, 0, stream>>>(v, first, count, log_n, depth, out);
  SNARKD_CUDA_CHECK_LAUNCH();
}

void launch_count_others(const ChunkView& v, WitnessView w, uint64_t offset, unsigned long long* counter,
                         cudaStream_t stream) {
  if (v.count == 0) return;
  count_others_kernel<<<blocks_for(v.count), kThreads, 0, stream>>>(v, w, offset, counter);
  SNARKD_CUDA_CHECK_LAUNCH();
}

template <class F>
void launch_ones_gather(const ChunkView& v, WitnessView w, uint64_t offset, Xyzz<F>* accum, uint32_t threads,
                        Affine<F>* tail_bases, Fr* tail_scalars, unsigned long long* tail_count, cudaStream_t stream) {
  if (threads % kThreads != 0) throw InvalidArgument("launch_ones_gather: threads must be a multiple of 256");
  if (v.count == 0) return;
  const uint32_t blocks = threads / kThreads;
  if (w.plain)
    ones_gather_kernel<F, false><<<blocks, kThreads, 0, stream>>>(v, w, offset, accum, tail_bases, tail_scalars,
                                                                  tail_count);
  else
    ones_gather_kernel<F, true><<<blocks, kThreads, 0, stream>>>(v, w, offset, accum, tail_bases, tail_scalars,
                                                                 tail_count);
  SNARKD_CUDA_CHECK_LAUNCH();
}

template <class F>
void launch_set_infinity(Xyzz<F>* p, uint64_t count, cudaStream_t stream) {
  if (count == 0) return;
  set_infinity_kernel<F><<<blocks_for(count), kThreads, 0, stream>>>(p, count);
  SNARKD_CUDA_CHECK_LAUNCH();
}

// Two levels past 512 points: the ones' 65,536 accumulators took one block 1–20 ms (G1, G2) for
// a serial run of 512 additions a thread; 128 blocks of 512, then one block over their sums.
template <class F>
void launch_sum_points(Xyzz<F>* in, uint64_t count, Xyzz<F>* out, cudaStream_t stream) {
  constexpr uint64_t kPerBlock = 4 * kSumThreads;
  if (count > kPerBlock) {
    const uint64_t blocks = (count + kPerBlock - 1) / kPerBlock;
    sum_points_kernel<F><<<uint32_t(blocks), kSumThreads, 0, stream>>>(in, count, 1, kPerBlock, nullptr);
    SNARKD_CUDA_CHECK_LAUNCH();
    sum_points_kernel<F><<<1, kSumThreads, 0, stream>>>(in, blocks, kPerBlock, blocks, out);
  } else {
    sum_points_kernel<F><<<1, kSumThreads, 0, stream>>>(in, count, 1, count, out);
  }
  SNARKD_CUDA_CHECK_LAUNCH();
}

#define SNARKD_STREAM_DEFINE(F)                                                                                  \
  template void launch_ones_gather<F>(const ChunkView&, WitnessView, uint64_t, Xyzz<F>*, uint32_t, Affine<F>*, Fr*, \
                                      unsigned long long*, cudaStream_t);                                          \
  template void launch_set_infinity<F>(Xyzz<F>*, uint64_t, cudaStream_t);                                        \
  template void launch_sum_points<F>(Xyzz<F>*, uint64_t, Xyzz<F>*, cudaStream_t);
SNARKD_STREAM_DEFINE(Fp)
SNARKD_STREAM_DEFINE(Fp2)
#undef SNARKD_STREAM_DEFINE

}  // namespace detail

}  // namespace snarkd::cuda
