// The point checks a key loaded with PointCheck::kTrusted skipped, on demand. When a proof made
// with such a key fails its self-check, the key is the first suspect (a flipped byte in a
// query point moves it off the curve): the CLI runs this before blaming the witness, so a
// corrupt key is reported as a corrupt key.
#pragma once
#include <optional>
#include <string>

#include "snarkd/groth16/keys.hpp"

namespace snarkd::groth16 {

// The first point of pk (vk, IC, A, B1, B2, L, H, in that order) that is not on its curve, or
// with `subgroups` also not in the prime-order subgroup, as "L point 17 is not on the curve".
// The point at infinity passes (snarkjs keys hold it for absent variables). Runs on the pool:
// the curve equation costs ~1 µs a point, the subgroup test ~100× more.
template <class E>
std::optional<std::string> find_invalid_key_point(const ProvingKeyT<E>& pk, bool subgroups);
extern template std::optional<std::string> find_invalid_key_point<Bls12_381>(const ProvingKeyT<Bls12_381>&, bool);
extern template std::optional<std::string> find_invalid_key_point<Bn254>(const ProvingKeyT<Bn254>&, bool);

}  // namespace snarkd::groth16
