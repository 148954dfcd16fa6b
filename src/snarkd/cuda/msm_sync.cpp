// The synchronous host-memory MSM wrapper. Host code that does curve arithmetic on ff types
// lives in .cpp files (g++), not in .cu files, where nvcc's front end would have to instantiate
// the x86 assembly paths of ff::Field.
#include <bit>
#include <string>

#include "snarkd/cuda/msm.hpp"
#include "snarkd/cuda/runtime.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {

template <class C>
ec::Jacobian<C> msm_sync(std::span<const ec::Affine<C>> bases, std::span<const typename C::Scalar> scalars,
                         const MsmOptions& options) {
  using F = DeviceFieldOf<C>;
  using S = ScalarOf<F>;
  if (bases.size() != scalars.size())
    throw InvalidArgument("msm: " + std::to_string(bases.size()) + " bases but " + std::to_string(scalars.size()) +
                          " scalars");
  const size_t n = bases.size();
  Stream stream;
  DeviceBuffer<Affine<F>> d_bases(n);
  DeviceBuffer<S> d_scalars(n);
  DeviceBuffer<Xyzz<F>> d_result(1);
  DeviceBuffer<uint8_t> scratch(msm_scratch_bytes<F>(n, options));
  d_bases.upload(reinterpret_cast<const Affine<F>*>(bases.data()), n, stream.get());
  d_scalars.upload(reinterpret_cast<const S*>(scalars.data()), n, stream.get());
  msm<F>(d_bases.data(), d_scalars.data(), n, d_result.data(), scratch.data(), scratch.size(), stream.get(), options);
  Xyzz<F> out;
  d_result.download(&out, 1, stream.get());
  stream.synchronize();
  return std::bit_cast<ec::Xyzz<C>>(out).to_jacobian();
}

template <class C>
ec::Jacobian<C> msm_sync(std::span<const ec::Affine<C>> bases, std::span<const typename C::Scalar> scalars,
                         uint32_t window_bits) {
  return msm_sync<C>(bases, scalars, MsmOptions{window_bits});
}

#define SNARKD_CUDA_MSM_SYNC_DEFINE(C)                                                                      \
  template ec::Jacobian<C> msm_sync<C>(std::span<const ec::Affine<C>>, std::span<const typename C::Scalar>, \
                                       const MsmOptions&);                                                  \
  template ec::Jacobian<C> msm_sync<C>(std::span<const ec::Affine<C>>, std::span<const typename C::Scalar>, uint32_t);
SNARKD_CUDA_MSM_SYNC_DEFINE(ec::G1Config)
SNARKD_CUDA_MSM_SYNC_DEFINE(ec::G2Config)
SNARKD_CUDA_MSM_SYNC_DEFINE(ec::bn254::G1Config)
SNARKD_CUDA_MSM_SYNC_DEFINE(ec::bn254::G2Config)
#undef SNARKD_CUDA_MSM_SYNC_DEFINE

}  // namespace snarkd::cuda
