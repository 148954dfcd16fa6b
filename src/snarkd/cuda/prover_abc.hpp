// The GPU twin of groth16::compute_sums_abc (groth16/prove_abc.hpp): a proof's five sums from
// what bellperson synthesised — the QAP rows a, b, c, the input and aux assignments and the
// density bit vectors — so there is no SpMV and no circuit on the device, only the key's points
// and the NTT tables (AbcDeviceKey: its own region, or a view over a fully resident
// DeviceProvingKey of the same key).
//
// Per partition, on one stream (prove_abc_on_stream), over the workspace (AbcLayout, ≈ the
// witness prover's: w, a and the shared phase region, plus 8 bytes per variable for the index
// lists and the density words):
//   upload   (the caller, on its copy stream) w = inputs | aux, a, b, c zero-padded to n, and
//            for A and B the density over all variables as words with each word's exclusive
//            popcount offset (pack_density: A = every input, then the a_aux bits; B = the b_inp
//            bits, then the b_aux bits — bellperson's input rows put every input in A);
//   qap      a·b = c on every row (first failing row: atomicMin), w_0 = 1, and the A and B
//            variable index lists expanded from the words (one thread per word);
//   h        prover.cu's H steps (iNTT, coset NTT, (a·b − c)/Z, coset iNTT) in place in a;
//   msms     A, B_G1, B_G2 over the gathered scalars, L over aux, H over the H scalars (the
//            same entry points as prove_on_stream).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "snarkd/cuda/prover.hpp"
#include "snarkd/groth16/prove_abc.hpp"

namespace snarkd::cuda {

struct AbcKeyView {
  const G1Affine *a = nullptr, *b_g1 = nullptr, *l = nullptr, *h = nullptr;
  const G2Affine* b_g2 = nullptr;
  uint64_t a_len = 0, b_len = 0, l_len = 0, h_len = 0;
  uint64_t num_inputs = 0;  // IC points (ONE included)
  const NttTables* tables = nullptr;
  uint32_t log_domain = 0;
  Fr h_factor;  // 1/(sⁿ − 1)
};

class AbcDeviceKey {
 public:
  // The region a bellperson key takes: [NTT tables | A | B_G1 | B_G2 | L | H], 256-aligned.
  static uint64_t region_bytes(const groth16::ProvingKey& pk);
  // Places pk's points and tables at d_region (region_bytes, 256-aligned, on `device`), copied on
  // `stream` (pinned host memory: DMA), and waits for that stream. InvalidArgument for a key that
  // is not bellperson or whose H / domain does not fit the GPU NTT.
  AbcDeviceKey(int device, const groth16::ProvingKey& pk, void* d_region, cudaStream_t stream);
  // A view over a fully resident bellperson key (shares its points and tables; outlive it not).
  explicit AbcDeviceKey(const DeviceProvingKey& full);
  // Tests and tools: placed in a buffer of its own (allocated here, set-up time).
  AbcDeviceKey(int device, const groth16::ProvingKey& pk);
  ~AbcDeviceKey();
  AbcDeviceKey(const AbcDeviceKey&) = delete;
  AbcDeviceKey& operator=(const AbcDeviceKey&) = delete;

  int device() const { return device_; }
  const AbcKeyView& view() const { return view_; }

 private:
  void place(const groth16::ProvingKey& pk, void* d_region, cudaStream_t stream);

  int device_;
  DeviceBuffer<uint8_t> own_;          // the allocating constructor's region
  std::unique_ptr<NttTables> tables_;  // placed keys only
  AbcKeyView view_;
};

// Byte offsets into one a/b/c partition's workspace (256-aligned). words/offsets: A then B.
struct AbcLayout {
  uint64_t num_inputs = 0, num_vars = 0, num_words = 0;  // words per density (num_vars bits)
  uint64_t w = 0, a_words = 0, b_words = 0, a_offsets = 0, b_offsets = 0, a_index = 0, b_index = 0;
  uint64_t a = 0, b = 0, c = 0, ntt_scratch = 0;          // phase H
  uint64_t gather = 0, msm_scratch = 0, msm_scratch_bytes = 0;  // phase MSMs (over b, c, …)
  uint64_t sums = 0, total = 0;
  uint64_t upload_bytes = 0;  // what a partition's upload moves (a, b, c padded to n included)
};
AbcLayout abc_layout(const AbcKeyView& key);

// A density over every variable as the device expands it (host side of the upload).
struct PackedDensity {
  std::vector<uint64_t> words;      // bit v = variable v (inputs first), num_vars bits
  std::vector<uint32_t> offsets;    // per word: set bits in the words before it
  uint64_t count = 0;               // set bits in all
};
// first: the input part (null: every input set); aux: the aux part. Bits past the lengths are
// ignored.
PackedDensity pack_density(const groth16::DensityBits* first, uint64_t num_inputs, const groth16::DensityBits& aux);

// The set bits of one word, in order, as variable indices base + bit (host and device).
__host__ __device__ inline uint32_t expand_word(uint64_t bits, uint32_t base, uint32_t* out) {
  uint32_t k = 0;
  while (bits) {
#ifdef __CUDA_ARCH__
    const uint32_t b = uint32_t(__ffsll(static_cast<long long>(bits)) - 1);
#else
    const uint32_t b = uint32_t(__builtin_ctzll(bits));
#endif
    out[k++] = base + b;
    bits &= bits - 1;
  }
  return k;
}
// The host twin of the device's expansion: every word at its offset.
std::vector<uint32_t> expand_density(const PackedDensity& d);

// Enqueues the qap, h and MSM phases on `stream`, ordered after the upload by the caller (an
// event). Blocks while it waits for `stream` during the witness MSMs; returns with the H MSM and
// the copy of the results into *h_out (pinned) still enqueued. `phases` and `stop` as
// prove_on_stream's (Cancelled after draining the stream).
void prove_abc_on_stream(const AbcDeviceKey& key, const AbcLayout& l, void* d_workspace, DeviceSums* h_out,
                         cudaStream_t stream, const PhaseEvents* phases = nullptr, const std::stop_token& stop = {});
// The sums in groth16's form; InvalidArgument when w_0 was not 1, UnsatisfiedWitness naming the
// row (with `name`, as compute_sums_abc words it) when a·b ≠ c somewhere.
groth16::QuerySums abc_query_sums(const DeviceSums& sums, const std::string& name);

// Synchronous wrapper (tests, tools): checks p against pk like groth16::compute_sums_abc does
// (pk: the key `key` was placed from), allocates a workspace, uploads with plain copies, runs
// prove_abc_on_stream on a private stream, waits, converts. The GPU twin of compute_sums_abc.
groth16::QuerySums compute_sums_abc_sync(const AbcDeviceKey& key, const groth16::ProvingKey& pk,
                                         const groth16::AbcAssignment& p);

}  // namespace snarkd::cuda
