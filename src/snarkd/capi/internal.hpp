// Shared by the C API's translation units: errors → status + thread-local message, versioned
// struct copies, field-element conversions, and the engine handle.
#pragma once
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "snarkd/engine/engine.hpp"
#include "snarkd/ff/bigint.hpp"
#include "snarkd/ff/fr.hpp"
#include "snarkd/groth16/curve.hpp"
#include "snarkd/snarkd.h"

// The opaque handles of snarkd.h.
struct snarkd_engine {
  std::unique_ptr<snarkd::engine::Engine> engine;
  uint32_t num_devices = 0, workers_per_device = 0;
  std::mutex mu;                                     // guards circuits
  std::map<std::string, snarkd_circuit_info> circuits;  // what register_circuit learnt
};

namespace snarkd::capi {

// An error with its own status (the exceptions of the layers below map by type).
class ApiError : public std::runtime_error {
 public:
  ApiError(snarkd_status s, const std::string& what) : std::runtime_error(what), status_(s) {}
  snarkd_status status() const { return status_; }

 private:
  snarkd_status status_;
};

void set_last_error(const std::string& message) noexcept;
snarkd_status status_of_current_exception() noexcept;  // inside a catch: maps it, sets the message

// Runs f; every exception becomes a status and this thread's last-error message.
template <class F>
snarkd_status guarded(F&& f) noexcept {
  try {
    f();
    set_last_error("");
    return SNARKD_OK;
  } catch (...) {
    return status_of_current_exception();
  }
}

inline void require(bool ok, const std::string& what) {
  if (!ok) throw ApiError(SNARKD_ERR_INVALID_ARGUMENT, what);
}

// The caller's struct (struct_size bytes of it) over our defaults; fields it does not know
// keep their defaults.
template <class T>
T read_struct(const T* in, void (*init)(T*), const char* what) {
  require(in != nullptr, std::string(what) + " is a null pointer");
  require(in->struct_size >= sizeof(uint32_t),
          std::string(what) + "->struct_size is " + std::to_string(in->struct_size) + " (initialise it with its _init function)");
  T out;
  init(&out);
  std::memcpy(static_cast<void*>(&out), in, std::min<size_t>(in->struct_size, sizeof(T)));
  out.struct_size = sizeof(T);
  return out;
}

// value into the caller's struct, as much of it as the caller's struct_size holds.
template <class T>
void write_struct(T* out, const T& value, const char* what) {
  require(out != nullptr, std::string(what) + " is a null pointer");
  require(out->struct_size >= sizeof(uint32_t),
          std::string(what) + "->struct_size is " + std::to_string(out->struct_size) + " (initialise it with its _init function)");
  const uint32_t keep = out->struct_size;
  std::memcpy(static_cast<void*>(out), &value, std::min<size_t>(keep, sizeof(T)));
  out->struct_size = keep;
}

// 32 bytes in `format` → an element of F (either curve's Fr), refusing values ≥ r
// ("witnesses[1][7] is not below r").
template <class F = ff::Fr>
F read_fr(const uint8_t* p, int32_t format, const std::string& what) {
  ff::BigInt<4> v;
  std::memcpy(v.limb, p, sizeof v.limb);  // little-endian limbs = little-endian bytes (x86-64)
  if (!ff::less_than(v, F::kModulus)) throw ApiError(SNARKD_ERR_INVALID_ARGUMENT, what + " is not below r");
  return format == SNARKD_FR_MONTGOMERY ? F::from_montgomery(v) : F::from_repr_unchecked(v);
}
template <class F>
void write_fr(const F& x, int32_t format, uint8_t* out) {
  const ff::BigInt<4> v = format == SNARKD_FR_MONTGOMERY ? x.montgomery() : x.to_repr();
  std::memcpy(out, v.limb, sizeof v.limb);
}
// snarkd_curve ↔ the groth16 layer's CurveId.
inline int32_t curve_code(groth16::CurveId c) {
  return c == groth16::CurveId::kBn254 ? SNARKD_CURVE_BN254 : SNARKD_CURVE_BLS12_381;
}
inline groth16::CurveId curve_id(int32_t code) {
  return code == SNARKD_CURVE_BN254 ? groth16::CurveId::kBn254 : groth16::CurveId::kBls12_381;
}
void require_format(int32_t format, const std::string& what);

snarkd::engine::Engine& engine_of(snarkd_engine* e);

}  // namespace snarkd::capi
