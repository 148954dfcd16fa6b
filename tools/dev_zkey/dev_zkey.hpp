// A development Groth16 key for a synthetic circuit, in snarkjs's files: the .zkey (snarkjs 0.7.6
// layout, groth16/zkey.hpp), the matching witness .wtns, and optionally verification_key.json,
// public.json, a proof.json made by snarkd's CPU prover, and the circuit as a circom .r1cs. For
// benchmark machines that have no node, circom or snarkjs, and to which only small files travel:
// the key is made where it is used. INSECURE: one party draws τ, α, β, γ, δ (from --seed, public,
// or the OS RNG) and could keep them; for benchmarks and tests only.
//
// The circuit is r1cs::generate_synthetic's (random, satisfiable, with its witness) in a named
// shape: "circom" (circom's Poseidon circuits as measured on bench/circom/bn254_16, the default)
// or "porep" (a Filecoin PoRep partition), with any parameter overridable. The key is
// groth16::setup_snarkjs_insecure's: what `snarkjs groth16 setup` makes from a ptau and one
// phase-2 contribution with the same secrets.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "snarkd/r1cs/r1cs.hpp"
#include "snarkd/r1cs/synthetic.hpp"

namespace snarkd::dev_zkey {

// The parameters of a named shape (InvalidArgument naming --shape for another name).
r1cs::SyntheticParams shape_params(const std::string& shape);

struct Outputs {
  std::string zkey, wtns;                    // required
  std::string vk, public_json, proof, r1cs;  // optional (empty: not written)
};

struct Options {
  r1cs::CurveId curve = r1cs::CurveId::kBn254;
  r1cs::SyntheticParams circuit;  // with its seed
  std::optional<uint64_t> seed;   // the toxic waste's; none: the OS RNG
  Outputs out;
};

// What was made, for the summary line.
struct Made {
  uint64_t constraints = 0, num_inputs = 0, num_vars = 0;
  uint32_t log_domain = 0;
  uint64_t zkey_bytes = 0;
};

// Checks what can be checked before the work (InvalidArgument naming the flag: output
// directories exist, the domain fits the curve), generates the circuit, makes the key and writes
// every requested file, each through PATH.part renamed when complete. Progress lines (one per
// step, with seconds) go to `log` when it is not null. Errors name the flag and file.
Made make(const Options& opt, std::ostream* log);

// The shape of a circom circuit and (when wtns_path is not empty) its witness, and a report of
// it (what `snarkd_dev_zkey --measure` prints). DecodeError naming the file.
r1cs::CircuitShape measure_files(const std::string& r1cs_path, const std::string& wtns_path);
std::string describe_shape(const r1cs::CircuitShape& s, bool with_witness);

// The largest log2 domain a zkey of `curve` may have (snarkjs's H query needs the 2n domain).
uint32_t max_log_domain(r1cs::CurveId curve);

}  // namespace snarkd::dev_zkey
