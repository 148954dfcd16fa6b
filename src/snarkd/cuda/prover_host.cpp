// Host side of the GPU prover (prover.hpp): checking and uploading the key and circuit, the
// workspace layout, the witness upload, conversion of the results, the synchronous wrapper.
// Host curve/field code lives here (g++), not in prover.cu (see msm_sync.cpp).
#include <algorithm>
#include <bit>
#include <string>
#include <vector>

#include "snarkd/cuda/prover.hpp"
#include "snarkd/groth16/qap.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {

struct DeviceProvingKey::Buffers {
  DeviceBuffer<uint64_t> row_ptr[3];
  DeviceBuffer<uint32_t> col[3], coeff[3];
  DeviceBuffer<Fr> dict;
  DeviceBuffer<G1Affine> a, b_g1, l, h;
  DeviceBuffer<G2Affine> b_g2;
  DeviceBuffer<uint32_t> a_index, b_index;

  uint64_t bytes() const {
    uint64_t sum = dict.bytes() + a.bytes() + b_g1.bytes() + l.bytes() + h.bytes() + b_g2.bytes() +
                   a_index.bytes() + b_index.bytes();
    for (int m = 0; m < 3; ++m) sum += row_ptr[m].bytes() + col[m].bytes() + coeff[m].bytes();
    return sum;
  }
};

namespace {

constexpr uint64_t align256(uint64_t x) { return (x + 255) & ~uint64_t{255}; }

[[noreturn]] void key_error(const std::string& what) { throw InvalidArgument("DeviceProvingKey: " + what); }

void expect_len(const char* what, uint64_t got, uint64_t want) {
  if (got != want)
    key_error("key has " + std::to_string(got) + " " + what + " points, the circuit needs " + std::to_string(want));
}

// The number of points a query holds: its density's variables, or every variable (full query).
uint64_t query_len(const r1cs::DensityBitmap& d, uint64_t num_vars, const char* name) {
  if (d.num_bits == 0) return num_vars;
  if (d.num_bits != num_vars || d.words.size() != (num_vars + 63) / 64)
    key_error(std::string(name) + " density covers " + std::to_string(d.num_bits) + " variables, the circuit has " +
              std::to_string(num_vars));
  return d.count(0, d.num_bits);
}

// What groth16::bind_circuit checks, plus what the device relies on (indices in range, the
// domain within the NTT tables), so that no kernel reads outside a buffer.
void check_key(const groth16::ProvingKey& pk, const r1cs::Circuit& circuit) {
  if (pk.flavour == groth16::KeyFlavour::kBellperson && pk.a_density.num_bits == 0)
    key_error("the bellperson key is not bound to its circuit (bind_circuit)");
  if (auto err = r1cs::find_structure_error(circuit)) key_error("circuit: " + *err);
  const uint64_t nvar = circuit.num_vars();
  expect_len("IC", pk.vk.ic.size(), circuit.num_inputs);
  expect_len("A", pk.a.size(), query_len(pk.a_density, nvar, "A"));
  expect_len("B_G1", pk.b_g1.size(), query_len(pk.b_density, nvar, "B"));
  expect_len("B_G2", pk.b_g2.size(), query_len(pk.b_density, nvar, "B"));
  expect_len("L", pk.l.size(), circuit.num_aux);
  if (pk.log_domain > NttTables::kMaxLogN)
    key_error("domain 2^" + std::to_string(pk.log_domain) + " exceeds the GPU NTT's 2^28");
  const uint64_t n = pk.domain_size();
  expect_len("H", pk.h.size(), pk.flavour == groth16::KeyFlavour::kBellperson ? n - 1 : n);
  const uint64_t rows = groth16::qap_rows(circuit, pk.flavour);
  if (rows > n)
    key_error("the circuit's " + std::to_string(rows) + " QAP rows do not fit the key's domain of " +
              std::to_string(n));
}

// The variables set in d, in order (u32: columns are u32, r1cs::kMaxVariables).
std::vector<uint32_t> density_index(const r1cs::DensityBitmap& d) {
  std::vector<uint32_t> out;
  out.reserve(d.count(0, d.num_bits));
  for (uint64_t j = 0; j < d.num_bits; ++j)
    if (d.test(j)) out.push_back(static_cast<uint32_t>(j));
  return out;
}

template <class D, class H>
DeviceBuffer<D> upload(const std::vector<H>& host, cudaStream_t stream) {
  static_assert(sizeof(D) == sizeof(H));
  DeviceBuffer<D> d(host.size());
  if (!host.empty()) d.upload(reinterpret_cast<const D*>(host.data()), host.size(), stream);
  return d;
}

ProverWorkspaceLayout make_layout(uint64_t num_vars, uint32_t log_n, uint64_t gather_len, uint64_t msm_scratch) {
  const uint64_t n = uint64_t{1} << log_n, vec = align256(n * sizeof(Fr));
  ProverWorkspaceLayout l;
  l.witness = 0;
  l.a = align256(num_vars * sizeof(Fr));
  // Phase H: b, c and the NTT scratch; phase MSM, over the same bytes: gather + MSM scratch.
  const uint64_t phase = l.a + vec;
  l.b = phase;
  l.c = l.b + vec;
  l.ntt_scratch = l.c + vec;
  const uint64_t h_end = l.ntt_scratch + align256(ntt_scratch_bytes(log_n));
  l.gather = phase;
  l.msm_scratch = l.gather + align256(gather_len * sizeof(Fr));
  l.msm_scratch_bytes = align256(msm_scratch);
  const uint64_t msm_end = l.msm_scratch + l.msm_scratch_bytes;
  l.sums = std::max(h_end, msm_end);
  l.total = l.sums + align256(sizeof(DeviceSums));
  return l;
}

}  // namespace

DeviceProvingKey::DeviceProvingKey(int device, const groth16::ProvingKey& pk, const r1cs::Circuit& circuit)
    : device_(device),
      flavour_(pk.flavour),
      log_domain_(pk.log_domain),
      num_constraints_(circuit.num_constraints()),
      num_inputs_(circuit.num_inputs),
      num_vars_(circuit.num_vars()) {
  check_key(pk, circuit);
  DeviceGuard guard(device);
  Stream stream;
  buffers_ = std::make_unique<Buffers>();
  Buffers& b = *buffers_;
  const bool bellperson = flavour_ == groth16::KeyFlavour::kBellperson;
  CsrView* views[3] = {&view_.a_matrix, &view_.b_matrix, &view_.c_matrix};
  for (int m = 0; m < (bellperson ? 3 : 2); ++m) {  // a zkey has no C: c = a∘b
    const r1cs::CsrMatrix& csr = circuit.matrix(static_cast<r1cs::Matrix>(m));
    b.row_ptr[m] = upload<uint64_t>(csr.row_ptr, stream);
    b.col[m] = upload<uint32_t>(csr.col, stream);
    b.coeff[m] = upload<uint32_t>(csr.coeff, stream);
    *views[m] = {b.row_ptr[m].data(), b.col[m].data(), b.coeff[m].data(), csr.num_rows()};
  }
  b.dict = upload<Fr>(circuit.coeffs, stream);
  b.a = upload<G1Affine>(pk.a, stream);
  b.b_g1 = upload<G1Affine>(pk.b_g1, stream);
  b.b_g2 = upload<G2Affine>(pk.b_g2, stream);
  b.l = upload<G1Affine>(pk.l, stream);
  b.h = upload<G1Affine>(pk.h, stream);
  // The index lists must outlive the copies: the stream is synchronised below.
  const std::vector<uint32_t> a_index = density_index(pk.a_density), b_index = density_index(pk.b_density);
  if (pk.a_density.num_bits != 0) b.a_index = upload<uint32_t>(a_index, stream);
  if (pk.b_density.num_bits != 0) b.b_index = upload<uint32_t>(b_index, stream);

  view_.dict = b.dict.data();
  view_.a = b.a.data(), view_.b_g1 = b.b_g1.data(), view_.b_g2 = b.b_g2.data();
  view_.l = b.l.data(), view_.h = b.h.data();
  view_.a_len = pk.a.size(), view_.b_len = pk.b_g1.size(), view_.l_len = pk.l.size(), view_.h_len = pk.h.size();
  // Null index = full query (the witness is the scalars). A density with no variables also
  // leaves it null, harmlessly: its query has no points, and an MSM of 0 points reads nothing.
  view_.a_index = b.a_index.data();
  view_.b_index = b.b_index.data();

  const ff::Fr shift = groth16::h_coset_shift(flavour_, log_domain_);
  tables_ = std::make_unique<NttTables>(log_domain_, groth16::domain_generator(flavour_), shift);
  view_.h_factor = Fr::from_host(bellperson ? (shift.pow(domain_size()) - ff::Fr::one()).inverse() : ff::Fr::one());

  const uint64_t gather_len =
      std::max(pk.a_density.num_bits != 0 ? view_.a_len : 0, pk.b_density.num_bits != 0 ? view_.b_len : 0);
  layout_ = make_layout(num_vars_, log_domain_, gather_len,
                        detail::prover_msm_scratch_bytes(view_.a_len, view_.b_len, view_.l_len, view_.h_len));
  stream.synchronize();
}

DeviceProvingKey::~DeviceProvingKey() {
  // Free on the key's device; no throwing from a destructor.
  int previous = 0;
  const bool switched = cudaGetDevice(&previous) == cudaSuccess && cudaSetDevice(device_) == cudaSuccess;
  tables_.reset();
  buffers_.reset();
  if (switched) cudaSetDevice(previous);
}

uint64_t DeviceProvingKey::resident_bytes() const { return buffers_->bytes() + tables_->device_bytes(); }

void enqueue_witness_upload(const DeviceProvingKey& key, const ff::Fr* h_witness, void* d_workspace,
                            cudaStream_t stream) {
  detail::check_prover_workspace(d_workspace, "enqueue_witness_upload");
  if (h_witness == nullptr) throw InvalidArgument("enqueue_witness_upload: the witness is null");
  if (h_witness[0] != ff::Fr::one()) throw InvalidArgument("witness[0] (the constant ONE) is not 1");
  DeviceGuard guard(key.device());
  auto* dst = static_cast<uint8_t*>(d_workspace) + key.layout().witness;
  SNARKD_CUDA_CHECK(
      cudaMemcpyAsync(dst, h_witness, key.num_vars() * sizeof(ff::Fr), cudaMemcpyHostToDevice, stream));
}

groth16::QuerySums to_query_sums(const DeviceProvingKey& key, const DeviceSums& sums) {
  if (sums.witness_one_ok != 1) throw InvalidArgument("witness[0] (the constant ONE) is not 1");
  if (const uint64_t row = sums.first_failing_row; row != UINT64_MAX) {
    const uint64_t m = key.num_constraints();
    throw groth16::UnsatisfiedWitness(
        "the witness does not satisfy " +
            (row < m ? "constraint " + std::to_string(row) : "input row " + std::to_string(row - m)),
        row);
  }
  auto g1 = [](const G1Xyzz& p) { return std::bit_cast<ec::Xyzz<ec::G1Config>>(p).to_jacobian(); };
  auto g2 = [](const G2Xyzz& p) { return std::bit_cast<ec::Xyzz<ec::G2Config>>(p).to_jacobian(); };
  return groth16::QuerySums{g1(sums.a), g1(sums.b1), g1(sums.l), g1(sums.h), g2(sums.b2)};
}

groth16::QuerySums compute_sums_sync(const DeviceProvingKey& key, std::span<const ff::Fr> witness) {
  if (witness.size() != key.num_vars())
    throw InvalidArgument("witness has " + std::to_string(witness.size()) + " values, the circuit " +
                          std::to_string(key.num_vars()) + " variables");
  DeviceGuard guard(key.device());
  Stream stream;
  DeviceBuffer<uint8_t> workspace(key.workspace_bytes());  // cudaMalloc: 256-aligned
  PinnedBuffer<ff::Fr> h_witness(witness.size());
  PinnedBuffer<DeviceSums> h_out(1);
  std::copy(witness.begin(), witness.end(), h_witness.begin());
  try {
    enqueue_witness_upload(key, h_witness.data(), workspace.data(), stream);
    prove_on_stream(key, workspace.data(), h_out.data(), stream);
    stream.synchronize();
  } catch (...) {
    cudaStreamSynchronize(stream);  // nothing enqueued may outlive the buffers
    throw;
  }
  return to_query_sums(key, h_out[0]);
}

}  // namespace snarkd::cuda
