// Multi-scalar multiplication Σ kᵢ·Pᵢ on the CPU, for G1 and G2: the reference the GPU MSM is
// tested against and the fallback prover's MSM.
//
// msm()       Pippenger with signed window digits and XYZZ buckets (see pippenger.hpp).
// sum_bits()  Σ Pᵢ over the set bits of a bitmap: Filecoin witnesses are mostly 0/1, and a
//             one-scalar costs one mixed addition instead of ~255/c of them.
// msm_split() classifies the scalars into zero (skipped), one (sum_bits) and the rest
//             (Pippenger over a compacted tail); same result as msm().
//
// Scalars are the curve's C::Scalar (ec::G1Config::Scalar = ff::Fr for BLS12-381,
// ec::bn254::G1Config::Scalar = ff::bn254::Fr) in Montgomery form; bases are affine with
// infinity as (0, 0). Every entry point runs on the global thread pool and returns Jacobian
// infinity for an empty input. C is never deduced from the scalars: callers name it
// (msm<ec::G1Config>(bases, scalars)) and vectors convert to the spans.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <stop_token>
#include <vector>

#include "snarkd/ec/bn254.hpp"
#include "snarkd/ec/curve.hpp"
#include "snarkd/ec/g1.hpp"
#include "snarkd/ec/g2.hpp"
#include "snarkd/ff/bn254.hpp"
#include "snarkd/ff/fr.hpp"

namespace snarkd::msm {

// How buckets accumulate points. kXyzz: one mixed XYZZ addition per point (8M + 2S), the simple
// reference. kBatchAffine: affine buckets updated a batch at a time with one shared inversion
// (Montgomery's trick, ~5M + 1S per point), the faster one for large inputs.
enum class Accumulation { kXyzz, kBatchAffine };

struct Options {
  // Number of threads the work is split for; 0 = the global pool's size. 1 runs everything on
  // the calling thread. Results never depend on it (tests compare 1 against many).
  size_t threads = 0;
  // Window width c in [2, 16]; 0 = chosen from the input size and the thread count.
  size_t window_bits = 0;
  Accumulation accumulation = Accumulation::kBatchAffine;
  // Checked before each task and every kStopCheckPoints points inside one: a stop request
  // makes the call throw snarkd::Cancelled (util/cancel.hpp) within a few milliseconds.
  std::stop_token stop;
};
inline constexpr size_t kStopCheckPoints = size_t(1) << 14;

// Σ scalars[i]·bases[i]. Throws InvalidArgument when the sizes differ or window_bits is out of
// range.
template <class C>
ec::Jacobian<C> msm(std::span<const ec::Affine<C>> bases,
                    std::span<const typename C::Scalar> scalars, const Options& opt = {});

// Σ bases[i] over the i < bases.size() whose bit (bitmap[i / 64] >> (i % 64)) & 1 is set; the
// bitmap holds ceil(n / 64) words, bits at or past n are ignored.
template <class C>
ec::Jacobian<C> sum_bits(std::span<const ec::Affine<C>> bases, const uint64_t* bitmap);

// How many scalars of each kind a split found (the prover reports them).
struct SplitStats {
  uint64_t zeros = 0, ones = 0, others = 0;
};

// A classified scalar vector over the scalar field S; it can serve several base vectors of the
// same length (the Groth16 A, B_G1 and B_G2 queries share one witness).
template <class S>
struct ScalarSplitT {
  size_t size = 0;               // length of the classified vector
  std::vector<uint64_t> ones;    // bitmap: bit i set iff scalars[i] == 1
  std::vector<size_t> others;    // ascending indices of scalars that are neither 0 nor 1
  std::vector<S> other_scalars;  // scalars[others[j]]
  SplitStats stats;
};
using ScalarSplit = ScalarSplitT<ff::Fr>;

// Classifies by comparing Montgomery limbs with those of 0 and S::one() (no conversion). One
// overload per scalar field, so that vectors convert.
ScalarSplit split_scalars(std::span<const ff::Fr> scalars);
ScalarSplitT<ff::bn254::Fr> split_scalars(std::span<const ff::bn254::Fr> scalars);

// Σ scalars[i]·bases[i] for the scalars that `split` classified; throws InvalidArgument when
// bases.size() != split.size.
template <class C>
ec::Jacobian<C> msm_split(std::span<const ec::Affine<C>> bases,
                          const ScalarSplitT<typename C::Scalar>& split, const Options& opt = {});

// split_scalars + msm_split; stats (if non-null) receives the classification counts.
template <class C>
ec::Jacobian<C> msm_split(std::span<const ec::Affine<C>> bases,
                          std::span<const typename C::Scalar> scalars, SplitStats* stats = nullptr,
                          const Options& opt = {});

// Instantiated in msm.cpp for the BLS12-381 and the BN254 groups.
#define SNARKD_MSM_DECLARE(C)                                                                    \
  extern template ec::Jacobian<C> msm<C>(std::span<const ec::Affine<C>>,                         \
                                         std::span<const typename C::Scalar>, const Options&);   \
  extern template ec::Jacobian<C> sum_bits<C>(std::span<const ec::Affine<C>>, const uint64_t*);  \
  extern template ec::Jacobian<C> msm_split<C>(std::span<const ec::Affine<C>>,                   \
                                               const ScalarSplitT<typename C::Scalar>&,          \
                                               const Options&);                                  \
  extern template ec::Jacobian<C> msm_split<C>(std::span<const ec::Affine<C>>,                   \
                                               std::span<const typename C::Scalar>, SplitStats*, \
                                               const Options&);
SNARKD_MSM_DECLARE(ec::G1Config)
SNARKD_MSM_DECLARE(ec::G2Config)
SNARKD_MSM_DECLARE(ec::bn254::G1Config)
SNARKD_MSM_DECLARE(ec::bn254::G2Config)
#undef SNARKD_MSM_DECLARE

}  // namespace snarkd::msm
