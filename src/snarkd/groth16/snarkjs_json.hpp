// snarkjs's JSON files for Groth16 over BLS12-381, as snarkjs 0.7.6 writes them
// (groth16_prove.js, zkey_export_verificationkey.js groth16Vk; JSON.stringify(x, null, 1)).
//
//   proof.json  {"pi_a": G1, "pi_b": G2, "pi_c": G1, "protocol": "groth16", "curve": "bls12381"}
//   public.json ["x1", "x2", ...]  the public inputs (ONE excluded), decimal Fr
//   verification_key.json
//               {"protocol": "groth16", "curve": "bls12381", "nPublic": k (a JSON number),
//                "vk_alpha_1": G1, "vk_beta_2": G2, "vk_gamma_2": G2, "vk_delta_2": G2,
//                "vk_alphabeta_12": GT, "IC": [k + 1 G1]}
// with decimal strings of canonical coordinates (ffjavascript's G1/G2 toObject):
//   G1 = [x, y, "1"]; G2 = [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]];
//   infinity: G1 ["0", "1", "0"], G2 [["0","0"], ["1","0"], ["0","0"]];
//   GT = e(α₁, β₂) as [[[c0.c0.c0, c0.c0.c1], [c0.c1.*], [c0.c2.*]], [[c1.c0.*], [c1.c1.*],
//        [c1.c2.*]]] for Fp12 = c0 + c1·w, Fp6 = c0 + c1·v + c2·v², Fp2 = c0 + c1·u (the same
//        tower and the same pairing value as snarkd::pairing: tests/groth16 compares with a
//        snarkjs-exported key).
// The writers produce these bytes exactly (a snarkjs file read and written again is unchanged).
//
// Readers validate everything and throw DecodeError naming the file and the JSON field:
//   "<path>: pi_b[1][0]: decimal value is not below the Fp modulus"
//   "<path>: IC[2]: point is not in the prime-order subgroup"
// Coordinates must be decimal strings below p, points on the curve and in the subgroup, z must
// be "1" (or the infinity form), arrays must have the exact lengths, "protocol"/"curve" must be
// "groth16"/"bls12381" (optional in proof.json, as snarkjs never reads them there), nPublic must
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

Json proof_to_snarkjs_json(const Proof& proof);
Json public_to_snarkjs_json(std::span<const Fr> inputs);
// The verifying key's beta_g1 and delta_g1 are not part of the snarkjs format.
Json vk_to_snarkjs_json(const VerifyingKey& vk);

// `where` names the source in errors (a path).
Proof proof_from_snarkjs_json(const Json& j, const std::string& where);
std::vector<Fr> public_from_snarkjs_json(const Json& j, const std::string& where);
// beta_g1 and delta_g1 are left at infinity (the file does not hold them).
VerifyingKey vk_from_snarkjs_json(const Json& j, const std::string& where);

void write_snarkjs_proof(const std::string& path, const Proof& proof);
void write_snarkjs_public(const std::string& path, std::span<const Fr> inputs);
void write_snarkjs_vk(const std::string& path, const VerifyingKey& vk);

Proof read_snarkjs_proof(const std::string& path);
std::vector<Fr> read_snarkjs_public(const std::string& path);
VerifyingKey read_snarkjs_vk(const std::string& path);

}  // namespace snarkd::groth16
