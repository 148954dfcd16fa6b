// SHA-256 (OpenSSL's EVP) for the idempotency key: a request id is bound to the hash of its
// payload (circuit, priority, every witness's format and bytes), so a replay is recognised and a
// reuse with different content is refused, without keeping the payload.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace snarkd::server {

using Digest = std::array<uint8_t, 32>;

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(const void* data, size_t n);
  void update_u64(uint64_t v);            // 8 bytes little-endian
  void update_str(const std::string& s);  // length-prefixed, so fields cannot run together
  Digest finish();

 private:
  void* ctx_;
};

std::string to_hex(std::span<const uint8_t> bytes);

}  // namespace snarkd::server
