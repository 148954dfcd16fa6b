// Internal to pairing: the frame every optimal ate pairing here shares, around each curve's own
// Miller loop and hard part (pairing.cpp for BLS12-381, bn254.cpp for BN254): points at infinity
// left out of the Miller loop, the easy part of the final exponentiation, and the pairing,
// multi-pairing and product check built from them. Each curve's public functions forward here.
//
// The curve supplies, as template arguments, its affine point types, its per-pair Miller-loop
// State and three functions (template arguments: the calls are direct):
//   kMakeState(p, q) → State, for finite p and q;
//   kMillerLoop(std::span<State>) → Fp12, ∏ f over the states with one accumulator;
//   kHardPart(m) → Fp12, m^((p⁴ − p² + 1)/r · c) with c coprime to r, for m cyclotomic.
#pragma once
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace snarkd::pairing::detail {

template <class G1Affine, class G2Affine, class State, auto kMakeState, auto kMillerLoop, auto kHardPart>
struct AtePairing {
  using Fp12 = std::remove_cvref_t<decltype(kMillerLoop(std::span<State>()))>;
  using Pair = std::pair<G1Affine, G2Affine>;

  // A point at infinity contributes the factor 1.
  static Fp12 miller_loop(const G1Affine& p, const G2Affine& q) {
    if (p.is_infinity() || q.is_infinity()) return Fp12::one();
    State s = kMakeState(p, q);
    return kMillerLoop(std::span<State>(&s, 1));
  }

  static Fp12 multi_miller_loop(std::span<const Pair> pairs) {
    std::vector<State> states;
    states.reserve(pairs.size());
    for (const auto& [p, q] : pairs)
      if (!p.is_infinity() && !q.is_infinity()) states.push_back(kMakeState(p, q));
    return kMillerLoop(states);
  }

  // Easy part f^((p⁶ − 1)(p² + 1)) = (conj(f)·f⁻¹)^(p² + 1) lands in the cyclotomic subgroup,
  // where the hard part can use cyclotomic squarings and conjugation as inversion.
  static Fp12 final_exponentiation(const Fp12& f) {
    Fp12 t = f.conjugate() * f.inverse();
    return kHardPart(t.frobenius(2) * t);
  }

  static Fp12 pairing(const G1Affine& p, const G2Affine& q) {
    return final_exponentiation(miller_loop(p, q));
  }

  static Fp12 multi_pairing(std::span<const Pair> pairs) {
    return final_exponentiation(multi_miller_loop(pairs));
  }

  static bool product_is_one(std::span<const Pair> pairs) { return multi_pairing(pairs).is_one(); }
};

}  // namespace snarkd::pairing::detail
