// The per-proof device work of the GPU prover (prover.hpp): QAP rows, H scalars, five MSMs.
// Host-side set-up (key upload, conversions, the sync wrapper) is in prover_host.cpp.
#include <algorithm>
#include <cstdint>
#include <string>

#include "snarkd/cuda/h_phase.hpp"
#include "snarkd/cuda/msm.hpp"
#include "snarkd/cuda/msm_split.hpp"
#include "snarkd/cuda/phase_mark.hpp"
#include "snarkd/cuda/prover.hpp"
#include "snarkd/cuda/prover_kernels.cuh"
#include "snarkd/util/cancel.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {
namespace {

namespace prover_kernels = detail::prover_kernels;

using prover_kernels::blocks_for;
using prover_kernels::gather_kernel;
using prover_kernels::kThreads;
using prover_kernels::qap_rows_kernel;

uint64_t align_up(uint64_t b) { return (b + 255) / 256 * 256; }

// The A, B and L sums: witness scalars, mostly 0 and 1 in Filecoin circuits, so they go
// through the bit-split MSM (cuda/msm_split.hpp): zeros skipped, ones summed by a reduction,
// Pippenger only over the rest. Without it, every one-scalar lands in the same bucket of each
// window and one thread adds them all: 25.8 s instead of 172 ms at a 2^21 domain (H200).
// The tail's length is data-dependent and cuda::msm needs it on the host, so this waits for
// `stream` (this stream only) once per MSM after the classification.
// Scratch: [split buffer | split scratch for a tail of min(n, kTailPoints) points in one piece].
// PoRep tails are ~5 % of 1.3·10^8 scalars ≈ 6.5·10^6 points, so 2^23 takes them whole; a longer
// tail (random witnesses) runs in chunks (msm_split_finish). Sizing for the worst case (every
// scalar "other") cost 25 GiB of gathered G2 bases per partition at 2^27 — the working set
// was 34.5 GiB, now ≈ 20 GiB, so more partitions fit on the device at once.
constexpr uint64_t kTailPoints = uint64_t{1} << 23;
template <class F>
uint64_t witness_msm_scratch_bytes(uint64_t n) {
  return align_up(split_buffer_bytes(n)) + msm_split_scratch_bytes<F>(std::min(n, kTailPoints));
}
// `then(split, counts, rest, rest_bytes)` runs last: a further sum over the same classification.
template <class F, class Then>
void witness_msm(const Affine<F>* bases, const Fr* scalars, uint64_t n, Xyzz<F>* out, void* scratch,
                 uint64_t scratch_bytes, cudaStream_t stream, Then&& then) {
  const uint64_t split_bytes = align_up(split_buffer_bytes(n));
  const DeviceSplit split{n ? scratch : nullptr, split_bytes, n};
  void* rest = static_cast<uint8_t*>(scratch) + split_bytes;
  const uint64_t rest_bytes = scratch_bytes - split_bytes;
  SplitCounts counts;  // pageable: read only after the stream synchronisation below
  msm_split_classify(scalars, split, &counts, stream);
  msm_split_ones<F>(bases, split, out, rest, rest_bytes, stream);
  SNARKD_CUDA_CHECK(cudaStreamSynchronize(stream));
  msm_split_finish<F>(bases, split, counts, out, out, rest, rest_bytes, stream);
  then(split, counts, rest, rest_bytes);
}
template <class F>
void witness_msm(const Affine<F>* bases, const Fr* scalars, uint64_t n, Xyzz<F>* out, void* scratch,
                 uint64_t scratch_bytes, cudaStream_t stream) {
  witness_msm<F>(bases, scalars, n, out, scratch, scratch_bytes, stream,
                 [](const DeviceSplit&, const SplitCounts&, void*, uint64_t) {});
}

// The B sums in G1 and G2 over ONE classification of the B scalars (msm_split.hpp): a wait for the
// stream and a classification pass (flags, partition, gather over |B| scalars) fewer than two
// witness_msm calls. The split buffer stays untouched from the classification to the G2 sum (the
// scratch behind it is shared, stream order separates the two sums). Same scratch as witness_msm
// for the larger curve, Fp2. `mark` records the end of the G1 sum.
template <class Mark>
void witness_msm_b(const G1Affine* g1, const G2Affine* g2, const Fr* scalars, uint64_t n, G1Xyzz* out1,
                   G2Xyzz* out2, void* scratch, uint64_t scratch_bytes, cudaStream_t stream, Mark&& mark) {
  witness_msm<Fp>(g1, scalars, n, out1, scratch, scratch_bytes, stream,
                  [&](const DeviceSplit& split, const SplitCounts& counts, void* rest, uint64_t rest_bytes) {
                    mark();
                    msm_split_run<Fp2>(g2, split, counts, out2, rest, rest_bytes, stream);
                  });
}

// The H sum: random-looking scalars, plain Pippenger (as groth16::compute_sums does), in G1's
// default kind (group_default_options) or, with ProverPaths::h_msm_plain, in the plain MSM's kind
// for its size where the workspace (sized when the key was placed, under the paths of then) holds
// that kind's scratch.
uint64_t h_msm_scratch_bytes(uint64_t n) {
  return msm_scratch_bytes<Fp>(n, prover_paths().h_msm_plain ? MsmOptions{} : group_default_options<Fp>());
}
void h_msm(const G1Affine* bases, const Fr* scalars, uint64_t n, G1Xyzz* out, void* scratch, uint64_t scratch_bytes,
           cudaStream_t stream) {
  const bool plain = prover_paths().h_msm_plain && msm_scratch_bytes<Fp>(n, MsmOptions{}) <= scratch_bytes;
  msm<Fp>(bases, scalars, n, out, scratch, scratch_bytes, stream, plain ? MsmOptions{} : group_default_options<Fp>());
}

// Pointers into one partition's workspace.
struct Workspace {
  Fr *w, *a, *b, *c, *gather;
  void *ntt_scratch, *msm_scratch;
  uint64_t ntt_scratch_bytes, msm_scratch_bytes;
  DeviceSums* sums;
};

Workspace carve(const ProverWorkspaceLayout& l, void* d_workspace) {
  auto* base = static_cast<uint8_t*>(d_workspace);
  return {reinterpret_cast<Fr*>(base + l.witness),  reinterpret_cast<Fr*>(base + l.a),
          reinterpret_cast<Fr*>(base + l.b),        reinterpret_cast<Fr*>(base + l.c),
          reinterpret_cast<Fr*>(base + l.gather),   base + l.ntt_scratch,
          base + l.msm_scratch,                     l.ntt_scratch_bytes,
          l.msm_scratch_bytes,
          reinterpret_cast<DeviceSums*>(base + l.sums)};
}

// Step 1: a, b, c on the n domain rows, and the satisfiability check (bellperson).
void enqueue_qap(const DeviceProvingKey& key, const Workspace& ws, cudaStream_t stream) {
  const DeviceProvingKey::View& v = key.view();
  const bool bellperson = key.flavour() == groth16::KeyFlavour::kBellperson;
  static_assert(sizeof(unsigned long long) == sizeof(uint64_t));
  auto* fail = reinterpret_cast<unsigned long long*>(&ws.sums->first_failing_row);
  SNARKD_CUDA_CHECK(cudaMemsetAsync(fail, 0xff, sizeof(uint64_t), stream));  // UINT64_MAX: none
  spmv(v.a_matrix, v.dict, ws.w, ws.a, stream);
  spmv(v.b_matrix, v.dict, ws.w, ws.b, stream);
  if (bellperson) spmv(v.c_matrix, v.dict, ws.w, ws.c, stream);
  const uint64_t n = key.domain_size();
  qap_rows_kernel<Fr><<<blocks_for(n), kThreads, 0, stream>>>(ws.a, ws.b, ws.c, ws.w, key.num_constraints(), n,
                                                          key.num_inputs(), bellperson, fail,
                                                          &ws.sums->witness_one_ok);
  SNARKD_CUDA_CHECK_LAUNCH();
}

// Step 2 unfused (ProverPaths::fused_h = false; kept for the A/B benchmarks and as h_phase's
// reference; the a/b/c form's path): detail::enqueue_h_scalars.
void enqueue_h_unfused(const DeviceProvingKey& key, Fr* a, Fr* b, Fr* c, void* scratch, cudaStream_t stream) {
  detail::enqueue_h_scalars(key.ntt_tables(), key.log_domain(), key.flavour() == groth16::KeyFlavour::kBellperson,
                            key.view().h_factor, a, b, c, scratch, stream);
}

// A query's scalars: the witness itself (full query) or the gathered values of its variables.
const Fr* query_scalars(const Workspace& ws, const uint32_t* index, uint64_t count, cudaStream_t stream) {
  if (index == nullptr) return ws.w;
  if (count > 0) {
    gather_kernel<Fr><<<blocks_for(count), kThreads, 0, stream>>>(ws.w, index, count, ws.gather);
    SNARKD_CUDA_CHECK_LAUNCH();
  }
  return ws.gather;
}

// Step 3: the five MSMs, one after another on the stream (they share the gather buffer and
// the scratch: the B gather overwrites the A scalars only after the A MSM has read them).
// `mark(k)` records the end of phase k (PhaseEvents); phases 2..6 are the five MSMs.
template <class Mark>
void enqueue_msms(const DeviceProvingKey& key, const Workspace& ws, bool shared_b, cudaStream_t stream, Mark&& mark) {
  const DeviceProvingKey::View& v = key.view();
  const Fr* a_scalars = query_scalars(ws, v.a_index, v.a_len, stream);
  witness_msm<Fp>(v.a, a_scalars, v.a_len, &ws.sums->a, ws.msm_scratch, ws.msm_scratch_bytes, stream);
  mark(2);
  const Fr* b_scalars = query_scalars(ws, v.b_index, v.b_len, stream);
  if (shared_b) {
    witness_msm_b(v.b_g1, v.b_g2, b_scalars, v.b_len, &ws.sums->b1, &ws.sums->b2, ws.msm_scratch,
                  ws.msm_scratch_bytes, stream, [&] { mark(3); });
  } else {
    witness_msm<Fp>(v.b_g1, b_scalars, v.b_len, &ws.sums->b1, ws.msm_scratch, ws.msm_scratch_bytes, stream);
    mark(3);
    witness_msm<Fp2>(v.b_g2, b_scalars, v.b_len, &ws.sums->b2, ws.msm_scratch, ws.msm_scratch_bytes, stream);
  }
  mark(4);
  witness_msm<Fp>(v.l, ws.w + key.num_inputs(), v.l_len, &ws.sums->l, ws.msm_scratch, ws.msm_scratch_bytes, stream);
  mark(5);
  h_msm(v.h, ws.a, v.h_len, &ws.sums->h, ws.msm_scratch, ws.msm_scratch_bytes, stream);
  mark(6);
}

}  // namespace

namespace detail {

void enqueue_h_scalars(const NttTables& t, uint32_t k, bool bellperson, const Fr& h_factor, Fr* a, Fr* b, Fr* c,
                       void* ntt_scratch, cudaStream_t stream) {
  prover_kernels::enqueue_h_unfused<Fr>(t, k, bellperson, h_factor, a, b, c, ntt_scratch, stream);
}

void witness_msm_g1(const G1Affine* bases, const Fr* scalars, uint64_t n, G1Xyzz* out, void* scratch,
                    uint64_t scratch_bytes, cudaStream_t stream) {
  witness_msm<Fp>(bases, scalars, n, out, scratch, scratch_bytes, stream);
}

void witness_msm_g2(const G2Affine* bases, const Fr* scalars, uint64_t n, G2Xyzz* out, void* scratch,
                    uint64_t scratch_bytes, cudaStream_t stream) {
  witness_msm<Fp2>(bases, scalars, n, out, scratch, scratch_bytes, stream);
}

void h_msm_g1(const G1Affine* bases, const Fr* scalars, uint64_t n, G1Xyzz* out, void* scratch, uint64_t scratch_bytes,
              cudaStream_t stream) {
  h_msm(bases, scalars, n, out, scratch, scratch_bytes, stream);
}

uint64_t prover_msm_scratch_bytes(uint64_t a_len, uint64_t b_len, uint64_t l_len, uint64_t h_len) {
  return std::max({witness_msm_scratch_bytes<Fp>(a_len), witness_msm_scratch_bytes<Fp>(b_len),
                   witness_msm_scratch_bytes<Fp2>(b_len), witness_msm_scratch_bytes<Fp>(l_len),
                   h_msm_scratch_bytes(h_len)});
}

void check_prover_workspace(const void* p, const char* who) {
  if (p == nullptr) throw InvalidArgument(std::string(who) + ": the workspace is null");
  if (reinterpret_cast<uintptr_t>(p) % 256 != 0)
    throw InvalidArgument(std::string(who) + ": the workspace is not 256-byte aligned");
}

}  // namespace detail

uint64_t h_scalars_scratch_bytes(uint32_t log_n) { return h_phase_scratch_bytes(log_n, log_n); }

// The fused path needs log_n ≥ 1 (h_phase's range); a one-point domain takes the unfused one.
void enqueue_h_scalars(const DeviceProvingKey& key, Fr* d_a, Fr* d_b, Fr* d_c, void* d_scratch, uint64_t scratch_bytes,
                       cudaStream_t stream, const ProverPaths& paths) {
  const uint32_t k = key.log_domain();
  const uint64_t need = h_scalars_scratch_bytes(k);
  if ((need > 0 && d_scratch == nullptr) || scratch_bytes < need)
    throw InvalidArgument("enqueue_h_scalars: scratch of " + std::to_string(scratch_bytes) + " bytes, needs " +
                          std::to_string(need));
  if (!paths.fused_h || k == 0) return enqueue_h_unfused(key, d_a, d_b, d_c, d_scratch, stream);
  HPhaseParams hp;
  hp.log_n = k;
  hp.bellperson = key.flavour() == groth16::KeyFlavour::kBellperson;
  hp.factor = key.view().h_factor;
  h_phase(d_a, d_b, d_c, hp, key.ntt_tables(), d_scratch, scratch_bytes, stream);
}

std::array<double, kProverPhases> phase_seconds(const PhaseEvents& ev) {
  std::array<double, kProverPhases> s{};
  for (size_t k = 0; k < kProverPhases; ++k) {
    float ms = 0;
    SNARKD_CUDA_CHECK(cudaEventElapsedTime(&ms, ev.at[k], ev.at[k + 1]));
    s[k] = double(ms) / 1e3;
  }
  return s;
}

void prove_on_stream(const DeviceProvingKey& key, void* d_workspace, DeviceSums* h_out, cudaStream_t stream,
                     const PhaseEvents* phases, const std::stop_token& stop) {
  detail::check_prover_workspace(d_workspace, "prove_on_stream");
  if (h_out == nullptr) throw InvalidArgument("prove_on_stream: h_out is null");
  DeviceGuard guard(key.device());
  const Workspace ws = carve(key.layout(), d_workspace);
  const ProverPaths paths = prover_paths();
  auto mark = [&](size_t k) { detail::mark_phase(phases, k, stream, stop, "prove_on_stream"); };
  mark(size_t(-1));
  enqueue_qap(key, ws, stream);
  mark(0);
  enqueue_h_scalars(key, ws.a, ws.b, ws.c, ws.ntt_scratch, ws.ntt_scratch_bytes, stream, paths);
  mark(1);
  enqueue_msms(key, ws, paths.shared_b, stream, mark);
  SNARKD_CUDA_CHECK(cudaMemcpyAsync(h_out, ws.sums, sizeof(DeviceSums), cudaMemcpyDeviceToHost, stream));
}

}  // namespace snarkd::cuda
