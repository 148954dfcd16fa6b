// bellperson / Filecoin file formats for Groth16 verifying keys, parameters and proofs.
//
// Layout, read from bellperson (github.com/filecoin-project/bellperson, commit d1fa22c):
// src/groth16/verifying_key.rs (VerifyingKey::write/read), src/groth16/params.rs
// (Parameters::write/read), src/groth16/proof.rs (Proof::write/read_many). Points use the
// ZCash encoding of ec/encoding.hpp; every count is a u32 BIG-endian (byteorder::BigEndian).
//   .vk      α₁ β₁ β₂ γ₂ δ₁ δ₂ uncompressed (G1 96 B, G2 192 B), u32 |ic|, |ic| G1 points.
//   .params  the .vk bytes, then five sections in the order h, l, a, b_g1, b_g2, each a u32
//            count followed by that many uncompressed points (G1, except G2 for b_g2).
//            |h| = n − 1 for the domain size n (so log_domain comes from |h| + 1).
//   proof    A (G1 compressed, 48 B) ‖ B (G2 compressed, 96 B) ‖ C (G1 compressed, 48 B) =
//            192 B; a multi-partition proof file is the concatenation of its partitions' proofs.
//
// What the readers accept (bellperson's rules unless noted):
//   - No point at infinity in the vk (α, β, γ, δ, ic) or in h, l, a, b_g1, b_g2: bellperson's
//     generator never emits one (it filters identities out of a/b and rejects unconstrained
//     variables, which would give an identity in l) and its readers refuse them. The writers
//     refuse to write such a key (InvalidArgument), so every file we write bellperson can read.
//   - |ic| ≥ 1 (ic[0] belongs to the constant ONE; bellperson does not check this) and
//     |h| + 1 a power of two. |b_g1| = |b_g2| (both hold the B query) and |a| ≤ |ic| + |l|.
//   - Proof points MAY be infinity (bellperson's read_many rejects them): they are valid group
//     elements, and the pairing check rejects such a proof anyway; every other check (length,
//     flags, canonical x < p, on the curve, subgroup) applies.
//   - vk and ic points are always fully checked (a few hundred points); PointCheck picks the
//     decoder for h, l, a, b_g1, b_g2 only.
// Limits: a count is compared with the bytes left in the file before anything is allocated;
// sections are decoded in 64 MiB chunks in parallel, so a 2^27 Filecoin file (~50 GB) streams.
// From a named pipe (FileSource::kFileOrFifo; no size to compare with) a section's memory is
// reserved, not touched, and filled chunk by chunk as bytes arrive, so a writer that lies about
// a count runs into "truncated", not into a gigabyte-scale fill.
// Errors are snarkd::DecodeError naming the file, the section and the point:
//   "<path>: section l: point 17: G1 uncompressed: point is not on the curve"
//   "<path>: truncated in section h (count)", "<path>: section a: count 9 needs 864 bytes, 500 left"
// Write errors (I/O) are std::runtime_error("<path>: ...").
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "snarkd/groth16/keys.hpp"
#include "snarkd/util/file.hpp"

namespace snarkd::groth16 {

inline constexpr size_t kBellpersonProofSize = 192;

// kFull: checked decoders (on the curve, prime-order subgroup). kTrusted: the `_unchecked`
// decoders, for parameter files from a trusted source, where the subgroup tests would dominate
// load time; lengths, flags and canonical coordinates are still checked.
enum class PointCheck { kFull, kTrusted };

VerifyingKey read_vk(const std::string& path);  // the file must end right after ic
void write_vk(const std::string& path, const VerifyingKey& vk);

// flavour kBellperson, log_domain = log2(|h| + 1), densities left empty (attach_density fills
// them from the circuit). The file must end right after b_g2. FileSource::kFileOrFifo also reads
// a named pipe, waiting for its writer (create_SRS: a key streamed from another process never
// touches the disk); the default refuses one at once.
ProvingKey read_params(const std::string& path, PointCheck check = PointCheck::kFull,
                       FileSource source = FileSource::kRegularFile);
// pk.flavour must be kBellperson and |h| = domain_size() − 1 (InvalidArgument otherwise).
void write_params(const std::string& path, const ProvingKey& pk);
// The same bytes, each section's memory given back chunk by chunk as it is written: the
// writer's memory falls as the reader's grows, so one host holds a key about once while it
// flows through a pipe. After an error the key's points are unspecified.
void write_params(const std::string& path, ProvingKey&& pk);

// A .vk, or the vk part of a .params file (its other sections' counts and the total size are
// checked by seeking, without reading their points).
VerifyingKey read_vk_or_params(const std::string& path);

std::array<uint8_t, kBellpersonProofSize> encode_proof(const Proof& proof);
// Exactly 192 bytes, fully checked. Errors: "proof: B: G2 compressed: ...".
Proof decode_proof(std::span<const uint8_t> bytes);

// A file of k ≥ 1 proofs (192·k bytes). Errors: "<path>: proof 3: A: G1 compressed: ...".
std::vector<Proof> read_proofs(const std::string& path);
void write_proofs(const std::string& path, std::span<const Proof> proofs);  // k ≥ 1

}  // namespace snarkd::groth16
