// The GPU prover core (cuda/prover.hpp) against its CPU twin groth16::compute_sums: the five
// sums equal exactly (Jacobian equality, each sum named on failure) and, with fixed r, s,
// groth16::assemble gives byte-identical proofs that verify. Fresh random circuits, keys and
// blinding each run (seed printed, SNARKD_TEST_SEED pins it).
//
// Cases: bellperson keys from the insecure setup for synthetic circuits of 1, 31, 1000, 4097,
// 2^14 + 3 constraints and QAPs of exactly 2^10, 2^10 + 1 and 2^11 − 1 rows (domains 2 .. 2^15,
// the NTT's one- and two-pass schedules); snarkjs-flavour keys (full A/B queries with infinity
// for absent variables, n-point H query with an infinity, c = a∘b, shift ω₂ₙ) on the same
// circuits with their own and with random (unsatisfying) witnesses; the real snarkjs zkeys of
// tests/groth16/fixtures; unsatisfied bellperson witnesses refused naming the first failing row
// with the CPU's message; bad keys, witnesses and workspaces refused. SNARKD_TEST_LARGE=1 adds
// a 2^21 domain (the NTT's three-pass schedule), both flavours, and prints the GPU time.
//
// Every stream-ordered run poisons the whole workspace and the host result (0xFF bytes) first
// and goes the engine's way: witness upload on a copy stream, an event, prove on a compute
// stream. Two partitions share one key concurrently on separate streams.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "common/bound.hpp"
#include "common/seed.hpp"
#include "gpu_test_util.hpp"
#include "snarkd/cuda/h_phase.hpp"
#include "snarkd/cuda/msm.hpp"
#include "snarkd/cuda/prover.hpp"
#include "snarkd/ec/fixed_base.hpp"
#include "snarkd/groth16/bellperson_io.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/groth16/qap.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/groth16/zkey.hpp"
#include "snarkd/r1cs/circom.hpp"
#include "snarkd/r1cs/synthetic.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::cuda {
namespace {

using groth16::KeyFlavour;
using groth16::ProvingKey;
using groth16::QuerySums;

r1cs::SyntheticCircuit synthetic(uint64_t constraints, uint64_t inputs, uint64_t seed) {
  r1cs::SyntheticParams p;
  p.num_constraints = constraints;
  p.num_inputs = inputs;
  p.seed = seed;
  return r1cs::generate_synthetic(p);
}

QuerySums cpu_sums(const ProvingKey& pk, const r1cs::Circuit& c, std::span<const ff::Fr> w) {
  groth16::ProveTimings t;
  return groth16::compute_sums(*snarkd::test::bind(pk, c), w, {}, t);
}

void expect_sums_equal(const QuerySums& got, const QuerySums& want, const std::string& what) {
  EXPECT_TRUE(got.a == want.a) << what << ": sum A (Σ w_j·a_j over the A query) differs";
  EXPECT_TRUE(got.b1 == want.b1) << what << ": sum B_G1 (Σ w_j·b_j over the B query) differs";
  EXPECT_TRUE(got.b2 == want.b2) << what << ": sum B_G2 (Σ w_j·b_j over the B query) differs";
  EXPECT_TRUE(got.l == want.l) << what << ": sum L (Σ w_j·l_j over aux) differs";
  EXPECT_TRUE(got.h == want.h) << what << ": sum H (Σ h_i·H_i) differs";
}

// assemble() with the same fixed r, s on both sums: the 192 proof bytes must agree.
void expect_same_proof(const ProvingKey& pk, const QuerySums& got, const QuerySums& want,
                       const groth16::ProofRandomness& rs, const std::string& what) {
  const auto a = groth16::encode_proof(groth16::assemble(pk.vk, got, rs));
  const auto b = groth16::encode_proof(groth16::assemble(pk.vk, want, rs));
  EXPECT_TRUE(a == b) << what << ": proof bytes differ";
}

// One partition the engine's way. Workspace (0xFF) and host result (0xFF bytes) poisoned before
// every run, so nothing left unwritten by the device can pass.
struct Partition {
  DeviceBuffer<uint8_t> workspace;
  PinnedBuffer<ff::Fr> witness;
  PinnedBuffer<DeviceSums> out{1};
  Stream copy, compute;
  Event uploaded, start{true}, stop{true};  // start/stop time the last prove_on_stream

  explicit Partition(const DeviceProvingKey& key) : workspace(key.workspace_bytes()), witness(key.num_vars()) {}

  void enqueue(const DeviceProvingKey& key, std::span<const ff::Fr> w) {
    EXPECT_EQ(w.size(), witness.size());
    std::copy(w.begin(), w.end(), witness.begin());
    std::memset(static_cast<void*>(out.data()), 0xff, sizeof(DeviceSums));
    workspace.fill_bytes(0xff, copy);
    enqueue_witness_upload(key, witness.data(), workspace.data(), copy);
    uploaded.record(copy);
    uploaded.wait_in(compute);
    start.record(compute);
    prove_on_stream(key, workspace.data(), out.data(), compute);
    stop.record(compute);
  }
  QuerySums finish(const DeviceProvingKey& key) {
    compute.synchronize();
    return to_query_sums(key, out[0]);
  }
  QuerySums run(const DeviceProvingKey& key, std::span<const ff::Fr> w) {
    enqueue(key, w);
    return finish(key);
  }
};

// The key's shape as the host sees it, then GPU = CPU on both paths (partition and sync).
// Returns the GPU's sums.
QuerySums expect_matches_cpu(const ProvingKey& pk, const r1cs::Circuit& c, std::span<const ff::Fr> w,
                        const std::string& what, std::mt19937_64& g) {
  const DeviceProvingKey key(0, *snarkd::test::bind(pk, c));
  EXPECT_EQ(key.num_vars(), c.num_vars()) << what;
  EXPECT_EQ(key.domain_size(), pk.domain_size()) << what;
  EXPECT_EQ(key.workspace_bytes() % 256, 0u) << what;
  EXPECT_GT(key.resident_bytes(), 0u) << what;
  const QuerySums want = cpu_sums(pk, c, w);
  Partition part(key);
  QuerySums got;
  // Both device paths (ProverPaths: fused H + one B classification, and the old ones), each
  // against the CPU, on the same poisoned workspace.
  for (const ProverPaths paths : {ProverPaths{true, true}, ProverPaths{false, false}}) {
    const detail::ScopedProverPaths scoped(paths);
    const std::string tag = what + (paths.fused_h ? " [fused H, shared B]" : " [unfused H, B twice]");
    got = part.run(key, w);
    expect_sums_equal(got, want, tag + " (stream-ordered)");
    expect_sums_equal(part.run(key, w), want, tag + " (workspace reused)");
    expect_sums_equal(compute_sums_sync(key, w), want, tag + " (compute_sums_sync)");
    expect_same_proof(pk, got, want, {ff::Fr::random(g), ff::Fr::random(g)}, tag);
  }
  return got;
}

struct Shape {
  uint64_t constraints, inputs;
};
// Bellperson QAP rows = constraints + inputs: 2, 33, 1003, 1024, 1025, 2047, 4102, 16396.
constexpr Shape kShapes[] = {{1, 1}, {31, 2}, {1000, 3}, {1020, 4}, {1021, 4}, {2040, 7}, {4097, 5}, {16387, 9}};

TEST(CudaProver, BellpersonSyntheticMatchesCpu) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng("cuda_prover_bellperson");
  for (const Shape& s : kShapes) {
    const auto sc = synthetic(s.constraints, s.inputs, g());
    const ProvingKey pk = groth16::setup_insecure(sc.circuit, groth16::toxic_waste_from_seed(g()));
    const std::string what = "bellperson m=" + std::to_string(s.constraints) + " inputs=" + std::to_string(s.inputs);
    const QuerySums got = expect_matches_cpu(pk, sc.circuit, sc.witness, what, g);
    // The GPU proof is a valid proof, not only the CPU's bytes.
    const auto proof = groth16::assemble(pk.vk, got, {ff::Fr::random(g), ff::Fr::random(g)});
    EXPECT_TRUE(groth16::verify(pk.vk, proof, groth16::public_inputs(sc.circuit, sc.witness))) << what;
  }
}

// A full query from a density-compacted one: the point at infinity for absent variables.
template <class P>
std::vector<P> expand(const std::vector<P>& points, const r1cs::DensityBitmap& d) {
  std::vector<P> out(d.num_bits, P::infinity());
  size_t k = 0;
  for (uint64_t j = 0; j < d.num_bits; ++j)
    if (d.test(j)) out[j] = points.at(k++);
  EXPECT_EQ(k, points.size());
  return out;
}

// A snarkjs-flavour key for any circuit: the bellperson setup's queries made full, the domain
// of the constraints alone, and an H query of n random points (the first at infinity). Not a
// sound key (its H query is not the odd Lagrange basis), but compute_sums only needs the shape.
ProvingKey snarkjs_flavour_key(const ProvingKey& bp, const r1cs::Circuit& c, std::mt19937_64& g) {
  ProvingKey pk;
  pk.flavour = KeyFlavour::kSnarkjs;
  pk.vk = bp.vk;
  pk.log_domain = groth16::qap_log_domain(c, KeyFlavour::kSnarkjs);
  pk.a = expand(bp.a, bp.a_density);
  pk.b_g1 = expand(bp.b_g1, bp.b_density);
  pk.b_g2 = expand(bp.b_g2, bp.b_density);
  pk.l = bp.l;
  std::vector<ff::Fr> s(pk.domain_size());
  for (auto& x : s) x = ff::Fr::random(g);
  s[0] = ff::Fr::zero();
  pk.h = ec::FixedBaseTable<ec::G1Config>(ec::generator<ec::G1Config>()).mul_many(s);
  (void)groth16::BoundKey::bind(pk, c);  // checks every length
  return pk;
}
ProvingKey snarkjs_flavour_key(const r1cs::Circuit& c, std::mt19937_64& g) {
  return snarkjs_flavour_key(groth16::setup_insecure(c, groth16::toxic_waste_from_seed(g())), c, g);
}

std::vector<ff::Fr> random_witness(uint64_t num_vars, std::mt19937_64& g) {
  std::vector<ff::Fr> w(num_vars);
  for (auto& x : w) x = ff::Fr::random(g);
  w[0] = ff::Fr::one();
  if (num_vars > 2) w[2] = ff::Fr::zero();
  return w;
}

TEST(CudaProver, SnarkjsFlavourMatchesCpu) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng("cuda_prover_snarkjs");
  for (const Shape& s : kShapes) {
    const auto sc = synthetic(s.constraints, s.inputs, g());
    const ProvingKey pk = snarkjs_flavour_key(sc.circuit, g);
    const std::string what = "snarkjs m=" + std::to_string(s.constraints) + " inputs=" + std::to_string(s.inputs);
    expect_matches_cpu(pk, sc.circuit, sc.witness, what, g);
    // c = a∘b: any witness gives sums (no check); random values make every scalar random.
    expect_matches_cpu(pk, sc.circuit, random_witness(sc.circuit.num_vars(), g), what + " random witness", g);
  }
}

// Opt-in (SNARKD_TEST_LARGE=1; minutes: the CPU setup and prover, and the GPU MSM's serial
// buckets on bit witnesses until the split MSM replaces it): a domain of 2^21, where the NTT
// takes its three-pass schedule, both flavours, the snarkjs one also with a random witness.
// Prints the GPU time of each prove_on_stream (kernels already loaded by the earlier tests).
TEST(CudaProver, LargeDomainMatchesCpu) {
  SNARKD_SKIP_WITHOUT_GPU();
  if (std::getenv("SNARKD_TEST_LARGE") == nullptr) GTEST_SKIP() << "set SNARKD_TEST_LARGE=1 to run";
  auto g = snarkd::test::rng("cuda_prover_large");
  const auto sc = synthetic((uint64_t{1} << 20) + 5, 17, g());
  const ProvingKey bp = groth16::setup_insecure(sc.circuit, groth16::toxic_waste_from_seed(g()));
  const ProvingKey sj = snarkjs_flavour_key(bp, sc.circuit, g);
  const auto random_w = random_witness(sc.circuit.num_vars(), g);
  for (const ProvingKey* pk : {&bp, &sj}) {
    ASSERT_EQ(pk->log_domain, 21u);
    const DeviceProvingKey key(0, *snarkd::test::bind(*pk, sc.circuit));
    Partition part(key);
    for (const std::vector<ff::Fr>* w : {&sc.witness, &random_w})
    for (const ProverPaths paths : {ProverPaths{true, true}, ProverPaths{false, false}}) {
      if (pk == &bp && w == &random_w) continue;  // unsatisfying: refused (tested above)
      const detail::ScopedProverPaths scoped(paths);
      const std::string what = std::string(groth16::flavour_name(pk->flavour)) + " m=2^20+5 " +
                               (w == &random_w ? "random witness" : "synthetic witness") +
                               (paths.fused_h ? " [fused]" : " [unfused]");
      const QuerySums got = part.run(key, *w);
      std::printf("[time] %s: prove_on_stream %.1f ms; workspace %.1f MiB, resident key %.1f MiB\n", what.c_str(),
                  part.stop.elapsed_ms_since(part.start), key.workspace_bytes() / 1048576.0,
                  key.resident_bytes() / 1048576.0);
      const QuerySums want = cpu_sums(*pk, sc.circuit, *w);
      expect_sums_equal(got, want, what);
      expect_same_proof(*pk, got, want, {ff::Fr::random(g), ff::Fr::random(g)}, what);
    }
  }
}

// Two partitions in flight at once on their own streams, sharing one resident key.
TEST(CudaProver, ConcurrentPartitionsShareTheKey) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng("cuda_prover_concurrent");
  const auto sc = synthetic(5000, 6, g());
  const ProvingKey pk = snarkjs_flavour_key(sc.circuit, g);
  const DeviceProvingKey key(0, *snarkd::test::bind(pk, sc.circuit));
  const auto w1 = random_witness(sc.circuit.num_vars(), g), w2 = random_witness(sc.circuit.num_vars(), g);
  Partition p1(key), p2(key);
  p1.enqueue(key, w1);
  p2.enqueue(key, w2);
  expect_sums_equal(p2.finish(key), cpu_sums(pk, sc.circuit, w2), "partition 2");
  expect_sums_equal(p1.finish(key), cpu_sums(pk, sc.circuit, w1), "partition 1");
}

// Real snarkjs keys (circom + snarkjs, tests/groth16/fixtures): GPU = CPU for the witness and
// for a corrupted one (nothing checks it before the proof's self-verification).
TEST(CudaProver, ZkeyFixturesMatchCpu) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng("cuda_prover_zkey");
  for (const char* name : {"multiplier", "lincomb"}) {
    const std::string dir = std::string(SNARKD_GROTH16_FIXTURES) + "/" + name + "/" + name;
    groth16::Zkey zk = groth16::read_zkey(dir + ".zkey");
    const std::vector<ff::Fr> w = r1cs::read_wtns(dir + ".wtns");
    (void)groth16::BoundKey::bind(zk.pk, zk.circuit);
    const QuerySums got = expect_matches_cpu(zk.pk, zk.circuit, w, name, g);
    const auto proof = groth16::assemble(zk.pk.vk, got, {ff::Fr::random(g), ff::Fr::random(g)});
    EXPECT_TRUE(groth16::verify(zk.pk.vk, proof, groth16::public_inputs(zk.circuit, w))) << name;
    auto bad = w;
    bad.back() += ff::Fr::one();
    expect_matches_cpu(zk.pk, zk.circuit, bad, std::string(name) + " corrupted witness", g);
  }
}

// The row and message the CPU prover gives, or a failure.
std::pair<uint64_t, std::string> cpu_refusal(const ProvingKey& pk, const r1cs::Circuit& c, std::span<const ff::Fr> w) {
  try {
    cpu_sums(pk, c, w);
  } catch (const groth16::UnsatisfiedWitness& e) {
    return {e.row(), e.what()};
  }
  ADD_FAILURE() << "the CPU prover accepted an unsatisfied witness";
  return {UINT64_MAX, ""};
}

void expect_refusal(const std::function<void()>& f, uint64_t row, const std::string& message, const std::string& what) {
  try {
    f();
    ADD_FAILURE() << what << ": the GPU prover accepted an unsatisfied witness";
  } catch (const groth16::UnsatisfiedWitness& e) {
    EXPECT_EQ(e.row(), row) << what;
    EXPECT_EQ(std::string(e.what()), message) << what;
  }
}

TEST(CudaProver, UnsatisfiedWitnessNamesTheFirstRow) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng("cuda_prover_unsat");
  const auto sc = synthetic(3000, 3, g());
  const ProvingKey pk = groth16::setup_insecure(sc.circuit, groth16::toxic_waste_from_seed(g()));
  const DeviceProvingKey key(0, *snarkd::test::bind(pk, sc.circuit));
  Partition part(key);
  // Row r defines aux r (synthetic.hpp): changing aux values breaks their rows (and later ones
  // that use them); the refusal must name the first, whichever thread finds it.
  const std::vector<std::vector<uint64_t>> cases = {{17}, {2999}, {2500, 40, 1200}, {0}};
  for (const std::vector<uint64_t>& aux : cases) {
    auto w = sc.witness;
    for (uint64_t k : aux) w[sc.circuit.num_inputs + k] += ff::Fr::from_u64(1 + g() % 1000);
    const auto want_row = r1cs::first_unsatisfied(sc.circuit, w);
    ASSERT_TRUE(want_row.has_value());
    const auto [row, message] = cpu_refusal(pk, sc.circuit, w);
    EXPECT_EQ(row, *want_row);
    const std::string what = "aux " + std::to_string(aux[0]) + " changed";
    expect_refusal([&] { compute_sums_sync(key, w); }, row, message, what + " (sync)");
    expect_refusal([&] { part.run(key, w); }, row, message, what + " (stream-ordered)");
  }
  // The partition is still good afterwards.
  expect_sums_equal(part.run(key, sc.witness), cpu_sums(pk, sc.circuit, sc.witness), "after refusals");
}

template <class E>
void expect_throw_with(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one mentioning \"" << needle << "\"";
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(CudaProver, RefusesBadKeysWitnessesAndWorkspaces) {
  SNARKD_SKIP_WITHOUT_GPU();
  auto g = snarkd::test::rng("cuda_prover_bad");
  const auto sc = synthetic(100, 3, g());
  const ProvingKey pk = groth16::setup_insecure(sc.circuit, groth16::toxic_waste_from_seed(g()));
  // A key and circuit that disagree, or a malformed circuit, cannot reach DeviceProvingKey:
  // groth16::BoundKey::bind refuses them (tests/groth16/prover_test.cpp for the lengths).
  r1cs::Circuit broken = sc.circuit;
  broken.a.col[0] = uint32_t(broken.num_vars());
  expect_throw_with<DecodeError>([&] { (void)groth16::BoundKey::bind(pk, broken); }, "circuit:");

  const DeviceProvingKey key(0, *snarkd::test::bind(pk, sc.circuit));
  auto w = sc.witness;
  w.pop_back();
  expect_throw_with<InvalidArgument>([&] { compute_sums_sync(key, w); }, "witness has");
  w = sc.witness;
  w[0] = ff::Fr::from_u64(2);
  expect_throw_with<InvalidArgument>([&] { compute_sums_sync(key, w); }, "witness[0]");
  Partition part(key);
  uint8_t* misaligned = part.workspace.data() + 32;
  expect_throw_with<InvalidArgument>([&] { prove_on_stream(key, misaligned, part.out.data(), part.compute); },
                                     "256-byte aligned");
  expect_throw_with<InvalidArgument>(
      [&] { enqueue_witness_upload(key, part.witness.data(), misaligned, part.copy); }, "256-byte aligned");
  expect_throw_with<InvalidArgument>([&] { prove_on_stream(key, nullptr, part.out.data(), part.compute); }, "null");
  // A witness copied in directly (the engine's chunked upload) is checked on the device.
  std::copy(w.begin(), w.end(), part.witness.begin());
  part.workspace.fill_bytes(0xff, part.compute);
  SNARKD_CUDA_CHECK(cudaMemcpyAsync(part.workspace.data() + key.layout().witness, part.witness.data(),
                                    w.size() * sizeof(ff::Fr), cudaMemcpyHostToDevice, part.compute));
  prove_on_stream(key, part.workspace.data(), part.out.data(), part.compute);
  part.compute.synchronize();
  expect_throw_with<InvalidArgument>([&] { to_query_sums(key, part.out[0]); }, "witness[0]");
  // The H helper refuses a scratch smaller than it needs (before enqueueing anything).
  const ProverWorkspaceLayout& wl = key.layout();
  auto* ws = reinterpret_cast<Fr*>(part.workspace.data());
  Fr *a = ws + wl.a / sizeof(Fr), *b = ws + wl.b / sizeof(Fr), *c = ws + wl.c / sizeof(Fr);
  for (const ProverPaths paths : {ProverPaths{true, true}, ProverPaths{false, false}})
    expect_throw_with<InvalidArgument>(
        [&] {
          enqueue_h_scalars(key, a, b, c, part.workspace.data() + wl.ntt_scratch, wl.ntt_scratch_bytes - 256,
                            part.compute, paths);
        },
        "enqueue_h_scalars: scratch");
  // Nothing was enqueued by the refusals: the partition still proves.
  expect_sums_equal(part.run(key, sc.witness), cpu_sums(pk, sc.circuit, sc.witness), "after refusals");
}

// Host only: the path switches (the override nests and restores) and the H scratch, which covers
// both paths (h_phase's, and the unfused transforms').
TEST(CudaProverPaths, OverrideNestsAndScratchCoversBothPaths) {
  const ProverPaths from_env = prover_paths();
  {
    const detail::ScopedProverPaths outer(ProverPaths{false, true});
    EXPECT_EQ(prover_paths(), (ProverPaths{false, true}));
    {
      const detail::ScopedProverPaths inner(ProverPaths{true, false});
      EXPECT_EQ(prover_paths(), (ProverPaths{true, false}));
      const detail::ScopedProverPaths plain_h(ProverPaths{false, false, false, true});
      EXPECT_EQ(prover_paths(), (ProverPaths{false, false, false, true}));
    }
    EXPECT_EQ(prover_paths(), (ProverPaths{false, true}));
  }
  EXPECT_EQ(prover_paths(), from_env);
  for (uint32_t k = 0; k <= NttTables::kMaxLogN; ++k) {
    EXPECT_GE(h_scalars_scratch_bytes(k), ntt_scratch_bytes(k)) << "2^" << k;
    EXPECT_EQ(h_scalars_scratch_bytes(k), h_phase_scratch_bytes(k, k)) << "2^" << k;
  }
}

// The H MSM's kind follows the workspace: sized under h_msm_plain, a 2^24-point H's workspace holds
// the plain MSM's scratch (G1's batch-affine lanes), which the group's default kind does not need.
// (The scratch sizes ask CUB for its sort's temp, so this needs a device.)
TEST(CudaProverPaths, PlainHMsmSizesTheWorkspace) {
  SNARKD_SKIP_WITHOUT_GPU();
  constexpr uint64_t kH = uint64_t{1} << 24;
  const uint64_t plain = msm_scratch_bytes<Fp>(kH, MsmOptions{});
  ASSERT_GT(plain, msm_scratch_bytes<Fp>(kH, group_default_options<Fp>()));
  for (const bool p : {false, true}) {
    const detail::ScopedProverPaths scoped(ProverPaths{true, true, true, p});
    EXPECT_EQ(detail::prover_msm_scratch_bytes(1, 1, 1, kH) >= plain, p) << "h_msm_plain " << p;
  }
}

}  // namespace
}  // namespace snarkd::cuda
