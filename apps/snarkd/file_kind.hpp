// What a file is, from its first bytes and size: the CLI accepts keys, proofs and public inputs
// in either ecosystem's format and picks the reader by content, not by file name.
#pragma once
#include <string>

namespace snarkd::cli {

enum class FileKind {
  kZkey,         // snarkjs .zkey ("zkey" magic)
  kCircomR1cs,   // circom .r1cs ("r1cs")
  kWtns,         // circom .wtns ("wtns")
  kCsr,          // snarkd CSR circuit ("SNKDCSR\0")
  kJson,         // proof.json / public.json / verification_key.json
  kBinary,       // anything else: bellperson .params / .vk / proof bytes
};

// Throws DecodeError("<path>: cannot open ...") when unreadable.
FileKind detect_file_kind(const std::string& path);

// For kJson: which snarkjs JSON document ("proof", "vk", "public"), or DecodeError naming path.
std::string json_document_kind(const std::string& path);

}  // namespace snarkd::cli
