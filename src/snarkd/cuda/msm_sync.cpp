// The synchronous host-memory MSM wrapper. Host code that does curve arithmetic on ff types
// lives in .cpp files (g++), not in .cu files, where nvcc's front end would have to instantiate
// the x86 assembly paths of ff::Field.
#include <bit>
#include <string>
#include <type_traits>

#include "snarkd/cuda/msm.hpp"
#include "snarkd/cuda/runtime.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {

template <class C>
ec::Jacobian<C> msm_sync(std::span<const ec::Affine<C>> bases, std::span<const ff::Fr> scalars,
                         const MsmOptions& options) {
  using F = std::conditional_t<std::is_same_v<C, ec::G1Config>, Fp, Fp2>;
  if (bases.size() != scalars.size())
    throw InvalidArgument("msm: " + std::to_string(bases.size()) + " bases but " + std::to_string(scalars.size()) +
                          " scalars");
  const size_t n = bases.size();
  Stream stream;
  DeviceBuffer<Affine<F>> d_bases(n);
  DeviceBuffer<Fr> d_scalars(n);
  DeviceBuffer<Xyzz<F>> d_result(1);
  DeviceBuffer<uint8_t> scratch(msm_scratch_bytes<F>(n, options));
  d_bases.upload(reinterpret_cast<const Affine<F>*>(bases.data()), n, stream.get());
  d_scalars.upload(reinterpret_cast<const Fr*>(scalars.data()), n, stream.get());
  msm<F>(d_bases.data(), d_scalars.data(), n, d_result.data(), scratch.data(), scratch.size(), stream.get(), options);
  Xyzz<F> out;
  d_result.download(&out, 1, stream.get());
  stream.synchronize();
  return std::bit_cast<ec::Xyzz<C>>(out).to_jacobian();
}

template <class C>
ec::Jacobian<C> msm_sync(std::span<const ec::Affine<C>> bases, std::span<const ff::Fr> scalars, uint32_t window_bits) {
  return msm_sync<C>(bases, scalars, MsmOptions{window_bits});
}

template ec::Jacobian<ec::G1Config> msm_sync<ec::G1Config>(std::span<const ec::G1Affine>, std::span<const ff::Fr>,
                                                           const MsmOptions&);
template ec::Jacobian<ec::G2Config> msm_sync<ec::G2Config>(std::span<const ec::G2Affine>, std::span<const ff::Fr>,
                                                           const MsmOptions&);
template ec::Jacobian<ec::G1Config> msm_sync<ec::G1Config>(std::span<const ec::G1Affine>, std::span<const ff::Fr>,
                                                           uint32_t);
template ec::Jacobian<ec::G2Config> msm_sync<ec::G2Config>(std::span<const ec::G2Affine>, std::span<const ff::Fr>,
                                                           uint32_t);

}  // namespace snarkd::cuda
