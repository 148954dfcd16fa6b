// R1CS sparse matrix × witness on the GPU: a = A·w, b = B·w, c = C·w from the CSR form of
// r1cs/r1cs.hpp (non-zeros index one coefficient dictionary; index 0 is 1 and 1 is −1, which
// are applied by addition and subtraction, no multiplication). CPU twin: r1cs::evaluate.
//
// One thread per row: PoRep rows hold 1–3 non-zeros (2.37 / 1.00 / 2.17 on average), so a row
// is a few gathers from the witness; the kernel is bound by those random 32-byte reads.
//
// Stream-ordered: spmv() only enqueues a kernel; no allocation, no synchronisation, no scratch.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <span>

#include "snarkd/cuda/field.hpp"
#include "snarkd/r1cs/r1cs.hpp"

namespace snarkd::cuda {

// Device pointers of one CSR matrix (the layout of r1cs::CsrMatrix's vectors).
struct CsrView {
  const uint64_t* row_ptr = nullptr;  // rows + 1 offsets
  const uint32_t* col = nullptr;
  const uint32_t* coeff = nullptr;    // dictionary indices
  uint64_t rows = 0;
};

// out[i] = Σ_k dict[coeff[k]]·w[col[k]] over row i's non-zeros, for i < m.rows. The caller
// guarantees what r1cs::find_structure_error checks on the host (indices in range). F is the
// device scalar field: cuda::Fr or cuda::bn254::Fr (spmv.cu instantiates both).
template <class F>
void spmv(const CsrView& m, const F* d_dict, const F* d_witness, F* d_out, cudaStream_t stream);
extern template void spmv<Fr>(const CsrView&, const Fr*, const Fr*, Fr*, cudaStream_t);
extern template void spmv<bn254::Fr>(const CsrView&, const bn254::Fr*, const bn254::Fr*, bn254::Fr*, cudaStream_t);

// Synchronous convenience (tests, tools): uploads the matrix, dictionary and witness, runs on a
// private stream of the current device, downloads out (circuit.num_constraints() values).
// H is the host field (ff::Fr or ff::bn254::Fr).
template <class H>
void spmv_sync(const r1cs::CircuitT<H>& circuit, r1cs::Matrix which, r1cs::Values<H> witness,
               std::type_identity_t<std::span<H>> out);
extern template void spmv_sync<ff::Fr>(const r1cs::CircuitT<ff::Fr>&, r1cs::Matrix, std::span<const ff::Fr>,
                                       std::span<ff::Fr>);
extern template void spmv_sync<ff::bn254::Fr>(const r1cs::CircuitT<ff::bn254::Fr>&, r1cs::Matrix,
                                              std::span<const ff::bn254::Fr>, std::span<ff::bn254::Fr>);

}  // namespace snarkd::cuda
