// The engine over both curves: BN254 (circom/snarkjs) keys beside BLS12-381 ones, on the CPU and
// the simulated device. A circuit runs only on devices that prove its curve (a device that does
// not is skipped, or the key refused when none does), its proofs equal the CPU prover's with the
// same randomness, and a value of the wrong curve is refused by name.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "common/seed.hpp"
#include "engine/fixture.hpp"
#include "engine/sim_wrapper.hpp"
#include "snarkd/engine/cpu_device.hpp"
#include "snarkd/engine/engine.hpp"
#include "snarkd/engine/sim_device.hpp"
#include "snarkd/groth16/any_curve.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/groth16/zkey.hpp"
#include "snarkd/r1cs/synthetic.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::engine {
namespace {

using groth16::Bn254;
using BnFr = Bn254::Fr;

// A circom-shaped BN254 circuit, its snarkjs key (insecure setup) and a satisfying witness.
struct BnCircuit {
  std::shared_ptr<const groth16::BoundKeyT<Bn254>> key;
  std::vector<BnFr> witness;
};

const BnCircuit& bn_circuit() {
  static const BnCircuit c = [] {
    const uint64_t seed = test::rng("engine-curves-circuit")();
    r1cs::SyntheticCircuitT<BnFr> s =
        r1cs::generate_synthetic<BnFr>(r1cs::circom_poseidon_shape(300, 3, seed));
    groth16::ZkeyT<Bn254> zk =
        groth16::setup_snarkjs_insecure<Bn254>(s.circuit, groth16::toxic_waste_from_seed<BnFr>(seed + 1));
    return BnCircuit{groth16::BoundKeyT<Bn254>::bind(std::move(zk.pk), std::move(zk.circuit)), std::move(s.witness)};
  }();
  return c;
}

// A simulated device that proves BLS12-381 only (as a device without a BN254 path would).
class BlsOnlyDevice final : public test::WrappedSimDevice {
 public:
  using WrappedSimDevice::WrappedSimDevice;
  bool proves(groth16::CurveId c) const override { return c == groth16::CurveId::kBls12_381; }
};

// The CPU device (index 0) and a simulated one (index 1) of type Sim: SimDevice or BlsOnlyDevice.
template <class Sim = SimDevice>
std::vector<std::unique_ptr<Device>> cpu_and_sim() {
  std::vector<std::unique_ptr<Device>> d;
  d.push_back(std::make_unique<CpuDevice>(0, uint64_t{1} << 30));
  SimDeviceConfig sim;
  sim.index = 1;
  d.push_back(std::make_unique<Sim>(sim));
  return d;
}

JobRequest bn_request(size_t parts) {
  JobRequest r;
  r.circuit_id = "bn";
  for (size_t k = 0; k < parts; ++k) r.witnesses.push_back(bn_circuit().witness);
  return r;
}

std::string error_of(Engine& e, JobRequest r) {
  try {
    e.submit(std::move(r));
  } catch (const InvalidArgument& ex) {
    return ex.what();
  }
  return "(accepted)";
}

// Submits r with fresh r, s for each partition and checks the result: done, self-checked, of
// BN254, and each proof equal to the CPU prover's with the same r, s, its public inputs the
// witness's, accepted by the verifier. `what` names the call in failures.
JobResult prove_and_check(Engine& e, JobRequest r, const std::string& what) {
  const BnCircuit& bn = bn_circuit();
  auto g = test::rng("engine-curves-rs " + what);
  std::vector<groth16::ProofRandomnessT<Bn254>> rs;
  for (size_t k = 0; k < r.witnesses.size(); ++k) rs.push_back({BnFr::random(g), BnFr::random(g)});
  r.randomness.assign(rs.begin(), rs.end());
  const JobResult res = *e.await(e.submit(std::move(r)));
  EXPECT_EQ(res.state, JobState::kDone) << what << ": " << res.error;
  EXPECT_TRUE(res.verified) << what;
  EXPECT_EQ(res.curve, Bn254::kId) << what;
  if (res.proofs.size() != rs.size()) {
    ADD_FAILURE() << what << ": " << res.proofs.size() << " proofs for " << rs.size() << " partitions";
    return res;
  }
  for (size_t k = 0; k < rs.size(); ++k) {
    const auto& proof = groth16::as_curve<Bn254>(res.proofs[k], "proof");
    EXPECT_EQ(proof, groth16::prove<Bn254>(*bn.key, bn.witness, rs[k])) << what << ", partition " << k;
    const auto& ins = groth16::as_curve<Bn254>(res.public_inputs[k], "inputs");
    EXPECT_EQ(ins, std::vector<BnFr>(bn.witness.begin() + 1, bn.witness.begin() + bn.key->num_inputs()));
    EXPECT_TRUE(groth16::verify<Bn254>(bn.key->pk().vk, proof, ins)) << what << ", partition " << k;
  }
  return res;
}

// On the CPU and the simulated device: each partition pinned to one of them in turn.
TEST(EngineCurves, Bn254ProofsEqualTheCpuProversOnBothDevices) {
  const BnCircuit& bn = bn_circuit();
  Engine e(cpu_and_sim(), EngineConfig{});
  e.register_circuit("bn", bn.key);
  EXPECT_NE(e.devices()[1]->residency("bn").find("fully resident"), std::string::npos);
  EXPECT_GT(e.devices()[1]->resident_bytes(), 0u);
  for (int32_t device : {0, 1}) {
    JobRequest r = bn_request(3);
    r.device = device;
    const JobResult res = prove_and_check(e, std::move(r), "device " + std::to_string(device));
    for (const PartitionTiming& t : res.timings) EXPECT_EQ(t.device, uint32_t(device));
  }
  e.unregister_circuit("bn");
  EXPECT_EQ(e.devices()[1]->resident_bytes(), 0u);
  EXPECT_EQ(e.stats().vram_overcommits, 0u);
}

// A device that does not prove BN254 gets none of its partitions and refuses a pin to it.
TEST(EngineCurves, Bn254RunsOnlyWhereTheCurveIsProven) {
  const BnCircuit& bn = bn_circuit();
  Engine e(cpu_and_sim<BlsOnlyDevice>(), EngineConfig{});
  e.register_circuit("bn", bn.key);
  const JobResult res = prove_and_check(e, bn_request(3), "BLS-only simulated device");
  for (const PartitionTiming& t : res.timings) EXPECT_EQ(t.device, 0u) << "a BN254 partition ran on the simulated device";
  // Pinned to the simulated device, which proves BLS12-381 only.
  JobRequest pinned = bn_request(1);
  pinned.device = 1;
  EXPECT_NE(error_of(e, std::move(pinned)).find("device 1 does not prove BN254 keys"), std::string::npos);
}

TEST(EngineCurves, ValuesOfTheWrongCurveAreRefusedByName) {
  Engine e(cpu_and_sim(), EngineConfig{});
  e.register_circuit("bn", bn_circuit().key);
  e.register_circuit("fam", test::make_family(3, 11).key);
  JobRequest bls_witness;
  bls_witness.circuit_id = "bn";
  bls_witness.witnesses.push_back(std::vector<ff::Fr>(bn_circuit().witness.size(), ff::Fr::one()));
  EXPECT_NE(error_of(e, std::move(bls_witness)).find("the witness is BLS12-381's, expected BN254's"),
            std::string::npos);
  JobRequest bls_randomness = bn_request(1);
  bls_randomness.randomness.push_back(groth16::ProofRandomness{ff::Fr::one(), ff::Fr::one()});
  EXPECT_NE(error_of(e, std::move(bls_randomness)).find("randomness of partition 0 is BLS12-381's"),
            std::string::npos);
  JobRequest bn_witness;
  bn_witness.circuit_id = "fam";
  bn_witness.witnesses.push_back(bn_circuit().witness);
  EXPECT_NE(error_of(e, std::move(bn_witness)).find("is BN254's, expected BLS12-381's"), std::string::npos);
}

TEST(EngineCurves, NoDeviceForTheCurveIsRefusedAtRegistration) {
  std::vector<std::unique_ptr<Device>> sim;
  sim.push_back(std::make_unique<BlsOnlyDevice>(SimDeviceConfig{}));
  Engine e(std::move(sim), EngineConfig{});
  try {
    e.register_circuit("bn", bn_circuit().key);
    ADD_FAILURE() << "registered a BN254 key on a BLS12-381-only engine";
  } catch (const InvalidArgument& ex) {
    EXPECT_NE(std::string(ex.what()).find("no device (sim:0) proves BN254 keys"), std::string::npos) << ex.what();
  }
  EXPECT_TRUE(e.circuits().empty());
}

// A BN254 key does not stream: one that does not fit beside one working set is refused, naming
// the device and the sizes, and leaves nothing resident.
TEST(EngineCurves, ABn254KeyTooLargeForTheSimulatedLedgerIsRefused) {
  SimDeviceConfig tiny;
  tiny.vram_bytes = uint64_t{1} << 16;
  std::vector<std::unique_ptr<Device>> d;
  d.push_back(std::make_unique<SimDevice>(tiny));
  Engine e(std::move(d), EngineConfig{});
  try {
    e.register_circuit("bn", bn_circuit().key);
    ADD_FAILURE() << "registered a key larger than the ledger";
  } catch (const InvalidArgument& ex) {
    const std::string m = ex.what();
    EXPECT_NE(m.find("sim:0"), std::string::npos) << m;
    EXPECT_NE(m.find("BN254 key"), std::string::npos) << m;
    EXPECT_NE(m.find("do not stream"), std::string::npos) << m;
  }
  EXPECT_EQ(e.devices()[0]->resident_bytes(), 0u);
  EXPECT_TRUE(e.circuits().empty());
}

// Jobs of both curves interleaved on one engine; an unsatisfying BN254 witness fails its job only.
TEST(EngineCurves, BothCurvesSideBySideAndAnUnsatisfiedBn254JobFailsAlone) {
  const test::Family fam = test::make_family(3, 12);
  Engine e(cpu_and_sim(), EngineConfig{.workers_per_device = 2});
  e.register_circuit("bn", bn_circuit().key);
  e.register_circuit("fam", fam.key);
  JobRequest bad = bn_request(2);
  std::get<std::vector<BnFr>>(bad.witnesses[1]).back() += BnFr::one();
  const JobId bad_id = e.submit(std::move(bad));
  std::vector<JobId> ids;
  for (uint64_t x = 0; x < 6; ++x) {
    if (x % 2) {
      ids.push_back(e.submit(bn_request(2)));
      continue;
    }
    JobRequest r;
    r.circuit_id = "fam";
    r.witnesses.push_back(fam.witness(100 + x));
    ids.push_back(e.submit(std::move(r)));
  }
  for (JobId id : ids) {
    const JobResult r = *e.await(id);
    EXPECT_EQ(r.state, JobState::kDone) << r.error;
    EXPECT_EQ(r.curve, r.circuit_id == "bn" ? Bn254::kId : groth16::Bls12_381::kId);
  }
  const JobResult rb = *e.await(bad_id);
  EXPECT_EQ(rb.state, JobState::kFailed);
  EXPECT_TRUE(rb.unsatisfied);
  EXPECT_NE(rb.error.find("partition 1"), std::string::npos) << rb.error;
}

// Mixed-curve randomized jobs on simulated devices whose ledgers hold both keys: random
// priorities, partitions and cancels; every job ends, none fails, no deadlock, no over-commit,
// every finished job verified (BN254 ones again here, independently).
TEST(EngineCurves, RandomJobsOfBothCurvesOnSimulatedDevices) {
  const test::Family fam = test::make_family(2, 14);
  auto g = test::rng("engine-curves-stress");
  SimDeviceConfig cfg;
  cfg.vram_bytes = uint64_t{64} << 20;
  std::vector<std::unique_ptr<Device>> devs;
  for (uint32_t d = 0; d < 2; ++d) {
    cfg.index = d;
    devs.push_back(std::make_unique<SimDevice>(cfg));
  }
  EngineConfig ec;
  ec.workers_per_device = 2;
  ec.watchdog_s = 10;
  Engine e(std::move(devs), ec);
  e.register_circuit("bn", bn_circuit().key);
  e.register_circuit("fam", fam.key);
  std::vector<JobId> ids;
  for (int i = 0; i < 400; ++i) {
    const bool bn = g() % 2 == 0;
    JobRequest r = bn ? bn_request(1 + g() % 3) : JobRequest{};
    if (!bn) {
      r.circuit_id = "fam";
      for (uint64_t k = 0, n = 1 + g() % 3; k < n; ++k) r.witnesses.push_back(fam.witness(g() % 65536));
    }
    r.priority = Priority(g() % 4);
    ids.push_back(e.submit(std::move(r)));
    if (g() % 10 == 0) e.cancel(ids[g() % ids.size()]);
  }
  uint64_t done = 0;
  for (JobId id : ids) {
    const auto r = e.await(id, std::chrono::seconds(120));
    ASSERT_TRUE(r) << "job " << id << " never finished";
    EXPECT_NE(r->state, JobState::kFailed) << r->error;
    if (r->state != JobState::kDone) continue;
    ++done;
    EXPECT_TRUE(r->verified);
    if (r->curve != Bn254::kId) continue;
    for (size_t k = 0; k < r->proofs.size(); ++k) {
      EXPECT_TRUE(groth16::verify<Bn254>(bn_circuit().key->pk().vk, groth16::as_curve<Bn254>(r->proofs[k], "proof"),
                                         groth16::as_curve<Bn254>(r->public_inputs[k], "inputs")));
    }
  }
  const EngineStats s = e.stats();
  EXPECT_GT(done, ids.size() / 2);
  EXPECT_EQ(s.deadlocks, 0u);
  EXPECT_EQ(s.vram_overcommits, 0u);
  EXPECT_EQ(s.invalid_proofs, 0u);
  EXPECT_LE(s.peak_vram_bytes, cfg.vram_bytes);
}

}  // namespace
}  // namespace snarkd::engine
