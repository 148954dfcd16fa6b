// What a file is, from its first bytes and its size: the CLI accepts keys, proofs and public
// inputs in either ecosystem's format and picks the reader by content, not by file name. A file
// that is none of them is reported as such, not handed to a reader whose complaint about the
// first bytes would make no sense ("sign flag is set").
#pragma once
#include <span>
#include <string>
#include <vector>

#include "snarkd/groth16/curve.hpp"
#include "snarkd/util/json.hpp"

namespace snarkd::cli {

enum class FileKind {
  kZkey,              // snarkjs .zkey ("zkey" magic)
  kCircomR1cs,        // circom .r1cs ("r1cs")
  kWtns,              // circom .wtns ("wtns")
  kCsr,               // snarkd CSR circuit ("SNKDCSR\0")
  kJson,              // proof.json / public.json / verification_key.json (also with a BOM: the reader refuses it)
  kBellpersonProof,   // k × 192 bytes of compressed points (the compression flag on A, B and C of the first)
  kBellpersonVk,      // .vk: uncompressed vk points, u32 |ic|, |ic| points, nothing after
  kBellpersonParams,  // .params: a .vk's bytes followed by more (the five query sections)
  kUnknown,
};

// "a snarkjs zkey", ..., "an unknown kind of file".
const char* file_kind_name(FileKind k);

// Opens path as a regular file (util/file.hpp: a directory or a FIFO get their own DecodeError).
FileKind detect_file_kind(const std::string& path);
// The same from a file's first bytes (at least 868 of them when there are) and its size.
FileKind detect_file_kind(std::span<const uint8_t> head, uint64_t size);

// DecodeError "<path>: unknown kind of file (...what snarkd reads...; first bytes 3f 2a ...)".
[[noreturn]] void throw_unknown_kind(const std::string& path);

// For kJson: which snarkjs JSON document ("proof", "vk", "public"), or DecodeError naming path.
std::string json_document_kind(const Json& j, const std::string& path);

// public.json: an array of decimal strings (one proof) or an array of such arrays (one per
// proof of a multi-partition file), values of E's Fr. DecodeError naming `where` and the index.
template <class E = groth16::Bls12_381>
std::vector<std::vector<typename E::Fr>> publics_from_json(const Json& j, const std::string& where);

}  // namespace snarkd::cli
