// The engine's a/b/c job form (bellperson's synthesis result: no SpMV on the device) on the CPU
// and simulated devices: the proofs are groth16::prove_abc's bytes for the same inputs and r, s
// (one assembly, one H path), the self-check accepts them, a key registered without its circuit
// serves the form, borrowed arrays are consumed before await_consumed returns, device pins hold,
// bad partitions are refused naming the partition, an unsatisfied one fails its job, and a
// cancel stops the form inside its compute stage.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "common/bound.hpp"
#include "common/seed.hpp"
#include "engine/fixture.hpp"
#include "snarkd/engine/cpu_device.hpp"
#include "snarkd/engine/engine.hpp"
#include "snarkd/engine/sim_device.hpp"
#include "snarkd/groth16/bellperson_io.hpp"
#include "snarkd/groth16/prove_abc.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::engine {
namespace {

using namespace std::chrono_literals;
using groth16::BellpersonSynthesis;
using groth16::ProofRandomness;

const test::Family& family() {
  static const test::Family f = test::make_family(20, 11);
  return f;
}

// The key as a .params file gives it: no densities (they come with each partition).
std::shared_ptr<const groth16::ProvingKey> bare_key() {
  static const auto k = [] {
    auto pk = std::make_shared<groth16::ProvingKey>(*family().pk);
    pk->a_density = {};
    pk->b_density = {};
    return std::shared_ptr<const groth16::ProvingKey>(pk);
  }();
  return k;
}

std::shared_ptr<const BellpersonSynthesis> synthesis(uint64_t x) {
  return std::make_shared<const BellpersonSynthesis>(groth16::synthesize_bellperson(*family().circuit, family().witness(x)));
}

AbcPartition owned(std::shared_ptr<const BellpersonSynthesis> s) { return AbcPartition{s->view(), s}; }

std::vector<std::unique_ptr<Device>> devices(const std::string& kind, uint32_t count = 1, double compute_s = 0) {
  std::vector<std::unique_ptr<Device>> d;
  for (uint32_t k = 0; k < count; ++k) {
    if (kind == "cpu") {
      d.push_back(std::make_unique<CpuDevice>(k, uint64_t{1} << 30));
    } else {
      SimDeviceConfig cfg;
      cfg.index = k;
      cfg.compute_s = compute_s;
      d.push_back(std::make_unique<SimDevice>(cfg));
    }
  }
  return d;
}

std::unique_ptr<Engine> make_engine(const std::string& kind, uint32_t count = 1, uint32_t workers = 2, double compute_s = 0) {
  EngineConfig cfg;
  cfg.workers_per_device = workers;
  auto e = std::make_unique<Engine>(devices(kind, count, compute_s), cfg);
  e->register_abc_key("srs", bare_key());           // the SRS alone: a/b/c only
  e->register_circuit("fam", family().key);  // a bound key: both forms
  return e;
}

class AbcForm : public ::testing::TestWithParam<std::string> {};

TEST_P(AbcForm, ProofsAreTheCpuReferenceBytesAndVerify) {
  auto g = test::rng("engine_abc_ref_" + GetParam());
  auto e = make_engine(GetParam(), 2);
  for (const char* id : {"srs", "fam"}) {
    JobRequest req;
    req.circuit_id = id;
    std::vector<std::shared_ptr<const BellpersonSynthesis>> syn;
    for (uint64_t k = 0; k < 4; ++k) {
      syn.push_back(synthesis(g() % 1000));
      req.abc.push_back(owned(syn.back()));
      req.randomness.push_back(ProofRandomness{ff::Fr::random(g), ff::Fr::random(g)});
    }
    const std::vector<ProofRandomness> rs = test::bls_all(req.randomness);
    const JobResult r = *e->await(e->submit(std::move(req)));
    ASSERT_EQ(r.state, JobState::kDone) << r.error;
    EXPECT_TRUE(r.verified);
    ASSERT_EQ(r.proofs.size(), syn.size());
    for (size_t k = 0; k < syn.size(); ++k) {
      const groth16::Proof want = groth16::prove_abc(*bare_key(), syn[k]->view(), rs[k]);
      EXPECT_EQ(groth16::encode_proof(test::bls(r.proofs[k])), groth16::encode_proof(want)) << id << " partition " << k;
      EXPECT_EQ(test::bls(r.public_inputs[k]), std::vector<ff::Fr>(syn[k]->inputs.begin() + 1, syn[k]->inputs.end()));
      EXPECT_TRUE(groth16::verify(bare_key()->vk, test::bls(r.proofs[k]), test::bls(r.public_inputs[k])));
    }
  }
  // The witness form of the same circuit, same r, s: the same bytes (prove = prove_abc ∘ SpMV).
  JobRequest w;
  w.circuit_id = "fam";
  w.witnesses.push_back(family().witness(77));
  w.randomness.push_back(ProofRandomness{ff::Fr::from_u64(3), ff::Fr::from_u64(4)});
  const JobResult rw = *e->await(e->submit(std::move(w)));
  ASSERT_EQ(rw.state, JobState::kDone) << rw.error;
  EXPECT_EQ(test::bls(rw.proofs[0]), groth16::prove_abc(*bare_key(), synthesis(77)->view(), {ff::Fr::from_u64(3), ff::Fr::from_u64(4)}));
  const EngineStats s = e->stats();
  EXPECT_EQ(s.vram_overcommits, 0u);
  EXPECT_EQ(s.host_in_use_bytes, 0u);
}

TEST_P(AbcForm, BorrowedArraysAreConsumedBeforeAwaitConsumedReturns) {
  auto e = make_engine(GetParam());
  std::vector<BellpersonSynthesis> mine;
  for (uint64_t x : {5, 6, 7}) mine.push_back(*synthesis(x));
  JobRequest req;
  req.circuit_id = "srs";
  for (const auto& s : mine) req.abc.push_back(AbcPartition{s.view(), nullptr});
  for (uint64_t k = 0; k < mine.size(); ++k) req.randomness.push_back(ProofRandomness{ff::Fr::from_u64(k + 1), ff::Fr::from_u64(9)});
  const JobId id = e->submit(std::move(req));
  e->await_consumed(id);
  // The caller's arrays are free again: poison them (a proof read after this would not verify).
  for (auto& s : mine)
    for (auto* v : {&s.a, &s.b, &s.c, &s.aux}) std::fill(v->begin(), v->end(), ff::Fr::from_u64(5));
  const JobResult r = *e->await(id);
  ASSERT_EQ(r.state, JobState::kDone) << r.error;
  for (uint64_t k = 0; k < 3; ++k)
    EXPECT_EQ(test::bls(r.proofs[k]), groth16::prove_abc(*bare_key(), synthesis(5 + k)->view(), {ff::Fr::from_u64(k + 1), ff::Fr::from_u64(9)}));
}

TEST_P(AbcForm, APinnedJobRunsOnItsDeviceOnly) {
  auto e = make_engine(GetParam(), 2);
  JobRequest req;
  req.circuit_id = "srs";
  req.device = 1;
  for (uint64_t x : {1, 2, 3, 4, 5}) req.abc.push_back(owned(synthesis(x)));
  const JobResult r = *e->await(e->submit(std::move(req)));
  ASSERT_EQ(r.state, JobState::kDone) << r.error;
  for (const PartitionTiming& t : r.timings) {
    EXPECT_EQ(t.device, 1u);
    EXPECT_EQ(t.reserved_device, 1u);
  }
  JobRequest bad;
  bad.circuit_id = "srs";
  bad.device = 2;
  bad.abc.push_back(owned(synthesis(1)));
  EXPECT_THROW(e->submit(std::move(bad)), InvalidArgument);
}

// Submit must refuse it with InvalidArgument naming `needle`.
void expect_refused(Engine& e, JobRequest req, const std::string& needle) {
  try {
    e.submit(std::move(req));
    ADD_FAILURE() << "accepted; wanted an error naming " << needle;
  } catch (const InvalidArgument& ex) {
    EXPECT_NE(std::string(ex.what()).find(needle), std::string::npos) << ex.what();
  }
}

TEST_P(AbcForm, BadPartitionsAreRefusedAndUnsatisfiedOnesFail) {
  auto e = make_engine(GetParam());
  auto one = [](const char* id, std::function<void(BellpersonSynthesis&, groth16::AbcAssignment&)> f) {
    auto s = std::make_shared<BellpersonSynthesis>(*synthesis(8));
    AbcPartition p{s->view(), s};
    f(*s, p.view);
    JobRequest req;
    req.circuit_id = id;
    req.abc.push_back(owned(synthesis(9)));
    req.abc.push_back(p);
    return req;
  };
  using B = BellpersonSynthesis;
  using V = groth16::AbcAssignment;
  expect_refused(*e, one("srs", [](B&, V& v) { v.a_aux.popcount += 1; }), "partition 1.a_aux_popcount is");
  expect_refused(*e, one("srs", [](B&, V& v) { v.aux = v.aux.first(v.aux.size() - 1); }), "partition 1.aux_assignment_size");
  expect_refused(*e, one("srs", [](B&, V& v) { v.b = v.b.first(1); }), "a, b, c differ in length");
  JobRequest w;
  w.circuit_id = "srs";
  w.witnesses.push_back(family().witness(1));
  expect_refused(*e, std::move(w), "registered without a circuit");
  JobRequest rs = one("srs", [](B&, V&) {});
  rs.randomness.resize(1);
  expect_refused(*e, std::move(rs), "randomness for 1 partitions");
  // Sizes right, values wrong: c[0] ≠ a[0]·b[0] fails the job (unsatisfied), the engine goes on.
  auto s = std::make_shared<BellpersonSynthesis>(*synthesis(8));
  s->c[0] += ff::Fr::one();
  JobRequest req;
  req.circuit_id = "srs";
  req.abc.push_back(AbcPartition{s->view(), s});
  const JobResult r = *e->await(e->submit(std::move(req)));
  EXPECT_EQ(r.state, JobState::kFailed);
  EXPECT_TRUE(r.unsatisfied);
  EXPECT_NE(r.error.find("row 0"), std::string::npos) << r.error;
  JobRequest ok;
  ok.circuit_id = "srs";
  ok.abc.push_back(owned(synthesis(3)));
  EXPECT_EQ(e->await(e->submit(std::move(ok)))->state, JobState::kDone);
}

INSTANTIATE_TEST_SUITE_P(Devices, AbcForm, ::testing::Values("cpu", "sim"));

TEST(AbcFormCancel, StopsInsideTheSimulatedComputeStage) {
  auto e = make_engine("sim", 1, 1, 600);  // a compute stage no test may wait out
  JobRequest req;
  req.circuit_id = "srs";
  req.abc.push_back(owned(synthesis(4)));
  const JobId id = e->submit(std::move(req));
  e->await_consumed(id);  // uploaded: the partition is in (or about to enter) its compute stage
  bool computing = false;
  for (auto end = std::chrono::steady_clock::now() + 60s; !computing && std::chrono::steady_clock::now() < end;) {
    for (const WorkerStatus& w : e->stats().workers) computing |= w.job == id && w.stage == "compute";
    if (!computing) std::this_thread::sleep_for(1ms);
  }
  ASSERT_TRUE(computing);
  EXPECT_TRUE(e->cancel(id));
  ASSERT_TRUE(e->wait_stopped(id, 60s)) << "the a/b/c partition computed on after the cancel";
  EXPECT_EQ(e->peek(id).state, JobState::kCancelled);
  EXPECT_EQ(e->stats().ledgers[0].in_use, 0u);
  e->unregister_circuit("srs");
}

TEST(AbcFormRegister, OnlyBellpersonKeysComeWithoutACircuit) {
  EngineConfig cfg;
  Engine e(devices("cpu"), cfg);
  auto pk = std::make_shared<groth16::ProvingKey>(*family().pk);
  pk->flavour = groth16::KeyFlavour::kSnarkjs;
  EXPECT_THROW(e.register_abc_key("zkey", pk), InvalidArgument);
  EXPECT_THROW(e.register_abc_key("none", nullptr), InvalidArgument);
}

}  // namespace
}  // namespace snarkd::engine
