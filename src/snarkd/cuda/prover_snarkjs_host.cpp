// Host side of the snarkjs-key GPU prover (prover_snarkjs.hpp): the key's region and upload, the
// workspace layout, the conversions and the one-proof-at-a-time prover. Device steps:
// prover_snarkjs.cu.
#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "snarkd/cuda/host_pinning.hpp"
#include "snarkd/cuda/msm.hpp"
#include "snarkd/cuda/prover_snarkjs.hpp"
#include "snarkd/groth16/qap.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {
namespace {

constexpr uint64_t align256(uint64_t x) { return (x + 255) & ~uint64_t{255}; }

[[noreturn]] void key_error(const std::string& what) { throw InvalidArgument("SnarkjsDeviceKey: " + what); }

// Phase H uses b, c and the NTT scratch; the MSMs' scratch reuses the same bytes afterwards (it
// only reads w and a). At 2^20 points: 3 × 32 MiB of vectors, the MSM scratch a few hundred MiB.
template <class E>
SnarkjsWorkspaceLayout workspace_layout(uint32_t log_n, uint64_t num_vars) {
  using D = DeviceCurve<E>;
  const uint64_t n = uint64_t{1} << log_n, vec = align256(n * sizeof(typename D::Fr));
  SnarkjsWorkspaceLayout l;
  l.a = align256(num_vars * sizeof(typename D::Fr));
  const uint64_t phase = l.a + vec;
  l.b = phase;
  l.c = l.b + vec;
  l.ntt_scratch = l.c + vec;
  l.ntt_scratch_bytes = align256(ntt_scratch_bytes(log_n));
  l.msm_scratch = phase;
  // The witness MSMs' kinds (detail::witness_msm_options) and the H MSM's (group_default_options).
  using G1 = typename D::G1;
  using G2 = typename D::G2;
  const MsmOptions o1 = detail::witness_msm_options<G1>(), o2 = detail::witness_msm_options<G2>();
  const MsmOptions oh = group_default_options<G1>();
  l.msm_scratch_bytes = align256(std::max(
      {msm_scratch_bytes<G1>(num_vars, o1), msm_scratch_bytes<G2>(num_vars, o2), msm_scratch_bytes<G1>(n, oh)}));
  l.rest = std::max(l.ntt_scratch + l.ntt_scratch_bytes, l.msm_scratch + l.msm_scratch_bytes);
  l.partials = l.rest + align256(num_vars * sizeof(typename D::Fr));
  l.sums = l.partials + align256(detail::kOnesPartials * sizeof(Xyzz<G2>));
  l.total = l.sums + align256(sizeof(SnarkjsDeviceSums<E>));
  return l;
}

// The key region: [dictionary | A row_ptr, col, coeff | B ... | a | b_g1 | b_g2 | l | h | NTT tables].
// Each part is copied from the host vectors (pageable: set-up time) on `stream`.
struct RegionCarver {
  uint8_t* base = nullptr;  // null: only count
  uint64_t offset = 0;
  cudaStream_t stream = nullptr;

  template <class T>
  const T* put(const std::vector<T>& v) {
    const uint64_t at = offset;
    offset += align256(v.size() * sizeof(T));
    if (base == nullptr) return nullptr;  // counting
    if (v.empty()) return reinterpret_cast<const T*>(base + at);
    copy_to_device_async(base + at, v.data(), v.size() * sizeof(T), stream);
    return reinterpret_cast<const T*>(base + at);
  }
};

template <class E, class Carver>
typename SnarkjsDeviceKey<E>::View carve_key(const groth16::BoundKeyT<E>& key, Carver& c) {
  using D = DeviceCurve<E>;
  const auto& pk = key.pk();
  const auto& circuit = key.circuit();
  typename SnarkjsDeviceKey<E>::View v;
  v.dict = reinterpret_cast<const typename D::Fr*>(c.put(circuit.coeffs));
  auto csr = [&](const r1cs::CsrMatrix& m) {
    return CsrView{c.put(m.row_ptr), c.put(m.col), c.put(m.coeff), m.num_rows()};
  };
  v.a_matrix = csr(circuit.a);
  v.b_matrix = csr(circuit.b);
  v.a = reinterpret_cast<const Affine<typename D::G1>*>(c.put(pk.a));
  v.b_g1 = reinterpret_cast<const Affine<typename D::G1>*>(c.put(pk.b_g1));
  v.b_g2 = reinterpret_cast<const Affine<typename D::G2>*>(c.put(pk.b_g2));
  v.l = reinterpret_cast<const Affine<typename D::G1>*>(c.put(pk.l));
  v.h = reinterpret_cast<const Affine<typename D::G1>*>(c.put(pk.h));
  return v;
}

// What the device relies on beyond what BoundKeyT::bind checked: the flavour (full queries, no
// C matrix) and a domain within the NTT tables.
template <class E>
void check_key(const groth16::BoundKeyT<E>& key) {
  const auto& pk = key.pk();
  if (pk.flavour != groth16::KeyFlavour::kSnarkjs) key_error("the key is not a snarkjs (.zkey) key");
  if (pk.log_domain > NttTablesT<typename DeviceCurve<E>::Fr>::kMaxLogN)
    key_error("domain 2^" + std::to_string(pk.log_domain) + " exceeds the GPU NTT's 2^28");
  const uint64_t vars = key.num_vars(), n = pk.domain_size();
  if (pk.a.size() != vars || pk.b_g1.size() != vars || pk.b_g2.size() != vars || pk.h.size() != n ||
      key.circuit().c.nnz() != 0)
    key_error("the key's queries are not full snarkjs queries (A, B: " + std::to_string(vars) +
              " points, H: " + std::to_string(n) + ")");
}

// f() with `device` current (member initialisers that create device objects).
template <class F>
auto on_device(int device, F&& f) {
  DeviceGuard guard(device);
  return f();
}

// The key's region ends with its NTT tables; everything before them is what carve_key counts.
template <class E>
uint64_t tables_offset(const groth16::BoundKeyT<E>& key) {
  RegionCarver count;
  carve_key(key, count);
  return count.offset;
}

}  // namespace

template <class E>
uint64_t SnarkjsDeviceKey<E>::region_bytes(const groth16::BoundKeyT<E>& key) {
  check_key(key);
  return tables_offset(key) + align256(NttTablesT<Fr>::device_bytes_for(key.pk().log_domain));
}

template <class E>
SnarkjsWorkspaceLayout SnarkjsDeviceKey<E>::workspace_layout_for(const groth16::BoundKeyT<E>& key) {
  check_key(key);
  return workspace_layout<E>(key.pk().log_domain, key.num_vars());
}

template <class E>
SnarkjsDeviceKey<E>::SnarkjsDeviceKey(int device, const groth16::BoundKeyT<E>& key, ShapeOnly)
    : device_(device),
      log_domain_(key.pk().log_domain),
      num_vars_(key.num_vars()),
      num_inputs_(key.num_inputs()),
      region_bytes_(region_bytes(key)) {}  // checks the key

template <class E>
SnarkjsDeviceKey<E>::SnarkjsDeviceKey(int device, const groth16::BoundKeyT<E>& key, void* d_region,
                                      cudaStream_t stream)
    : SnarkjsDeviceKey(device, key, ShapeOnly{}) {
  if (d_region == nullptr || reinterpret_cast<uintptr_t>(d_region) % 256 != 0)
    key_error("the region is null or not 256-byte aligned");
  DeviceGuard guard(device);
  place(key, static_cast<uint8_t*>(d_region), stream);
}

template <class E>
SnarkjsDeviceKey<E>::SnarkjsDeviceKey(int device, const groth16::BoundKeyT<E>& key)
    : SnarkjsDeviceKey(device, key, ShapeOnly{}) {
  DeviceGuard guard(device);
  own_ = DeviceBuffer<uint8_t>(region_bytes_);
  Stream stream;
  place(key, own_.data(), stream);
}

// The copies come from the key's host vectors (pageable unless the caller pinned them: set-up
// time either way); the stream is waited for before returning, so the caller may reuse it and
// the key is usable on any stream at once.
template <class E>
void SnarkjsDeviceKey<E>::place(const groth16::BoundKeyT<E>& key, uint8_t* region, cudaStream_t stream) {
  try {
    RegionCarver put{region, 0, stream};
    view_ = carve_key(key, put);
    // snarkjs evaluates on the coset ω₂ₙ·⟨ωₙ⟩ (groth16::h_coset_shift), generator 5.
    const typename E::Fr shift = groth16::h_coset_shift<typename E::Fr>(groth16::KeyFlavour::kSnarkjs, log_domain_);
    tables_ = std::make_unique<NttTablesT<Fr>>(log_domain_, groth16::domain_generator(groth16::KeyFlavour::kSnarkjs),
                                               shift, region + put.offset, stream);
    SNARKD_CUDA_CHECK(cudaStreamSynchronize(stream));  // this stream only (the tables waited for theirs too)
    layout_ = workspace_layout<E>(log_domain_, num_vars_);
  } catch (...) {
    cudaStreamSynchronize(stream);  // no copy may outlive the key into a region its caller gives back
    throw;
  }
}

template <class E>
void enqueue_witness_upload(const SnarkjsDeviceKey<E>& key, const typename E::Fr* h_witness, void* d_workspace,
                            cudaStream_t stream) {
  if (reinterpret_cast<uintptr_t>(d_workspace) % 256 != 0)
    throw InvalidArgument("enqueue_witness_upload: the workspace is not 256-byte aligned");
  if (h_witness[0] != E::Fr::one()) throw InvalidArgument("witness[0] (the constant ONE) is not 1");
  auto* dst = static_cast<uint8_t*>(d_workspace) + key.layout().witness;
  copy_to_device_async(dst, h_witness, key.num_vars() * sizeof(typename E::Fr), stream);
}

template <class E>
groth16::QuerySumsT<E> to_query_sums(const SnarkjsDeviceSums<E>& sums) {
  if (sums.witness_one_ok != 1) throw InvalidArgument("witness[0] (the constant ONE) is not 1");
  auto g1 = [](const auto& p) { return std::bit_cast<ec::Xyzz<typename E::G1>>(p).to_jacobian(); };
  auto g2 = [](const auto& p) { return std::bit_cast<ec::Xyzz<typename E::G2>>(p).to_jacobian(); };
  return groth16::QuerySumsT<E>{g1(sums.a), g1(sums.b1), g1(sums.l), g1(sums.h), g2(sums.b2)};
}

template <class E>
SnarkjsGpuProver<E>::SnarkjsGpuProver(int device, std::shared_ptr<const groth16::BoundKeyT<E>> key)
    : key_(std::move(key)),
      dkey_(device, *key_),
      stream_(on_device(device, [] { return Stream(); })),
      workspace_(on_device(device, [&] { return DeviceBuffer<uint8_t>(dkey_.workspace_bytes()); })),
      h_witness_(dkey_.num_vars()),
      h_out_(1) {
  DeviceGuard guard(device);
  for (cudaEvent_t& e : events_.at) SNARKD_CUDA_CHECK(cudaEventCreate(&e));
}

template <class E>
SnarkjsGpuProver<E>::~SnarkjsGpuProver() {
  for (cudaEvent_t e : events_.at)
    if (e) cudaEventDestroy(e);
}

template <class E>
groth16::QuerySumsT<E> SnarkjsGpuProver<E>::compute_sums(std::span<const typename E::Fr> witness,
                                                         std::array<double, kProverPhases>* phase_s) {
  key_->check_witness(witness, "witness");
  DeviceGuard guard(dkey_.device());
  std::memcpy(h_witness_.data(), witness.data(), witness.size_bytes());
  try {
    enqueue_witness_upload(dkey_, h_witness_.data(), workspace_.data(), stream_);
    prove_on_stream(dkey_, workspace_.data(), h_out_.data(), stream_, phase_s ? &events_ : nullptr);
    stream_.synchronize();
  } catch (...) {
    cudaStreamSynchronize(stream_);  // nothing enqueued may outlive this call's use of the buffers
    throw;
  }
  if (phase_s) *phase_s = phase_seconds(events_);
  return to_query_sums<E>(h_out_[0]);
}

#define SNARKD_CUDA_PROVER_SNARKJS_HOST(E)                                                                         \
  template class SnarkjsDeviceKey<E>;                                                                              \
  template class SnarkjsGpuProver<E>;                                                                              \
  template void enqueue_witness_upload<E>(const SnarkjsDeviceKey<E>&, const typename E::Fr*, void*, cudaStream_t); \
  template groth16::QuerySumsT<E> to_query_sums<E>(const SnarkjsDeviceSums<E>&);
SNARKD_CUDA_PROVER_SNARKJS_HOST(groth16::Bls12_381)
SNARKD_CUDA_PROVER_SNARKJS_HOST(groth16::Bn254)
#undef SNARKD_CUDA_PROVER_SNARKJS_HOST

}  // namespace snarkd::cuda
