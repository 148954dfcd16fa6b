// Number-theoretic transforms over a scalar field on the host: the reference the GPU NTT is tested against
// and the fallback prover's NTT (Groth16's H polynomial needs 3 inverse, 3 coset forward and
// 1 coset inverse transform per proof, at up to 2^27 elements).
//
// Conventions (those of snarkjs and bellperson):
//   ntt:        a_j = Σ_i c_i ω^(ij)                 (coefficients → evaluations on ⟨ω⟩)
//   intt:       c_i = n⁻¹ Σ_j a_j ω^(−ij)
//   coset_ntt:  a_j = Σ_i c_i (g·ω^j)^i              (evaluations on the coset g·⟨ω⟩)
//   coset_intt: its inverse.
// ω = F::root_of_unity(log_n, generator): generator 5 for snarkjs keys (BLS12-381 and BN254
// alike), 7 for bellperson.
//
// Fields: DomainT<F> and the transforms are templates instantiated in the .cpp files for
// BLS12-381's ff::Fr (Domain, 2^32 points at most) and BN254's ff::bn254::Fr (bn254::Domain,
// 2^28). The transforms deduce F from the domain only, so a std::vector<F> converts to the span.
// All transforms are in place. The plain names take and return natural order; the _nr / _rn
// variants take natural and return bit-reversed order (nr) or the reverse (rn), which is what a
// GPU pipeline wants: evaluations may stay bit-reversed between a forward and an inverse
// transform, saving both permutations.
//
// Memory: with the portable kernels a Domain of up to 2^20 points holds n/2 twiddles per
// direction (16 MiB at 2^20); larger ones, and every Domain on the AVX-512 kernels, hold
// O(2^12) (columns of a large transform derive theirs from a small table, see ntt.cpp and
// ntt_avx512.cpp), so at 2^27 only the caller's data grows with n.
//
// Kernels: on CPUs with AVX-512 IFMA (Zen 4/5, Ice Lake / Sapphire Rapids Xeons) the BLS12-381
// butterflies run eight transforms' worth of 52-bit-limb products at once (ntt_avx512.cpp, ≈ 4×
// faster); elsewhere, with SNARKD_NTT_KERNELS=portable, or for BN254 (whose modulus those
// kernels do not know), the 64-bit scalar kernels. Outputs are bit-identical (tests/poly
// compares them).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "snarkd/ff/bn254.hpp"
#include "snarkd/ff/fr.hpp"

namespace snarkd::poly {

using ff::Fr;

// Whether the AVX-512 IFMA kernels exist for F: only BLS12-381's Fr (ff/fr_avx512.hpp).
template <class F>
inline constexpr bool kHasIfmaKernels = std::is_same_v<F, ff::Fr>;

// Twiddles of one direction (forward roots or their inverses).
template <class F>
struct TwiddlesT {
  // roots[m] is the primitive 2^m-th root of unity used by this domain, m = 0..log_n.
  std::vector<F> roots;
  // Radix-2 butterfly twiddles for a transform of up to 2^leaf_log points: level s (butterfly
  // half-width 2^s) occupies [2^s − 1, 2^(s+1) − 1) and holds roots[s+1]^j for j < 2^s.
  // leaf_log = min(log_n, pass_log) bounds the levels per pass.
  std::vector<F> leaf;
  uint32_t leaf_log = 0;
  // ω^k for k < 2^(log_n−1) (ω = roots[log_n]) when the portable transform needs column passes
  // and log_n − 1 ≤ Domain::kMaxFullTableLog; empty otherwise. Column passes copy their twiddles
  // from it instead of deriving each with a multiplication (one per element per column pass).
  std::vector<F> full;
  // The AVX-512 kernels' copy of leaf's first levels: radix 2^52, pre-scaled by 16, five words
  // per twiddle (ff/fr_avx512.hpp). Non-empty exactly when the Domain's transforms run on those
  // kernels (never for a field without them).
  std::vector<uint64_t> leaf52;
};
using Twiddles = TwiddlesT<Fr>;

// Which butterfly kernels a Domain's transforms run. Results are bit-identical either way (the
// tests compare them); only speed differs.
enum class NttKernels {
  kAuto,        // AVX-512 IFMA where the CPU and the field have it, unless
                // SNARKD_NTT_KERNELS=portable
  kPortable,    // 64-bit scalar code (any x86-64-v3 CPU)
  kAvx512Ifma,  // eight lanes of 52-bit limbs (Zen 4/5, Ice Lake and later Xeons)
};

template <class F>
class DomainT {
 public:
  using Field = F;
  // Largest log_n: r − 1 = 2^s · odd (s = 32 for BLS12-381, 28 for BN254), so F has roots of
  // unity of order up to 2^s.
  static constexpr uint32_t kMaxLogSize = static_cast<uint32_t>(F::kTwoAdicity);
  // Largest sub-transform done in one pass, 2^12 points = 128 KiB (fits L2). Also the size of
  // the twiddle table.
  static constexpr uint32_t kDefaultPassLog = 12;
  static constexpr uint32_t kMaxPassLog = 20;
  // Largest Twiddles::full: 2^19 entries, 16 MiB per direction (domains up to 2^20). Larger
  // domains derive column twiddles instead, so their memory stays O(2^pass_log).
  static constexpr uint32_t kMaxFullTableLog = 19;

  // Throws InvalidArgument if log_n > kMaxLogSize, if `generator` does not give a root of exact order
  // 2^log_n (it must be a quadratic non-residue mod r, as 5 and 7 are), if pass_log is not
  // in [1, kMaxPassLog], or if kernels is kAvx512Ifma on a CPU without AVX-512 IFMA or for a
  // field without those kernels (kAuto and SNARKD_NTT_KERNELS then mean portable). pass_log
  // and kernels change speed, never results: tests lower pass_log to reach the three- and
  // four-pass schedules at small sizes, and run both kernels. Transforms below 2^6 points, and
  // Domains with pass_log < 3, always use the portable kernels (the AVX-512 ones need eight
  // lanes in every pass).
  DomainT(uint32_t log_n, uint64_t generator, uint32_t pass_log = kDefaultPassLog,
          NttKernels kernels = NttKernels::kAuto);

  uint32_t log_size() const { return log_n_; }
  size_t size() const { return size_t{1} << log_n_; }
  uint64_t generator() const { return generator_; }
  const F& omega() const { return forward_.roots[log_n_]; }
  const F& omega_inv() const { return inverse_.roots[log_n_]; }
  const F& size_inv() const { return size_inv_; }
  // The kernels chosen at construction: kPortable or kAvx512Ifma, never kAuto.
  NttKernels kernels() const { return kernels_; }

  const TwiddlesT<F>& forward_twiddles() const { return forward_; }
  const TwiddlesT<F>& inverse_twiddles() const { return inverse_; }

 private:
  uint32_t log_n_;
  uint64_t generator_;
  NttKernels kernels_;
  F size_inv_;
  TwiddlesT<F> forward_, inverse_;
};
using Domain = DomainT<Fr>;
namespace bn254 {
using Domain = DomainT<ff::bn254::Fr>;
}

// The transforms' data: F is deduced from the domain alone, so vectors convert.
template <class F>
using Data = std::type_identity_t<std::span<F>>;
template <class F>
using Scalar = std::type_identity_t<F>;

// Natural order in and out. Each throws InvalidArgument if data.size() != domain.size(); the
// coset variants also if shift is zero.
template <class F>
void ntt(const DomainT<F>& domain, Data<F> data);
template <class F>
void intt(const DomainT<F>& domain, Data<F> data);
template <class F>
void coset_ntt(const DomainT<F>& domain, Data<F> data, const Scalar<F>& shift);
template <class F>
void coset_intt(const DomainT<F>& domain, Data<F> data, const Scalar<F>& shift);

// Bit-reversed variants: ntt_nr = bit_reverse ∘ ntt (decimation in frequency, no permutation),
// ntt_rn = ntt ∘ bit_reverse (decimation in time); likewise for intt (1/n included). A coset
// transform in these orders is scale_by_powers(data, 1, shift) followed by ntt_nr, and intt_rn
// followed by scale_by_powers(data, 1, shift⁻¹).
template <class F>
void ntt_nr(const DomainT<F>& domain, Data<F> data);
template <class F>
void ntt_rn(const DomainT<F>& domain, Data<F> data);
template <class F>
void intt_nr(const DomainT<F>& domain, Data<F> data);
template <class F>
void intt_rn(const DomainT<F>& domain, Data<F> data);

// Swaps data[i] and data[bitrev(i)] (bits of i reversed over log2(size)). Throws
// InvalidArgument unless data.size() is a power of two (1 included). One overload per field, so
// that vectors convert.
void bit_reverse(std::span<Fr> data);
void bit_reverse(std::span<ff::bn254::Fr> data);

// data[i] *= c · g^i, in parallel.
void scale_by_powers(std::span<Fr> data, const Fr& c, const Fr& g);
void scale_by_powers(std::span<ff::bn254::Fr> data, const ff::bn254::Fr& c,
                     const ff::bn254::Fr& g);

// Instantiated in ntt.cpp for each field.
#define SNARKD_POLY_DECLARE(F)                                                      \
  extern template class DomainT<F>;                                                 \
  extern template void ntt<F>(const DomainT<F>&, Data<F>);                          \
  extern template void intt<F>(const DomainT<F>&, Data<F>);                         \
  extern template void coset_ntt<F>(const DomainT<F>&, Data<F>, const Scalar<F>&);  \
  extern template void coset_intt<F>(const DomainT<F>&, Data<F>, const Scalar<F>&); \
  extern template void ntt_nr<F>(const DomainT<F>&, Data<F>);                       \
  extern template void ntt_rn<F>(const DomainT<F>&, Data<F>);                       \
  extern template void intt_nr<F>(const DomainT<F>&, Data<F>);                      \
  extern template void intt_rn<F>(const DomainT<F>&, Data<F>);
SNARKD_POLY_DECLARE(ff::Fr)
SNARKD_POLY_DECLARE(ff::bn254::Fr)
#undef SNARKD_POLY_DECLARE

}  // namespace snarkd::poly
