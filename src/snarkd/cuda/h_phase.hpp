// The H scalars of a Groth16 proof on the GPU in one stream-ordered call: the twin of
// groth16::h_scalars (groth16/qap.hpp), which the GPU test compares it with.
//
// From a, b, c (evaluations on the domain ⟨ω⟩ of n = 2^k points) to the H-query scalars, in a
// (s: the tables' coset shift; â: a's coset evaluations):
//   snarkjs     a ← â·b̂ − ĉ (Z = −2 is folded into its key): three inverse NTTs, three coset NTTs;
//   bellperson  a ← f·(coset_intt(â·b̂) − intt(c)), f = 1/(sⁿ − 1): the coefficients of
//               h = (a·b − c)/Z (the first n − 1 are the scalars). That is coset_intt((â·b̂ − ĉ)·f)
//               rewritten — the coset inverse is linear and undoes ĉ's coset NTT — so c skips
//               the coset: 6 transforms instead of 7, the same vector for any a, b, c.
// What is folded (each a pass over n elements or a product per element saved; the transforms
// themselves are cuda::ntt's passes, detail::NttFusion):
//   - the inverse NTT's 1/n goes into the next transform's coset powers: a copy of the low
//     coset table scaled by 1/n (2^14 products once per call), so each element gets one product
//     for both;
//   - the pointwise products run in the last pass of b's coset NTT (bellperson: â·b̂, b̂ never
//     stored) or of c's (snarkjs: â·b̂ − ĉ, ĉ never stored);
//   - bellperson: f replaces the 1/n of c's inverse NTT, f and 1/n of the last transform go into a
//     scaled copy of the low inverse-coset table, and its last pass subtracts c as it stores.
// Against the unfused sequence (prover_kernels.cuh's enqueue_h_unfused: the same transforms,
// separate pointwise kernels) that is, per element, 4 products and two passes over the arrays
// fewer for bellperson (9 → 5 beside the transforms' own), 3 and one for snarkjs (7 → 4).
//
// Contract: like ntt() — no allocation, no synchronisation, the caller's scratch
// (h_phase_scratch_bytes), kernels on the tables' device (the current one). a, b, c are n
// elements each (b and c are overwritten); log_n in [1, tables.max_log_n()].
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "snarkd/cuda/field.hpp"
#include "snarkd/cuda/ntt.hpp"

namespace snarkd::cuda {

struct HPhaseParams {
  uint32_t log_n = 0;
  bool bellperson = true;  // false: snarkjs (no division, no final transform)
  Fr factor;               // f above (bellperson; ignored for snarkjs)
};

size_t h_phase_scratch_bytes(uint32_t log_n, const NttTables& tables);
// The same from the tables' size alone (tables covering 2^tables_max_log_n points), for layouts
// computed before the tables exist (prover workspaces, engine/residency's sizes).
size_t h_phase_scratch_bytes(uint32_t log_n, uint32_t tables_max_log_n);

namespace detail {
// The 1/n and factor folding of h_phase for callers that run their own transforms (the streamed
// prover's split NTT, prover_stream.hpp): a copy of `tables`' low coset table (s^j, or s^(−j)
// when `inverse`; coset_low_entries of them) scaled by k, enqueued on `stream` into `out`, to be
// passed as NttFusion::coset_low to ntt_fused with those tables.
size_t coset_low_entries(uint32_t tables_max_log_n);
void enqueue_scaled_coset_low(const NttTables& tables, bool inverse, const Fr& k, Fr* out, cudaStream_t stream);
}  // namespace detail

// Throws InvalidArgument on a bad log_n or missing scratch.
void h_phase(Fr* d_a, Fr* d_b, Fr* d_c, const HPhaseParams& params, const NttTables& tables, void* d_scratch,
             size_t scratch_bytes, cudaStream_t stream);

}  // namespace snarkd::cuda
