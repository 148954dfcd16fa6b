// A development powers-of-tau file for BN254 (circom's bn128) in snarkjs 0.7.6's layout, already
// prepared for phase 2: what `snarkjs powersoftau new` + one `contribute` + `prepare phase2` make,
// but from one party's τ, α, β, so each point is a single fixed-base multiplication of a scalar
// computed in Fr (no EC-FFT for the Lagrange sections). INSECURE: whoever made the file could
// keep τ, α, β; for benchmarks and tests only.
//
// The layout (snarkjs src/powersoftau_new.js, powersoftau_utils.js, powersoftau_preparephase2.js):
// an iden3 binary file, magic "ptau", version 1, then sections (u32 id, u64 size, body):
//   1  header: n8 = 32 (u32), q (32 bytes little-endian), power (u32), ceremonyPower (u32)
//   2  tauG1       τⁱ·G1,   i < 2^(p+1) − 1          5  betaTauG1   β·τⁱ·G1, i < 2^p
//   3  tauG2       τⁱ·G2,   i < 2^p                  6  betaG2      β·G2
//   4  alphaTauG1  α·τⁱ·G1, i < 2^p                  7  contributions: u32 count = 0
//   12..15: sections 2..5 in the Lagrange basis: for each k = 0..p, the 2^k points
//      c·L_i(τ)·G (the inverse FFT of the first 2^k points of 2..5, ffjavascript's
//      lagrangeEvaluations, ω from 5); section 12 also has k = p + 1, whose inverse FFT input
//      is the 2^(p+1) − 1 points of section 2 and a zero, hence L_i(τ) − τ^(N−1)·ωⁱ/N.
//   1000 ours: the text saying the file is insecure (snarkjs looks sections up by id and
//      never reads this one).
// Points are affine LEM (ec/bn254_encoding.hpp). zkey new reads 4, 5, 6 (the first point of
// each) and the level of 12..15 for its domain and, from 12, the level above it (H query).
#pragma once
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

#include "snarkd/ff/bn254.hpp"

namespace snarkd::dev_ptau {

using Fr = ff::bn254::Fr;

enum SectionId : uint32_t {
  kHeader = 1,
  kTauG1 = 2,
  kTauG2 = 3,
  kAlphaTauG1 = 4,
  kBetaTauG1 = 5,
  kBetaG2 = 6,
  kContributions = 7,
  kLagrangeTauG1 = 12,
  kLagrangeTauG2 = 13,
  kLagrangeAlphaTauG1 = 14,
  kLagrangeBetaTauG1 = 15,
  kComment = 1000,
};

// Section 12's top level is 2^(p+1) points, and ffjavascript transforms at most 2^28 (Fr's
// 2-adicity) the plain way; p = 28 would need its coset-extended transform. 2^27 is 26 GiB
// of file anyway.
inline constexpr uint32_t kMinPower = 1;
inline constexpr uint32_t kMaxPower = 27;

struct Secrets {
  Fr tau, alpha, beta;  // non-zero, τ outside every 2^k domain (checked by the Lagrange sections)
};
// From a 64-bit seed (reproducible: anyone who knows the seed knows τ), or from getrandom(2).
Secrets secrets_from_seed(uint64_t seed);
Secrets secrets_from_os();

// Points of one section or one level of it: out[j] is the scalar of point first + j.
struct Run {
  uint64_t count = 0;
  std::function<void(std::span<Fr> out, uint64_t first)> fill;
};

// A section's body: points (runs of G1 or G2 scalars), or raw bytes.
struct Section {
  uint32_t id = 0;
  bool g2 = false;
  std::vector<Run> runs;
  std::vector<uint8_t> bytes;
  uint64_t size() const;  // body bytes
};

// Section 1's body.
std::vector<uint8_t> header_body(uint32_t power);
// Every section of a prepared ptau of 2^power, in file order, with `comment` as section 1000.
std::vector<Section> plan(uint32_t power, const Secrets& s, const std::string& comment);
// Writes the sections to `path` (an iden3 "ptau" file, version 1), multiplying the generators'
// fixed-base tables by each run's scalars in chunks on the global pool. Progress (one line per
// section, with its time) goes to `log` when it is not null. Throws std::runtime_error on I/O.
void write_ptau(const std::string& path, std::span<const Section> sections, std::ostream* log);

}  // namespace snarkd::dev_ptau
