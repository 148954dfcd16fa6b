// Host side of the a/b/c form on the GPU (prover_abc.hpp): placing the key, the workspace
// layout, the density packing (and its expansion twin), the conversion of the results.
#include <bit>
#include <string>

#include "snarkd/cuda/prover_abc.hpp"
#include "snarkd/cuda/host_pinning.hpp"
#include "snarkd/groth16/qap.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {

namespace {

constexpr uint64_t align256(uint64_t x) { return (x + 255) & ~uint64_t{255}; }

// [tables | A | B_G1 | B_G2 | L | H] offsets of a placed key.
struct Region {
  uint64_t tables = 0, points[5] = {}, total = 0;
};

Region region_of(const groth16::ProvingKey& pk) {
  Region r;
  uint64_t at = align256(NttTables::device_bytes_for(pk.log_domain));
  const uint64_t bytes[5] = {pk.a.size() * sizeof(G1Affine), pk.b_g1.size() * sizeof(G1Affine),
                             pk.b_g2.size() * sizeof(G2Affine), pk.l.size() * sizeof(G1Affine),
                             pk.h.size() * sizeof(G1Affine)};
  for (int i = 0; i < 5; ++i) {
    r.points[i] = at;
    at += align256(bytes[i]);
  }
  r.total = at;
  return r;
}

Fr h_factor_of(uint32_t log_domain) {
  const ff::Fr shift = groth16::h_coset_shift(groth16::KeyFlavour::kBellperson, log_domain);
  return Fr::from_host((shift.pow(uint64_t{1} << log_domain) - ff::Fr::one()).inverse());
}

}  // namespace

uint64_t AbcDeviceKey::region_bytes(const groth16::ProvingKey& pk) { return region_of(pk).total; }

AbcDeviceKey::AbcDeviceKey(int device, const groth16::ProvingKey& pk, void* d_region, cudaStream_t stream)
    : device_(device) {
  place(pk, d_region, stream);
}

AbcDeviceKey::AbcDeviceKey(int device, const groth16::ProvingKey& pk) : device_(device) {
  DeviceGuard guard(device);
  own_ = DeviceBuffer<uint8_t>(region_bytes(pk));
  Stream stream;
  place(pk, own_.data(), stream);
}

void AbcDeviceKey::place(const groth16::ProvingKey& pk, void* d_region, cudaStream_t stream) {
  if (pk.flavour != groth16::KeyFlavour::kBellperson) throw InvalidArgument("AbcDeviceKey: not a bellperson key");
  if (pk.log_domain > NttTables::kMaxLogN)
    throw InvalidArgument("AbcDeviceKey: domain 2^" + std::to_string(pk.log_domain) + " exceeds the GPU NTT's 2^28");
  if (pk.h.size() + 1 != pk.domain_size())
    throw InvalidArgument("AbcDeviceKey: the key has " + std::to_string(pk.h.size()) + " H points for a domain of " +
                          std::to_string(pk.domain_size()));
  detail::check_prover_workspace(d_region, "AbcDeviceKey (its region)");
  DeviceGuard guard(device_);
  const Region r = region_of(pk);
  auto* base = static_cast<uint8_t*>(d_region);
  const void* host[5] = {pk.a.data(), pk.b_g1.data(), pk.b_g2.data(), pk.l.data(), pk.h.data()};
  const uint64_t bytes[5] = {pk.a.size() * sizeof(G1Affine), pk.b_g1.size() * sizeof(G1Affine),
                             pk.b_g2.size() * sizeof(G2Affine), pk.l.size() * sizeof(G1Affine),
                             pk.h.size() * sizeof(G1Affine)};
  for (int i = 0; i < 5; ++i)
    if (bytes[i]) copy_to_device_async(base + r.points[i], host[i], bytes[i], stream);
  const ff::Fr shift = groth16::h_coset_shift(groth16::KeyFlavour::kBellperson, pk.log_domain);
  tables_ = std::make_unique<NttTables>(pk.log_domain, groth16::domain_generator(groth16::KeyFlavour::kBellperson),
                                        shift, base + r.tables, stream);
  view_.a = reinterpret_cast<const G1Affine*>(base + r.points[0]);
  view_.b_g1 = reinterpret_cast<const G1Affine*>(base + r.points[1]);
  view_.b_g2 = reinterpret_cast<const G2Affine*>(base + r.points[2]);
  view_.l = reinterpret_cast<const G1Affine*>(base + r.points[3]);
  view_.h = reinterpret_cast<const G1Affine*>(base + r.points[4]);
  view_.a_len = pk.a.size(), view_.b_len = pk.b_g1.size(), view_.l_len = pk.l.size(), view_.h_len = pk.h.size();
  view_.num_inputs = pk.vk.ic.size();
  view_.tables = tables_.get();
  view_.log_domain = pk.log_domain;
  view_.h_factor = h_factor_of(pk.log_domain);
  SNARKD_CUDA_CHECK(cudaStreamSynchronize(stream));  // the host sources (tables' temporaries) may go
}

AbcDeviceKey::AbcDeviceKey(const DeviceProvingKey& full) : device_(full.device()) {
  if (full.flavour() != groth16::KeyFlavour::kBellperson || !full.fully_resident())
    throw InvalidArgument("AbcDeviceKey: the key is not a fully resident bellperson key");
  const DeviceProvingKey::View& v = full.view();
  view_.a = v.a, view_.b_g1 = v.b_g1, view_.b_g2 = v.b_g2, view_.l = v.l, view_.h = v.h;
  view_.a_len = v.a_len, view_.b_len = v.b_len, view_.l_len = v.l_len, view_.h_len = v.h_len;
  view_.num_inputs = full.num_inputs();
  view_.tables = &full.ntt_tables();
  view_.log_domain = full.log_domain();
  view_.h_factor = v.h_factor;
}

AbcDeviceKey::~AbcDeviceKey() {
  int previous = 0;
  const bool switched = cudaGetDevice(&previous) == cudaSuccess && cudaSetDevice(device_) == cudaSuccess;
  tables_.reset();
  own_ = DeviceBuffer<uint8_t>();
  if (switched) cudaSetDevice(previous);
}

// [w | words A, B | offsets A, B | index A, B | a | phase | sums]: everything the MSM phase
// still reads (w, the index lists, the H scalars in a) lies below the phase region, which the
// H phase ([b | c | NTT scratch]) and the MSM phase ([gather | MSM scratch]) share.
AbcLayout abc_layout(const AbcKeyView& key) {
  AbcLayout l;
  l.num_inputs = key.num_inputs;
  l.num_vars = key.num_inputs + key.l_len;
  l.num_words = (l.num_vars + 63) / 64;
  const uint64_t n = uint64_t{1} << key.log_domain, vec = align256(n * sizeof(Fr));
  uint64_t at = 0;
  auto take = [&at](uint64_t bytes) {
    const uint64_t here = at;
    at += align256(bytes);
    return here;
  };
  l.w = take(l.num_vars * sizeof(Fr));
  l.a_words = take(l.num_words * 8);
  l.b_words = take(l.num_words * 8);
  l.a_offsets = take(l.num_words * 4);
  l.b_offsets = take(l.num_words * 4);
  l.a_index = take(key.a_len * 4);
  l.b_index = take(key.b_len * 4);
  l.a = take(n * sizeof(Fr));
  l.b = take(n * sizeof(Fr));
  l.c = take(n * sizeof(Fr));
  l.ntt_scratch = take(ntt_scratch_bytes(key.log_domain));
  const uint64_t h_end = at;
  l.gather = l.b;
  l.msm_scratch = l.gather + align256(std::max(key.a_len, key.b_len) * sizeof(Fr));
  l.msm_scratch_bytes = align256(detail::prover_msm_scratch_bytes(key.a_len, key.b_len, key.l_len, key.h_len));
  l.sums = std::max(h_end, l.msm_scratch + l.msm_scratch_bytes);
  l.total = l.sums + align256(sizeof(DeviceSums));
  l.upload_bytes = l.num_vars * sizeof(Fr) + 3 * vec + l.num_words * 24;
  return l;
}

PackedDensity pack_density(const groth16::DensityBits* first, uint64_t num_inputs, const groth16::DensityBits& aux) {
  PackedDensity d;
  const uint64_t nv = num_inputs + aux.bit_len;
  d.words.assign((nv + 63) / 64, 0);
  auto set = [&d](uint64_t v) { d.words[v / 64] |= uint64_t{1} << (v % 64); };
  for (uint64_t i = 0; i < num_inputs; ++i)
    if (first == nullptr || first->test(i)) set(i);
  // The aux bits shifted by num_inputs, a word at a time.
  const uint64_t sh = num_inputs % 64, base = num_inputs / 64;
  for (uint64_t w = 0; w * 64 < aux.bit_len; ++w) {
    uint64_t bits = aux.words[w];
    if (aux.bit_len - w * 64 < 64) bits &= (uint64_t{1} << (aux.bit_len - w * 64)) - 1;
    d.words[base + w] |= bits << sh;
    if (sh && base + w + 1 < d.words.size()) d.words[base + w + 1] |= bits >> (64 - sh);
  }
  d.offsets.resize(d.words.size());
  uint64_t count = 0;
  for (size_t w = 0; w < d.words.size(); ++w) {
    d.offsets[w] = uint32_t(count);
    count += uint64_t(std::popcount(d.words[w]));
  }
  d.count = count;
  return d;
}

std::vector<uint32_t> expand_density(const PackedDensity& d) {
  std::vector<uint32_t> out(d.count);
  for (size_t w = 0; w < d.words.size(); ++w) expand_word(d.words[w], uint32_t(w * 64), out.data() + d.offsets[w]);
  return out;
}

groth16::QuerySums abc_query_sums(const DeviceSums& sums, const std::string& name) {
  if (sums.witness_one_ok != 1) throw InvalidArgument(name + ": the input assignment's ONE is not 1");
  if (const uint64_t row = sums.first_failing_row; row != UINT64_MAX)
    throw groth16::UnsatisfiedWitness(
        name + ": row " + std::to_string(row) + " of a, b, c has a·b ≠ c (the assignment does not satisfy the circuit)", row);
  auto g1 = [](const G1Xyzz& p) { return std::bit_cast<ec::Xyzz<ec::G1Config>>(p).to_jacobian(); };
  auto g2 = [](const G2Xyzz& p) { return std::bit_cast<ec::Xyzz<ec::G2Config>>(p).to_jacobian(); };
  return groth16::QuerySums{g1(sums.a), g1(sums.b1), g1(sums.l), g1(sums.h), g2(sums.b2)};
}

groth16::QuerySums compute_sums_abc_sync(const AbcDeviceKey& key, const groth16::ProvingKey& pk,
                                         const groth16::AbcAssignment& p) {
  groth16::check_abc_assignment(pk, p, "assignment");
  const AbcKeyView& v = key.view();
  const AbcLayout l = abc_layout(v);
  const uint64_t n = uint64_t{1} << v.log_domain;
  const PackedDensity da = pack_density(nullptr, p.inputs.size(), p.a_aux), db = pack_density(&p.b_inputs, p.inputs.size(), p.b_aux);
  DeviceGuard guard(key.device());
  Stream stream;
  DeviceBuffer<uint8_t> ws(l.total);
  PinnedBuffer<DeviceSums> out(1);
  auto put = [&](uint64_t at, const void* src, uint64_t bytes) {
    if (bytes) copy_to_device_async(ws.data() + at, src, bytes, stream);
  };
  try {
    for (uint64_t at : {l.a, l.b, l.c}) SNARKD_CUDA_CHECK(cudaMemsetAsync(ws.data() + at, 0, n * sizeof(Fr), stream));
    put(l.w, p.inputs.data(), p.inputs.size_bytes());
    put(l.w + p.inputs.size_bytes(), p.aux.data(), p.aux.size_bytes());
    put(l.a, p.a.data(), p.a.size_bytes());
    put(l.b, p.b.data(), p.b.size_bytes());
    put(l.c, p.c.data(), p.c.size_bytes());
    put(l.a_words, da.words.data(), l.num_words * 8);
    put(l.b_words, db.words.data(), l.num_words * 8);
    put(l.a_offsets, da.offsets.data(), l.num_words * 4);
    put(l.b_offsets, db.offsets.data(), l.num_words * 4);
    prove_abc_on_stream(key, l, ws.data(), out.data(), stream);
    stream.synchronize();
  } catch (...) {
    cudaStreamSynchronize(stream);  // nothing enqueued may outlive the buffers
    throw;
  }
  return abc_query_sums(out[0], "assignment");
}

}  // namespace snarkd::cuda
