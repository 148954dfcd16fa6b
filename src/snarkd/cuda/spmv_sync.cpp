// The synchronous host-memory SpMV wrapper (host code in a .cpp file, see msm_sync.cpp).
#include <string>

#include "snarkd/cuda/runtime.hpp"
#include "snarkd/cuda/spmv.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {

void spmv_sync(const r1cs::Circuit& circuit, r1cs::Matrix which, std::span<const ff::Fr> witness,
               std::span<ff::Fr> out) {
  const r1cs::CsrMatrix& m = circuit.matrix(which);
  if (witness.size() != circuit.num_vars() || out.size() != m.num_rows())
    throw InvalidArgument("spmv: witness has " + std::to_string(witness.size()) + " values (circuit: " +
                          std::to_string(circuit.num_vars()) + "), out " + std::to_string(out.size()) +
                          " (rows: " + std::to_string(m.num_rows()) + ")");
  Stream stream;
  DeviceBuffer<uint64_t> row_ptr(m.row_ptr.size());
  DeviceBuffer<uint32_t> col(m.col.size()), coeff(m.coeff.size());
  DeviceBuffer<Fr> dict(circuit.coeffs.size()), w(witness.size()), d_out(out.size());
  row_ptr.upload(m.row_ptr.data(), m.row_ptr.size(), stream);
  col.upload(m.col.data(), m.col.size(), stream);
  coeff.upload(m.coeff.data(), m.coeff.size(), stream);
  dict.upload(reinterpret_cast<const Fr*>(circuit.coeffs.data()), circuit.coeffs.size(), stream);
  w.upload(reinterpret_cast<const Fr*>(witness.data()), witness.size(), stream);
  spmv({row_ptr.data(), col.data(), coeff.data(), m.num_rows()}, dict.data(), w.data(), d_out.data(), stream);
  d_out.download(reinterpret_cast<Fr*>(out.data()), out.size(), stream);
  stream.synchronize();
}

}  // namespace snarkd::cuda
