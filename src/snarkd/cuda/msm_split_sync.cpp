// The synchronous host-memory wrapper of the split MSM. Host curve code (the XYZZ → Jacobian
// conversion) lives in .cpp files compiled by g++, not in .cu files (see msm_sync.cpp).
#include <bit>
#include <string>
#include <type_traits>

#include "snarkd/cuda/msm_split.hpp"
#include "snarkd/cuda/runtime.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {

template <class C>
ec::Jacobian<C> msm_split_sync(std::span<const ec::Affine<C>> bases, std::span<const ff::Fr> scalars,
                               SplitCounts* counts) {
  using F = std::conditional_t<std::is_same_v<C, ec::G1Config>, Fp, Fp2>;
  if (bases.size() != scalars.size())
    throw InvalidArgument("msm_split: " + std::to_string(bases.size()) + " bases but " +
                          std::to_string(scalars.size()) + " scalars");
  const size_t n = bases.size();
  Stream stream;
  DeviceBuffer<Affine<F>> d_bases(n);
  DeviceBuffer<Fr> d_scalars(n);
  DeviceBuffer<Xyzz<F>> d_result(1);
  DeviceBuffer<uint8_t> split_mem(split_buffer_bytes(n));
  PinnedBuffer<SplitCounts> h_counts(1);
  d_bases.upload(reinterpret_cast<const Affine<F>*>(bases.data()), n, stream.get());
  d_scalars.upload(reinterpret_cast<const Fr*>(scalars.data()), n, stream.get());
  const DeviceSplit split{split_mem.data(), split_mem.size(), n};
  msm_split_classify(d_scalars.data(), split, h_counts.data(), stream.get());
  stream.synchronize();  // the counts size the tail
  const SplitCounts c = h_counts[0];
  DeviceBuffer<uint8_t> scratch(msm_split_scratch_bytes<F>(c.others));
  msm_split_ones<F>(d_bases.data(), split, d_result.data(), scratch.data(), scratch.size(), stream.get());
  msm_split_finish<F>(d_bases.data(), split, c, d_result.data(), d_result.data(), scratch.data(), scratch.size(),
                      stream.get());
  Xyzz<F> out;
  d_result.download(&out, 1, stream.get());
  stream.synchronize();
  if (counts) *counts = c;
  return std::bit_cast<ec::Xyzz<C>>(out).to_jacobian();
}

template ec::Jacobian<ec::G1Config> msm_split_sync<ec::G1Config>(std::span<const ec::G1Affine>,
                                                                 std::span<const ff::Fr>, SplitCounts*);
template ec::Jacobian<ec::G2Config> msm_split_sync<ec::G2Config>(std::span<const ec::G2Affine>,
                                                                 std::span<const ff::Fr>, SplitCounts*);

}  // namespace snarkd::cuda
