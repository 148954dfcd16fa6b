// snarkd's C API (libsnarkd, include/snarkd/snarkd.h) through the shared library: engines on the
// CPU and simulated devices, circuits from .params + circom/CSR and from a snarkjs .zkey, jobs
// of several partitions from several threads, await with timeouts (a paused engine makes a
// timeout certain, no clock involved), cancel, forget, stats, verification, versioned structs,
// and each bad argument answered with its status and a message naming it.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include <unistd.h>

#include "snarkd/groth16/bellperson_io.hpp"
#include "snarkd/groth16/prove_abc.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/r1cs/circom.hpp"
#include "snarkd/r1cs/csr_file.hpp"
#include "snarkd/r1cs/synthetic.hpp"
#include "snarkd/snarkd.h"
#include "common/seed.hpp"

namespace snarkd::capi_test {
namespace {

namespace fs = std::filesystem;
using ff::Fr;

fs::path temp_dir() {
  static const fs::path d = [] {
    fs::path p = fs::temp_directory_path() / ("snarkd_capi_test_" + std::to_string(::getpid()));
    fs::create_directories(p);
    return p;
  }();
  return d;
}

// A synthetic circuit with its key on disk (circuit as circom .r1cs or snarkd CSR).
struct Circuit {
  std::string params, circuit;
  std::vector<Fr> witness;
  uint64_t num_inputs = 0;
};

Circuit make_circuit(uint64_t constraints, uint64_t inputs, uint64_t seed, bool csr) {
  r1cs::SyntheticParams p;
  p.num_constraints = constraints;
  p.num_inputs = inputs;
  p.seed = seed;
  auto sc = r1cs::generate_synthetic(p);
  const fs::path stem = temp_dir() / std::to_string(seed);
  Circuit c{fs::path(stem).replace_extension(".params").string(),
            fs::path(stem).replace_extension(csr ? ".csr" : ".r1cs").string(), sc.witness, inputs};
  groth16::write_params(c.params, groth16::setup_insecure(sc.circuit, groth16::toxic_waste_from_seed(seed)));
  if (csr)
    r1cs::write_csr_file(c.circuit, sc.circuit);
  else
    r1cs::write_circom_r1cs(c.circuit, sc.circuit, {uint32_t(inputs - 1), 0, 0, sc.circuit.num_vars(), {}});
  return c;
}

std::string last_error() { return snarkd_last_error(); }

#define EXPECT_STATUS(call, status, needle)                                                   \
  do {                                                                                        \
    const snarkd_status s_ = (call);                                                          \
    EXPECT_EQ(s_, status) << snarkd_status_name(s_) << ": " << last_error();                  \
    EXPECT_NE(last_error().find(needle), std::string::npos) << "message: " << last_error();   \
  } while (0)

struct Engine {
  snarkd_engine* e = nullptr;
  explicit Engine(const char* devices = "cpu", uint32_t workers = 0) {
    snarkd_engine_options o;
    snarkd_engine_options_init(&o);
    o.devices = devices;
    o.workers_per_device = workers;
    EXPECT_EQ(snarkd_engine_create(&o, &e), SNARKD_OK) << last_error();
  }
  ~Engine() { snarkd_engine_destroy(e); }
};

snarkd_status register_params(snarkd_engine* e, const char* id, const Circuit& c) {
  snarkd_circuit_files f;
  snarkd_circuit_files_init(&f);
  f.params_path = c.params.c_str();
  f.circuit_path = c.circuit.c_str();
  return snarkd_register_circuit(e, id, &f);
}

// Submits `partitions` copies of the witness (Montgomery form).
snarkd_status submit(snarkd_engine* e, const char* id, const std::vector<Fr>& w, uint32_t partitions, uint64_t* job) {
  std::vector<const void*> ptrs(partitions, w.data());
  snarkd_job j;
  snarkd_job_init(&j);
  j.circuit_id = id;
  j.num_partitions = partitions;
  j.witnesses = ptrs.data();
  j.witness_len = w.size();
  return snarkd_submit(e, &j, job);
}

// The result's proofs, checked with snarkd_verify against the key, both input formats.
void expect_verified(const snarkd_job_result* r, const std::string& vk_path) {
  ASSERT_EQ(snarkd_job_result_state(r), SNARKD_JOB_DONE) << snarkd_job_result_error(r);
  EXPECT_EQ(snarkd_job_result_verified(r), 1);
  const uint32_t n = snarkd_job_result_num_proofs(r);
  const uint64_t k = snarkd_job_result_num_public_inputs(r);
  const uint32_t size = snarkd_job_result_proof_bytes(r);
  ASSERT_EQ(size, snarkd_job_result_curve(r) == SNARKD_CURVE_BN254 ? SNARKD_BN254_PROOF_BYTES : SNARKD_PROOF_BYTES);
  std::vector<uint8_t> proofs(n * size);
  for (int32_t format : {SNARKD_FR_MONTGOMERY, SNARKD_FR_CANONICAL_LE}) {
    std::vector<uint8_t> inputs(n * k * SNARKD_FR_BYTES);
    for (uint32_t p = 0; p < n; ++p) {
      ASSERT_EQ(snarkd_job_result_proof(r, p, &proofs[p * size]), SNARKD_OK);
      for (uint64_t i = 0; i < k; ++i)
        ASSERT_EQ(snarkd_job_result_public_input(r, p, i, format, &inputs[(p * k + i) * SNARKD_FR_BYTES]), SNARKD_OK);
    }
    int32_t valid = -1;
    ASSERT_EQ(snarkd_verify(vk_path.c_str(), proofs.data(), n, inputs.data(), k, format, &valid), SNARKD_OK) << last_error();
    EXPECT_EQ(valid, 1);
    inputs[0] ^= 1;  // another statement
    ASSERT_EQ(snarkd_verify(vk_path.c_str(), proofs.data(), n, inputs.data(), k, format, &valid), SNARKD_OK) << last_error();
    EXPECT_EQ(valid, 0);
  }
}

TEST(CApi, VersionAndNames) {
  EXPECT_EQ(snarkd_api_version() >> 16, uint32_t{SNARKD_API_VERSION_MAJOR});
  EXPECT_EQ(snarkd_api_version(), uint32_t{SNARKD_API_VERSION});
  EXPECT_FALSE(std::string(snarkd_version_string()).empty());
  EXPECT_STREQ(snarkd_status_name(SNARKD_ERR_TIMEOUT), "SNARKD_ERR_TIMEOUT");
  EXPECT_STREQ(snarkd_status_name(static_cast<snarkd_status>(99)), "unknown status");
  snarkd_free(nullptr);
  snarkd_engine_destroy(nullptr);
  snarkd_job_result_free(nullptr);
}

TEST(CApi, ProvesJobsOfSeveralPartitionsFromSeveralThreads) {
  auto g = test::rng("capi_prove");
  const Circuit r1cs = make_circuit(60, 3, g() | 1, false), csr = make_circuit(33, 5, g() | 1, true);
  for (const char* devices : {"cpu", "sim"}) {
    Engine en(devices, 2);
    ASSERT_EQ(register_params(en.e, "a", r1cs), SNARKD_OK) << last_error();
    ASSERT_EQ(register_params(en.e, "b", csr), SNARKD_OK) << last_error();
    snarkd_circuit_info info;
    snarkd_circuit_info_init(&info);
    ASSERT_EQ(snarkd_get_circuit_info(en.e, "b", &info), SNARKD_OK);
    EXPECT_EQ(info.num_vars, csr.witness.size());
    EXPECT_EQ(info.num_public_inputs, 4u);
    EXPECT_EQ(info.num_constraints, 33u);
    std::vector<uint64_t> jobs(4);
    std::vector<snarkd_status> st(4);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        const Circuit& c = t % 2 ? csr : r1cs;
        st[t] = submit(en.e, t % 2 ? "b" : "a", c.witness, 1 + t, &jobs[t]);
      });
    for (auto& t : threads) t.join();
    for (int t = 0; t < 4; ++t) {
      ASSERT_EQ(st[t], SNARKD_OK) << devices;
      snarkd_job_result* r = nullptr;
      ASSERT_EQ(snarkd_await(en.e, jobs[t], -1, &r), SNARKD_OK) << last_error();
      EXPECT_EQ(snarkd_job_result_num_proofs(r), uint32_t(1 + t));
      expect_verified(r, (t % 2 ? csr : r1cs).params);
      snarkd_job_result_free(r);
    }
    snarkd_stats s;
    snarkd_stats_init(&s);
    ASSERT_EQ(snarkd_get_stats(en.e, &s), SNARKD_OK);
    EXPECT_EQ(s.submitted, 4u);
    EXPECT_EQ(s.completed, 4u);
    EXPECT_EQ(s.invalid_proofs + s.deadlocks + s.vram_overcommits, 0u);
    EXPECT_EQ(s.num_devices, 1u);
    EXPECT_EQ(s.num_workers, 2u);
    ASSERT_EQ(snarkd_forget(en.e, jobs[0]), SNARKD_OK);
    snarkd_job_result* r = nullptr;
    EXPECT_STATUS(snarkd_await(en.e, jobs[0], 0, &r), SNARKD_ERR_NOT_FOUND, "unknown job");
    EXPECT_EQ(r, nullptr);
    ASSERT_EQ(snarkd_unregister_circuit(en.e, "a"), SNARKD_OK) << last_error();
    EXPECT_STATUS(snarkd_get_circuit_info(en.e, "a", &info), SNARKD_ERR_NOT_FOUND, "unknown circuit \"a\"");
  }
}

// A snarkjs fixture of either curve: register its zkey, prove its .wtns (2 partitions), verify
// with the zkey and with its verification_key.json (BN254).
void prove_zkey_fixture(const std::string& dir, int32_t curve) {
  Engine en;
  snarkd_circuit_files f;
  snarkd_circuit_files_init(&f);
  const std::string zkey = dir + ".zkey", wtns = dir + ".wtns";
  f.zkey_path = zkey.c_str();
  ASSERT_EQ(snarkd_register_circuit(en.e, "mul", &f), SNARKD_OK) << last_error();
  snarkd_circuit_info info;
  snarkd_circuit_info_init(&info);
  ASSERT_EQ(snarkd_get_circuit_info(en.e, "mul", &info), SNARKD_OK) << last_error();
  EXPECT_EQ(info.curve, curve);
  EXPECT_EQ(info.proof_bytes, curve == SNARKD_CURVE_BN254 ? 256u : 192u);
  uint8_t* values = nullptr;
  uint64_t count = 0;
  ASSERT_EQ(snarkd_read_wtns(wtns.c_str(), &values, &count), SNARKD_OK) << last_error();
  const void* w[2] = {values, values};
  snarkd_job j;
  snarkd_job_init(&j);
  j.circuit_id = "mul";
  j.fr_format = SNARKD_FR_CANONICAL_LE;
  j.num_partitions = 2;
  j.witnesses = w;
  j.witness_len = count;
  uint64_t id = 0;
  ASSERT_EQ(snarkd_submit(en.e, &j, &id), SNARKD_OK) << last_error();
  snarkd_free(values);  // copied by submit
  snarkd_job_result* r = nullptr;
  ASSERT_EQ(snarkd_await(en.e, id, -1, &r), SNARKD_OK) << last_error();
  EXPECT_EQ(snarkd_job_result_curve(r), curve);
  expect_verified(r, zkey);
  if (curve == SNARKD_CURVE_BN254)
    expect_verified(r, (fs::path(dir).parent_path() / "verification_key.json").string());
  snarkd_job_result_free(r);
}

TEST(CApi, ZkeyCircuitsAndCanonicalWitnesses) {
  prove_zkey_fixture((fs::path(SNARKD_GROTH16_FIXTURES) / "multiplier" / "multiplier").string(), SNARKD_CURVE_BLS12_381);
}

TEST(CApi, Bn254ZkeyCircuits) {
  prove_zkey_fixture((fs::path(SNARKD_GROTH16_FIXTURES) / "bn128" / "multiplier" / "multiplier").string(),
                     SNARKD_CURVE_BN254);
}

// Values of the other curve's field: a BLS12-381 witness value ≥ BN254's r is refused by name, and
// a BN254 proof is not a BLS12-381 key's.
TEST(CApi, Bn254ValuesAreCheckedAgainstBn254) {
  Engine en;
  snarkd_circuit_files f;
  snarkd_circuit_files_init(&f);
  const std::string dir = (fs::path(SNARKD_GROTH16_FIXTURES) / "bn128" / "multiplier" / "multiplier").string();
  const std::string zkey = dir + ".zkey", wtns = dir + ".wtns";
  f.zkey_path = zkey.c_str();
  ASSERT_EQ(snarkd_register_circuit(en.e, "bn", &f), SNARKD_OK) << last_error();
  uint8_t* values = nullptr;
  uint64_t count = 0;
  ASSERT_EQ(snarkd_read_wtns(wtns.c_str(), &values, &count), SNARKD_OK) << last_error();
  std::vector<uint8_t> bad(values, values + count * SNARKD_FR_BYTES);
  snarkd_free(values);
  // r_BLS − 1 (little-endian): below BLS12-381's r, above BN254's.
  const uint8_t r_bls_minus_1[32] = {0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe,
                                     0xff, 0x02, 0xa4, 0xbd, 0x53, 0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8,
                                     0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};
  std::memcpy(&bad[2 * SNARKD_FR_BYTES], r_bls_minus_1, 32);
  const void* w = bad.data();
  snarkd_job j;
  snarkd_job_init(&j);
  j.circuit_id = "bn";
  j.fr_format = SNARKD_FR_CANONICAL_LE;
  j.num_partitions = 1;
  j.witnesses = &w;
  j.witness_len = count;
  uint64_t id = 0;
  EXPECT_STATUS(snarkd_submit(en.e, &j, &id), SNARKD_ERR_INVALID_ARGUMENT, "witnesses[0][2] is not below r");
  const std::vector<uint8_t> proof(SNARKD_BN254_PROOF_BYTES, 0);
  int32_t valid = -1;
  EXPECT_STATUS(snarkd_verify(zkey.c_str(), proof.data(), 1, bad.data() + SNARKD_FR_BYTES, 2, SNARKD_FR_CANONICAL_LE, &valid),
                SNARKD_ERR_INVALID_ARGUMENT, "public_inputs[0][1] is not below r");
  EXPECT_STATUS(snarkd_verify(zkey.c_str(), proof.data(), 1, bad.data() + SNARKD_FR_BYTES, 1, SNARKD_FR_CANONICAL_LE, &valid),
                SNARKD_ERR_INVALID_ARGUMENT, "has 2 public inputs");
}

// A paused engine starts nothing, so the job is certainly unfinished: no timing involved.
TEST(CApi, TimeoutsAndCancelOnAPausedEngine) {
  auto g = test::rng("capi_pause");
  const Circuit c = make_circuit(20, 2, g() | 1, false);
  Engine en;
  ASSERT_EQ(register_params(en.e, "c", c), SNARKD_OK) << last_error();
  ASSERT_EQ(snarkd_set_paused(en.e, 1), SNARKD_OK);
  uint64_t first = 0, second = 0;
  ASSERT_EQ(submit(en.e, "c", c.witness, 2, &first), SNARKD_OK) << last_error();
  ASSERT_EQ(submit(en.e, "c", c.witness, 1, &second), SNARKD_OK) << last_error();
  snarkd_job_result* r = nullptr;
  EXPECT_STATUS(snarkd_await(en.e, first, 0, &r), SNARKD_ERR_TIMEOUT, "has not finished after 0 ms");
  EXPECT_STATUS(snarkd_await(en.e, first, 20, &r), SNARKD_ERR_TIMEOUT, "after 20 ms");
  EXPECT_EQ(r, nullptr);
  int32_t was_running = -1;
  ASSERT_EQ(snarkd_cancel(en.e, first, &was_running), SNARKD_OK);
  EXPECT_EQ(was_running, 1);
  ASSERT_EQ(snarkd_await(en.e, first, 0, &r), SNARKD_OK);
  EXPECT_EQ(snarkd_job_result_state(r), SNARKD_JOB_CANCELLED);
  EXPECT_EQ(snarkd_job_result_num_proofs(r), 0u);
  uint8_t proof[SNARKD_PROOF_BYTES];
  EXPECT_STATUS(snarkd_job_result_proof(r, 0, proof), SNARKD_ERR_INVALID_ARGUMENT, "partition 0 of a result with 0");
  snarkd_job_result_free(r);
  ASSERT_EQ(snarkd_set_paused(en.e, 0), SNARKD_OK);
  ASSERT_EQ(snarkd_await(en.e, second, -1, &r), SNARKD_OK) << last_error();
  expect_verified(r, c.params);
  snarkd_job_result_free(r);
  ASSERT_EQ(snarkd_cancel(en.e, second, &was_running), SNARKD_OK);
  EXPECT_EQ(was_running, 0);
}

TEST(CApi, BadArgumentsNameTheProblem) {
  auto g = test::rng("capi_bad");
  const Circuit c = make_circuit(20, 2, g() | 1, false), other = make_circuit(25, 2, g() | 1, false);
  snarkd_engine* e = nullptr;
  snarkd_engine_options o;
  snarkd_engine_options_init(&o);
  o.devices = "gpu:7";
  EXPECT_STATUS(snarkd_engine_create(&o, &e), SNARKD_ERR_INVALID_ARGUMENT, "gpu:7");
  EXPECT_EQ(e, nullptr);
  o.struct_size = 0;
  EXPECT_STATUS(snarkd_engine_create(&o, &e), SNARKD_ERR_INVALID_ARGUMENT, "options->struct_size is 0");
  EXPECT_STATUS(snarkd_engine_create(nullptr, &e), SNARKD_ERR_INVALID_ARGUMENT, "options is a null pointer");
  // An older caller's shorter struct: the fields it lacks take their defaults (self_check on).
  snarkd_engine_options_init(&o);
  o.struct_size = offsetof(snarkd_engine_options, self_check);
  o.self_check = 12345;  // beyond the caller's struct: never read
  ASSERT_EQ(snarkd_engine_create(&o, &e), SNARKD_OK) << last_error();
  snarkd_engine_destroy(e);

  Engine en;
  snarkd_circuit_files f;
  snarkd_circuit_files_init(&f);
  f.params_path = "/nonexistent/k.params";
  f.circuit_path = c.circuit.c_str();
  EXPECT_STATUS(snarkd_register_circuit(en.e, "x", &f), SNARKD_ERR_FILE, "/nonexistent/k.params");
  f.params_path = c.params.c_str();
  f.circuit_path = other.circuit.c_str();  // the key of another circuit
  EXPECT_STATUS(snarkd_register_circuit(en.e, "x", &f), SNARKD_ERR_FILE, c.params);
  f.circuit_path = c.params.c_str();  // not a circuit file
  EXPECT_STATUS(snarkd_register_circuit(en.e, "x", &f), SNARKD_ERR_FILE, "not a circuit");
  f.zkey_path = "k.zkey";
  EXPECT_STATUS(snarkd_register_circuit(en.e, "x", &f), SNARKD_ERR_INVALID_ARGUMENT, "exactly one of");
  EXPECT_STATUS(snarkd_register_circuit(en.e, nullptr, &f), SNARKD_ERR_INVALID_ARGUMENT, "circuit_id");
  ASSERT_EQ(register_params(en.e, "c", c), SNARKD_OK) << last_error();
  EXPECT_STATUS(register_params(en.e, "c", c), SNARKD_ERR_INVALID_ARGUMENT, "circuit id 'c' is taken");

  uint64_t id = 0;
  EXPECT_STATUS(submit(en.e, "nope", c.witness, 1, &id), SNARKD_ERR_NOT_FOUND, "unknown circuit \"nope\"");
  std::vector<Fr> w = c.witness;
  w.pop_back();
  EXPECT_STATUS(submit(en.e, "c", w, 1, &id), SNARKD_ERR_INVALID_ARGUMENT, "job->witness_len is");
  w = c.witness;
  std::memset(static_cast<void*>(&w[3]), 0xff, sizeof(Fr));
  EXPECT_STATUS(submit(en.e, "c", w, 1, &id), SNARKD_ERR_INVALID_ARGUMENT, "witnesses[0][3] is not below r");
  w = c.witness;
  w[0] = Fr::from_u64(2);
  EXPECT_STATUS(submit(en.e, "c", w, 1, &id), SNARKD_ERR_INVALID_ARGUMENT, "ONE");
  EXPECT_STATUS(submit(en.e, "c", c.witness, 0, &id), SNARKD_ERR_INVALID_ARGUMENT, "num_partitions is 0");
  snarkd_job j;
  snarkd_job_init(&j);
  j.circuit_id = "c";
  j.num_partitions = 1;
  j.witness_len = c.witness.size();
  j.priority = 9;
  EXPECT_STATUS(snarkd_submit(en.e, &j, &id), SNARKD_ERR_INVALID_ARGUMENT, "job->priority is 9");
  j.priority = SNARKD_PRIORITY_HIGH;
  EXPECT_STATUS(snarkd_submit(en.e, &j, &id), SNARKD_ERR_INVALID_ARGUMENT, "job->witnesses is a null pointer");
  const void* none = nullptr;
  j.witnesses = &none;
  EXPECT_STATUS(snarkd_submit(en.e, &j, &id), SNARKD_ERR_INVALID_ARGUMENT, "job->witnesses[0] is a null pointer");
  EXPECT_STATUS(snarkd_submit(nullptr, &j, &id), SNARKD_ERR_INVALID_ARGUMENT, "engine is a null pointer");
  snarkd_abc_job abc;
  snarkd_abc_job_init(&abc);
  EXPECT_STATUS(snarkd_submit_abc(en.e, &abc, &id), SNARKD_ERR_INVALID_ARGUMENT, "circuit_id is a null pointer");

  snarkd_job_result* r = nullptr;
  EXPECT_STATUS(snarkd_await(en.e, 424242, 0, &r), SNARKD_ERR_NOT_FOUND, "unknown job 424242");
  EXPECT_STATUS(snarkd_cancel(en.e, 424242, nullptr), SNARKD_ERR_NOT_FOUND, "unknown job");
  EXPECT_STATUS(snarkd_await(en.e, 1, 0, nullptr), SNARKD_ERR_INVALID_ARGUMENT, "out is a null pointer");
  snarkd_stats s;
  snarkd_stats_init(&s);
  s.struct_size = 0;
  EXPECT_STATUS(snarkd_get_stats(en.e, &s), SNARKD_ERR_INVALID_ARGUMENT, "out->struct_size is 0");
  // An older caller's shorter stats struct is filled only as far as it reaches.
  snarkd_stats_init(&s);
  s.struct_size = offsetof(snarkd_stats, completed);
  s.completed = 777;
  ASSERT_EQ(snarkd_get_stats(en.e, &s), SNARKD_OK);
  EXPECT_EQ(s.completed, 777u);
  EXPECT_EQ(s.struct_size, offsetof(snarkd_stats, completed));

  uint8_t* values = nullptr;
  uint64_t count = 0;
  EXPECT_STATUS(snarkd_read_wtns("/nonexistent/w.wtns", &values, &count), SNARKD_ERR_FILE, "/nonexistent/w.wtns");
  int32_t valid = -1;
  uint8_t junk[SNARKD_PROOF_BYTES] = {};
  uint8_t input[2 * SNARKD_FR_BYTES] = {};
  EXPECT_STATUS(snarkd_verify(c.params.c_str(), junk, 1, input, 1, SNARKD_FR_MONTGOMERY, &valid), SNARKD_ERR_INVALID_ARGUMENT,
                "proofs[0]: ");
  EXPECT_STATUS(snarkd_verify(c.params.c_str(), junk, 1, input, 0, SNARKD_FR_MONTGOMERY, &valid), SNARKD_ERR_INVALID_ARGUMENT,
                "inputs_per_proof is 0");
  EXPECT_STATUS(snarkd_verify(c.params.c_str(), junk, 1, nullptr, 0, 7, &valid), SNARKD_ERR_INVALID_ARGUMENT, "fr_format is 7");
}

// The a/b/c form (bellperson's synthesis result) on a key registered alone (no circuit) and on
// one with its circuit, on the CPU and simulated devices: the jobs finish verified; sizes that
// disagree with the key are refused naming the partition; a witness job on the key alone too.
TEST(CApi, AbcJobsProveOnKeysWithAndWithoutTheirCircuit) {
  r1cs::SyntheticParams sp;
  sp.num_constraints = 90;
  sp.num_inputs = 3;
  sp.seed = 4242;
  const auto sc = r1cs::generate_synthetic(sp);
  const Circuit c = make_circuit(90, 3, 4242, true);
  const groth16::BellpersonSynthesis syn = groth16::synthesize_bellperson(sc.circuit, sc.witness);
  snarkd_abc_partition part{syn.a.data(), syn.b.data(), syn.c.data(), syn.a.size(), syn.inputs.data(), syn.inputs.size(),
                            syn.aux.data(), syn.aux.size(), syn.a_aux_words.data(), syn.b_inp_words.data(),
                            syn.b_aux_words.data()};
  for (const char* devices : {"cpu", "sim:2"}) {
    Engine en(devices);
    snarkd_circuit_files f;
    snarkd_circuit_files_init(&f);
    f.params_path = c.params.c_str();
    ASSERT_EQ(snarkd_register_circuit(en.e, "key", &f), SNARKD_OK) << last_error();
    f.circuit_path = c.circuit.c_str();
    ASSERT_EQ(snarkd_register_circuit(en.e, "c", &f), SNARKD_OK) << last_error();
    snarkd_circuit_info info;
    snarkd_circuit_info_init(&info);
    ASSERT_EQ(snarkd_get_circuit_info(en.e, "key", &info), SNARKD_OK);
    EXPECT_EQ(info.num_vars, sc.witness.size());
    EXPECT_EQ(info.num_constraints, 0u);
    const snarkd_abc_partition parts[2] = {part, part};
    for (const char* id : {"key", "c"}) {
      snarkd_abc_job j;
      snarkd_abc_job_init(&j);
      j.circuit_id = id;
      j.num_partitions = 2;
      j.partitions = parts;
      j.device = std::string(devices) == "cpu" ? -1 : 1;
      uint64_t job = 0;
      ASSERT_EQ(snarkd_submit_abc(en.e, &j, &job), SNARKD_OK) << last_error();
      snarkd_job_result* r = nullptr;
      ASSERT_EQ(snarkd_await(en.e, job, -1, &r), SNARKD_OK) << last_error();
      EXPECT_EQ(snarkd_job_result_state(r), SNARKD_JOB_DONE) << snarkd_job_result_error(r);
      EXPECT_EQ(snarkd_job_result_verified(r), 1);
      EXPECT_EQ(snarkd_job_result_num_proofs(r), 2u);
      snarkd_job_result_free(r);
    }
    snarkd_abc_partition bad = part;
    bad.num_aux -= 1;
    snarkd_abc_job j;
    snarkd_abc_job_init(&j);
    j.circuit_id = "key";
    j.num_partitions = 1;
    j.partitions = &bad;
    uint64_t job = 0;
    EXPECT_STATUS(snarkd_submit_abc(en.e, &j, &job), SNARKD_ERR_INVALID_ARGUMENT, "partition 0.aux_assignment_size is");
    j.partitions = &part;
    j.device = 7;
    EXPECT_STATUS(snarkd_submit_abc(en.e, &j, &job), SNARKD_ERR_INVALID_ARGUMENT, "device 7");
    EXPECT_STATUS(submit(en.e, "key", c.witness, 1, &job), SNARKD_ERR_INVALID_ARGUMENT, "registered without a circuit");
  }
}

}  // namespace
}  // namespace snarkd::capi_test
