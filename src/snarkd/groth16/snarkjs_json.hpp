// snarkjs's JSON files for Groth16 over BLS12-381 and BN254, as snarkjs 0.7.6 writes them
// (groth16_prove.js, zkey_export_verificationkey.js groth16Vk; JSON.stringify(x, null, 1)).
// "curve" is snarkjs's curve.name: "bls12381" or "bn128" (E::kSnarkjsName); on reading, the
// other spellings snarkjs's getCurveFromName accepts ("bn254", "alt_bn128", any case) are taken
// too. Templates over the curve E (curve.hpp); without an argument, BLS12-381.
//
//   proof.json  {"pi_a": G1, "pi_b": G2, "pi_c": G1, "protocol": "groth16", "curve": "bls12381"}
//   public.json ["x1", "x2", ...]  the public inputs (ONE excluded), decimal Fr
//   verification_key.json
//               {"protocol": "groth16", "curve": "bls12381", "nPublic": k (a JSON number),
//                "vk_alpha_1": G1, "vk_beta_2": G2, "vk_gamma_2": G2, "vk_delta_2": G2,
//                "vk_alphabeta_12": GT, "IC": [k + 1 G1]}
// with decimal strings of canonical coordinates (ffjavascript's G1/G2 toObject), p and r being
// the curve's:
//   G1 = [x, y, "1"]; G2 = [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]];
//   infinity: G1 ["0", "1", "0"], G2 [["0","0"], ["1","0"], ["0","0"]];
//   GT = e(α₁, β₂) as [[[c0.c0.c0, c0.c0.c1], [c0.c1.*], [c0.c2.*]], [[c1.c0.*], [c1.c1.*],
//        [c1.c2.*]]] for Fp12 = c0 + c1·w, Fp6 = c0 + c1·v + c2·v², Fp2 = c0 + c1·u (the same
//        tower and the same pairing value as snarkd::pairing and pairing::bn254: tests/groth16
//        compares with snarkjs-exported keys of both curves).
// The writers produce these bytes exactly (a snarkjs file read and written again is unchanged).
//
// Readers validate everything and throw DecodeError naming the file and the JSON field:
//   "<path>: pi_b[1][0]: decimal value is not below the Fp modulus"
//   "<path>: IC[2]: point is not in the prime-order subgroup"
// Coordinates must be decimal strings below p, points on the curve and in the subgroup, z must
// be "1" (or the infinity form), arrays must have the exact lengths, "protocol"/"curve" must be
// "groth16"/E's name (optional in proof.json, as snarkjs never reads them there), nPublic must
// equal |IC| − 1, and vk_alphabeta_12, when present, must equal e(α₁, β₂) (snarkjs's verifier
// ignores it; a key whose copy disagrees is corrupt). Public inputs are decimal Fr (< r);
// snarkjs's verifier rejects inputs ≥ r too (publicInputsAreValid).
#pragma once
#include <span>
#include <string>
#include <vector>

#include "snarkd/groth16/keys.hpp"
#include "snarkd/util/json.hpp"

namespace snarkd::groth16 {

template <class E>
Json proof_to_snarkjs_json(const ProofT<E>& proof);
template <class E = Bls12_381>
Json public_to_snarkjs_json(r1cs::Values<typename E::Fr> inputs);
// The verifying key's beta_g1 and delta_g1 are not part of the snarkjs format.
template <class E>
Json vk_to_snarkjs_json(const VerifyingKeyT<E>& vk);

// `where` names the source in errors (a path).
template <class E = Bls12_381>
ProofT<E> proof_from_snarkjs_json(const Json& j, const std::string& where);
template <class E = Bls12_381>
std::vector<typename E::Fr> public_from_snarkjs_json(const Json& j, const std::string& where);
// beta_g1 and delta_g1 are left at infinity (the file does not hold them).
template <class E = Bls12_381>
VerifyingKeyT<E> vk_from_snarkjs_json(const Json& j, const std::string& where);

// The curve a proof.json or verification_key.json names in its "curve" field (DecodeError
// naming `where` when it is missing, not a string, or no curve snarkd knows).
CurveId snarkjs_json_curve(const Json& j, const std::string& where);

template <class E>
void write_snarkjs_proof(const std::string& path, const ProofT<E>& proof);
template <class E = Bls12_381>
void write_snarkjs_public(const std::string& path, r1cs::Values<typename E::Fr> inputs);
template <class E>
void write_snarkjs_vk(const std::string& path, const VerifyingKeyT<E>& vk);

template <class E = Bls12_381>
ProofT<E> read_snarkjs_proof(const std::string& path);
template <class E = Bls12_381>
std::vector<typename E::Fr> read_snarkjs_public(const std::string& path);
template <class E = Bls12_381>
VerifyingKeyT<E> read_snarkjs_vk(const std::string& path);

#define SNARKD_SNARKJS_JSON_DECLARE(E)                                                                  \
  extern template Json proof_to_snarkjs_json<E>(const ProofT<E>&);                                      \
  extern template Json public_to_snarkjs_json<E>(r1cs::Values<typename E::Fr>);                         \
  extern template Json vk_to_snarkjs_json<E>(const VerifyingKeyT<E>&);                                  \
  extern template ProofT<E> proof_from_snarkjs_json<E>(const Json&, const std::string&);                \
  extern template std::vector<typename E::Fr> public_from_snarkjs_json<E>(const Json&, const std::string&); \
  extern template VerifyingKeyT<E> vk_from_snarkjs_json<E>(const Json&, const std::string&);            \
  extern template void write_snarkjs_proof<E>(const std::string&, const ProofT<E>&);                    \
  extern template void write_snarkjs_public<E>(const std::string&, r1cs::Values<typename E::Fr>);       \
  extern template void write_snarkjs_vk<E>(const std::string&, const VerifyingKeyT<E>&);                \
  extern template ProofT<E> read_snarkjs_proof<E>(const std::string&);                                  \
  extern template std::vector<typename E::Fr> read_snarkjs_public<E>(const std::string&);               \
  extern template VerifyingKeyT<E> read_snarkjs_vk<E>(const std::string&);
SNARKD_SNARKJS_JSON_DECLARE(Bls12_381)
SNARKD_SNARKJS_JSON_DECLARE(Bn254)
#undef SNARKD_SNARKJS_JSON_DECLARE

}  // namespace snarkd::groth16
