// What setup and key binding allocate, measured by replacing the global operator new in this
// test binary (its own executable: the counting applies to everything in it): a circuit's
// claimed counts must be compared before anything is sized by them, and setup_peak_bytes must
// bound what setup really holds at once.
#include <gtest/gtest.h>
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>

#include "common/decode_error.hpp"
#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/r1cs/builder.hpp"
#include "snarkd/r1cs/synthetic.hpp"

namespace {

std::atomic<size_t> g_live{0}, g_peak{0}, g_largest{0};

void* counted(void* p) {
  if (!p) throw std::bad_alloc();
  const size_t n = malloc_usable_size(p);
  const size_t live = g_live.fetch_add(n) + n;
  size_t peak = g_peak.load();
  while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {}
  size_t largest = g_largest.load();
  while (n > largest && !g_largest.compare_exchange_weak(largest, n)) {}
  return p;
}
void uncounted(void* p) {
  if (!p) return;
  g_live.fetch_sub(malloc_usable_size(p));
  std::free(p);
}

// Resets the peak and the largest allocation to the current state; returns the live bytes.
size_t start_measuring() {
  g_largest = 0;
  g_peak = g_live.load();
  return g_live.load();
}

}  // namespace

void* operator new(size_t n) { return counted(std::malloc(n ? n : 1)); }
void* operator new[](size_t n) { return counted(std::malloc(n ? n : 1)); }
void* operator new(size_t n, std::align_val_t a) {
  return counted(std::aligned_alloc(size_t(a), (std::max<size_t>(n, 1) + size_t(a) - 1) / size_t(a) * size_t(a)));
}
void* operator new[](size_t n, std::align_val_t a) { return operator new(n, a); }
void operator delete(void* p) noexcept { uncounted(p); }
void operator delete[](void* p) noexcept { uncounted(p); }
void operator delete(void* p, size_t) noexcept { uncounted(p); }
void operator delete[](void* p, size_t) noexcept { uncounted(p); }
void operator delete(void* p, std::align_val_t) noexcept { uncounted(p); }
void operator delete[](void* p, std::align_val_t) noexcept { uncounted(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { uncounted(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { uncounted(p); }

namespace snarkd::groth16 {
namespace {

// x·x = y, y public.
ProvingKey small_key() {
  r1cs::CircuitBuilder b;
  const auto y = b.allocate_input(Fr::from_u64(9));
  const auto x = b.allocate_aux(Fr::from_u64(3));
  b.enforce(x, x, y);
  return setup_insecure(std::move(b).finish().circuit, toxic_waste_from_seed(1));
}

// What a 100-byte .r1cs may claim: 2^32 variables, no constraints.
r1cs::Circuit claimed_huge() {
  r1cs::Circuit c;
  c.num_inputs = 2;
  c.num_aux = (uint64_t{1} << 32) - 2;
  return c;
}

TEST(Allocations, BindComparesCountsBeforeBuildingDensities) {
  ProvingKey pk = small_key();
  start_measuring();
  const std::string msg = test::decode_error([&] { (void)BoundKey::bind(pk, claimed_huge()); });
  EXPECT_NE(msg.find("L points"), std::string::npos) << msg;
  // The density bitmaps of 2^32 variables would be 512 MiB each.
  EXPECT_LT(g_largest.load(), size_t{1} << 20);
}

TEST(Allocations, SetupPeakBytesBoundsSetup) {
  EXPECT_GT(setup_peak_bytes(claimed_huge()), uint64_t{2} << 40);  // > 2 TiB: refused before anything
  r1cs::SyntheticParams p;
  p.num_constraints = 1 << 12;
  p.num_inputs = 9;
  const r1cs::SyntheticCircuit sc = r1cs::generate_synthetic(p);
  const uint64_t bound = setup_peak_bytes(sc.circuit);
  const size_t before = start_measuring();
  {
    const ProvingKey pk = setup_insecure(sc.circuit, toxic_waste_from_seed(3));
    ASSERT_EQ(pk.l.size(), sc.circuit.num_aux);
  }
  const size_t peak = g_peak.load() - before;
  RecordProperty("peak_bytes", std::to_string(peak));
  RecordProperty("bound_bytes", std::to_string(bound));
  EXPECT_LE(peak, bound);
  EXPECT_GT(peak, 0u);
}

}  // namespace
}  // namespace snarkd::groth16
