// Host side of the GPU setup: ec ↔ device point types are bit copies (same layout, see
// cuda/curve.hpp), so the streamer reads the scalars and writes the key's vectors in place.
#include "snarkd/cuda/setup_gpu.hpp"

#include <algorithm>
#include <bit>
#include <memory>
#include <type_traits>

#include "snarkd/cuda/fixed_base.hpp"
#include "snarkd/ec/g1.hpp"
#include "snarkd/ec/g2.hpp"

namespace snarkd::cuda {
namespace {

template <class C>
using DeviceField = std::conditional_t<std::is_same_v<C, ec::G1Config>, Fp, Fp2>;

template <class C>
std::vector<ec::Affine<C>> run(FixedBaseStreamer<DeviceField<C>>& streamer, std::span<const ff::Fr> scalars) {
  std::vector<ec::Affine<C>> out(scalars.size());
  streamer.mul(reinterpret_cast<const Fr*>(scalars.data()), scalars.size(),
               reinterpret_cast<Affine<DeviceField<C>>*>(out.data()));
  return out;
}

// Chunks no larger than the largest batch, so small keys do not pin the default chunk's memory.
template <class F>
size_t chunk_for(size_t largest) {
  return std::clamp<size_t>(largest, 1, FixedBaseStreamer<F>::kDefaultChunk);
}

template <class C>
std::shared_ptr<FixedBaseStreamer<DeviceField<C>>> generator_streamer(int device, size_t largest) {
  using F = DeviceField<C>;
  return std::make_shared<FixedBaseStreamer<F>>(device, std::bit_cast<Affine<F>>(ec::generator<C>()),
                                                chunk_for<F>(largest));
}

}  // namespace

template <class C>
std::vector<ec::Affine<C>> fixed_base_mul_sync(int device, const ec::Affine<C>& base, std::span<const ff::Fr> scalars,
                                               size_t chunk) {
  using F = DeviceField<C>;
  FixedBaseStreamer<F> streamer(device, std::bit_cast<Affine<F>>(base), chunk ? chunk : chunk_for<F>(scalars.size()));
  return run<C>(streamer, scalars);
}

template std::vector<ec::G1Affine> fixed_base_mul_sync<ec::G1Config>(int, const ec::G1Affine&,
                                                                     std::span<const ff::Fr>, size_t);
template std::vector<ec::G2Affine> fixed_base_mul_sync<ec::G2Config>(int, const ec::G2Affine&,
                                                                     std::span<const ff::Fr>, size_t);

groth16::ProvingKey setup_insecure_gpu(int device, const r1cs::Circuit& circuit, const groth16::ToxicWaste& t) {
  groth16::SetupScalars s = groth16::setup_scalars(circuit, t);
  const size_t g1_largest = std::max({s.ic.size(), s.a.size(), s.b.size(), s.l.size(), s.h.size(), size_t{3}});
  const size_t g2_largest = std::max(s.b.size(), size_t{3});
  auto g1 = generator_streamer<ec::G1Config>(device, g1_largest);
  auto g2 = generator_streamer<ec::G2Config>(device, g2_largest);
  const groth16::FixedBaseBackend backend{
      [g1](std::span<const ff::Fr> x) { return run<ec::G1Config>(*g1, x); },
      [g2](std::span<const ff::Fr> x) { return run<ec::G2Config>(*g2, x); }};
  return groth16::key_from_scalars(std::move(s), backend);
}

}  // namespace snarkd::cuda
