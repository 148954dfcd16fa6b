// The synchronous host-memory wrapper of the precomputed-bases MSM (tests, tools); host code
// over ff types lives in .cpp files (see msm_sync.cpp).
#include <bit>
#include <string>
#include <type_traits>

#include "snarkd/cuda/msm_precomp.hpp"
#include "snarkd/cuda/runtime.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {

template <class C>
ec::Jacobian<C> msm_precomp_sync(std::span<const ec::Affine<C>> bases, std::span<const ff::Fr> scalars,
                                 const MsmPrecompShape& shape) {
  using F = std::conditional_t<std::is_same_v<C, ec::G1Config>, Fp, Fp2>;
  if (bases.size() != scalars.size())
    throw InvalidArgument("msm_precomp: " + std::to_string(bases.size()) + " bases but " +
                          std::to_string(scalars.size()) + " scalars");
  const size_t n = bases.size();
  Stream stream;
  DeviceBuffer<Affine<F>> d_bases(n);
  DeviceBuffer<Affine<F>> d_table(msm_precomp_table_bytes<F>(n, shape.copies) / sizeof(Affine<F>));
  DeviceBuffer<Fr> d_scalars(n);
  DeviceBuffer<Xyzz<F>> d_result(1);
  DeviceBuffer<uint8_t> build_scratch(msm_precomp_build_scratch_bytes<F>(n));
  DeviceBuffer<uint8_t> scratch(msm_precomp_scratch_bytes<F>(n, shape));
  d_bases.upload(reinterpret_cast<const Affine<F>*>(bases.data()), n, stream.get());
  d_scalars.upload(reinterpret_cast<const Fr*>(scalars.data()), n, stream.get());
  msm_precomp_build<F>(d_bases.data(), n, shape, d_table.data(), build_scratch.data(), build_scratch.size(),
                       stream.get());
  const MsmPrecompTable<F> table{d_table.data(), n, shape};
  msm_precomp<F>(table, d_scalars.data(), d_result.data(), scratch.data(), scratch.size(), stream.get());
  Xyzz<F> out;
  d_result.download(&out, 1, stream.get());
  stream.synchronize();
  return std::bit_cast<ec::Xyzz<C>>(out).to_jacobian();
}

template ec::Jacobian<ec::G1Config> msm_precomp_sync<ec::G1Config>(std::span<const ec::G1Affine>,
                                                                   std::span<const ff::Fr>, const MsmPrecompShape&);
template ec::Jacobian<ec::G2Config> msm_precomp_sync<ec::G2Config>(std::span<const ec::G2Affine>,
                                                                   std::span<const ff::Fr>, const MsmPrecompShape&);

}  // namespace snarkd::cuda
