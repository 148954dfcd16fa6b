// The C API's engine-free helpers: reading a circom witness, verifying proofs.
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "snarkd/capi/internal.hpp"
#include "snarkd/groth16/any_curve.hpp"
#include "snarkd/groth16/bellperson_io.hpp"
#include "snarkd/groth16/snarkjs_json.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/groth16/zkey.hpp"
#include "snarkd/r1cs/circom.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/json.hpp"

namespace snarkd::capi {
namespace {

using groth16::AnyScalars;
template <class E>
using VkOf = groth16::VerifyingKeyT<E>;
using AnyVk = groth16::PerCurve<VkOf>;

// A bellperson .vk / .params (BLS12-381), a snarkjs .zkey (its magic; either curve, from its q)
// or a snarkjs verification_key.json (its "curve").
AnyVk load_vk(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw ApiError(SNARKD_ERR_FILE, path + ": cannot open: " + std::strerror(errno));
  char magic[4] = {};
  f.read(magic, 4);
  if (f.gcount() == 4 && std::memcmp(magic, "zkey", 4) == 0)
    return groth16::with_curve(groth16::zkey_curve(path), [&](auto e) -> AnyVk {
      return groth16::read_zkey_vk<decltype(e)>(path);
    });
  if (f.gcount() >= 1 && magic[0] == '{')
    return groth16::with_curve(groth16::snarkjs_json_curve(Json::load(path), path), [&](auto e) -> AnyVk {
      return groth16::read_snarkjs_vk<decltype(e)>(path);
    });
  return groth16::read_vk_or_params(path);
}

// snarkd_verify over the key's curve E: num_proofs proofs of proof_bytes_size(E) bytes each.
template <class E>
bool verify_all(const VkOf<E>& vk, const uint8_t* proofs, uint64_t num_proofs, const uint8_t* in,
                uint64_t inputs_per_proof, int32_t fr_format) {
  const size_t size = groth16::proof_bytes_size(E::kId);
  std::vector<groth16::ProofT<E>> ps;
  std::vector<std::vector<typename E::Fr>> ins(num_proofs);
  for (uint64_t i = 0; i < num_proofs; ++i) {
    try {
      ps.push_back(std::get<groth16::ProofT<E>>(
          groth16::proof_from_bytes(E::kId, {proofs + size * i, size}, "proofs[" + std::to_string(i) + "]")));
    } catch (const DecodeError& e) {
      throw ApiError(SNARKD_ERR_INVALID_ARGUMENT, e.what());
    }
    for (uint64_t k = 0; k < inputs_per_proof; ++k)
      ins[i].push_back(read_fr<typename E::Fr>(in + SNARKD_FR_BYTES * (i * inputs_per_proof + k), fr_format,
                                               "public_inputs[" + std::to_string(i) + "][" + std::to_string(k) + "]"));
  }
  return groth16::verify_batch(vk, ps, ins);
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
    const AnyScalars w = groth16::with_curve(r1cs::circom_curve(path), [&](auto e) -> AnyScalars {
      return r1cs::read_wtns<typename decltype(e)::Fr>(path);
    });
    const uint64_t n = groth16::size_of(w);
    auto* buf = static_cast<uint8_t*>(std::malloc(n * SNARKD_FR_BYTES + 1));
    if (!buf) throw std::bad_alloc();
    std::visit(
        [&](const auto& v) {
          for (size_t i = 0; i < v.size(); ++i) write_fr(v[i], SNARKD_FR_CANONICAL_LE, buf + SNARKD_FR_BYTES * i);
        },
        w);
    *values = buf;
    *count = n;
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
    const AnyVk any = load_vk(vk_path);
    const auto* in = static_cast<const uint8_t*>(public_inputs);
    *valid = std::visit(
                 [&](const auto& vk) {
                   require(inputs_per_proof == vk.num_public(),
                           "inputs_per_proof is " + std::to_string(inputs_per_proof) + ", " + vk_path + " has " +
                               std::to_string(vk.num_public()) + " public inputs");
                   return verify_all(vk, proofs, num_proofs, in, inputs_per_proof, fr_format);
                 },
                 any)
                 ? 1
                 : 0;
  });
}

}  // extern "C"
