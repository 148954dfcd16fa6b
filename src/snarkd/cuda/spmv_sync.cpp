// The synchronous host-memory SpMV wrapper (host code in a .cpp file, see msm_sync.cpp).
#include <string>

#include "snarkd/cuda/runtime.hpp"
#include "snarkd/cuda/spmv.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {

template <class H>
void spmv_sync(const r1cs::CircuitT<H>& circuit, r1cs::Matrix which, r1cs::Values<H> witness,
               std::type_identity_t<std::span<H>> out) {
  using F = Field<H>;
  const r1cs::CsrMatrix& m = circuit.matrix(which);
  if (witness.size() != circuit.num_vars() || out.size() != m.num_rows())
    throw InvalidArgument("spmv: witness has " + std::to_string(witness.size()) + " values (circuit: " +
                          std::to_string(circuit.num_vars()) + "), out " + std::to_string(out.size()) +
                          " (rows: " + std::to_string(m.num_rows()) + ")");
  Stream stream;
  DeviceBuffer<uint64_t> row_ptr(m.row_ptr.size());
  DeviceBuffer<uint32_t> col(m.col.size()), coeff(m.coeff.size());
  DeviceBuffer<F> dict(circuit.coeffs.size()), w(witness.size()), d_out(out.size());
  row_ptr.upload(m.row_ptr.data(), m.row_ptr.size(), stream);
  col.upload(m.col.data(), m.col.size(), stream);
  coeff.upload(m.coeff.data(), m.coeff.size(), stream);
  dict.upload(reinterpret_cast<const F*>(circuit.coeffs.data()), circuit.coeffs.size(), stream);
  w.upload(reinterpret_cast<const F*>(witness.data()), witness.size(), stream);
  spmv({row_ptr.data(), col.data(), coeff.data(), m.num_rows()}, dict.data(), w.data(), d_out.data(), stream);
  d_out.download(reinterpret_cast<F*>(out.data()), out.size(), stream);
  stream.synchronize();
}

template void spmv_sync<ff::Fr>(const r1cs::CircuitT<ff::Fr>&, r1cs::Matrix, std::span<const ff::Fr>,
                                std::span<ff::Fr>);
template void spmv_sync<ff::bn254::Fr>(const r1cs::CircuitT<ff::bn254::Fr>&, r1cs::Matrix,
                                       std::span<const ff::bn254::Fr>, std::span<ff::bn254::Fr>);

}  // namespace snarkd::cuda
