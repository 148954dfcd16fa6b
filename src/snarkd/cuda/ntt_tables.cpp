// NttTablesT: the twiddle and coset-power tables, computed on the host (with the host field F::Host,
// ff::Fr or ff::bn254::Fr) and uploaded once.
#include <algorithm>
#include <string>

#include "snarkd/cuda/ntt.hpp"
#include "snarkd/cuda/host_pinning.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::cuda {

namespace {

constexpr uint32_t kMidLog = 20;     // inter-pass twiddles of domains ≤ 2^20 come from one lookup
constexpr uint32_t kCosetSplit = 14; // s^x = s^(x mod 2^14) · s^(2^14·(x >> 14))

// base^0 .. base^(count−1), in parallel chunks that each start from a pow().
template <class H>
void append_powers(std::vector<H>& out, const H& base, size_t count) {
  const size_t start = out.size();
  out.resize(start + count);
  constexpr size_t kChunk = 4096;
  const size_t chunks = (count + kChunk - 1) / kChunk;
  parallel_for(chunks, [&](size_t begin, size_t end) {
    for (size_t c = begin; c < end; ++c) {
      H x = base.pow(uint64_t(c * kChunk));
      for (size_t j = c * kChunk; j < std::min(count, (c + 1) * kChunk); ++j) {
        out[start + j] = x;
        x *= base;
      }
    }
  });
}

}  // namespace

namespace {

// The tables' host values and where each starts (in elements), for max_log_n = L.
template <class H>
struct HostTables {
  std::vector<H> values;
  size_t offsets[7] = {};
};

size_t table_elements(uint32_t L) {
  const uint32_t M = std::min(L, kMidLog);
  const uint32_t c_lo = std::min(L, kCosetSplit), c_hi = L > kCosetSplit ? L - kCosetSplit : 0;
  return 1024 + (size_t{1} << M) + (size_t{1} << (L - M)) + 2 * ((size_t{1} << c_lo) + (size_t{1} << c_hi));
}

template <class H>
HostTables<H> host_tables(uint32_t L, uint64_t generator, const H& coset_shift) {
  const uint32_t M = std::min(L, kMidLog);
  const uint32_t c_lo = std::min(L, kCosetSplit), c_hi = L > kCosetSplit ? L - kCosetSplit : 0;
  const H s_inv = coset_shift.inverse();
  HostTables<H> t;
  t.values.reserve(table_elements(L));
  auto add = [&](const H& base, size_t count) {
    const size_t offset = t.values.size();
    append_powers(t.values, base, count);
    return offset;
  };
  const size_t offsets[7] = {
      add(H::root_of_unity(10, generator), 1024),
      add(H::root_of_unity(M, generator), size_t{1} << M),
      add(H::root_of_unity(L, generator), size_t{1} << (L - M)),
      add(coset_shift, size_t{1} << c_lo),
      add(coset_shift.pow(uint64_t{1} << kCosetSplit), size_t{1} << c_hi),
      add(s_inv, size_t{1} << c_lo),
      add(s_inv.pow(uint64_t{1} << kCosetSplit), size_t{1} << c_hi)};
  std::copy(std::begin(offsets), std::end(offsets), t.offsets);
  return t;
}

template <class F>
void check_args(uint32_t max_log_n, uint64_t generator, const typename F::Host& coset_shift) {
  using H = typename F::Host;
  if (max_log_n > NttTablesT<F>::kMaxLogN)
    throw InvalidArgument("NttTables: max_log_n " + std::to_string(max_log_n) + " > " +
                          std::to_string(NttTablesT<F>::kMaxLogN));
  if (coset_shift.is_zero()) throw InvalidArgument("NttTables: coset shift is zero");
  // ω_(2^s) (s = the 2-adicity: 32 for BLS12-381, 28 for BN254) must have exact order 2^s, i.e.
  // ω^(2^(s−1)) = −1 (g a quadratic non-residue).
  if (H::root_of_unity(1, generator) != -H::one())
    throw InvalidArgument("NttTables: generator " + std::to_string(generator) + " gives no 2^" +
                          std::to_string(H::kTwoAdicity) + "-th root");
}

}  // namespace

template <class F>
size_t NttTablesT<F>::device_bytes_for(uint32_t max_log_n) {
  return (table_elements(max_log_n) * sizeof(F) + 255) / 256 * 256;
}

template <class F>
NttTablesT<F>::NttTablesT(uint32_t max_log_n, uint64_t generator, const Host& coset_shift)
    : generator_(generator), coset_shift_(coset_shift) {
  check_args<F>(max_log_n, generator, coset_shift);
  const HostTables<Host> t = host_tables(max_log_n, generator, coset_shift);
  SNARKD_CUDA_CHECK(cudaGetDevice(&device_));
  buffer_ = DeviceBuffer<F>(t.values.size());
  bytes_ = buffer_.bytes();
  SNARKD_CUDA_CHECK(cudaMemcpy(buffer_.data(), t.values.data(), t.values.size() * sizeof(F), cudaMemcpyHostToDevice));
  finish(buffer_.data(), t.offsets, max_log_n);
}

template <class F>
NttTablesT<F>::NttTablesT(uint32_t max_log_n, uint64_t generator, const Host& coset_shift, void* d_memory,
                          cudaStream_t stream)
    : generator_(generator), coset_shift_(coset_shift) {
  check_args<F>(max_log_n, generator, coset_shift);
  if (d_memory == nullptr || reinterpret_cast<uintptr_t>(d_memory) % 256 != 0)
    throw InvalidArgument("NttTables: the caller's memory is null or not 256-byte aligned");
  const HostTables<Host> t = host_tables(max_log_n, generator, coset_shift);
  SNARKD_CUDA_CHECK(cudaGetDevice(&device_));
  bytes_ = device_bytes_for(max_log_n);
  F* base = static_cast<F*>(d_memory);
  copy_to_device_async(base, t.values.data(), t.values.size() * sizeof(F), stream);
  SNARKD_CUDA_CHECK(cudaStreamSynchronize(stream));  // the host vector goes out of scope
  finish(base, t.offsets, max_log_n);
}

template <class F>
void NttTablesT<F>::finish(const F* base, const size_t* offsets, uint32_t L) {
  view_.small = base + offsets[0];
  view_.mid = base + offsets[1];
  view_.fine = base + offsets[2];
  view_.coset[0] = base + offsets[3];
  view_.coset[1] = base + offsets[4];
  view_.coset_inv[0] = base + offsets[5];
  view_.coset_inv[1] = base + offsets[6];
  view_.log_l = L;
  view_.log_m = std::min(L, kMidLog);
  for (uint32_t k = 0; k <= L; ++k) size_inv_.push_back(Host::from_u64(uint64_t{1} << k).inverse());
  detail::ntt_configure_kernels<F>();
}

template class NttTablesT<Fr>;
template class NttTablesT<bn254::Fr>;

size_t ntt_scratch_bytes(uint32_t log_n, uint32_t batch) {
  return log_n <= 10 ? 0 : (size_t{batch} << log_n) * sizeof(Fr);
}

}  // namespace snarkd::cuda
