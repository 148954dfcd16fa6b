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
// guarantees what r1cs::find_structure_error checks on the host (indices in range).
void spmv(const CsrView& m, const Fr* d_dict, const Fr* d_witness, Fr* d_out, cudaStream_t stream);

// Synchronous convenience (tests, tools): uploads the matrix, dictionary and witness, runs on a
// private stream of the current device, downloads out (circuit.num_constraints() values).
void spmv_sync(const r1cs::Circuit& circuit, r1cs::Matrix which, std::span<const ff::Fr> witness,
               std::span<ff::Fr> out);

}  // namespace snarkd::cuda
