// The C API's engine-free helpers: reading a circom witness, verifying proofs.
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "snarkd/capi/internal.hpp"
#include "snarkd/groth16/bellperson_io.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/groth16/zkey.hpp"
#include "snarkd/r1cs/circom.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::capi {
namespace {

// A bellperson .vk / .params, or a snarkjs .zkey (its magic).
groth16::VerifyingKey load_vk(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw ApiError(SNARKD_ERR_FILE, path + ": cannot open: " + std::strerror(errno));
  char magic[4] = {};
  f.read(magic, 4);
  if (f.gcount() == 4 && std::memcmp(magic, "zkey", 4) == 0) return groth16::read_zkey_vk(path);
  return groth16::read_vk_or_params(path);
}

}  // namespace
}  // namespace snarkd::capi

using namespace snarkd;        // NOLINT: C entry points
using namespace snarkd::capi;  // NOLINT

extern "C" {

snarkd_status snarkd_read_wtns(const char* path, uint8_t** values, uint64_t* count) {
  return guarded([&] {
    require(path != nullptr, "path is a null pointer");
    require(values != nullptr && count != nullptr, "values or count is a null pointer");
    *values = nullptr;
    *count = 0;
    const std::vector<ff::Fr> w = r1cs::read_wtns(path);
    auto* buf = static_cast<uint8_t*>(std::malloc(w.size() * SNARKD_FR_BYTES + 1));
    if (!buf) throw std::bad_alloc();
    for (size_t i = 0; i < w.size(); ++i) write_fr(w[i], SNARKD_FR_CANONICAL_LE, buf + SNARKD_FR_BYTES * i);
    *values = buf;
    *count = w.size();
  });
}

snarkd_status snarkd_verify(const char* vk_path, const uint8_t* proofs, uint64_t num_proofs, const void* public_inputs,
                            uint64_t inputs_per_proof, int32_t fr_format, int32_t* valid) {
  return guarded([&] {
    require(vk_path != nullptr, "vk_path is a null pointer");
    require(valid != nullptr, "valid is a null pointer");
    *valid = 0;
    require(proofs != nullptr && num_proofs > 0, "proofs is a null pointer or num_proofs is 0");
    require(public_inputs != nullptr || inputs_per_proof == 0, "public_inputs is a null pointer");
    require_format(fr_format, "fr_format");
    const groth16::VerifyingKey vk = load_vk(vk_path);
    require(inputs_per_proof == vk.num_public(), "inputs_per_proof is " + std::to_string(inputs_per_proof) + ", " +
                                                     vk_path + " has " + std::to_string(vk.num_public()) + " public inputs");
    std::vector<groth16::Proof> ps;
    std::vector<std::vector<ff::Fr>> ins(num_proofs);
    const auto* in = static_cast<const uint8_t*>(public_inputs);
    for (uint64_t i = 0; i < num_proofs; ++i) {
      try {
        ps.push_back(groth16::decode_proof({proofs + SNARKD_PROOF_BYTES * i, SNARKD_PROOF_BYTES}));
      } catch (const DecodeError& e) {
        throw ApiError(SNARKD_ERR_INVALID_ARGUMENT, "proofs[" + std::to_string(i) + "]: " + e.what());
      }
      for (uint64_t k = 0; k < inputs_per_proof; ++k)
        ins[i].push_back(read_fr(in + SNARKD_FR_BYTES * (i * inputs_per_proof + k), fr_format,
                                 "public_inputs[" + std::to_string(i) + "][" + std::to_string(k) + "]"));
    }
    *valid = groth16::verify_batch(vk, ps, ins) ? 1 : 0;
  });
}

}  // extern "C"
