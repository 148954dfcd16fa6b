// The per-proof device work of the a/b/c form (prover_abc.hpp): the row check and the density
// expansion, then prover.cu's H steps and MSM entry points. Host side: prover_abc_host.cpp.
#include <algorithm>
#include <cstdint>

#include "snarkd/cuda/phase_mark.hpp"
#include "snarkd/cuda/prover_abc.hpp"
#include "snarkd/cuda/prover_kernels.cuh"
#include "snarkd/util/cancel.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {
namespace {

using detail::prover_kernels::blocks_for;
using detail::prover_kernels::first_index;
using detail::prover_kernels::grid_stride;
using detail::prover_kernels::kThreads;

// a·b = c on every one of the n rows (the padding rows are 0·0 = 0); thread 0 also records
// whether w_0 is 1. The CPU twin: prove_abc.cpp's first_failing.
__global__ void abc_rows_kernel(const Fr* a, const Fr* b, const Fr* c, uint64_t n, const Fr* w,
                                unsigned long long* first_failing_row, uint64_t* witness_one_ok) {
  if (first_index() == 0) *witness_one_ok = w[0] == Fr::one() ? 1 : 0;
  for (uint64_t i = first_index(); i < n; i += grid_stride())
    if (a[i] * b[i] != c[i]) atomicMin(first_failing_row, static_cast<unsigned long long>(i));
}

// One thread per density word: its set bits' variable indices at the word's offset
// (expand_word, whose host twin is expand_density).
__global__ void expand_density_kernel(const uint64_t* words, const uint32_t* offsets, uint64_t num_words,
                                      uint32_t* index) {
  for (uint64_t t = first_index(); t < num_words; t += grid_stride())
    expand_word(words[t], uint32_t(t * 64), index + offsets[t]);
}

template <class T>
T* at(void* base, uint64_t offset) {
  return reinterpret_cast<T*>(static_cast<uint8_t*>(base) + offset);
}

// The qap phase: the row check and the A and B index lists.
void enqueue_abc_qap(const AbcLayout& l, uint32_t log_domain, void* ws, DeviceSums* sums, cudaStream_t stream) {
  const uint64_t n = uint64_t{1} << log_domain;
  auto* fail = reinterpret_cast<unsigned long long*>(&sums->first_failing_row);
  SNARKD_CUDA_CHECK(cudaMemsetAsync(fail, 0xff, sizeof(uint64_t), stream));  // UINT64_MAX: none
  abc_rows_kernel<<<blocks_for(n), kThreads, 0, stream>>>(at<Fr>(ws, l.a), at<Fr>(ws, l.b), at<Fr>(ws, l.c), n,
                                                          at<Fr>(ws, l.w), fail, &sums->witness_one_ok);
  SNARKD_CUDA_CHECK_LAUNCH();
  expand_density_kernel<<<blocks_for(l.num_words), kThreads, 0, stream>>>(
      at<uint64_t>(ws, l.a_words), at<uint32_t>(ws, l.a_offsets), l.num_words, at<uint32_t>(ws, l.a_index));
  SNARKD_CUDA_CHECK_LAUNCH();
  expand_density_kernel<<<blocks_for(l.num_words), kThreads, 0, stream>>>(
      at<uint64_t>(ws, l.b_words), at<uint32_t>(ws, l.b_offsets), l.num_words, at<uint32_t>(ws, l.b_index));
  SNARKD_CUDA_CHECK_LAUNCH();
}

const Fr* gathered(const AbcLayout& l, void* ws, uint64_t index_at, uint64_t count, cudaStream_t stream) {
  if (count > 0) {
    detail::prover_kernels::gather_kernel<Fr><<<blocks_for(count), kThreads, 0, stream>>>(at<Fr>(ws, l.w), at<uint32_t>(ws, index_at), count,
                                                                  at<Fr>(ws, l.gather));
    SNARKD_CUDA_CHECK_LAUNCH();
  }
  return at<Fr>(ws, l.gather);
}

}  // namespace

void prove_abc_on_stream(const AbcDeviceKey& key, const AbcLayout& l, void* ws, DeviceSums* h_out,
                         cudaStream_t stream, const PhaseEvents* phases, const std::stop_token& stop) {
  detail::check_prover_workspace(ws, "prove_abc_on_stream");
  if (h_out == nullptr) throw InvalidArgument("prove_abc_on_stream: h_out is null");
  DeviceGuard guard(key.device());
  const AbcKeyView& v = key.view();
  auto* sums = at<DeviceSums>(ws, l.sums);
  auto mark = [&](size_t k) { detail::mark_phase(phases, k, stream, stop, "prove_abc_on_stream"); };
  mark(size_t(-1));
  enqueue_abc_qap(l, v.log_domain, ws, sums, stream);
  mark(0);
  detail::enqueue_h_scalars(*v.tables, v.log_domain, true, v.h_factor, at<Fr>(ws, l.a), at<Fr>(ws, l.b),
                            at<Fr>(ws, l.c), at<void>(ws, l.ntt_scratch), stream);
  mark(1);
  void* scratch = at<void>(ws, l.msm_scratch);
  const uint64_t sb = l.msm_scratch_bytes;
  detail::witness_msm_g1(v.a, gathered(l, ws, l.a_index, v.a_len, stream), v.a_len, &sums->a, scratch, sb, stream);
  mark(2);
  const Fr* b_scalars = gathered(l, ws, l.b_index, v.b_len, stream);
  detail::witness_msm_g1(v.b_g1, b_scalars, v.b_len, &sums->b1, scratch, sb, stream);
  mark(3);
  detail::witness_msm_g2(v.b_g2, b_scalars, v.b_len, &sums->b2, scratch, sb, stream);
  mark(4);
  detail::witness_msm_g1(v.l, at<Fr>(ws, l.w) + l.num_inputs, v.l_len, &sums->l, scratch, sb, stream);
  mark(5);
  detail::h_msm_g1(v.h, at<Fr>(ws, l.a), v.h_len, &sums->h, scratch, sb, stream);
  mark(6);
  SNARKD_CUDA_CHECK(cudaMemcpyAsync(h_out, sums, sizeof(DeviceSums), cudaMemcpyDeviceToHost, stream));
}

}  // namespace snarkd::cuda
