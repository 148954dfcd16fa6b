// The daemon's job service over both curves, in-process: snarkjs's BN254 (bn128) and BLS12-381
// multiplier keys (tests/groth16/fixtures) served side by side on the CPU device, witnesses of
// each curve as .wtns and as Montgomery bytes, proofs in each curve's wire form checked by the
// verifier, a witness of the wrong curve refused, a spooled BN254 job re-queued after a
// restart, a device that cannot prove BN254 named, and the key digests.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "snarkd/engine/devices.hpp"
#include "snarkd/groth16/snarkjs_json.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/groth16/zkey.hpp"
#include "snarkd/r1cs/circom.hpp"
#include "snarkd/server/service.hpp"

namespace fs = std::filesystem;
using namespace snarkd;
using namespace snarkd::server;
using groth16::Bls12_381;
using groth16::Bn254;

namespace {

const std::string kFixtures = SNARKD_GROTH16_FIXTURES;
const std::string kBnDir = kFixtures + "/bn128/multiplier/";
const std::string kBlsDir = kFixtures + "/multiplier/";

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// A daemon serving "bn" (BN254 zkey) and "bls" (BLS12-381 zkey) on `devices`.
struct CurvesEnv {
  std::string dir;
  ServerConfig cfg;
  engine::Engine* engine = nullptr;  // the last service()'s

  CurvesEnv() {
    char t[] = "/tmp/snarkd-curves-test-XXXXXX";
    dir = ::mkdtemp(t);
    cfg.state_dir = dir + "/state";
    cfg.submit_wait_ms = 1000;
    cfg.circuits = {CircuitSpec{"bn", "", "", kBnDir + "multiplier.zkey", false},
                    CircuitSpec{"bls", "", "", kBlsDir + "multiplier.zkey", false}};
  }
  ~CurvesEnv() { fs::remove_all(dir); }

  std::unique_ptr<Service> service(const std::string& devices = "cpu") {
    cfg.devices = devices;
    engine::EngineConfig e;
    e.workers_per_device = 1;
    e.record_timeline = false;
    auto eng = std::make_unique<engine::Engine>(engine::make_devices(devices, {}), e);
    engine = eng.get();
    auto s = std::make_unique<Service>(cfg, std::move(eng), std::make_unique<Journal>(cfg.state_dir));
    s->start();
    return s;
  }
};

v1::SubmitRequest job(const std::string& circuit, const std::vector<std::string>& witnesses) {
  v1::SubmitRequest r;
  r.set_circuit_id(circuit);
  for (const std::string& w : witnesses) r.add_partitions()->set_data(w);
  return r;
}

// The fixture's witness as snarkd's Montgomery bytes (WITNESS_FORMAT_FR_MONTGOMERY).
template <class E>
std::string montgomery_witness(const std::string& wtns) {
  const auto w = r1cs::read_wtns<typename E::Fr>(wtns);
  const std::vector<uint8_t> b = encode_fr_montgomery(std::span<const typename E::Fr>(w));
  return {b.begin(), b.end()};
}

// Every partition: the curve's proof size and name, the fixture's public inputs (snarkjs's
// public.json), and a proof the verifier accepts under the zkey's vk.
template <class E>
void expect_valid(const v1::JobResult& r, const std::string& dir, int partitions, const std::string& device = "cpu:0") {
  ASSERT_EQ(r.state(), v1::JOB_STATE_DONE) << r.error();
  EXPECT_TRUE(r.verified());
  EXPECT_EQ(r.curve(), E::kName);
  ASSERT_EQ(r.partitions_size(), partitions);
  const auto vk = groth16::read_zkey<E>(dir + "multiplier.zkey").pk.vk;
  const auto pub = groth16::read_snarkjs_public<E>(dir + "public.json");
  for (int k = 0; k < partitions; ++k) {
    const v1::PartitionResult& p = r.partitions(k);
    EXPECT_EQ(p.curve(), E::kName);
    ASSERT_EQ(p.proof().size(), groth16::proof_bytes_size(E::kId)) << "partition " << k;
    const groth16::AnyProof proof = groth16::proof_from_bytes(
        E::kId, std::span(reinterpret_cast<const uint8_t*>(p.proof().data()), p.proof().size()), "proof");
    ASSERT_EQ(p.public_inputs_size(), int(pub.size()));
    for (size_t i = 0; i < pub.size(); ++i) EXPECT_EQ(p.public_inputs(int(i)), to_decimal(pub[i]));
    EXPECT_TRUE(groth16::verify<E>(vk, groth16::as_curve<E>(proof, "proof"), pub)) << "partition " << k;
    EXPECT_EQ(p.device(), device);
  }
}

std::string error_of(const std::function<void()>& f, Code* code = nullptr) {
  try {
    f();
  } catch (const std::exception& e) {
    if (code) *code = classify(e);
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(ServiceCurves, ProvesBn254AndBls12_381KeysSideBySide) {
  CurvesEnv env;
  auto s = env.service();
  const v1::StatusReply st = s->status(0);
  ASSERT_EQ(st.keys_size(), 2);
  for (const v1::KeyInfo& k : st.keys())
    EXPECT_EQ(k.curve(), k.circuit_id() == "bn" ? "BN254" : "BLS12-381") << k.circuit_id();
  EXPECT_EQ(st.failed_circuits_size(), 0);
  // BN254: the .wtns and the same witness as Montgomery bytes, three partitions.
  const std::string wtns = read_file(kBnDir + "multiplier.wtns");
  const std::string fr = montgomery_witness<Bn254>(kBnDir + "multiplier.wtns");
  const uint64_t bn = s->submit(job("bn", {wtns, fr, wtns})).job_id();
  const uint64_t bls = s->submit(job("bls", {read_file(kBlsDir + "multiplier.wtns")})).job_id();
  expect_valid<Bn254>(s->await(bn, std::nullopt), kBnDir, 3);
  expect_valid<Bls12_381>(s->await(bls, std::nullopt), kBlsDir, 1);
}

TEST(ServiceCurves, AWitnessOfTheOtherCurveIsRefusedAndTheDaemonGoesOn) {
  CurvesEnv env;
  auto s = env.service();
  Code code{};
  const std::string e = error_of([&] { s->submit(job("bn", {read_file(kBlsDir + "multiplier.wtns")})); }, &code);
  EXPECT_EQ(code, Code::kInvalidArgument) << e;
  EXPECT_NE(e.find("partition 0 (.wtns)"), std::string::npos) << e;
  EXPECT_NE(e.find("is not BN254's r"), std::string::npos) << e;
  EXPECT_NE(e.find("it is BLS12-381's"), std::string::npos) << e;
  // BLS12-381's Montgomery bytes are 32 bytes a value too, but its ONE is not BN254's.
  const std::string e2 =
      error_of([&] { s->submit(job("bn", {montgomery_witness<Bls12_381>(kBlsDir + "multiplier.wtns")})); }, &code);
  EXPECT_EQ(code, Code::kInvalidArgument) << e2;
  EXPECT_NE(e2.find("partition 0"), std::string::npos) << e2;
  const std::string e3 = error_of([&] { s->submit(job("bls", {read_file(kBnDir + "multiplier.wtns")})); }, &code);
  EXPECT_NE(e3.find("is not BLS12-381's r"), std::string::npos) << e3;
  const uint64_t ok = s->submit(job("bn", {read_file(kBnDir + "multiplier.wtns")})).job_id();
  expect_valid<Bn254>(s->await(ok, std::nullopt), kBnDir, 1);
}

// Jobs still queued at a "crash" are spooled as received and decoded over their circuit's curve
// again when the restarted daemon re-queues them.
TEST(ServiceCurves, RestartRequeuesSpooledBn254Jobs) {
  CurvesEnv env;
  const std::string wtns = read_file(kBnDir + "multiplier.wtns");
  const std::string fr = montgomery_witness<Bn254>(kBnDir + "multiplier.wtns");
  std::vector<uint64_t> ids;
  {
    auto s = env.service();
    ids.push_back(s->submit(job("bn", {wtns})).job_id());
    ASSERT_EQ(s->await(ids[0], std::nullopt).state(), v1::JOB_STATE_DONE);
    env.engine->set_paused(true);  // nothing starts from here: the next jobs are queued at the crash
    ids.push_back(s->submit(job("bn", {fr, wtns})).job_id());
    ids.push_back(s->submit(job("bls", {read_file(kBlsDir + "multiplier.wtns")})).job_id());
    EXPECT_EQ(s->await(ids[1], std::chrono::milliseconds(0)).curve(), "BN254");
  }
  auto s = env.service();
  const v1::JobResult first = s->await(ids[0], std::nullopt);
  expect_valid<Bn254>(first, kBnDir, 1);
  EXPECT_EQ(first.attempts(), 1u);
  const v1::JobResult requeued = s->await(ids[1], std::nullopt);
  expect_valid<Bn254>(requeued, kBnDir, 2);
  EXPECT_EQ(requeued.attempts(), 2u);
  expect_valid<Bls12_381>(s->await(ids[2], std::nullopt), kBlsDir, 1);
}

// The simulated device proves both curves (BN254 keys resident whole, as on a GPU): a daemon on
// it serves the BN254 key beside the BLS12-381 one.
TEST(ServiceCurves, TheSimulatedDeviceServesBothCurves) {
  CurvesEnv env;
  auto s = env.service("sim");
  EXPECT_EQ(s->status(0).failed_circuits_size(), 0);
  const uint64_t bn = s->submit(job("bn", {read_file(kBnDir + "multiplier.wtns")})).job_id();
  const uint64_t bls = s->submit(job("bls", {read_file(kBlsDir + "multiplier.wtns")})).job_id();
  expect_valid<Bn254>(s->await(bn, std::nullopt), kBnDir, 1, "sim:0");
  expect_valid<Bls12_381>(s->await(bls, std::nullopt), kBlsDir, 1, "sim:0");
}

// Cluster hosts match jobs to keys by digest: BLS12-381 keys keep the digest of daemons from
// before BN254 (pinned: computed by that code for the fixture), a BN254 key has its own, and
// the digest of a key does not depend on the load.
TEST(KeyDigest, StableForBls12_381AndCoversTheCurve) {
  const LoadedCircuit bls = load_circuit_files({"bls", "", "", kBlsDir + "multiplier.zkey", false});
  EXPECT_EQ(to_hex(bls.key_hash), "e209ddea6bc586b0c389db9e3637dd3d83fa19428285a3f832b9ff593be3f3af");
  const LoadedCircuit bn = load_circuit_files({"bn", "", "", kBnDir + "multiplier.zkey", true});
  EXPECT_EQ(bn.shape.curve, groth16::CurveId::kBn254);
  EXPECT_EQ(bn.key_hash, load_circuit_files({"bn2", "", "", kBnDir + "multiplier.zkey", false}).key_hash);
  EXPECT_NE(bn.key_hash, bls.key_hash);
  const auto zk = groth16::read_zkey<Bn254>(kBnDir + "multiplier.zkey");
  EXPECT_EQ(bn.key_hash, key_digest<Bn254>(zk.pk, zk.circuit));
}
