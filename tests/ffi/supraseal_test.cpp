// The supraseal-c2 C ABI of libsnarkd_supraseal, called the way the crate calls it: .params files
// written by snarkd's setup, assignments synthesised the way bellperson does. Proofs equal the
// witness prover's bytes for the same r, s; the split form, 8 threads on one gpu_mtx (held
// locked by the test the whole time: the ABI must never need it), the SRS handle's reference
// counting and cache, and every bad argument answered with a code and a message naming it.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <functional>
#include <mutex>
#include <thread>

#include <unistd.h>

#include "common/bound.hpp"
#include "common/fifo_writer.hpp"
#include "snarkd/groth16/bellperson_io.hpp"
#include "snarkd/groth16/prove_abc.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/r1cs/builder.hpp"
#include "snarkd/r1cs/synthetic.hpp"
#include "snarkd/supraseal_c2.h"
#include "common/seed.hpp"

namespace snarkd::ffi_test {
namespace {

using ff::Fr;
using groth16::BellpersonSynthesis;
using groth16::Proof;
using groth16::ProofRandomness;
using groth16::ProvingKey;

namespace fs = std::filesystem;

// An error from the ABI, its message freed.
struct Result {
  int code;
  std::string message;
};
Result take(supraseal_error e) {
  Result r{e.code, e.message ? e.message : ""};
  std::free(e.message);
  return r;
}

const supraseal_fr* fr(const std::vector<Fr>& v) { return reinterpret_cast<const supraseal_fr*>(v.data()); }

supraseal_assignment assignment(const BellpersonSynthesis& s) {
  return supraseal_assignment{s.a_aux_words.data(), s.aux.size(), s.a_aux_popcount,
                              s.b_inp_words.data(), s.inputs.size(), s.b_inp_popcount,
                              s.b_aux_words.data(), s.aux.size(), s.b_aux_popcount,
                              fr(s.a), fr(s.b), fr(s.c), s.a.size(),
                              fr(s.inputs), s.inputs.size(), fr(s.aux), s.aux.size()};
}

Proof to_proof(const supraseal_groth16_proof& p) {
  Proof out;
  std::memcpy(static_cast<void*>(&out), &p, sizeof out);
  return out;
}

// A circuit with its key on disk, as Filecoin's prover finds them.
struct Fixture {
  r1cs::Circuit circuit;
  std::vector<Fr> witness;
  ProvingKey pk;  // bound to the circuit (for the witness prover)
  std::string params;
  BellpersonSynthesis syn;
};

fs::path temp_dir() {
  static const fs::path d = [] {
    fs::path p = fs::temp_directory_path() / ("snarkd_ffi_test_" + std::to_string(::getpid()));
    fs::create_directories(p);
    return p;
  }();
  return d;
}

Fixture make_fixture(r1cs::Circuit circuit, std::vector<Fr> witness, uint64_t seed, const std::string& name) {
  Fixture f{std::move(circuit), std::move(witness), {}, (temp_dir() / (name + ".params")).string(), {}};
  f.pk = groth16::setup_insecure(f.circuit, groth16::toxic_waste_from_seed(seed));
  groth16::write_params(f.params, f.pk);
  (void)groth16::BoundKey::bind(f.pk, f.circuit);
  f.syn = groth16::synthesize_bellperson(f.circuit, f.witness);
  return f;
}

Fixture synthetic(uint64_t constraints, uint64_t inputs, uint64_t seed) {
  r1cs::SyntheticParams p;
  p.num_constraints = constraints;
  p.num_inputs = inputs;
  p.seed = seed;
  auto sc = r1cs::generate_synthetic(p);
  return make_fixture(std::move(sc.circuit), std::move(sc.witness), seed,
                      "syn_" + std::to_string(constraints) + "_" + std::to_string(seed));
}

// An input only in A (a gap in the B input density), an aux only in C (gaps in A and B aux).
Fixture gappy(uint64_t seed) {
  using r1cs::LinearCombination;
  r1cs::CircuitBuilder cb;
  const Fr x = Fr::from_u64(seed % 1000 + 2);
  const auto in_b = cb.allocate_input(Fr::from_u64(3));
  const auto out = cb.allocate_input(x * x * Fr::from_u64(3));
  const auto vx = cb.allocate_aux(x);
  const auto x2 = cb.allocate_aux(x * x);
  const auto only_c = cb.allocate_aux(x * x * Fr::from_u64(3) + Fr::one());
  cb.enforce(vx, vx, x2);
  cb.enforce(x2, in_b, out);
  cb.enforce(LinearCombination(out) + LinearCombination::constant(Fr::one()), r1cs::Variable::one(), only_c);
  auto s = std::move(cb).finish();
  return make_fixture(std::move(s.circuit), std::move(s.witness), seed, "gappy_" + std::to_string(seed));
}

struct Srs {
  supraseal_srs h{nullptr};
  explicit Srs(const std::string& path, bool cache = false) {
    const Result r = take(create_SRS(&h, path.c_str(), cache));
    EXPECT_EQ(r.code, 0) << r.message;
  }
  ~Srs() { drop_SRS(&h); }
};

ProofRandomness rs_from(std::mt19937_64& g) { return {Fr::random(g), Fr::random(g)}; }

TEST(Supraseal, ProofsEqualTheWitnessProver) {
  auto g = test::rng("ffi_equal");
  std::vector<Fixture> fixtures;
  fixtures.push_back(synthetic(1, 1, g() | 1));
  fixtures.push_back(synthetic(37, 3, g() | 1));
  fixtures.push_back(synthetic(300, 9, g() | 1));
  fixtures.push_back(gappy(g() | 1));
  for (const Fixture& f : fixtures) {
    Srs srs(f.params);
    // Two circuits in one call, as bellperson batches them (same circuit, different r, s).
    const supraseal_assignment provers[2] = {assignment(f.syn), assignment(f.syn)};
    const ProofRandomness rs[2] = {rs_from(g), rs_from(g)};
    const std::vector<Fr> r = {rs[0].r, rs[1].r}, s = {rs[0].s, rs[1].s};
    supraseal_groth16_proof proofs[2];
    const Result res = take(generate_groth16_proofs_c(provers, 2, fr(r), fr(s), proofs, &srs.h, nullptr, -1));
    ASSERT_EQ(res.code, 0) << res.message;
    EXPECT_TRUE(res.message.empty());
    for (int k = 0; k < 2; ++k) {
      const Proof want = groth16::prove(*snarkd::test::bind(f.pk, f.circuit), f.witness, rs[k]);
      EXPECT_EQ(groth16::encode_proof(to_proof(proofs[k])), groth16::encode_proof(want)) << f.params << " " << k;
      EXPECT_TRUE(groth16::verify(f.pk.vk, to_proof(proofs[k]), groth16::public_inputs(f.circuit, f.witness)));
    }
  }
}

TEST(Supraseal, StartFinalizeWithABCFreedInBetween) {
  auto g = test::rng("ffi_split");
  const Fixture f = synthetic(50, 4, g() | 1);
  Srs srs(f.params);
  BellpersonSynthesis copy = f.syn;
  const supraseal_assignment p = assignment(copy);
  const ProofRandomness rs = rs_from(g);
  std::vector<Fr> r = {rs.r}, s = {rs.s};
  void* pending = nullptr;
  Result res = take(generate_groth16_proofs_start_c(&p, 1, fr(r), fr(s), &srs.h, nullptr, 0, &pending));
  ASSERT_EQ(res.code, 0) << res.message;
  ASSERT_NE(pending, nullptr);
  // The crate's callers free a, b, c (and r, s) once start returns (cuzk does).
  for (auto* v : {&copy.a, &copy.b, &copy.c, &r, &s}) std::fill(v->begin(), v->end(), Fr::from_u64(99));
  supraseal_groth16_proof proof;
  res = take(finalize_groth16_proof_c(pending, &proof));
  ASSERT_EQ(res.code, 0) << res.message;
  EXPECT_EQ(to_proof(proof), groth16::prove(*snarkd::test::bind(f.pk, f.circuit), f.witness, rs));
  // The handle is consumed: a second finalize is an error, destroy of it is ignored.
  res = take(finalize_groth16_proof_c(pending, &proof));
  EXPECT_EQ(res.code, EINVAL);
  EXPECT_NE(res.message.find("not a pending proof"), std::string::npos) << res.message;
  destroy_pending_proof(pending);
  // destroy abandons a started proof.
  res = take(generate_groth16_proofs_start_c(&p, 0, nullptr, nullptr, &srs.h, nullptr, -1, &pending));
  ASSERT_EQ(res.code, 0) << res.message;
  destroy_pending_proof(pending);
  res = take(finalize_groth16_proof_c(pending, &proof));
  EXPECT_EQ(res.code, EINVAL);
}

// Eight callers at once on one SRS and one gpu_mtx, which the test itself keeps locked
// throughout: a call that waited for it would never return. Each caller proves through both
// forms with its own r, s; every proof equals the witness prover's.
TEST(Supraseal, EightThreadsShareOneGpuMutexNeverNeedingIt) {
  auto g = test::rng("ffi_threads");
  const Fixture f = synthetic(120, 5, g() | 1);
  Srs srs(f.params, true);
  void* mtx = create_gpu_mutex();
  ASSERT_NE(mtx, nullptr);
  auto* as_mutex = static_cast<std::mutex*>(mtx);  // the ABI's promise: a real std::mutex
  std::lock_guard<std::mutex> held(*as_mutex);
  constexpr int kThreads = 8;
  std::vector<ProofRandomness> rs;
  for (int t = 0; t < 2 * kThreads; ++t) rs.push_back(rs_from(g));
  std::vector<supraseal_groth16_proof> got(2 * kThreads);
  std::vector<Result> errors(2 * kThreads, Result{-1, "not run"});
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      const supraseal_assignment p = assignment(f.syn);
      const std::vector<Fr> r1 = {rs[2 * t].r}, s1 = {rs[2 * t].s}, r2 = {rs[2 * t + 1].r}, s2 = {rs[2 * t + 1].s};
      errors[2 * t] = take(generate_groth16_proofs_c(&p, 1, fr(r1), fr(s1), &got[2 * t], &srs.h, mtx, t % 2 - 1));
      void* pending = nullptr;
      errors[2 * t + 1] = take(generate_groth16_proofs_start_c(&p, 1, fr(r2), fr(s2), &srs.h, mtx, 0, &pending));
      if (errors[2 * t + 1].code == 0) errors[2 * t + 1] = take(finalize_groth16_proof_c(pending, &got[2 * t + 1]));
    });
  for (auto& t : threads) t.join();
  for (int k = 0; k < 2 * kThreads; ++k) {
    ASSERT_EQ(errors[k].code, 0) << k << ": " << errors[k].message;
    EXPECT_EQ(to_proof(got[k]), groth16::prove(*snarkd::test::bind(f.pk, f.circuit), f.witness, rs[k])) << k;
  }
  EXPECT_FALSE(as_mutex->try_lock());  // still ours
}

TEST(Supraseal, SrsHandlesCountReferencesAndTheCacheEvicts) {
  auto g = test::rng("ffi_srs");
  const Fixture f = gappy(g() | 1);
  const supraseal_assignment p = assignment(f.syn);
  const std::vector<Fr> r = {Fr::one()}, s = {Fr::one()};
  supraseal_groth16_proof proof;
  auto prove_with = [&](const supraseal_srs& h) {
    return take(generate_groth16_proofs_c(&p, 1, fr(r), fr(s), &proof, &h, nullptr, -1));
  };
  // Private copies: the last drop frees; a clone keeps it alive.
  supraseal_srs a{nullptr};
  ASSERT_EQ(take(create_SRS(&a, f.params.c_str(), false)).code, 0);
  const supraseal_srs b = clone_SRS(&a);
  EXPECT_EQ(b.ptr, a.ptr);
  drop_SRS(&a);
  EXPECT_EQ(prove_with(b).code, 0);
  drop_SRS(&b);
  Result dead = prove_with(b);
  EXPECT_EQ(dead.code, EINVAL);
  EXPECT_NE(dead.message.find("not a live SRS handle"), std::string::npos) << dead.message;
  EXPECT_EQ(clone_SRS(&b).ptr, nullptr);
  // Cached: one copy per path; the cache's reference outlives the caller's until evicted.
  supraseal_srs c1{nullptr}, c2{nullptr};
  ASSERT_EQ(take(create_SRS(&c1, f.params.c_str(), true)).code, 0);
  ASSERT_EQ(take(create_SRS(&c2, f.params.c_str(), true)).code, 0);
  EXPECT_EQ(c1.ptr, c2.ptr);
  drop_SRS(&c1);
  drop_SRS(&c2);
  EXPECT_EQ(prove_with(c1).code, 0);  // the cache holds it
  evict_SRS(&c1);
  EXPECT_EQ(prove_with(c1).code, EINVAL);
  // The cache keeps the 4 most recently used paths: a fifth pushes the oldest out.
  std::vector<std::string> paths;
  for (int k = 0; k < 5; ++k) {
    paths.push_back((temp_dir() / ("lru" + std::to_string(k) + ".params")).string());
    fs::copy_file(f.params, paths.back(), fs::copy_options::overwrite_existing);
  }
  supraseal_srs first{nullptr};
  ASSERT_EQ(take(create_SRS(&first, paths[0].c_str(), true)).code, 0);
  drop_SRS(&first);
  EXPECT_EQ(prove_with(first).code, 0);
  for (int k = 1; k < 5; ++k) {
    supraseal_srs h{nullptr};
    ASSERT_EQ(take(create_SRS(&h, paths[k].c_str(), true)).code, 0);
    drop_SRS(&h);
  }
  EXPECT_EQ(prove_with(first).code, EINVAL);
  for (const auto& path : paths) {
    supraseal_srs h{nullptr};
    ASSERT_EQ(take(create_SRS(&h, path.c_str(), true)).code, 0);
    evict_SRS(&h);
    drop_SRS(&h);
  }
  // Null handles are accepted by the void functions.
  supraseal_srs none{nullptr};
  drop_SRS(&none);
  evict_SRS(&none);
  drop_SRS(nullptr);
  EXPECT_EQ(clone_SRS(&none).ptr, nullptr);
}

TEST(Supraseal, CreateSrsNamesTheFileAndTheProblem) {
  Result r;
  supraseal_srs h{nullptr};
  r = take(create_SRS(&h, "/nonexistent/snarkd_ffi.params", false));
  EXPECT_EQ(r.code, ENOENT);
  EXPECT_NE(r.message.find("/nonexistent/snarkd_ffi.params"), std::string::npos) << r.message;
  EXPECT_EQ(h.ptr, nullptr);
  const std::string junk = (temp_dir() / "junk.params").string();
  {
    std::FILE* fp = std::fopen(junk.c_str(), "wb");
    std::fputs("not a params file", fp);
    std::fclose(fp);
  }
  r = take(create_SRS(&h, junk.c_str(), true));
  EXPECT_EQ(r.code, EINVAL);
  EXPECT_NE(r.message.find(junk), std::string::npos) << r.message;
  r = take(create_SRS(&h, nullptr, false));
  EXPECT_EQ(r.code, EINVAL);
  EXPECT_NE(r.message.find("srs_path"), std::string::npos) << r.message;
  r = take(create_SRS(nullptr, junk.c_str(), false));
  EXPECT_EQ(r.code, EINVAL);
  EXPECT_NE(r.message.find("ret"), std::string::npos) << r.message;
}

// A key streamed through a named pipe (snarkd's extension: the key never touches the disk) is
// read as it arrives, proves like the file, and is never cached: each create_SRS on a pipe
// reads what its writer sends. A pipe cut short is an EINVAL naming it.
TEST(Supraseal, CreateSrsReadsANamedPipe) {
  auto g = test::rng("ffi_fifo");
  const Fixture f = synthetic(64, 3, g() | 1);
  std::ifstream in(f.params, std::ios::binary);
  const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
  const std::string fifo = (temp_dir() / "k.fifo").string();
  const supraseal_assignment p = assignment(f.syn);
  const std::vector<Fr> r = {Fr::random(g)}, s = {Fr::random(g)};
  std::vector<supraseal_srs> handles;  // both alive at once: a cached second would be the first
  for (int k = 0; k < 2; ++k) {
    test::FifoWriter w(fifo, bytes);
    supraseal_srs h{nullptr};
    const Result c = take(create_SRS(&h, fifo.c_str(), true));
    ASSERT_EQ(c.code, 0) << c.message;
    EXPECT_EQ(w.join(), bytes.size());
    supraseal_groth16_proof proof;
    const Result res = take(generate_groth16_proofs_c(&p, 1, fr(r), fr(s), &proof, &h, nullptr, -1));
    ASSERT_EQ(res.code, 0) << res.message;
    EXPECT_TRUE(groth16::verify(f.pk.vk, to_proof(proof), groth16::public_inputs(f.circuit, f.witness)));
    handles.push_back(h);
  }
  EXPECT_NE(handles[0].ptr, handles[1].ptr) << "a pipe's key came from the cache";
  for (auto& h : handles) drop_SRS(&h);
  test::FifoWriter cut(fifo, std::vector<uint8_t>(bytes.begin(), bytes.end() - 100));
  supraseal_srs h{nullptr};
  const Result bad = take(create_SRS(&h, fifo.c_str(), false));
  EXPECT_EQ(bad.code, EINVAL);
  EXPECT_NE(bad.message.find(fifo), std::string::npos) << bad.message;
  EXPECT_NE(bad.message.find("truncated in section b_g2"), std::string::npos) << bad.message;
  EXPECT_EQ(h.ptr, nullptr);
}

// Each case changes one thing and wants (code, words in the message).
struct BadCase {
  const char* what;
  int code;
  const char* needle;
  std::function<void(supraseal_assignment&, std::vector<Fr>& r, BellpersonSynthesis& syn)> mutate;
};

TEST(Supraseal, BadArgumentsGetACodeAndAMessageNamingThem) {
  auto g = test::rng("ffi_bad");
  const Fixture f = synthetic(40, 3, g() | 1);
  Srs srs(f.params);
  const Fr unreduced = Fr::from_montgomery(Fr::kModulus);  // limbs = r: not a field element
  const std::vector<BadCase> cases = {
      {"abc too long", EINVAL, "provers[0].abc_size is", [&](auto& p, auto&, auto&) { p.abc_size = f.pk.domain_size() + 1; }},
      {"a/b/c null", EINVAL, "provers[0].b is a null pointer", [](auto& p, auto&, auto&) { p.b = nullptr; }},
      {"popcount", EINVAL, "provers[0].a_aux_popcount is", [](auto& p, auto&, auto&) { p.a_aux_popcount += 1; }},
      {"b popcount", EINVAL, "provers[0].b_inp_popcount is", [](auto& p, auto&, auto&) { p.b_inp_popcount = 0; }},
      {"bit_len", EINVAL, "provers[0].b_aux_bit_len is", [](auto& p, auto&, auto&) { p.b_aux_bit_len += 1; }},
      {"density null", EINVAL, "provers[0].a_aux_density is a null pointer", [](auto& p, auto&, auto&) { p.a_aux_density = nullptr; }},
      {"inputs", EINVAL, "provers[0].inp_assignment_size is", [](auto& p, auto&, auto&) {
         p.inp_assignment_size -= 1;
         p.b_inp_bit_len -= 1;
       }},
      {"aux", EINVAL, "provers[0].aux_assignment_size is", [](auto& p, auto&, auto&) {
         p.aux_assignment_size -= 1;
         p.a_aux_bit_len = p.b_aux_bit_len = p.aux_assignment_size;
       }},
      {"aux null", EINVAL, "provers[0].aux_assignment_data is a null pointer", [](auto& p, auto&, auto&) { p.aux_assignment_data = nullptr; }},
      {"unreduced aux", EINVAL, "provers[0].aux_assignment_data[3] is not a reduced", [&](auto&, auto&, auto& syn) { syn.aux[3] = unreduced; }},
      {"unreduced r", EINVAL, "r_s[0] is not a reduced", [&](auto&, auto& r, auto&) { r[0] = unreduced; }},
      {"ONE", EINVAL, "the constant ONE", [](auto&, auto&, auto& syn) { syn.inputs[0] = Fr::zero(); }},
      {"unsatisfied", EDOM, "row 7 of a, b, c", [](auto&, auto&, auto& syn) { syn.c[7] += Fr::one(); }},
      {"witness off the rows", EDOM, "does not verify", [](auto&, auto&, auto& syn) { syn.aux[1] += Fr::one(); }},
  };
  for (const BadCase& c : cases) {
    BellpersonSynthesis syn = f.syn;
    std::vector<Fr> r = {Fr::one()}, s = {Fr::one()};
    supraseal_assignment p = assignment(syn);
    c.mutate(p, r, syn);
    supraseal_groth16_proof proof;
    void* pending = reinterpret_cast<void*>(1);
    for (const Result& res : {take(generate_groth16_proofs_c(&p, 1, fr(r), fr(s), &proof, &srs.h, nullptr, -1)),
                              take([&] {
                                const supraseal_error e = generate_groth16_proofs_start_c(&p, 1, fr(r), fr(s), &srs.h, nullptr, -1, &pending);
                                if (e.code != 0 || pending == nullptr) return e;
                                std::free(e.message);
                                return finalize_groth16_proof_c(pending, &proof);
                              }())}) {
      EXPECT_EQ(res.code, c.code) << c.what << ": " << res.message;
      EXPECT_NE(res.message.find(c.needle), std::string::npos) << c.what << ": " << res.message;
    }
  }
  // Pointers and handles.
  const supraseal_assignment p = assignment(f.syn);
  const std::vector<Fr> one = {Fr::one()};
  supraseal_groth16_proof proof;
  void* pending = nullptr;
  const supraseal_srs null_srs{nullptr};
  const supraseal_srs bogus_srs{&proof};
  struct Call {
    Result res;
    const char* needle;
  };
  const std::vector<Call> calls = {
      {take(generate_groth16_proofs_c(nullptr, 1, fr(one), fr(one), &proof, &srs.h, nullptr, -1)), "provers is a null pointer"},
      {take(generate_groth16_proofs_c(&p, 1, nullptr, fr(one), &proof, &srs.h, nullptr, -1)), "r_s is a null pointer"},
      {take(generate_groth16_proofs_c(&p, 1, fr(one), nullptr, &proof, &srs.h, nullptr, -1)), "s_s is a null pointer"},
      {take(generate_groth16_proofs_c(&p, 1, fr(one), fr(one), nullptr, &srs.h, nullptr, -1)), "proofs is a null pointer"},
      {take(generate_groth16_proofs_c(&p, 1, fr(one), fr(one), &proof, nullptr, nullptr, -1)), "srs is a null pointer"},
      {take(generate_groth16_proofs_c(&p, 1, fr(one), fr(one), &proof, &null_srs, nullptr, -1)), "a null handle"},
      {take(generate_groth16_proofs_c(&p, 1, fr(one), fr(one), &proof, &bogus_srs, nullptr, -1)), "not a live SRS handle"},
      {take(generate_groth16_proofs_c(&p, 1, fr(one), fr(one), &proof, &srs.h, nullptr, -2)), "gpu_index is -2"},
      {take(generate_groth16_proofs_start_c(&p, 1, fr(one), fr(one), &srs.h, nullptr, -1, nullptr)), "pending_out is a null pointer"},
      {take(finalize_groth16_proof_c(nullptr, &proof)), "handle is a null pointer"},
      {take(finalize_groth16_proof_c(&proof, &proof)), "not a pending proof"},
  };
  for (const Call& c : calls) {
    EXPECT_EQ(c.res.code, EINVAL) << c.needle << ": " << c.res.message;
    EXPECT_NE(c.res.message.find(c.needle), std::string::npos) << c.res.message;
  }
  // A null proofs array at finalize: an error, and the handle is consumed.
  ASSERT_EQ(take(generate_groth16_proofs_start_c(&p, 1, fr(one), fr(one), &srs.h, nullptr, -1, &pending)).code, 0);
  Result res = take(finalize_groth16_proof_c(pending, nullptr));
  EXPECT_EQ(res.code, EINVAL);
  EXPECT_NE(res.message.find("proofs is a null pointer"), std::string::npos) << res.message;
  // Unknown pointers given to the void functions are ignored, not followed.
  destroy_pending_proof(&proof);
  destroy_pending_proof(nullptr);
  destroy_gpu_mutex(&proof);
  destroy_gpu_mutex(nullptr);
  drop_SRS(&bogus_srs);
  evict_SRS(&bogus_srs);
  // Nothing to prove is not an error.
  EXPECT_EQ(take(generate_groth16_proofs_c(nullptr, 0, nullptr, nullptr, nullptr, &srs.h, nullptr, -1)).code, 0);
  void* m = create_gpu_mutex();
  destroy_gpu_mutex(m);
  destroy_gpu_mutex(m);  // the second is unknown: ignored
}

// The engine path's own cases: a pending proof destroyed before finalize (its job cancelled) does
// not disturb another; on the CPU device any gpu_index maps onto it; dropping the last handle of
// an SRS and evicting it leave later proofs of a fresh handle correct.
TEST(Supraseal, DestroyedPendingProofsAndGpuIndexOnTheCpuDevice) {
  auto g = test::rng("ffi_engine_path");
  const Fixture f = synthetic(120, 4, g() | 1);
  for (int round = 0; round < 2; ++round) {
    Srs srs(f.params, round == 1);
    const std::vector<Fr> r = {Fr::random(g)}, s = {Fr::random(g)};
    const supraseal_assignment p = assignment(f.syn);
    void* dropped = nullptr;
    void* kept = nullptr;
    ASSERT_EQ(take(generate_groth16_proofs_start_c(&p, 1, fr(r), fr(s), &srs.h, nullptr, 3, &dropped)).code, 0);
    ASSERT_EQ(take(generate_groth16_proofs_start_c(&p, 1, fr(r), fr(s), &srs.h, nullptr, 0, &kept)).code, 0);
    destroy_pending_proof(dropped);
    supraseal_groth16_proof out;
    const Result res = take(finalize_groth16_proof_c(kept, &out));
    ASSERT_EQ(res.code, 0) << res.message;
    EXPECT_EQ(to_proof(out), groth16::prove(*snarkd::test::bind(f.pk, f.circuit), f.witness, {r[0], s[0]}));
    EXPECT_EQ(take(finalize_groth16_proof_c(dropped, &out)).code, EINVAL);  // destroyed: unknown now
    evict_SRS(&srs.h);
  }
}

}  // namespace
}  // namespace snarkd::ffi_test
