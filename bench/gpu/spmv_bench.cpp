// SpMV timings for snarkd_gpu_bench (--only=spmv [--constraints=N]): a synthetic PoRep-shaped
// circuit (r1cs::generate_synthetic; 130,278,869 constraints gives PoRep's 309M / 130M / 283M
// non-zeros in A / B / C) is generated on the host, uploaded, and cuda::spmv is timed for A, B and
// C (median of reps after 2 warm-ups). 4096 random rows of each product are compared with the
// CPU's r1cs::dot_row, or the benchmark stops.
//
// Floors per matrix: multiplications = non-zeros whose coefficient is not ±1 (one Fr product
// each) / the measured Fr rate; bytes = row offsets (8 B per row) + column and coefficient index
// (8 B per non-zero) + one 32 B witness element per non-zero + the 32 B output per row, over the
// measured copy rate (the witness gathers are random, so they reach the copy rate only at best).
// Host code (ff arithmetic): a .cpp file, compiled by the C++ compiler.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

#include "msm_bench.hpp"
#include "snarkd/cuda/spmv.hpp"
#include "snarkd/r1cs/synthetic.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::cuda {

double median_ms(const Stream& s, uint32_t reps, const std::function<void()>& fn);  // gpu_bench.cu

namespace {

struct DeviceCsr {
  DeviceBuffer<uint64_t> row_ptr;
  DeviceBuffer<uint32_t> col, coeff;
  CsrView view() const { return {row_ptr.data(), col.data(), coeff.data(), row_ptr.size() - 1}; }
};

DeviceCsr upload(const r1cs::CsrMatrix& m, const Stream& s) {
  DeviceCsr d{DeviceBuffer<uint64_t>(m.row_ptr.size()), DeviceBuffer<uint32_t>(m.col.size()),
              DeviceBuffer<uint32_t>(m.coeff.size())};
  d.row_ptr.upload(m.row_ptr.data(), m.row_ptr.size(), s);
  d.col.upload(m.col.data(), m.col.size(), s);
  d.coeff.upload(m.coeff.data(), m.coeff.size(), s);
  return d;
}

uint64_t count_multiplications(const r1cs::CsrMatrix& m) {
  std::vector<uint64_t> parts(64, 0);
  parallel_for(
      parts.size(),
      [&](size_t b, size_t e) {
        for (size_t p = b; p < e; ++p) {
          const size_t lo = m.coeff.size() * p / parts.size(), hi = m.coeff.size() * (p + 1) / parts.size();
          for (size_t k = lo; k < hi; ++k) parts[p] += m.coeff[k] > r1cs::kCoeffMinusOne ? 1 : 0;
        }
      },
      parts.size());
  uint64_t total = 0;
  for (uint64_t x : parts) total += x;
  return total;
}

// 4096 random rows of the device product against the CPU's dot_row.
bool rows_match(const r1cs::Circuit& c, const r1cs::CsrMatrix& m, const std::vector<ff::Fr>& w,
                const DeviceBuffer<Fr>& d_out, const Stream& s) {
  std::vector<ff::Fr> out(m.num_rows());
  d_out.download(reinterpret_cast<Fr*>(out.data()), out.size(), s);
  s.synchronize();
  std::mt19937_64 g(99);
  for (int i = 0; i < 4096; ++i) {
    const uint64_t r = g() % m.num_rows();
    if (out[r] != r1cs::dot_row(m, c.coeffs.data(), w.data(), r)) return false;
  }
  return true;
}

}  // namespace

void bench_spmv(uint64_t constraints, uint32_t reps, double fr_mul_per_s, double bytes_per_s, const Stream& s) {
  r1cs::SyntheticParams params;
  params.num_constraints = constraints;
  const auto t0 = std::chrono::steady_clock::now();
  const r1cs::SyntheticCircuit sc = r1cs::generate_synthetic(params);
  const double gen_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const r1cs::Circuit& c = sc.circuit;
  std::printf("\nSpMV, synthetic PoRep-shaped circuit: %llu constraints, %llu variables, non-zeros A %llu B %llu C "
              "%llu (generated on the host in %.1f s); median of %u runs\n",
              (unsigned long long)c.num_constraints(), (unsigned long long)c.num_vars(), (unsigned long long)c.a.nnz(),
              (unsigned long long)c.b.nnz(), (unsigned long long)c.c.nnz(), gen_s, reps);
  DeviceBuffer<Fr> d_w(sc.witness.size()), d_dict(c.coeffs.size()), d_out(c.num_constraints());
  d_w.upload(reinterpret_cast<const Fr*>(sc.witness.data()), sc.witness.size(), s);
  d_dict.upload(reinterpret_cast<const Fr*>(c.coeffs.data()), c.coeffs.size(), s);
  for (r1cs::Matrix which : {r1cs::Matrix::A, r1cs::Matrix::B, r1cs::Matrix::C}) {
    const r1cs::CsrMatrix& m = c.matrix(which);
    const DeviceCsr d = upload(m, s);
    d_out.fill_bytes(0xff, s);
    const double ms = median_ms(s, reps, [&] { spmv(d.view(), d_dict.data(), d_w.data(), d_out.data(), s); });
    const uint64_t mults = count_multiplications(m);
    const double bytes = 40.0 * double(m.num_rows()) + 40.0 * double(m.nnz());
    const bool ok = rows_match(c, m, sc.witness, d_out, s);
    std::printf("spmv %s  rows %llu  nnz %llu  %9.3f ms  (%.2f G nnz/s) | floors: mul %.3f ms (%llu products at "
                "%.1f G/s), mem %.3f ms (%.3g B at %.2f TB/s) | %s\n",
                r1cs::matrix_name(which), (unsigned long long)m.num_rows(), (unsigned long long)m.nnz(), ms,
                double(m.nnz()) / (ms * 1e-3) / 1e9, double(mults) / fr_mul_per_s * 1e3, (unsigned long long)mults,
                fr_mul_per_s / 1e9, bytes / bytes_per_s * 1e3, bytes, bytes_per_s / 1e12,
                ok ? "rows match the CPU" : "MISMATCH");
    std::fflush(stdout);
    if (!ok) {
      std::printf("SELF-CHECK FAILED: GPU SpMV of %s differs from r1cs::dot_row\n", r1cs::matrix_name(which));
      std::exit(3);
    }
  }
}

}  // namespace snarkd::cuda
