// NttTables: the twiddle and coset-power tables, computed on the host and uploaded once.
#include <algorithm>
#include <string>

#include "snarkd/cuda/ntt.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::cuda {

namespace detail {
void ntt_configure_kernels();  // ntt.cu: raises the kernels' shared-memory limit
}

namespace {

constexpr uint32_t kMidLog = 20;     // inter-pass twiddles of domains ≤ 2^20 come from one lookup
constexpr uint32_t kCosetSplit = 14; // s^x = s^(x mod 2^14) · s^(2^14·(x >> 14))

// base^0 .. base^(count−1), in parallel chunks that each start from a pow().
void append_powers(std::vector<ff::Fr>& out, const ff::Fr& base, size_t count) {
  const size_t start = out.size();
  out.resize(start + count);
  constexpr size_t kChunk = 4096;
  const size_t chunks = (count + kChunk - 1) / kChunk;
  parallel_for(chunks, [&](size_t begin, size_t end) {
    for (size_t c = begin; c < end; ++c) {
      ff::Fr x = base.pow(uint64_t(c * kChunk));
      for (size_t j = c * kChunk; j < std::min(count, (c + 1) * kChunk); ++j) {
        out[start + j] = x;
        x *= base;
      }
    }
  });
}

}  // namespace

NttTables::NttTables(uint32_t max_log_n, uint64_t generator, const ff::Fr& coset_shift)
    : generator_(generator), coset_shift_(coset_shift) {
  if (max_log_n > kMaxLogN)
    throw InvalidArgument("NttTables: max_log_n " + std::to_string(max_log_n) + " > 28");
  if (coset_shift.is_zero()) throw InvalidArgument("NttTables: coset shift is zero");
  // ω_(2^32) must have exact order 2^32, i.e. ω^(2^31) = −1 (g a quadratic non-residue).
  if (ff::Fr::root_of_unity(1, generator) != -ff::Fr::one())
    throw InvalidArgument("NttTables: generator " + std::to_string(generator) + " gives no 2^32-th root");
  const uint32_t L = max_log_n, M = std::min(L, kMidLog);
  const uint32_t c_lo = std::min(L, kCosetSplit), c_hi = L > kCosetSplit ? L - kCosetSplit : 0;
  const ff::Fr s_inv = coset_shift.inverse();

  std::vector<ff::Fr> host;
  auto add = [&](const ff::Fr& base, size_t count) {
    const size_t offset = host.size();
    append_powers(host, base, count);
    return offset;
  };
  const size_t offsets[7] = {
      add(ff::Fr::root_of_unity(10, generator), 1024),
      add(ff::Fr::root_of_unity(M, generator), size_t{1} << M),
      add(ff::Fr::root_of_unity(L, generator), size_t{1} << (L - M)),
      add(coset_shift, size_t{1} << c_lo),
      add(coset_shift.pow(uint64_t{1} << kCosetSplit), size_t{1} << c_hi),
      add(s_inv, size_t{1} << c_lo),
      add(s_inv.pow(uint64_t{1} << kCosetSplit), size_t{1} << c_hi)};

  SNARKD_CUDA_CHECK(cudaGetDevice(&device_));
  buffer_ = DeviceBuffer<Fr>(host.size());
  SNARKD_CUDA_CHECK(cudaMemcpy(buffer_.data(), host.data(), host.size() * sizeof(Fr), cudaMemcpyHostToDevice));
  const Fr* base = buffer_.data();
  view_.small = base + offsets[0];
  view_.mid = base + offsets[1];
  view_.fine = base + offsets[2];
  view_.coset[0] = base + offsets[3];
  view_.coset[1] = base + offsets[4];
  view_.coset_inv[0] = base + offsets[5];
  view_.coset_inv[1] = base + offsets[6];
  view_.log_l = L;
  view_.log_m = M;

  for (uint32_t k = 0; k <= L; ++k) size_inv_.push_back(ff::Fr::from_u64(uint64_t{1} << k).inverse());
  detail::ntt_configure_kernels();
}

size_t ntt_scratch_bytes(uint32_t log_n, uint32_t batch) {
  return log_n <= 10 ? 0 : (size_t{batch} << log_n) * sizeof(Fr);
}

}  // namespace snarkd::cuda
