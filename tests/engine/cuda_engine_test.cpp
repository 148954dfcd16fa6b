// The engine on a real GPU (label gpu; skips without one): proofs equal the CPU prover's bytes
// with the same r, s, for a circuit family and a PoRep-shaped synthetic circuit, under an
// ample and a tight ledger with 1–3 workers; keys larger than the device's whole memory stream
// (every part, or part of them) and still give the CPU's bytes; an unsatisfied witness fails
// only its job; a cancel stops a partition inside a fully resident or a streamed step and frees
// its memory and slots.
//
// BN254 (snarkjs keys, cuda/prover_snarkjs.hpp placed in the ledger): a circom-shaped synthetic
// circuit and a circuit family, keyed in-process by the insecure snarkjs setup, prove in
// multi-partition jobs with 2–3 workers exactly as groth16::compute_sums + assemble with the
// same r, s, and every proof verifies; BN254 and BLS12-381 circuits side by side with their jobs
// interleaved; an unsatisfying BN254 witness fails only its job; a BN254 key too large for the
// ledger is refused at register, naming the sizes; a cancelled BN254 job frees its workspaces.
// Seeds: printed, SNARKD_TEST_SEED pins them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "common/bound.hpp"
#include "common/seed.hpp"
#include "engine/fixture.hpp"
#include "snarkd/cuda/prover.hpp"
#include "snarkd/cuda/prover_snarkjs.hpp"
#include "snarkd/engine/cuda_device.hpp"
#include "snarkd/engine/engine.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/r1cs/synthetic.hpp"
#include "snarkd/util/cancel.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::engine {
namespace {

bool have_gpu() { return CudaDevice::count() > 0; }

std::vector<std::unique_ptr<Device>> gpu0(uint64_t ledger_bytes) {
  std::vector<std::unique_ptr<Device>> v;
  v.push_back(std::make_unique<CudaDevice>(0, ledger_bytes));
  return v;
}

// Submits `parts` partitions with fixed r, s and compares every proof with groth16::prove.
void expect_cpu_equal(Engine& e, const std::string& id, const groth16::ProvingKey& pk, const r1cs::Circuit& circuit,
                      const std::vector<std::vector<ff::Fr>>& witnesses, std::mt19937_64& g) {
  JobRequest r;
  r.circuit_id = id;
  r.witnesses.assign(witnesses.begin(), witnesses.end());
  std::vector<groth16::ProofRandomness> rs;
  for (size_t k = 0; k < witnesses.size(); ++k) rs.push_back({ff::Fr::random(g), ff::Fr::random(g)});
  r.randomness.assign(rs.begin(), rs.end());
  const JobResult res = *e.await(e.submit(std::move(r)));
  ASSERT_EQ(res.state, JobState::kDone) << res.error;
  EXPECT_TRUE(res.verified);
  for (size_t k = 0; k < witnesses.size(); ++k) {
    EXPECT_EQ(res.proofs[k], groth16::AnyProof(groth16::prove(*snarkd::test::bind(pk, circuit), witnesses[k], rs[k])))
        << id << " partition " << k;
    // Each partition ran where its working set was reserved, and its compute stage reports the
    // prover's phases (device time from events) which fit inside the stage's host-measured span.
    const PartitionTiming& t = res.timings[k];
    EXPECT_EQ(t.reserved_device, t.device) << id << " partition " << k;
    ASSERT_EQ(t.phases.size(), cuda::kProverPhases) << id << " partition " << k;
    // A streamed one-step partition runs its witness MSMs beside its H MSM (two streams), so the
    // lanes' phases overlap: qap + h + the longer lane fits the span.
    double first = 0, h_lane = 0, w_lane = 0;
    for (size_t p = 0; p < cuda::kProverPhases; ++p) {
      EXPECT_NE(std::find_if(t.phases.begin(), t.phases.end(),
                             [&](const PhaseTime& ph) { return ph.name == cuda::kProverPhaseNames[p]; }),
                t.phases.end())
          << cuda::kProverPhaseNames[p];
      EXPECT_GE(t.phases[p].seconds, 0.0);
      const std::string name = t.phases[p].name;
      (name == "qap" || name == "h" ? first : name == "msm_h" ? h_lane : w_lane) += t.phases[p].seconds;
    }
    EXPECT_LE(first + std::max(h_lane, w_lane), t.computed_s - t.uploaded_s + 1e-3) << id << " partition " << k;
  }
}

// The smallest cap (in steps of 1.25×, from half the key) the circuit loads under on GPU 0; 0 if
// none up to 8× the key.
uint64_t smallest_cap(const std::shared_ptr<const groth16::ProvingKey>& pk,
                      const std::shared_ptr<const r1cs::Circuit>& circuit) {
  const uint64_t key = cuda::DeviceProvingKey::layout_for(*snarkd::test::bind(*pk, *circuit), cuda::KeyResidency{}).total;
  for (uint64_t cap = key / 2; cap < key * 8; cap = cap * 5 / 4) {
    try {
      Engine probe(gpu0(cap), EngineConfig{});
      probe.register_circuit("probe", snarkd::test::bind(*pk, *circuit));
      return cap;
    } catch (const InvalidArgument&) {
    }
  }
  return 0;
}

// Waits until a worker computes one of the job's partitions, cancels the job and waits until
// none of its partitions is on the device; prints how long the stop took.
void cancel_while_computing(Engine& e, JobId id, const char* what) {
  bool computing = false;
  for (int i = 0; i < 60000 && !computing; ++i) {
    for (const WorkerStatus& w : e.stats().workers) computing |= w.job == id && w.stage == "compute";
    if (!computing) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(computing);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(e.cancel(id));
  ASSERT_TRUE(e.wait_stopped(id, std::chrono::seconds(60)));
  std::printf("cancel took %.3f ms to stop %s\n",
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), what);
}

TEST(CudaEngine, ProofsEqualTheCpuProverAmpleAndTightLedger) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  auto g = test::rng("cuda-engine");
  const test::Family fam = test::make_family(24, g());
  r1cs::SyntheticParams sp;
  sp.num_constraints = 4093;
  sp.num_inputs = 9;
  sp.seed = g();
  auto syn = r1cs::generate_synthetic(sp);
  auto syn_circuit = std::make_shared<const r1cs::Circuit>(std::move(syn.circuit));
  auto syn_pk = std::make_shared<const groth16::ProvingKey>(
      groth16::setup_insecure(*syn_circuit, groth16::toxic_waste_from_seed(g())));
  for (uint32_t workers : {1u, 3u}) {
    for (uint64_t ledger : {uint64_t{1} << 30, uint64_t{0}}) {
      uint64_t cap = ledger;
      if (cap == 0) {  // tight: 1.5 working sets of the bigger circuit
        CudaDevice probe(0, uint64_t{1} << 30);
        CircuitEntry ce = CircuitEntry::bound("syn", snarkd::test::bind(*syn_pk, *syn_circuit));
        probe.load(ce);
        cap = probe.working_set_bytes(ce) * 3 / 2;
      }
      EngineConfig ec;
      ec.workers_per_device = workers;
      Engine e(gpu0(cap), ec);
      e.register_circuit("fam", fam.key);
      e.register_circuit("syn", snarkd::test::bind(*syn_pk, *syn_circuit));
      std::printf("workers %u ledger %llu bytes\n", workers, (unsigned long long)cap);
      // Both device paths (cuda::ProverPaths: fused H + one B classification, the old ones); the
      // workers read the switch per proof.
      for (const cuda::ProverPaths paths : {cuda::ProverPaths{true, true, true}, cuda::ProverPaths{false, false, false}}) {
        const cuda::detail::ScopedProverPaths scoped(paths);
        std::printf("  paths: %s\n", paths.fused_h ? "fused H, shared B" : "unfused H, B twice");
        expect_cpu_equal(e, "fam", *fam.pk, *fam.circuit, {fam.witness(1), fam.witness(65535), fam.witness(777)}, g);
        expect_cpu_equal(e, "syn", *syn_pk, *syn_circuit, {syn.witness, syn.witness}, g);
      }
      EXPECT_EQ(e.stats().vram_overcommits, 0u);
      EXPECT_LE(e.stats().peak_vram_bytes, cap);
    }
  }
}

// Every GPU the process sees (the multi-GPU machine; one GPU: the same path with one device):
// one key copy per device, proofs equal the CPU's, no partition leaves its reserving device.
TEST(CudaEngine, AllDevicesProveTheSameBytes) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  auto g = test::rng("cuda-engine-all");
  const test::Family fam = test::make_family(20, g());
  std::vector<std::unique_ptr<Device>> devs;
  for (int d = 0; d < CudaDevice::count(); ++d) devs.push_back(std::make_unique<CudaDevice>(uint32_t(d), uint64_t{1} << 30));
  const size_t n = devs.size();
  EngineConfig ec;
  ec.workers_per_device = 2;
  Engine e(std::move(devs), ec);
  e.register_circuit("fam", fam.key);
  std::vector<std::vector<ff::Fr>> ws;
  for (uint64_t x = 1; x <= 6 * n; ++x) ws.push_back(fam.witness(x * 7919 % 65536));  // x has 16 bits
  expect_cpu_equal(e, "fam", *fam.pk, *fam.circuit, ws, g);
  std::printf("%zu devices\n", n);
  EXPECT_EQ(e.stats().vram_overcommits, 0u);
}

// A device whose whole memory is smaller than the key: the key streams through the slots (all of
// it, or what does not fit beside the working sets) and the proofs are the CPU's bytes; the
// ledger never grants more than the cap, keys and slots included.
TEST(CudaEngine, KeysLargerThanTheDeviceStreamAndProveTheSameBytes) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  auto g = test::rng("cuda-engine-stream");
  r1cs::SyntheticParams sp;
  sp.num_constraints = 20000;
  sp.num_inputs = 7;
  sp.seed = g();
  auto syn = r1cs::generate_synthetic(sp);
  auto circuit = std::make_shared<const r1cs::Circuit>(std::move(syn.circuit));
  auto pk = std::make_shared<const groth16::ProvingKey>(
      groth16::setup_insecure(*circuit, groth16::toxic_waste_from_seed(g())));
  const auto full = cuda::DeviceProvingKey::layout_for(*snarkd::test::bind(*pk, *circuit), cuda::KeyResidency{});
  setenv("SNARKD_SLOT_MIB", "1", 1);  // 1 MiB slots: several chunks per part
  setenv("SNARKD_STREAM_STEPS", "1", 1);  // one step wherever it fits (else two): both drivers run
  for (uint32_t workers : {1u, 3u}) {
    // The smallest cap the circuit loads under, and twice that: everything streamed, then part
    // of the key resident.
    const uint64_t cap = smallest_cap(pk, circuit);
    ASSERT_GT(cap, 0u) << "the circuit did not load under 8× its key";
    // The smallest cap twice: the one step's MSMs one after the other (SNARKD_MSM_LANES=1),
    // then on two streams (the default, also at 2×).
    for (uint64_t c : {cap, cap * 2, cap}) {
      if (c == cap && std::getenv("SNARKD_MSM_LANES")) unsetenv("SNARKD_MSM_LANES");
      else if (c == cap) setenv("SNARKD_MSM_LANES", "1", 1);
      EngineConfig ec;
      ec.workers_per_device = workers;
      Engine e(gpu0(c), ec);
      e.register_circuit("syn", snarkd::test::bind(*pk, *circuit));
      const std::string residency = e.devices()[0]->residency("syn");
      std::printf("workers %u cap %llu bytes (key %llu): %s\n", workers, (unsigned long long)c,
                  (unsigned long long)full.total, residency.c_str());
      if (c == cap) {
        EXPECT_EQ(residency.rfind("streaming", 0), 0u) << residency;
        // The synthetic witness (95 % bits) is read in place in its compact form.
        EXPECT_NE(residency.find("is read in place"), std::string::npos) << residency;
      }
      if (residency.rfind("streaming", 0) != 0) continue;  // fully resident at 2×: covered above
      std::vector<std::vector<ff::Fr>> ws(4, syn.witness);
      for (const bool fast : {true, false}) {  // fused H + B G2's bounds, and the old paths
        const cuda::detail::ScopedProverPaths scoped(cuda::ProverPaths{fast, fast, fast});
        expect_cpu_equal(e, "syn", *pk, *circuit, ws, g);
      }
      const EngineStats st = e.stats();
      EXPECT_EQ(st.vram_overcommits, 0u);
      EXPECT_LE(st.peak_vram_bytes, c);
      const StreamStats ss = e.devices()[0]->stream_stats();
      // A streaming plan can still hold every part (the workers' sets rule out only "full").
      if (residency.find(" 0 bytes streamed") == std::string::npos) {
        EXPECT_GT(ss.fills, 0u);
      }
      EXPECT_GE(ss.leases, ss.fills);
      EXPECT_GT(ss.pinned_host_bytes, 0u);
    }
  }
  unsetenv("SNARKD_SLOT_MIB");
  unsetenv("SNARKD_MSM_LANES");
  unsetenv("SNARKD_STREAM_STEPS");
}

TEST(CudaEngine, UnsatisfiedWitnessFailsOnlyItsJob) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  const test::Family fam = test::make_family(12, 5);
  Engine e(gpu0(uint64_t{1} << 28), EngineConfig{});
  e.register_circuit("fam", fam.key);
  JobRequest bad;
  bad.circuit_id = "fam";
  bad.witnesses = {fam.witness(3), fam.witness(4)};
  std::get<std::vector<ff::Fr>>(bad.witnesses[1])[fam.circuit->num_inputs + 2] += ff::Fr::one();
  JobRequest ok;
  ok.circuit_id = "fam";
  ok.witnesses = {fam.witness(5)};
  const JobId b = e.submit(std::move(bad)), o = e.submit(std::move(ok));
  const JobResult rb = *e.await(b);
  EXPECT_EQ(rb.state, JobState::kFailed);
  EXPECT_NE(rb.error.find("partition 1"), std::string::npos) << rb.error;
  EXPECT_EQ(e.await(o)->state, JobState::kDone);
}

// Cancel on the GPU: prove_on_stream stops at a phase boundary only after its own stream has
// drained (nothing may touch the workspace once the reservation is released), writes no sums,
// and the engine gives the memory back at once and proves the next job's bytes exactly.
TEST(CudaEngine, CancelStopsAtAPhaseBoundaryAndFreesTheWorkspace) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  auto g = test::rng("cuda-engine-cancel");
  const test::Family fam = test::make_family(12, g());
  {
    const cuda::DeviceProvingKey key(0, *snarkd::test::bind(*fam.pk, *fam.circuit));
    cuda::Stream stream;
    cuda::DeviceBuffer<uint8_t> ws(key.workspace_bytes());
    cuda::PinnedBuffer<cuda::DeviceSums> out(1);
    std::memset(static_cast<void*>(out.data()), 0xab, sizeof(cuda::DeviceSums));
    std::stop_source src;
    src.request_stop();
    EXPECT_THROW(cuda::prove_on_stream(key, ws.data(), out.data(), stream, nullptr, src.get_token()), Cancelled);
    EXPECT_EQ(cudaStreamQuery(stream), cudaSuccess) << "work was left on the stream";
    const auto* b = reinterpret_cast<const uint8_t*>(out.data());
    for (size_t i = 0; i < sizeof(cuda::DeviceSums); ++i) ASSERT_EQ(b[i], 0xab) << "sums written after a cancel";
  }
  r1cs::SyntheticParams sp;
  sp.num_constraints = 1 << 16;
  sp.num_inputs = 9;
  sp.seed = g();
  auto syn = r1cs::generate_synthetic(sp);
  auto syn_circuit = std::make_shared<const r1cs::Circuit>(std::move(syn.circuit));
  auto syn_pk = std::make_shared<const groth16::ProvingKey>(
      groth16::setup_insecure(*syn_circuit, groth16::toxic_waste_from_seed(g())));
  EngineConfig ec;
  ec.workers_per_device = 2;
  Engine e(gpu0(uint64_t{1} << 30), ec);
  e.register_circuit("fam", fam.key);
  e.register_circuit("syn", snarkd::test::bind(*syn_pk, *syn_circuit));
  JobRequest r;
  r.circuit_id = "syn";
  r.witnesses.assign(16, syn.witness);
  const JobId id = e.submit(std::move(r));
  ASSERT_NO_FATAL_FAILURE(cancel_while_computing(e, id, "the running partitions"));
  EXPECT_EQ(e.stats().ledgers[0].in_use, 0u);
  e.unregister_circuit("syn");
  expect_cpu_equal(e, "fam", *fam.pk, *fam.circuit, {fam.witness(11), fam.witness(12), fam.witness(13)}, g);
}

// Cancel inside a streamed step: the key streams through 1 MiB slots; a job of many partitions
// is cancelled while one computes (step 0 or 1). Its worker drains its stream before the step
// throws, so the reservation goes back with nothing reading it; no slot lease or subscription is
// left; and the next job on the same streamed key proves the CPU's bytes.
TEST(CudaEngine, CancelInsideAStreamedStepReleasesItsReservationAndSlots) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  auto g = test::rng("cuda-engine-stream-cancel");
  r1cs::SyntheticParams sp;
  sp.num_constraints = 1 << 16;
  sp.num_inputs = 9;
  sp.seed = g();
  auto syn = r1cs::generate_synthetic(sp);
  auto circuit = std::make_shared<const r1cs::Circuit>(std::move(syn.circuit));
  auto pk = std::make_shared<const groth16::ProvingKey>(
      groth16::setup_insecure(*circuit, groth16::toxic_waste_from_seed(g())));
  setenv("SNARKD_SLOT_MIB", "1", 1);
  const uint64_t cap = smallest_cap(pk, circuit);
  ASSERT_GT(cap, 0u);
  EngineConfig ec;
  ec.workers_per_device = 2;
  Engine e(gpu0(cap), ec);
  e.register_circuit("syn", snarkd::test::bind(*pk, *circuit));
  const std::string residency = e.devices()[0]->residency("syn");
  ASSERT_EQ(residency.rfind("streaming", 0), 0u) << residency;
  for (int round = 0; round < 3; ++round) {
    JobRequest r;
    r.circuit_id = "syn";
    r.witnesses.assign(16, syn.witness);
    const JobId id = e.submit(std::move(r));
    bool computing = false;
    for (int i = 0; i < 60000 && !computing; ++i) {
      for (const WorkerStatus& w : e.stats().workers) computing |= w.job == id && w.stage == "compute";
      if (!computing) std::this_thread::sleep_for(std::chrono::milliseconds(1 + round * 7));
    }
    ASSERT_TRUE(computing);
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_TRUE(e.cancel(id));
    ASSERT_TRUE(e.wait_stopped(id, std::chrono::seconds(60)));
    std::printf("round %d: cancel took %.3f ms to stop the streamed partitions\n", round,
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    EXPECT_EQ(e.peek(id).state, JobState::kCancelled);
    EXPECT_EQ(e.stats().ledgers[0].in_use, 0u);
    const StreamStats ss = e.devices()[0]->stream_stats();
    EXPECT_EQ(ss.open_leases, 0u);
    EXPECT_EQ(ss.subscriptions, 0u);
  }
  expect_cpu_equal(e, "syn", *pk, *circuit, {syn.witness, syn.witness}, g);
  EXPECT_EQ(e.stats().vram_overcommits, 0u);
  unsetenv("SNARKD_SLOT_MIB");
}

// ---- BN254 (snarkjs keys) --------------------------------------------------------------------

using groth16::Bn254;
using BnFr = Bn254::Fr;
using BnSnarkjsKey = cuda::SnarkjsDeviceKey<Bn254>;

// A BN254 circuit with its snarkjs key (the insecure setup, in-process) and a witness for each x.
struct BnCircuit {
  groth16::BoundKeyPtr<Bn254> key;
  std::function<std::vector<BnFr>(uint64_t)> witness;
};

BnCircuit bn_key(const r1cs::CircuitT<BnFr>& circuit, uint64_t toxic_seed,
                 std::function<std::vector<BnFr>(uint64_t)> witness) {
  groth16::ZkeyT<Bn254> zk =
      groth16::setup_snarkjs_insecure<Bn254>(circuit, groth16::toxic_waste_from_seed<BnFr>(toxic_seed));
  return {groth16::BoundKeyT<Bn254>::bind(std::move(zk.pk), std::move(zk.circuit)), std::move(witness)};
}

// circom's Poseidon shape (r1cs::circom_poseidon_shape: half the rows linear, squares, random
// field values) over BN254's Fr: one witness, the generator's, whatever x.
BnCircuit bn_synthetic(uint64_t constraints, uint64_t seed) {
  r1cs::SyntheticCircuitT<BnFr> s = r1cs::generate_synthetic<BnFr>(r1cs::circom_poseidon_shape(constraints, 5, seed));
  auto w = std::make_shared<const std::vector<BnFr>>(std::move(s.witness));
  return bn_key(s.circuit, seed + 1, [w](uint64_t) { return *w; });
}

// A circuit with a witness for every public x, so the partitions of a job differ (one proven
// with another's witness would not match the CPU's proof): inputs ONE and x; row r defines aux
// v_r. Every 8th row is a bit row b·b = b with b a bit of x (0/1 values, the witness MSMs'
// ones path); the others v_r = (c·u)·(d·u' + e·u'') over earlier variables and coefficients
// drawn once from the seed. circom's layout (C holds v_r).
BnCircuit bn_family(uint64_t rows, uint64_t seed) {
  struct Def {
    uint32_t u[3];
    BnFr c[3];
    bool bit;
  };
  std::mt19937_64 g(seed);
  std::vector<Def> defs;
  r1cs::CircuitT<BnFr> c;
  c.num_inputs = 2;
  c.num_aux = rows;
  r1cs::CoeffDictionaryT<BnFr> dict;
  auto term = [&](r1cs::CsrMatrix& m, std::vector<std::pair<uint32_t, BnFr>> t) {
    std::sort(t.begin(), t.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (const auto& [col, v] : t) m.col.push_back(col), m.coeff.push_back(dict.intern(v));
    m.row_ptr.push_back(m.col.size());
  };
  for (uint32_t r = 0; r < rows; ++r) {
    const uint32_t v = 2 + r;
    Def d{{uint32_t(g() % v), uint32_t(g() % v), uint32_t(g() % v)}, {BnFr::random(g), BnFr::random(g), BnFr::random(g)},
          r % 8 == 7};
    if (d.bit) {
      term(c.a, {{v, BnFr::one()}}), term(c.b, {{v, BnFr::one()}});
    } else {
      if (d.u[1] == d.u[2]) d.u[2] = (d.u[1] + 1) % v;  // two distinct columns in B
      term(c.a, {{d.u[0], d.c[0]}}), term(c.b, {{d.u[1], d.c[1]}, {d.u[2], d.c[2]}});
    }
    term(c.c, {{v, BnFr::one()}});
    defs.push_back(d);
  }
  c.coeffs = std::move(dict).take();
  auto witness = [defs](uint64_t x) {
    std::vector<BnFr> w = {BnFr::one(), BnFr::from_u64(x)};
    for (size_t r = 0; r < defs.size(); ++r) {
      const Def& d = defs[r];
      w.push_back(d.bit ? BnFr::from_u64((x >> (r / 8 % 64)) & 1)
                        : d.c[0] * w[d.u[0]] * (d.c[1] * w[d.u[1]] + d.c[2] * w[d.u[2]]));
    }
    return w;
  };
  return bn_key(c, seed + 1, witness);
}

// A submitted job with fixed r, s per partition, and what it was submitted with.
template <class E>
struct Pending {
  JobId id = 0;
  std::string circuit;
  groth16::BoundKeyPtr<E> key;
  std::vector<std::vector<typename E::Fr>> witnesses;
  std::vector<groth16::ProofRandomnessT<E>> rs;
};

template <class E>
Pending<E> submit_fixed(Engine& e, const std::string& id, const groth16::BoundKeyPtr<E>& key,
                        std::vector<std::vector<typename E::Fr>> witnesses, std::mt19937_64& g) {
  using F = typename E::Fr;
  Pending<E> p{0, id, key, std::move(witnesses), {}};
  JobRequest r;
  r.circuit_id = id;
  for (const auto& w : p.witnesses) {
    r.witnesses.push_back(w);
    p.rs.push_back({F::random(g), F::random(g)});
    r.randomness.push_back(p.rs.back());
  }
  p.id = e.submit(std::move(r));
  return p;
}

// Awaits the job and checks each partition against the CPU: groth16::compute_sums blinded with
// the partition's r, s is the engine's proof byte for byte (so the device's sums are the CPU's),
// the proof verifies alone against the public inputs the job reports, and the compute stage
// reports the prover's seven phases on the device that reserved its working set.
template <class E>
void expect_cpu_sums(Engine& e, const Pending<E>& p) {
  const JobResult res = *e.await(p.id);
  ASSERT_EQ(res.state, JobState::kDone) << p.circuit << ": " << res.error;
  EXPECT_TRUE(res.verified);
  EXPECT_EQ(res.curve, E::kId);
  ASSERT_EQ(res.proofs.size(), p.witnesses.size());
  for (size_t k = 0; k < p.witnesses.size(); ++k) {
    const std::string what = p.circuit + " job " + std::to_string(p.id) + " partition " + std::to_string(k);
    groth16::ProveTimings t;
    const auto sums = groth16::compute_sums<E>(*p.key, p.witnesses[k], {}, t);
    const groth16::ProofT<E> want = groth16::assemble(p.key->pk().vk, sums, p.rs[k]);
    const groth16::ProofT<E>& got = groth16::as_curve<E>(res.proofs[k], what);
    EXPECT_TRUE(got == want) << what << ": not the CPU's proof";
    const auto inputs = groth16::public_inputs<typename E::Fr>(p.key->circuit(), p.witnesses[k]);
    EXPECT_TRUE(groth16::as_curve<E>(res.public_inputs[k], what) == inputs) << what;
    EXPECT_TRUE(groth16::verify<E>(p.key->pk().vk, got, inputs)) << what;
    const PartitionTiming& pt = res.timings[k];
    EXPECT_EQ(pt.reserved_device, pt.device) << what;
    ASSERT_EQ(pt.phases.size(), cuda::kProverPhases) << what;
    for (size_t ph = 0; ph < cuda::kProverPhases; ++ph) {
      EXPECT_EQ(pt.phases[ph].name, cuda::kProverPhaseNames[ph]) << what;
      EXPECT_GE(pt.phases[ph].seconds, 0.0) << what;
    }
  }
}

std::vector<std::vector<BnFr>> bn_witnesses(const BnCircuit& c, std::initializer_list<uint64_t> xs) {
  std::vector<std::vector<BnFr>> out;
  for (uint64_t x : xs) out.push_back(c.witness(x));
  return out;
}

// Several multi-partition jobs of two BN254 circuits in flight at once, with 2 and 3 workers:
// every proof is the CPU's with the same r, s; the keys are resident in the ledger (their
// region_bytes, counted by stream_stats and given back at unregister); no overcommit.
TEST(CudaEngine, Bn254ProofsEqualTheCpuProver) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  auto g = test::rng("cuda-engine-bn254");
  const BnCircuit syn = bn_synthetic(3000, g());
  const BnCircuit fam = bn_family(2000, g());
  const uint64_t syn_bytes = BnSnarkjsKey::region_bytes(*syn.key), fam_bytes = BnSnarkjsKey::region_bytes(*fam.key);
  for (uint32_t workers : {2u, 3u}) {
    EngineConfig ec;
    ec.workers_per_device = workers;
    Engine e(gpu0(uint64_t{1} << 30), ec);
    e.register_circuit("syn", syn.key);
    e.register_circuit("fam", fam.key);
    Device& d = *e.devices()[0];
    std::printf("workers %u: keys %llu + %llu bytes, working sets %llu + %llu bytes\n  %s\n", workers,
                (unsigned long long)syn_bytes, (unsigned long long)fam_bytes,
                (unsigned long long)BnSnarkjsKey::workspace_layout_for(*syn.key).total,
                (unsigned long long)BnSnarkjsKey::workspace_layout_for(*fam.key).total, d.residency("syn").c_str());
    EXPECT_EQ(d.residency("syn").rfind("fully resident (BN254", 0), 0u) << d.residency("syn");
    EXPECT_EQ(d.stream_stats().key_resident_bytes, syn_bytes + fam_bytes);
    EXPECT_EQ(d.resident_bytes(), syn_bytes + fam_bytes);
    std::vector<Pending<Bn254>> jobs;
    for (uint64_t round = 0; round < 2; ++round) {
      jobs.push_back(submit_fixed<Bn254>(e, "syn", syn.key, bn_witnesses(syn, {0, 0, 0}), g));
      jobs.push_back(submit_fixed<Bn254>(e, "fam", fam.key, bn_witnesses(fam, {3 + round, 1000, 77777, 1u << 20}), g));
      jobs.push_back(submit_fixed<Bn254>(e, "fam", fam.key, bn_witnesses(fam, {5, 6}), g));
    }
    for (const auto& j : jobs) expect_cpu_sums(e, j);
    const EngineStats st = e.stats();
    EXPECT_EQ(st.vram_overcommits, 0u);
    EXPECT_EQ(st.ledgers[0].in_use, 0u);
    EXPECT_LE(st.peak_vram_bytes, uint64_t{1} << 30);
    EXPECT_GT(d.stream_stats().witness_bytes, 0u);
    const uint64_t resident = st.ledgers[0].resident;
    e.unregister_circuit("syn");
    EXPECT_EQ(resident - e.stats().ledgers[0].resident, VramLedger::round_up(syn_bytes));
    EXPECT_EQ(d.stream_stats().key_resident_bytes, fam_bytes);
    expect_cpu_sums(e, submit_fixed<Bn254>(e, "fam", fam.key, bn_witnesses(fam, {8, 9}), g));
  }
}

// A BN254 and a BLS12-381 circuit on one device, jobs of both interleaved in the one queue: each
// proves the CPU's bytes over its own curve; a witness of the other curve is refused at submit.
TEST(CudaEngine, Bn254AndBls12_381CircuitsSideBySide) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  auto g = test::rng("cuda-engine-two-curves");
  const test::Family bls = test::make_family(24, g());
  const BnCircuit bn = bn_family(1500, g());
  EngineConfig ec;
  ec.workers_per_device = 3;
  Engine e(gpu0(uint64_t{1} << 30), ec);
  e.register_circuit("bls", bls.key);
  e.register_circuit("bn", bn.key);
  std::printf("bls: %s\nbn: %s\n", e.devices()[0]->residency("bls").c_str(), e.devices()[0]->residency("bn").c_str());
  std::vector<Pending<groth16::Bls12_381>> bj;
  std::vector<Pending<Bn254>> nj;
  for (uint64_t i = 0; i < 4; ++i) {
    bj.push_back(submit_fixed<groth16::Bls12_381>(e, "bls", bls.key, {bls.witness(100 + i), bls.witness(200 + i)}, g));
    nj.push_back(submit_fixed<Bn254>(e, "bn", bn.key, bn_witnesses(bn, {300 + i, 400 + i, 500 + i}), g));
  }
  for (uint64_t i = 0; i < 4; ++i) {
    expect_cpu_sums(e, bj[i]);
    expect_cpu_sums(e, nj[i]);
  }
  JobRequest wrong;
  wrong.circuit_id = "bn";
  wrong.witnesses.push_back(bls.witness(1));
  EXPECT_THROW(e.submit(std::move(wrong)), InvalidArgument);
  EXPECT_EQ(e.stats().vram_overcommits, 0u);
  EXPECT_EQ(e.stats().ledgers[0].in_use, 0u);
}

// snarkjs keys carry no C matrix, so the device cannot see an unsatisfied row: the proof does
// not verify and the job's self-check fails it, naming the partition. Jobs beside it and after
// it prove as usual.
TEST(CudaEngine, UnsatisfiedBn254WitnessFailsOnlyItsJob) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  auto g = test::rng("cuda-engine-bn254-unsat");
  const BnCircuit bn = bn_family(800, g());
  EngineConfig ec;
  ec.workers_per_device = 2;
  Engine e(gpu0(uint64_t{1} << 28), ec);
  e.register_circuit("bn", bn.key);
  std::vector<BnFr> broken = bn.witness(7);
  // An aux value defined by a product row (bn_family: variable v = 2 + r, row r a bit row when
  // r % 8 == 7): its own row fails whatever the seed. A bit row's variable, 0 here, would become
  // 1 and still satisfy v·v = v, and the witness the whole circuit whenever no later row reads v.
  size_t v = broken.size() / 2;
  if ((v - 2) % 8 == 7) ++v;
  broken[v] += BnFr::one();
  JobRequest bad;
  bad.circuit_id = "bn";
  bad.witnesses = {bn.witness(5), broken, bn.witness(9)};
  const JobId b = e.submit(std::move(bad));
  const auto ok = submit_fixed<Bn254>(e, "bn", bn.key, bn_witnesses(bn, {11, 12}), g);
  const JobResult rb = *e.await(b);
  std::printf("failed job: %s\n", rb.error.c_str());
  EXPECT_EQ(rb.state, JobState::kFailed);
  EXPECT_TRUE(rb.unsatisfied);
  EXPECT_NE(rb.error.find("partition 1"), std::string::npos) << rb.error;
  EXPECT_NE(rb.error.find("do not verify"), std::string::npos) << rb.error;
  expect_cpu_sums(e, ok);
  expect_cpu_sums(e, submit_fixed<Bn254>(e, "bn", bn.key, bn_witnesses(bn, {13, 14, 15}), g));
  EXPECT_EQ(e.stats().failed, 1u);
  EXPECT_EQ(e.stats().ledgers[0].in_use, 0u);
}

// BN254 keys do not stream: a ledger the key alone fills (its slots take 4/27 of it) refuses it
// at register, naming the device, the key's bytes and the ledger's, and keeps nothing of it; a
// ledger with room for the key and one working set beside it takes the same key and proves.
TEST(CudaEngine, Bn254KeyTooLargeForTheLedgerIsRefusedAtRegister) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  auto g = test::rng("cuda-engine-bn254-large");
  const BnCircuit big = bn_synthetic(1 << 14, g());
  const uint64_t key = BnSnarkjsKey::region_bytes(*big.key);
  const uint64_t work = BnSnarkjsKey::workspace_layout_for(*big.key).total;
  {
    Engine e(gpu0(VramLedger::round_up(key)), EngineConfig{});
    const uint64_t resident = e.stats().ledgers[0].resident;
    std::string msg;
    try {
      e.register_circuit("big", big.key);
    } catch (const InvalidArgument& ex) {
      msg = ex.what();
    }
    std::printf("key %llu bytes, working set %llu bytes, ledger %llu bytes: %s\n", (unsigned long long)key,
                (unsigned long long)work, (unsigned long long)e.devices()[0]->pool_bytes(), msg.c_str());
    ASSERT_FALSE(msg.empty()) << "registered";
    for (const std::string& part : {std::string("cuda:0"), std::string("BN254"), std::to_string(key),
                                    std::to_string(e.devices()[0]->pool_bytes()), std::string("do not stream")})
      EXPECT_NE(msg.find(part), std::string::npos) << "'" << part << "' missing from: " << msg;
    EXPECT_TRUE(e.circuits().empty());
    EXPECT_EQ(e.stats().ledgers[0].resident, resident);
    EXPECT_EQ(e.devices()[0]->resident_bytes(), 0u);
  }
  Engine roomy(gpu0(2 * VramLedger::round_up(key + work)), EngineConfig{});
  roomy.register_circuit("big", big.key);
  expect_cpu_sums(roomy, submit_fixed<Bn254>(roomy, "big", big.key, bn_witnesses(big, {0, 0}), g));
}

// A cancel while BN254 partitions compute: the job stops, every workspace goes back to the
// ledger, and the next job proves the CPU's bytes.
TEST(CudaEngine, CancelledBn254JobFreesItsWorkspaces) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  auto g = test::rng("cuda-engine-bn254-cancel");
  const BnCircuit big = bn_synthetic(1 << 16, g());
  const BnCircuit fam = bn_family(500, g());
  EngineConfig ec;
  ec.workers_per_device = 2;
  Engine e(gpu0(uint64_t{1} << 30), ec);
  e.register_circuit("big", big.key);
  e.register_circuit("fam", fam.key);
  JobRequest r;
  r.circuit_id = "big";
  r.witnesses.assign(64, big.witness(0));
  const JobId id = e.submit(std::move(r));
  ASSERT_NO_FATAL_FAILURE(cancel_while_computing(e, id, "the BN254 partitions"));
  EXPECT_EQ(e.peek(id).state, JobState::kCancelled);
  EXPECT_EQ(e.stats().ledgers[0].in_use, 0u);
  expect_cpu_sums(e, submit_fixed<Bn254>(e, "fam", fam.key, bn_witnesses(fam, {21, 22}), g));
  expect_cpu_sums(e, submit_fixed<Bn254>(e, "big", big.key, bn_witnesses(big, {0}), g));
  EXPECT_EQ(e.stats().vram_overcommits, 0u);
}

}  // namespace
}  // namespace snarkd::engine
