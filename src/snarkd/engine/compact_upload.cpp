#include "snarkd/engine/compact_upload.hpp"

#include <chrono>
#include <cstdlib>
#include <cstring>

namespace snarkd::engine {

double PreparedWitness::prepare(const CircuitEntry& c, const groth16::AnyScalars& witness) {
  compact_.reset();
  of_ = nullptr;
  static const bool enabled = [] {
    const char* v = std::getenv("SNARKD_WITNESS_COMPACT");
    return !(v && std::strcmp(v, "0") == 0);
  }();
  const auto* w = std::get_if<groth16::ScalarVector<groth16::Bls12_381>>(&witness);
  if (!enabled || c.curve() != groth16::CurveId::kBls12_381 || w == nullptr) return 0;
  const auto t0 = std::chrono::steady_clock::now();
  compact_ = r1cs::compact_witness(*w);
  if (compact_) of_ = w->data();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

const r1cs::CompactWitness* PreparedWitness::of(const void* data, uint64_t bytes) const {
  return compact_ && of_ == data && compact_->n * sizeof(ff::Fr) == bytes ? &*compact_ : nullptr;
}

const r1cs::CompactWitness* PreparedWitness::usable(const void* data, uint64_t bytes, uint64_t at, uint64_t reserved,
                                                    uint64_t* scratch) const {
  if (!of(data, bytes)) return nullptr;
  *scratch = at + (bytes + 255) / 256 * 256;
  return *scratch + r1cs::compact_layout(*compact_).total <= reserved ? &*compact_ : nullptr;
}

}  // namespace snarkd::engine
