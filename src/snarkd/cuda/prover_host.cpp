// Host side of the GPU prover (prover.hpp): checking and uploading the key and circuit, the
// workspace layout, the witness upload, conversion of the results, the synchronous wrapper.
// Host curve/field code lives here (g++), not in prover.cu (see msm_sync.cpp).
#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "snarkd/cuda/prover.hpp"
#include "snarkd/cuda/host_pinning.hpp"
#include "snarkd/cuda/prover_stream.hpp"
#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/groth16/qap.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {

namespace {

constexpr uint64_t align256(uint64_t x) { return (x + 255) & ~uint64_t{255}; }

[[noreturn]] void key_error(const std::string& what) { throw InvalidArgument("DeviceProvingKey: " + what); }

// What the device relies on beyond the shape and structure groth16::BoundKey::bind checked
// (column indices in range: no kernel reads outside a buffer): the domain within the NTT tables.
void check_key(const groth16::BoundKey& key) {
  if (key.pk().log_domain > NttTables::kMaxLogN)
    key_error("domain 2^" + std::to_string(key.pk().log_domain) + " exceeds the GPU NTT's 2^28");
}

ProverWorkspaceLayout make_layout(uint64_t num_vars, uint32_t log_n, uint64_t gather_len, uint64_t msm_scratch) {
  const uint64_t n = uint64_t{1} << log_n, vec = align256(n * sizeof(Fr));
  ProverWorkspaceLayout l;
  l.witness = 0;
  l.a = align256(num_vars * sizeof(Fr));
  // Phase H: b, c and the H scratch; phase MSM, over the same bytes: gather + MSM scratch.
  const uint64_t phase = l.a + vec;
  l.b = phase;
  l.c = l.b + vec;
  l.ntt_scratch = l.c + vec;
  l.ntt_scratch_bytes = align256(h_scalars_scratch_bytes(log_n));  // either H path's scratch
  const uint64_t h_end = l.ntt_scratch + l.ntt_scratch_bytes;
  l.gather = phase;
  l.msm_scratch = l.gather + align256(gather_len * sizeof(Fr));
  l.msm_scratch_bytes = align256(msm_scratch);
  const uint64_t msm_end = l.msm_scratch + l.msm_scratch_bytes;
  l.sums = std::max(h_end, msm_end);
  l.total = l.sums + align256(sizeof(DeviceSums));
  return l;
}

// The sizes a key's region is made of (layout_for and place agree through it).
struct KeyShape {
  uint64_t len[5], point_bytes[5];
  bool indexed[5];
  std::vector<r1cs::Matrix> matrices;  // the ones the prover reads
};

KeyShape shape_of(const groth16::ProvingKey& pk) {
  KeyShape k;
  const uint64_t lens[5] = {pk.a.size(), pk.b_g1.size(), pk.b_g2.size(), pk.l.size(), pk.h.size()};
  for (int i = 0; i < 5; ++i) {
    k.len[i] = lens[i];
    k.point_bytes[i] = i == 2 ? sizeof(G2Affine) : sizeof(G1Affine);
  }
  k.indexed[0] = pk.a_density.num_bits != 0;
  k.indexed[1] = k.indexed[2] = pk.b_density.num_bits != 0;
  k.indexed[3] = k.indexed[4] = false;
  using r1cs::Matrix;
  k.matrices = pk.flavour == groth16::KeyFlavour::kBellperson ? std::vector{Matrix::A, Matrix::B, Matrix::C}
                                                               : std::vector{Matrix::A, Matrix::B};
  return k;
}

template <class T>
void copy_in(uint8_t* dst, const std::vector<T>& host, uint64_t count, cudaStream_t stream) {
  if (count) copy_to_device_async(dst, host.data(), count * sizeof(T), stream);
}

}  // namespace

KeyLayout DeviceProvingKey::layout_for(const groth16::BoundKey& key, const KeyResidency& res) {
  const groth16::ProvingKey& pk = key.pk();
  const r1cs::Circuit& circuit = key.circuit();
  const KeyShape k = shape_of(pk);
  KeyLayout l;
  uint64_t at = 0;
  auto take = [&at](uint64_t bytes) {
    const uint64_t here = at;
    at += align256(bytes);
    return here;
  };
  l.dict = take(circuit.coeffs.size() * sizeof(Fr));
  l.tables = take(NttTables::device_bytes_for(pk.log_domain));
  const uint32_t d = split_depth(pk.flavour, pk.log_domain);
  l.block_tables = take(d ? NttTables::device_bytes_for(pk.log_domain - d) : 0);
  l.twiddles = take(split_twiddles_bytes(pk.log_domain));
  l.fixed = at;
  l.matrices = res.matrices;
  if (res.matrices)
    for (r1cs::Matrix m : k.matrices) {
      const r1cs::CsrMatrix& csr = circuit.matrix(m);
      l.matrix[int(m)][0] = take(csr.row_ptr.size() * 8);
      l.matrix[int(m)][1] = take(csr.nnz() * 4);
      l.matrix[int(m)][2] = take(csr.nnz() * 4);
    }
  for (int i = 0; i < 5; ++i) {
    l.resident[i] = std::min(res.points[i], k.len[i]);
    if (l.resident[i] == 0) continue;
    l.points[i] = take(l.resident[i] * k.point_bytes[i]);
    if (k.indexed[i]) l.index[i] = take(l.resident[i] * 4);
  }
  l.total = at;
  return l;
}

uint64_t DeviceProvingKey::full_workspace_bytes(const groth16::BoundKey& key) {
  const groth16::ProvingKey& pk = key.pk();
  const uint64_t a_len = pk.a.size(), b_len = pk.b_g1.size();
  const uint64_t gather_len = std::max(pk.a_density.num_bits != 0 ? a_len : 0, pk.b_density.num_bits != 0 ? b_len : 0);
  return make_layout(key.num_vars(), pk.log_domain, gather_len,
                     detail::prover_msm_scratch_bytes(a_len, b_len, pk.l.size(), pk.h.size()))
      .total;
}

DeviceProvingKey::DeviceProvingKey(int device, const groth16::BoundKey& key, ShapeOnly)
    : device_(device),
      flavour_(key.flavour()),
      log_domain_(key.pk().log_domain),
      num_constraints_(key.circuit().num_constraints()),
      num_inputs_(key.num_inputs()),
      num_vars_(key.num_vars()) {
  check_key(key);
}

DeviceProvingKey::DeviceProvingKey(int device, const groth16::BoundKey& key, const KeyResidency& res, void* d_region,
                                   cudaStream_t stream)
    : DeviceProvingKey(device, key, ShapeOnly{}) {
  detail::check_prover_workspace(d_region, "DeviceProvingKey (its region)");
  key_layout_ = layout_for(key, res);
  DeviceGuard guard(device);
  place(key.pk(), key.circuit(), static_cast<uint8_t*>(d_region), stream);
}

DeviceProvingKey::DeviceProvingKey(int device, const groth16::BoundKey& key)
    : DeviceProvingKey(device, key, ShapeOnly{}) {
  key_layout_ = layout_for(key, KeyResidency{});
  DeviceGuard guard(device);
  own_ = DeviceBuffer<uint8_t>(key_layout_.total);
  Stream stream;
  place(key.pk(), key.circuit(), own_.data(), stream);
}

// Copies the resident parts into the region, builds the views, and waits for `stream` (the host
// temporaries — index lists, twiddles — must outlive the copies).
void DeviceProvingKey::place(const groth16::ProvingKey& pk, const r1cs::Circuit& circuit, uint8_t* base,
                             cudaStream_t stream) {
  const KeyLayout& l = key_layout_;
  const KeyShape k = shape_of(pk);
  const bool bellperson = flavour_ == groth16::KeyFlavour::kBellperson;
  copy_in(base + l.dict, circuit.coeffs, circuit.coeffs.size(), stream);
  view_.dict = reinterpret_cast<const Fr*>(base + l.dict);
  CsrView* views[3] = {&view_.a_matrix, &view_.b_matrix, &view_.c_matrix};
  if (l.matrices)
    for (r1cs::Matrix m : k.matrices) {  // a zkey has no C: c = a∘b
      const r1cs::CsrMatrix& csr = circuit.matrix(m);
      const auto* at = l.matrix[int(m)];
      copy_in(base + at[0], csr.row_ptr, csr.row_ptr.size(), stream);
      copy_in(base + at[1], csr.col, csr.nnz(), stream);
      copy_in(base + at[2], csr.coeff, csr.nnz(), stream);
      *views[int(m)] = {reinterpret_cast<const uint64_t*>(base + at[0]), reinterpret_cast<const uint32_t*>(base + at[1]),
                        reinterpret_cast<const uint32_t*>(base + at[2]), csr.num_rows()};
    }
  const std::vector<uint32_t> a_index = r1cs::density_indices(pk.a_density);
  const std::vector<uint32_t> b_index = r1cs::density_indices(pk.b_density);
  const std::vector<uint32_t>* indices[5] = {&a_index, &b_index, &b_index, nullptr, nullptr};
  const void* host_points[5] = {pk.a.data(), pk.b_g1.data(), pk.b_g2.data(), pk.l.data(), pk.h.data()};
  for (int i = 0; i < 5; ++i) {
    view_.resident[i] = l.resident[i];
    if (l.resident[i] == 0) continue;
    copy_to_device_async(base + l.points[i], host_points[i], l.resident[i] * k.point_bytes[i], stream);
    view_.points[i] = base + l.points[i];
    if (!k.indexed[i]) continue;
    copy_in(base + l.index[i], *indices[i], l.resident[i], stream);
    view_.index[i] = reinterpret_cast<const uint32_t*>(base + l.index[i]);
  }
  view_.a = static_cast<const G1Affine*>(view_.points[0]);
  view_.b_g1 = static_cast<const G1Affine*>(view_.points[1]);
  view_.b_g2 = static_cast<const G2Affine*>(view_.points[2]);
  view_.l = static_cast<const G1Affine*>(view_.points[3]);
  view_.h = static_cast<const G1Affine*>(view_.points[4]);
  view_.a_len = pk.a.size(), view_.b_len = pk.b_g1.size(), view_.l_len = pk.l.size(), view_.h_len = pk.h.size();
  // Null index = full query (the witness is the scalars). A density with no variables also
  // leaves it null, harmlessly: its query has no points, and an MSM of 0 points reads nothing.
  view_.a_index = view_.index[0];
  view_.b_index = view_.index[1];

  const ff::Fr shift = groth16::h_coset_shift(flavour_, log_domain_);
  tables_ = std::make_unique<NttTables>(log_domain_, groth16::domain_generator(flavour_), shift, base + l.tables, stream);
  view_.h_factor = Fr::from_host(bellperson ? (shift.pow(domain_size()) - ff::Fr::one()).inverse() : ff::Fr::one());
  // The split NTT (prover_stream.hpp): its blocks' coset transforms use the shift s^B.
  const uint32_t d = split_depth(flavour_, log_domain_);
  if (d)
    block_tables_ = std::make_unique<NttTables>(log_domain_ - d, groth16::domain_generator(flavour_),
                                                shift.pow(uint64_t{1} << d), base + l.block_tables, stream);
  const SplitTwiddleHost tw = split_twiddles(log_domain_, d, groth16::domain_generator(flavour_), shift);
  copy_in(base + l.twiddles, tw.values, tw.values.size(), stream);
  view_.twiddles = tw.view(reinterpret_cast<const Fr*>(base + l.twiddles));
  if (fully_resident()) {
    const uint64_t gather_len =
        std::max(pk.a_density.num_bits != 0 ? view_.a_len : 0, pk.b_density.num_bits != 0 ? view_.b_len : 0);
    layout_ = make_layout(num_vars_, log_domain_, gather_len,
                          detail::prover_msm_scratch_bytes(view_.a_len, view_.b_len, view_.l_len, view_.h_len));
  }
  SNARKD_CUDA_CHECK(cudaStreamSynchronize(stream));
}

bool DeviceProvingKey::fully_resident() const {
  if (!key_layout_.matrices) return false;
  const uint64_t lens[5] = {view_.a_len, view_.b_len, view_.b_len, view_.l_len, view_.h_len};
  for (int i = 0; i < 5; ++i)
    if (key_layout_.resident[i] < lens[i]) return false;
  return true;
}

DeviceProvingKey::~DeviceProvingKey() {
  // The region is the caller's (or own_, freed on the key's device); no throwing from here.
  int previous = 0;
  const bool switched = cudaGetDevice(&previous) == cudaSuccess && cudaSetDevice(device_) == cudaSuccess;
  tables_.reset();
  block_tables_.reset();
  own_ = DeviceBuffer<uint8_t>();
  if (switched) cudaSetDevice(previous);
}

namespace {

// A path switch from the environment: unset or empty = the default (the first name).
bool env_switch(const char* var, const char* on, const char* off) {
  const char* v = std::getenv(var);
  if (v == nullptr || *v == '\0' || std::strcmp(v, on) == 0) return true;
  if (std::strcmp(v, off) == 0) return false;
  throw InvalidArgument(std::string(var) + ": '" + v + "' is not one of " + on + ", " + off);
}

// ScopedProverPaths' override: 0 = none, else 16 | fused_h | shared_b << 1 | h_buckets_across_chunks << 2 |
// h_msm_plain << 3.
std::atomic<uint32_t> g_paths_override{0};

}  // namespace

ProverPaths prover_paths() {
  if (const uint32_t o = g_paths_override.load(std::memory_order_acquire); o != 0)
    return ProverPaths{(o & 1) != 0, (o & 2) != 0, (o & 4) != 0, (o & 8) != 0};
  static const ProverPaths env = [] {
    ProverPaths p;
    p.fused_h = env_switch("SNARKD_H_PHASE", "fused", "unfused");
    p.shared_b = env_switch("SNARKD_B_CLASSIFY", "once", "twice");
    p.h_buckets_across_chunks = env_switch("SNARKD_STREAM_H_MSM", "buckets", "chunks");
    p.h_msm_plain = !env_switch("SNARKD_H_MSM", "group", "plain");
    return p;
  }();
  return env;
}

detail::ScopedProverPaths::ScopedProverPaths(const ProverPaths& p)
    : previous_(g_paths_override.exchange(16u | uint32_t(p.fused_h) | uint32_t(p.shared_b) << 1 |
                                          uint32_t(p.h_buckets_across_chunks) << 2 | uint32_t(p.h_msm_plain) << 3)) {}
detail::ScopedProverPaths::~ScopedProverPaths() { g_paths_override.store(previous_); }

void enqueue_witness_upload(const DeviceProvingKey& key, const ff::Fr* h_witness, void* d_workspace,
                            cudaStream_t stream) {
  detail::check_prover_workspace(d_workspace, "enqueue_witness_upload");
  if (h_witness == nullptr) throw InvalidArgument("enqueue_witness_upload: the witness is null");
  // Kept: this upload serves compute_sums_sync's callers (tests, tools), whose witnesses pass no
  // entry point's groth16::check_witness; the engine's workers stage witnesses themselves.
  if (h_witness[0] != ff::Fr::one()) throw InvalidArgument("witness[0] (the constant ONE) is not 1");
  DeviceGuard guard(key.device());
  auto* dst = static_cast<uint8_t*>(d_workspace) + key.layout().witness;
  copy_to_device_async(dst, h_witness, key.num_vars() * sizeof(ff::Fr), stream);
}

void detail::check_device_sums(const DeviceProvingKey& key, const DeviceSums& sums) {
  // Kept: the device reads the ONE from what reached the workspace, which a caller may have
  // copied in without enqueue_witness_upload (the engine's staging, issue 21 item 9).
  if (sums.witness_one_ok != 1) throw InvalidArgument("witness[0] (the constant ONE) is not 1");
  if (const uint64_t row = sums.first_failing_row; row != UINT64_MAX) {
    const uint64_t m = key.num_constraints();
    throw groth16::UnsatisfiedWitness(
        "the witness does not satisfy " +
            (row < m ? "constraint " + std::to_string(row) : "input row " + std::to_string(row - m)),
        row);
  }
}

groth16::QuerySums to_query_sums(const DeviceProvingKey& key, const DeviceSums& sums) {
  detail::check_device_sums(key, sums);
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
