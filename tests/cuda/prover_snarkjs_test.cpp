// The snarkjs-key GPU prover (cuda/prover_snarkjs.hpp), both curves, against its CPU twin
// groth16::compute_sums: the five sums equal exactly (each named on failure), and the assembled
// proof verifies. Fresh random circuits, keys and witnesses each run (seed printed,
// SNARKD_TEST_SEED pins it).
//
// Cases: random circuits of 1, 100, 1023 and 3000 rows (domains 2 .. 2^12: the NTT's one- and
// two-pass schedules) with random values, 0/1 "bit" rows and unused variables (infinities in the
// key), keyed by the known-τ snarkjs setup of tests/groth16/curves.hpp; random unsatisfying
// witnesses (snarkjs keys check nothing: the sums still agree); a circuit of 95 % bit rows and
// a witness of ones only (the ones are summed apart from the MSMs); the real snarkjs zkeys of
// tests/groth16/fixtures (BLS12-381) and fixtures/bn128 (BN254); the stream-ordered API on a
// workspace and result poisoned with 0xFF bytes, the witness ONE checked on the device; the key
// placed in caller memory (as an engine device's ledger places it) against its own region; bad
// keys, regions and witnesses refused.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/seed.hpp"
#include "gpu_test_util.hpp"
#include "groth16/curves.hpp"
#include "snarkd/cuda/prover_snarkjs.hpp"
#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/groth16/zkey.hpp"
#include "snarkd/r1cs/circom.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {
namespace {

using groth16::test::CurveNames;
using groth16::test::Curves;
using groth16::test::Row;

// rows rows over 2 public inputs (ONE and a random x): row r defines aux v_r. bit_percent % of
// the rows are bit rows b·b = b (b ∈ {0, 1}); the others multiply two earlier values with random coefficients
// (a random term in A, a sum of two in B). The last aux variable is in no row (all-infinity
// columns in the key) and holds 0.
template <class F, class R>
groth16::test::TestCircuit<F> random_circuit(uint64_t rows, R& g, uint32_t bit_percent = 25) {
  std::vector<F> w = {F::one(), F::random(g)};
  std::vector<Row<F>> out;
  auto any = [&] { return uint32_t(g() % w.size()); };
  for (uint64_t r = 0; r < rows; ++r) {
    const uint32_t v = uint32_t(w.size());
    Row<F> row;
    if (g() % 100 < bit_percent) {
      const F bit = F::from_u64(g() & 1);
      row = {{{{v, F::one()}}, {{v, F::one()}}, {{v, F::one()}}}};
      w.push_back(bit);
    } else {
      const uint32_t i = any(), j = any(), k = any();
      const F ci = F::random(g), cj = F::random(g), ck = F::random(g);
      const F a = ci * w[i], b = j == k ? (cj + ck) * w[j] : cj * w[j] + ck * w[k];
      row[0] = {{i, ci}};
      row[1] = j == k ? std::vector<std::pair<uint32_t, F>>{{j, cj + ck}}
                      : std::vector<std::pair<uint32_t, F>>{{j, cj}, {k, ck}};
      row[2] = {{v, F::one()}};
      w.push_back(a * b);
    }
    out.push_back(std::move(row));
  }
  w.push_back(F::zero());  // in no row
  const uint64_t aux = w.size() - 2;
  return {groth16::test::circuit_from_rows<F>(2, aux, out), std::move(w)};
}

template <class E>
groth16::QuerySumsT<E> cpu_sums(const groth16::BoundKeyT<E>& key, std::span<const typename E::Fr> w) {
  groth16::ProveTimings t;
  return groth16::compute_sums(key, w, {}, t);
}

template <class E>
void expect_same_sums(const groth16::QuerySumsT<E>& got, const groth16::QuerySumsT<E>& want, const std::string& what) {
  EXPECT_TRUE(got.a == want.a) << what << ": A";
  EXPECT_TRUE(got.b1 == want.b1) << what << ": B (G1)";
  EXPECT_TRUE(got.b2 == want.b2) << what << ": B (G2)";
  EXPECT_TRUE(got.l == want.l) << what << ": L";
  EXPECT_TRUE(got.h == want.h) << what << ": H";
}

// GPU against CPU on one key and witness; a satisfying witness also gives a verifying proof.
template <class E>
void check_key(const std::shared_ptr<const groth16::BoundKeyT<E>>& key, const std::vector<typename E::Fr>& w,
               bool satisfying, const std::string& what) {
  SnarkjsGpuProver<E> prover(0, key);
  const auto got = prover.compute_sums(w);
  expect_same_sums<E>(got, cpu_sums<E>(*key, w), what);
  if (!satisfying) return;
  const auto proof = groth16::assemble(key->pk().vk, got, groth16::random_proof_randomness<E>());
  EXPECT_TRUE(groth16::verify(key->pk().vk, proof, groth16::public_inputs(key->circuit(), w))) << what;
}

template <class E>
std::shared_ptr<const groth16::BoundKeyT<E>> setup(const r1cs::CircuitT<typename E::Fr>& c, std::mt19937_64& g) {
  using F = typename E::Fr;
  const groth16::test::ToxicWasteT<F> t{F::random(g), F::random(g), F::random(g), F::random(g), F::random(g)};
  auto z = groth16::test::snarkjs_setup<E>(c, t);
  return groth16::BoundKeyT<E>::bind(std::move(z.pk), std::move(z.circuit));
}

template <class E>
class CudaSnarkjsProver : public ::testing::Test {};
TYPED_TEST_SUITE(CudaSnarkjsProver, Curves, CurveNames);

TYPED_TEST(CudaSnarkjsProver, RandomCircuitsMatchCpu) {
  SNARKD_SKIP_WITHOUT_GPU();
  using E = TypeParam;
  using F = typename E::Fr;
  auto g = snarkd::test::current_test_rng();
  for (uint64_t rows : {1ull, 100ull, 1023ull, 3000ull}) {
    const auto tc = random_circuit<F>(rows, g);
    ASSERT_FALSE(r1cs::first_unsatisfied(tc.circuit, tc.witness).has_value());
    const auto key = setup<E>(tc.circuit, g);
    check_key<E>(key, tc.witness, true, "rows=" + std::to_string(rows));
    std::vector<F> junk(tc.witness.size());
    junk[0] = F::one();
    for (size_t i = 1; i < junk.size(); ++i) junk[i] = F::random(g);
    check_key<E>(key, junk, false, "rows=" + std::to_string(rows) + ", random witness");
  }
  // Mostly bits (the ones summed apart from the Pippenger), and a witness of ones alone.
  const auto bits = random_circuit<F>(5000, g, 95);
  const auto key = setup<E>(bits.circuit, g);
  check_key<E>(key, bits.witness, true, "95% bit rows");
  check_key<E>(key, std::vector<F>(bits.witness.size(), F::one()), false, "every value 1");
}

TYPED_TEST(CudaSnarkjsProver, SnarkjsFixturesMatchCpu) {
  SNARKD_SKIP_WITHOUT_GPU();
  using E = TypeParam;
  for (const char* name : {"multiplier", "lincomb"}) {
    auto zk = groth16::read_zkey<E>(groth16::test::fixture<E>(name, std::string(name) + ".zkey"));
    const auto w = r1cs::read_wtns<typename E::Fr>(groth16::test::fixture<E>(name, std::string(name) + ".wtns"));
    const auto key = groth16::BoundKeyT<E>::bind(std::move(zk.pk), std::move(zk.circuit));
    check_key<E>(key, w, true, name);
  }
}

// prove_on_stream over a poisoned workspace and result; a witness whose ONE is not 1, copied in
// without enqueue_witness_upload's host check, is caught by the device's.
TYPED_TEST(CudaSnarkjsProver, StreamOrderedPoisonedWorkspace) {
  SNARKD_SKIP_WITHOUT_GPU();
  using E = TypeParam;
  using F = typename E::Fr;
  auto g = snarkd::test::current_test_rng();
  const auto tc = random_circuit<F>(700, g);
  const auto key = setup<E>(tc.circuit, g);
  SnarkjsDeviceKey<E> dkey(0, *key);
  Stream s;
  DeviceBuffer<uint8_t> ws(dkey.workspace_bytes());
  PinnedBuffer<F> hw(tc.witness.size());
  PinnedBuffer<SnarkjsDeviceSums<E>> out(1);
  std::copy(tc.witness.begin(), tc.witness.end(), hw.begin());
  ws.fill_bytes(0xff, s);
  std::memset(out.data(), 0xff, sizeof(SnarkjsDeviceSums<E>));
  enqueue_witness_upload(dkey, hw.data(), ws.data(), s);
  prove_on_stream(dkey, ws.data(), out.data(), s);
  s.synchronize();
  expect_same_sums<E>(to_query_sums<E>(out[0]), cpu_sums<E>(*key, tc.witness), "poisoned");

  hw[0] = F::from_u64(2);
  ws.fill_bytes(0xff, s);
  SNARKD_CUDA_CHECK(cudaMemcpyAsync(ws.data() + dkey.layout().witness, hw.data(), tc.witness.size() * sizeof(F),
                                    cudaMemcpyHostToDevice, s));
  prove_on_stream(dkey, ws.data(), out.data(), s);
  s.synchronize();
  EXPECT_THROW(to_query_sums<E>(out[0]), InvalidArgument);
  EXPECT_THROW(enqueue_witness_upload(dkey, hw.data(), ws.data(), s), InvalidArgument);
  EXPECT_THROW(prove_on_stream(dkey, ws.data() + 8, out.data(), s), InvalidArgument);
  EXPECT_THROW(prove_on_stream(dkey, ws.data(), static_cast<SnarkjsDeviceSums<E>*>(nullptr), s), InvalidArgument);
}

// The placement constructor (the engine's: the key in a range of the device's pool, nothing
// allocated) inside a poisoned buffer with 256 guard bytes each side: region_bytes() is what it
// uses (the guards keep their 0xFF), its workspace is the shape's (workspace_layout_for), and
// its sums equal the allocating constructor's and the CPU's. Null and misaligned regions are
// refused.
TYPED_TEST(CudaSnarkjsProver, PlacedKeyMatchesItsOwnRegion) {
  SNARKD_SKIP_WITHOUT_GPU();
  using E = TypeParam;
  using F = typename E::Fr;
  auto g = snarkd::test::current_test_rng();
  const auto tc = random_circuit<F>(1500, g);
  const auto key = setup<E>(tc.circuit, g);
  const uint64_t bytes = SnarkjsDeviceKey<E>::region_bytes(*key), guard = 256;
  Stream s;
  DeviceBuffer<uint8_t> pool(bytes + 2 * guard);
  pool.fill_bytes(0xff, s);  // stream order: before the placement's copies
  const SnarkjsDeviceKey<E> placed(0, *key, pool.data() + guard, s);
  const SnarkjsDeviceKey<E> own(0, *key);
  EXPECT_EQ(placed.resident_bytes(), bytes);
  EXPECT_EQ(own.resident_bytes(), bytes);
  EXPECT_EQ(placed.workspace_bytes(), SnarkjsDeviceKey<E>::workspace_layout_for(*key).total);
  EXPECT_EQ(placed.workspace_bytes(), own.workspace_bytes());

  DeviceBuffer<uint8_t> ws(placed.workspace_bytes());
  PinnedBuffer<F> hw(tc.witness.size());
  PinnedBuffer<SnarkjsDeviceSums<E>> out(2);
  std::copy(tc.witness.begin(), tc.witness.end(), hw.begin());
  const SnarkjsDeviceKey<E>* keys[2] = {&placed, &own};
  for (size_t k = 0; k < 2; ++k) {  // one stream: the second proof's upload follows the first's copy out
    enqueue_witness_upload(*keys[k], hw.data(), ws.data(), s);
    prove_on_stream(*keys[k], ws.data(), &out[k], s);
  }
  s.synchronize();
  const auto want = cpu_sums<E>(*key, tc.witness);
  expect_same_sums<E>(to_query_sums<E>(out[0]), want, "placed key");
  expect_same_sums<E>(to_query_sums<E>(out[1]), want, "own region");

  std::vector<uint8_t> host(pool.size());
  pool.download(host.data(), host.size(), s);
  s.synchronize();
  for (uint64_t i = 0; i < guard; ++i) {
    ASSERT_EQ(host[i], 0xff) << "byte " << i << " before the region was written";
    ASSERT_EQ(host[guard + bytes + i], 0xff) << "byte " << i << " after the region was written";
  }
  EXPECT_THROW(SnarkjsDeviceKey<E>(0, *key, nullptr, s), InvalidArgument);
  EXPECT_THROW(SnarkjsDeviceKey<E>(0, *key, pool.data() + 8, s), InvalidArgument);
}

TYPED_TEST(CudaSnarkjsProver, BadWitnessesRefused) {
  SNARKD_SKIP_WITHOUT_GPU();
  using E = TypeParam;
  using F = typename E::Fr;
  auto g = snarkd::test::current_test_rng();
  const auto tc = random_circuit<F>(50, g);
  SnarkjsGpuProver<E> prover(0, setup<E>(tc.circuit, g));
  std::vector<F> w = tc.witness;
  w.pop_back();
  EXPECT_THROW(prover.compute_sums(w), InvalidArgument);
  w = tc.witness;
  w[0] = F::zero();
  EXPECT_THROW(prover.compute_sums(w), InvalidArgument);
  expect_same_sums<E>(prover.compute_sums(tc.witness), cpu_sums<E>(prover.key(), tc.witness), "after refusals");
}

// Bellperson keys (densities, n − 1 H points) are prover.hpp's business.
TEST(CudaSnarkjsProverKey, BellpersonKeyRefused) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng("cuda_snarkjs_bellperson");
  const auto tc = random_circuit<ff::Fr>(20, g);
  auto pk = groth16::setup_insecure(tc.circuit, groth16::toxic_waste_from_seed(g()));
  const auto key = groth16::BoundKey::bind(std::move(pk), tc.circuit);
  EXPECT_THROW(SnarkjsDeviceKey<groth16::Bls12_381>(0, *key), InvalidArgument);
  EXPECT_THROW(SnarkjsDeviceKey<groth16::Bls12_381>::region_bytes(*key), InvalidArgument);
}

}  // namespace
}  // namespace snarkd::cuda
