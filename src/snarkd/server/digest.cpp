#include "snarkd/server/digest.hpp"

#include <openssl/evp.h>

#include <stdexcept>

namespace snarkd::server {

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_ || EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("sha256: OpenSSL could not initialise a digest");
}

Sha256::~Sha256() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_)); }

void Sha256::update(const void* data, size_t n) {
  if (n && EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), data, n) != 1)
    throw std::runtime_error("sha256: OpenSSL digest update failed");
}

void Sha256::update_u64(uint64_t v) {
  uint8_t b[8];
  for (int i = 0; i < 8; ++i) b[i] = uint8_t(v >> (8 * i));
  update(b, 8);
}

void Sha256::update_str(const std::string& s) {
  update_u64(s.size());
  update(s.data(), s.size());
}

Digest Sha256::finish() {
  Digest d;
  unsigned len = 0;
  if (EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), d.data(), &len) != 1 || len != d.size())
    throw std::runtime_error("sha256: OpenSSL digest final failed");
  return d;
}

std::string to_hex(std::span<const uint8_t> bytes) {
  static const char* k = "0123456789abcdef";
  std::string s;
  s.reserve(2 * bytes.size());
  for (uint8_t b : bytes) s += k[b >> 4], s += k[b & 15];
  return s;
}

}  // namespace snarkd::server
