// The engine on a real GPU (label gpu; skips without one): proofs equal the CPU prover's bytes
// with the same r, s, for a circuit family and a PoRep-shaped synthetic circuit, under an
// ample and a tight ledger with 1–3 workers; keys larger than the device's whole memory stream
// (every part, or part of them) and still give the CPU's bytes; an unsatisfied witness fails
// only its job; a cancel stops a partition inside a fully resident or a streamed step and frees
// its memory and slots.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "common/bound.hpp"
#include "common/seed.hpp"
#include "engine/fixture.hpp"
#include "snarkd/cuda/prover.hpp"
#include "snarkd/engine/cuda_device.hpp"
#include "snarkd/engine/engine.hpp"
#include "snarkd/groth16/prover.hpp"
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
  r.witnesses = witnesses;
  for (size_t k = 0; k < witnesses.size(); ++k) r.randomness.push_back({ff::Fr::random(g), ff::Fr::random(g)});
  const auto rs = r.randomness;
  const JobResult res = *e.await(e.submit(std::move(r)));
  ASSERT_EQ(res.state, JobState::kDone) << res.error;
  EXPECT_TRUE(res.verified);
  for (size_t k = 0; k < witnesses.size(); ++k) {
    EXPECT_EQ(res.proofs[k], groth16::prove(*snarkd::test::bind(pk, circuit), witnesses[k], rs[k])) << id << " partition " << k;
    // Each partition ran where its working set was reserved, and its compute stage reports the
    // prover's phases (device time from events) which fit inside the stage's host-measured span.
    const PartitionTiming& t = res.timings[k];
    EXPECT_EQ(t.reserved_device, t.device) << id << " partition " << k;
    ASSERT_EQ(t.phases.size(), cuda::kProverPhases) << id << " partition " << k;
    double sum = 0;
    for (size_t p = 0; p < cuda::kProverPhases; ++p) {
      EXPECT_NE(std::find_if(t.phases.begin(), t.phases.end(),
                             [&](const PhaseTime& ph) { return ph.name == cuda::kProverPhaseNames[p]; }),
                t.phases.end())
          << cuda::kProverPhaseNames[p];
      EXPECT_GE(t.phases[p].seconds, 0.0);
      sum += t.phases[p].seconds;
    }
    EXPECT_LE(sum, t.computed_s - t.uploaded_s + 1e-3) << id << " partition " << k;
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
      for (const cuda::ProverPaths paths : {cuda::ProverPaths{true, true}, cuda::ProverPaths{false, false}}) {
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
      }
      if (residency.rfind("streaming", 0) != 0) continue;  // fully resident at 2×: covered above
      std::vector<std::vector<ff::Fr>> ws(4, syn.witness);
      for (const bool fast : {true, false}) {  // fused H + B G2's bounds, and the old paths
        const cuda::detail::ScopedProverPaths scoped(cuda::ProverPaths{fast, fast});
        expect_cpu_equal(e, "syn", *pk, *circuit, ws, g);
      }
      const EngineStats st = e.stats();
      EXPECT_EQ(st.vram_overcommits, 0u);
      EXPECT_LE(st.peak_vram_bytes, c);
      const StreamStats ss = e.devices()[0]->stream_stats();
      EXPECT_GT(ss.fills, 0u);
      EXPECT_GE(ss.leases, ss.fills);
      EXPECT_GT(ss.pinned_host_bytes, 0u);
    }
  }
  unsetenv("SNARKD_SLOT_MIB");
  unsetenv("SNARKD_MSM_LANES");
}

TEST(CudaEngine, UnsatisfiedWitnessFailsOnlyItsJob) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  const test::Family fam = test::make_family(12, 5);
  Engine e(gpu0(uint64_t{1} << 28), EngineConfig{});
  e.register_circuit("fam", fam.key);
  JobRequest bad;
  bad.circuit_id = "fam";
  bad.witnesses = {fam.witness(3), fam.witness(4)};
  bad.witnesses[1][fam.circuit->num_inputs + 2] += ff::Fr::one();
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
  bool computing = false;
  for (int i = 0; i < 60000 && !computing; ++i) {
    for (const WorkerStatus& w : e.stats().workers) computing |= w.job == id && w.stage == "compute";
    if (!computing) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(computing);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(e.cancel(id));
  ASSERT_TRUE(e.wait_stopped(id, std::chrono::seconds(60)));
  std::printf("cancel took %.3f ms to stop the running partitions\n",
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
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

}  // namespace
}  // namespace snarkd::engine
