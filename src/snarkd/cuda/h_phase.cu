// The fused H phase (h_phase.hpp).
#include "snarkd/cuda/h_phase.hpp"

#include <algorithm>
#include <string>

#include "snarkd/util/error.hpp"

namespace snarkd::cuda {
namespace {

size_t align_up(size_t x) { return (x + 255) & ~size_t{255}; }

// Entries of the low coset table of tables covering 2^max_log_n points (ntt.hpp's NttTablesView).
size_t low_coset_entries(uint32_t max_log_n) { return size_t{1} << std::min<uint32_t>(max_log_n, 14); }
size_t low_coset_entries(const NttTables& t) { return low_coset_entries(t.max_log_n()); }

// out[j] = in[j]·k.
__global__ void scale_kernel(const Fr* in, size_t count, Fr k, Fr* out) {
  const size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < count) out[j] = in[j] * k;
}

void scale_table(const Fr* in, size_t count, const Fr& k, Fr* out, cudaStream_t stream) {
  scale_kernel<<<uint32_t((count + 255) / 256), 256, 0, stream>>>(in, count, k, out);
  SNARKD_CUDA_CHECK_LAUNCH();
}

}  // namespace

size_t detail::coset_low_entries(uint32_t tables_max_log_n) { return low_coset_entries(tables_max_log_n); }

void detail::enqueue_scaled_coset_low(const NttTables& tables, bool inverse, const Fr& k, Fr* out,
                                      cudaStream_t stream) {
  scale_table(inverse ? tables.view().coset_inv[0] : tables.view().coset[0], low_coset_entries(tables), k, out,
              stream);
}

size_t h_phase_scratch_bytes(uint32_t log_n, uint32_t tables_max_log_n) {
  return align_up(ntt_scratch_bytes(log_n)) + 2 * align_up(low_coset_entries(tables_max_log_n) * sizeof(Fr));
}

size_t h_phase_scratch_bytes(uint32_t log_n, const NttTables& tables) {
  return h_phase_scratch_bytes(log_n, tables.max_log_n());
}

void h_phase(Fr* d_a, Fr* d_b, Fr* d_c, const HPhaseParams& hp, const NttTables& tables, void* d_scratch,
             size_t scratch_bytes, cudaStream_t stream) {
  const uint32_t k = hp.log_n;
  if (k == 0 || k > tables.max_log_n())
    throw InvalidArgument("h_phase: log_n " + std::to_string(k) + " not in [1, " +
                          std::to_string(tables.max_log_n()) + "]");
  const size_t need = h_phase_scratch_bytes(k, tables);
  if (d_scratch == nullptr || scratch_bytes < need)
    throw InvalidArgument("h_phase: scratch of " + std::to_string(scratch_bytes) + " bytes, needs " +
                          std::to_string(need));
  auto* base = static_cast<uint8_t*>(d_scratch);
  const size_t low = low_coset_entries(tables);
  Fr* fwd_low = reinterpret_cast<Fr*>(base + align_up(ntt_scratch_bytes(k)));
  Fr* inv_low = fwd_low + align_up(low * sizeof(Fr)) / sizeof(Fr);
  const Fr n_inv = Fr::from_host(tables.size_inverse(k));
  scale_table(tables.view().coset[0], low, n_inv, fwd_low, stream);  // 1/n · s^j
  // a, b (and c for snarkjs) to the coset; the 1/n of each inverse rides on the coset powers.
  auto to_coset = [&](Fr* v, detail::Pointwise op, const Fr* b) {
    detail::NttFusion inv{};
    inv.skip_scale = true;
    detail::ntt_fused(v, k, Direction::kInverse, false, tables, base, stream, 1, inv);
    detail::NttFusion fwd{};
    fwd.coset_low = fwd_low;
    fwd.pointwise = op, fwd.pointwise_a = d_a, fwd.pointwise_b = b;
    detail::ntt_fused(v, k, Direction::kForward, true, tables, base, stream, 1, fwd);
  };
  to_coset(d_a, detail::Pointwise::kNone, nullptr);
  if (!hp.bellperson) {
    to_coset(d_b, detail::Pointwise::kNone, nullptr);
    to_coset(d_c, detail::Pointwise::kMulSub, d_b);  // a ← a·b − c, c never stored
    return;
  }
  to_coset(d_b, detail::Pointwise::kMul, nullptr);  // a ← a·b, b never stored
  // c ← f·intt(c): f replaces the inverse's 1/n.
  detail::NttFusion coeffs{};
  coeffs.scale_override = true;
  coeffs.scale = hp.factor * n_inv;
  detail::ntt_fused(d_c, k, Direction::kInverse, false, tables, base, stream, 1, coeffs);
  // h = f·coset_intt(a) − c: f and 1/n on the inverse coset powers s^(−j), c subtracted as stored.
  scale_table(tables.view().coset_inv[0], low, hp.factor * n_inv, inv_low, stream);
  detail::NttFusion last{};
  last.coset_low = inv_low;
  last.skip_scale = true;
  last.pointwise = detail::Pointwise::kSub, last.pointwise_b = d_c;
  detail::ntt_fused(d_a, k, Direction::kInverse, true, tables, base, stream, 1, last);
}

}  // namespace snarkd::cuda
