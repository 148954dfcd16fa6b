#include "file_kind.hpp"

#include <cctype>
#include <cstring>
#include <fstream>

#include "snarkd/util/error.hpp"
#include "snarkd/util/json.hpp"

namespace snarkd::cli {

FileKind detect_file_kind(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DecodeError(path + ": cannot open for reading");
  char head[8] = {};
  in.read(head, sizeof head);
  const size_t got = static_cast<size_t>(in.gcount());
  if (got >= 4 && std::memcmp(head, "zkey", 4) == 0) return FileKind::kZkey;
  if (got >= 4 && std::memcmp(head, "r1cs", 4) == 0) return FileKind::kCircomR1cs;
  if (got >= 4 && std::memcmp(head, "wtns", 4) == 0) return FileKind::kWtns;
  if (got == 8 && std::memcmp(head, "SNKDCSR", 8) == 0) return FileKind::kCsr;
  for (size_t i = 0; i < got; ++i) {
    if (std::isspace(static_cast<unsigned char>(head[i]))) continue;
    if (head[i] == '{' || head[i] == '[') return FileKind::kJson;
    break;
  }
  return FileKind::kBinary;
}

std::string json_document_kind(const std::string& path) {
  const Json j = Json::load(path);
  if (j.is_array()) return "public";
  if (j.is_object() && j.find("pi_a")) return "proof";
  if (j.is_object() && j.find("vk_alpha_1")) return "vk";
  throw DecodeError(path + ": JSON is neither a proof (pi_a), a verification key (vk_alpha_1) nor public inputs (array)");
}

}  // namespace snarkd::cli
