#include "file_kind.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "snarkd/groth16/bellperson_io.hpp"
#include "snarkd/groth16/snarkjs_json.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/file.hpp"

namespace snarkd::cli {
namespace {

// A bellperson .vk: α₁ β₁ β₂ γ₂ δ₁ δ₂ uncompressed (96 + 96 + 192 + 192 + 96 + 192 bytes), then a
// big-endian u32 |ic| (bellperson_io.hpp).
constexpr uint64_t kVkPointBytes = 864;
constexpr uint64_t kG1Uncompressed = 96;

uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

bool starts_with(std::span<const uint8_t> head, const char* magic, size_t n) {
  return head.size() >= n && std::memcmp(head.data(), magic, n) == 0;
}

// JSON's whitespace is space, tab, LF and CR only (RFC 8259): std::isspace also takes 0x0B and
// 0x0C, and a binary key starting with 0x0B (a random α₁) was once taken for JSON.
bool looks_like_json(std::span<const uint8_t> head) {
  if (starts_with(head, "\xEF\xBB\xBF", 3)) return true;  // BOM: Json::load explains
  for (uint8_t c : head) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == '{' || c == '[';
  }
  return false;
}

// The first proof's A, B and C carry the compression flag (0x80 in their first byte), as far as
// the file goes: a truncated proof file is still a proof file, for read_proofs to explain.
bool looks_like_proofs(std::span<const uint8_t> head) {
  for (size_t at : {size_t{0}, size_t{48}, size_t{144}})
    if (at < head.size() && !(head[at] & 0x80)) return false;
  return !head.empty();
}

}  // namespace

const char* file_kind_name(FileKind k) {
  switch (k) {
    case FileKind::kZkey: return "a snarkjs zkey";
    case FileKind::kCircomR1cs: return "a circom r1cs";
    case FileKind::kWtns: return "a circom wtns";
    case FileKind::kCsr: return "a snarkd CSR circuit";
    case FileKind::kJson: return "a JSON file";
    case FileKind::kBellpersonProof: return "a bellperson proof file";
    case FileKind::kBellpersonVk: return "a bellperson verifying key";
    case FileKind::kBellpersonParams: return "a bellperson params file";
    case FileKind::kUnknown: break;
  }
  return "an unknown kind of file";
}

FileKind detect_file_kind(std::span<const uint8_t> head, uint64_t size) {
  if (starts_with(head, "zkey", 4)) return FileKind::kZkey;
  if (starts_with(head, "r1cs", 4)) return FileKind::kCircomR1cs;
  if (starts_with(head, "wtns", 4)) return FileKind::kWtns;
  if (starts_with(head, "SNKDCSR", 8)) return FileKind::kCsr;  // the NUL included
  // Uncompressed vk points: none of the three flag bits on α₁. A vk's exact size comes first: its
  // first bytes are a random coordinate, which may look like JSON's opening (whitespace, then {
  // or [), while no JSON text has the size its bytes at kVkPointBytes would give.
  const bool vk_flags = head.size() >= kVkPointBytes + 4 && (head[0] & 0xe0) == 0;
  const uint64_t vk_size =
      vk_flags ? kVkPointBytes + 4 + uint64_t(be32(&head[kVkPointBytes])) * kG1Uncompressed : 0;
  if (vk_flags && size == vk_size) return FileKind::kBellpersonVk;
  if (looks_like_json(head)) return FileKind::kJson;
  if (looks_like_proofs(head)) return FileKind::kBellpersonProof;
  if (vk_flags && size > vk_size) return FileKind::kBellpersonParams;
  return FileKind::kUnknown;
}

FileKind detect_file_kind(const std::string& path) {
  const int fd = open_regular_file(path);
  uint8_t head[kVkPointBytes + 4];
  size_t got = 0;
  while (got < sizeof head) {
    const ssize_t n = ::read(fd, head + got, sizeof head - got);
    if (n <= 0) break;
    got += size_t(n);
  }
  const off_t size = ::lseek(fd, 0, SEEK_END);
  ::close(fd);
  if (size < 0) throw DecodeError(path + ": cannot determine the file size");
  return detect_file_kind(std::span<const uint8_t>(head, got), uint64_t(size));
}

void throw_unknown_kind(const std::string& path) {
  std::string first;
  try {
    const std::string bytes = read_regular_file(path).substr(0, 8);
    char buf[4];
    for (unsigned char c : bytes) {
      std::snprintf(buf, sizeof buf, "%02x ", c);
      first += buf;
    }
  } catch (const DecodeError&) {}
  if (first.empty()) throw DecodeError(path + ": the file is empty");
  first.pop_back();
  throw DecodeError(path +
                    ": unknown kind of file (snarkd reads snarkjs .zkey and JSON files, circom .r1cs/.wtns, "
                    "snarkd CSR circuits, bellperson .params/.vk and 192-byte proofs); its first bytes: " +
                    first);
}

std::string json_document_kind(const Json& j, const std::string& path) {
  if (j.is_array()) return "public";
  if (j.is_object() && j.find("pi_a")) return "proof";
  if (j.is_object() && j.find("vk_alpha_1")) return "vk";
  throw DecodeError(path +
                    ": JSON is neither a proof (pi_a), a verification key (vk_alpha_1) nor public inputs (array)");
}

template <class E>
std::vector<std::vector<typename E::Fr>> publics_from_json(const Json& j, const std::string& where) {
  if (!j.is_array()) throw DecodeError(where + ": public inputs must be a JSON array");
  if (j.size() == 0 || !j[0].is_array()) return {groth16::public_from_snarkjs_json<E>(j, where)};
  std::vector<std::vector<typename E::Fr>> out;
  out.reserve(j.size());
  for (size_t k = 0; k < j.size(); ++k)
    out.push_back(groth16::public_from_snarkjs_json<E>(j[k], where + ": proof " + std::to_string(k)));
  return out;
}
template std::vector<std::vector<ff::Fr>> publics_from_json<groth16::Bls12_381>(const Json&, const std::string&);
template std::vector<std::vector<ff::bn254::Fr>> publics_from_json<groth16::Bn254>(const Json&, const std::string&);

}  // namespace snarkd::cli
