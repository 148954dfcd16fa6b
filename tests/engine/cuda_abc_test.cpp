// The engine's a/b/c form on a real GPU (label gpu; skips without one): for synthetic circuits
// of 2^10 … 2^16 domains, a key registered alone (points and tables placed by AbcDeviceKey) and
// the same key bound to its circuit (the a/b/c path over the fully resident DeviceProvingKey)
// give groth16::prove_abc's bytes for the same inputs and r, s, for several partitions on 1 or 3
// workers; the cuda layer's five sums equal the CPU twin's one by one (a mismatch names its
// phase); borrowed arrays may be freed after await_consumed; an unsatisfied row fails its job
// naming the row; a cancel frees the reservation.
#include <gtest/gtest.h>

#include <thread>

#include "common/bound.hpp"
#include "common/seed.hpp"
#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/cuda/prover.hpp"
#include "snarkd/cuda/prover_abc.hpp"
#include "snarkd/engine/cuda_device.hpp"
#include "snarkd/engine/engine.hpp"
#include "snarkd/groth16/prove_abc.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/r1cs/synthetic.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::engine {
namespace {

using groth16::BellpersonSynthesis;

struct Shape {
  std::shared_ptr<const r1cs::Circuit> circuit;
  std::shared_ptr<const groth16::BoundKey> key;
  std::shared_ptr<const groth16::ProvingKey> pk, bare;  // bound; as a .params file gives it
  std::vector<std::shared_ptr<const BellpersonSynthesis>> syn;
};

// A synthetic circuit filling most of a 2^log_n domain (the input rows included), its key and
// `parts` partitions of its assignment.
Shape make_shape(uint32_t log_n, size_t parts, uint64_t seed) {
  r1cs::SyntheticParams p;
  p.num_inputs = 3;
  p.num_constraints = (uint64_t{1} << log_n) * 3 / 4;
  p.seed = seed;
  auto sc = r1cs::generate_synthetic(p);
  Shape s;
  s.circuit = std::make_shared<const r1cs::Circuit>(sc.circuit);
  auto pk = std::make_shared<groth16::ProvingKey>(groth16::setup_insecure(sc.circuit, groth16::toxic_waste_from_seed(seed)));
  s.pk = pk;
  s.key = groth16::BoundKey::bind(*pk, sc.circuit);
  auto bare = std::make_shared<groth16::ProvingKey>(*pk);
  bare->a_density = {};
  bare->b_density = {};
  s.bare = bare;
  // One assignment per shape (a synthetic circuit has one witness); the partitions differ by r, s.
  const auto syn = std::make_shared<const BellpersonSynthesis>(groth16::synthesize_bellperson(*s.circuit, sc.witness));
  s.syn.assign(parts, syn);
  return s;
}

std::unique_ptr<Engine> gpu_engine(uint32_t workers, uint64_t ledger_bytes = uint64_t{8} << 30) {
  std::vector<std::unique_ptr<Device>> v;
  v.push_back(std::make_unique<CudaDevice>(0, ledger_bytes));
  EngineConfig cfg;
  cfg.workers_per_device = workers;
  return std::make_unique<Engine>(std::move(v), cfg);
}

void expect_reference(Engine& e, const std::string& id, const Shape& s, std::mt19937_64& g) {
  JobRequest r;
  r.circuit_id = id;
  std::vector<groth16::ProofRandomness> rs;
  for (const auto& syn : s.syn) {
    r.abc.push_back(AbcPartition{syn->view(), syn});
    rs.push_back({ff::Fr::random(g), ff::Fr::random(g)});
  }
  r.randomness.assign(rs.begin(), rs.end());
  const JobResult res = *e.await(e.submit(std::move(r)));
  ASSERT_EQ(res.state, JobState::kDone) << res.error;
  EXPECT_TRUE(res.verified);
  for (size_t k = 0; k < s.syn.size(); ++k) {
    EXPECT_EQ(res.proofs[k], groth16::AnyProof(groth16::prove_abc(*s.bare, s.syn[k]->view(), rs[k])))
        << id << " partition " << k;
    EXPECT_EQ(res.timings[k].phases.size(), cuda::kProverPhases);
  }
}

TEST(CudaAbc, ProofsEqualTheCpuReferenceFrom2To10To2To16) {
  if (CudaDevice::count() == 0) GTEST_SKIP() << "no CUDA device";
  auto g = test::rng("cuda_abc_ref");
  for (uint32_t log_n : {10u, 12u, 14u, 16u}) {
    const Shape s = make_shape(log_n, 3, g());
    for (uint32_t workers : {1u, 3u}) {
      auto e = gpu_engine(workers);
      e->register_abc_key("srs", s.bare);
      e->register_circuit("bound", s.key);
      SCOPED_TRACE("2^" + std::to_string(log_n) + ", " + std::to_string(workers) + " workers");
      expect_reference(*e, "srs", s, g);
      expect_reference(*e, "bound", s, g);
      const EngineStats st = e->stats();
      EXPECT_EQ(st.vram_overcommits, 0u);
      EXPECT_EQ(st.deadlocks, 0u);
    }
  }
}

// The cuda layer alone (cuda::compute_sums_abc_sync): each of the five sums equals
// groth16::compute_sums_abc's, so a mismatch names the phase (A, B, L: gather and index
// expansion; H: the row data, the NTTs).
TEST(CudaAbc, EachSumEqualsTheCpuTwin) {
  if (CudaDevice::count() == 0) GTEST_SKIP() << "no CUDA device";
  auto g = test::rng("cuda_abc_sums");
  for (uint32_t log_n : {10u, 13u}) {
    const Shape s = make_shape(log_n, 1, g());
    const cuda::AbcDeviceKey key(0, *s.bare);
    const groth16::QuerySums got = cuda::compute_sums_abc_sync(key, *s.bare, s.syn[0]->view());
    groth16::ProveTimings t;
    const groth16::QuerySums want = groth16::compute_sums_abc(*s.bare, s.syn[0]->view(), "assignment", {}, t);
    SCOPED_TRACE("2^" + std::to_string(log_n));
    EXPECT_TRUE(got.a == want.a) << "A";
    EXPECT_TRUE(got.b1 == want.b1) << "B_G1";
    EXPECT_TRUE(got.b2 == want.b2) << "B_G2";
    EXPECT_TRUE(got.l == want.l) << "L";
    EXPECT_TRUE(got.h == want.h) << "H";
  }
}

TEST(CudaAbc, BorrowedArraysUnsatisfiedRowsAndCancel) {
  if (CudaDevice::count() == 0) GTEST_SKIP() << "no CUDA device";
  auto g = test::rng("cuda_abc_misc");
  const Shape s = make_shape(12, 2, g());
  auto e = gpu_engine(2);
  e->register_abc_key("srs", s.bare);
  // Borrowed: the caller's copies are poisoned as soon as await_consumed returns.
  std::vector<BellpersonSynthesis> mine = {*s.syn[0], *s.syn[1]};
  JobRequest r;
  r.circuit_id = "srs";
  for (const auto& m : mine) r.abc.push_back(AbcPartition{m.view(), nullptr});
  r.randomness = {groth16::ProofRandomness{ff::Fr::from_u64(1), ff::Fr::from_u64(2)},
                  groth16::ProofRandomness{ff::Fr::from_u64(3), ff::Fr::from_u64(4)}};
  const JobId id = e->submit(std::move(r));
  e->await_consumed(id);
  for (auto& m : mine)
    for (auto* v : {&m.a, &m.b, &m.c, &m.aux}) std::fill(v->begin(), v->end(), ff::Fr::from_u64(9));
  const JobResult res = *e->await(id);
  ASSERT_EQ(res.state, JobState::kDone) << res.error;
  EXPECT_EQ(res.proofs[1],
            groth16::AnyProof(groth16::prove_abc(*s.bare, s.syn[1]->view(), {ff::Fr::from_u64(3), ff::Fr::from_u64(4)})));
  // An unsatisfied row: the device's check names it.
  auto bad = std::make_shared<BellpersonSynthesis>(*s.syn[0]);
  bad->c[17] += ff::Fr::one();
  JobRequest rb;
  rb.circuit_id = "srs";
  rb.abc.push_back(AbcPartition{bad->view(), bad});
  const JobResult rbad = *e->await(e->submit(std::move(rb)));
  EXPECT_EQ(rbad.state, JobState::kFailed);
  EXPECT_TRUE(rbad.unsatisfied);
  EXPECT_NE(rbad.error.find("row 17"), std::string::npos) << rbad.error;
  // Cancel: whatever stage it is in, the job stops and its memory goes back.
  JobRequest rc;
  rc.circuit_id = "srs";
  for (int k = 0; k < 8; ++k) rc.abc.push_back(AbcPartition{s.syn[0]->view(), s.syn[0]});
  const JobId cid = e->submit(std::move(rc));
  e->cancel(cid);
  ASSERT_TRUE(e->wait_stopped(cid, std::chrono::seconds(60)));
  EXPECT_EQ(e->stats().ledgers[0].in_use, 0u);
  e->unregister_circuit("srs");
}

}  // namespace
}  // namespace snarkd::engine
