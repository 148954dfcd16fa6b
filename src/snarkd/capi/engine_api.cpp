// Engines, circuits and jobs of the C API, over the public engine API (engine/engine.hpp).
#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "snarkd/capi/internal.hpp"
#include "snarkd/engine/devices.hpp"
#include "snarkd/groth16/any_curve.hpp"
#include "snarkd/groth16/bellperson_io.hpp"
#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/groth16/prove_abc.hpp"
#include "snarkd/groth16/qap.hpp"
#include "snarkd/groth16/zkey.hpp"
#include "snarkd/r1cs/circom.hpp"
#include "snarkd/r1cs/csr_file.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::capi {
namespace {

using engine::Engine;

std::string num(uint64_t v) { return std::to_string(v); }

// A circom .r1cs or a snarkd CSR file, told apart by their magic bytes.
r1cs::Circuit load_circuit(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw ApiError(SNARKD_ERR_FILE, path + ": cannot open: " + std::strerror(errno));
  char magic[8] = {};
  f.read(magic, sizeof magic);
  if (f.gcount() >= 4 && std::memcmp(magic, "r1cs", 4) == 0) return r1cs::read_circom_r1cs(path).circuit;
  if (f.gcount() == 8 && std::memcmp(magic, "SNKDCSR", 8) == 0) return r1cs::read_csr_file(path);
  throw ApiError(SNARKD_ERR_FILE, path + ": not a circuit (expected a circom .r1cs or a snarkd CSR file)");
}

struct Loaded {
  groth16::AnyBoundKey key;                       // a key with its circuit (null: a bellperson key alone)
  std::shared_ptr<const groth16::ProvingKey> pk;  // a bellperson key alone (a/b/c jobs)
};

template <class E, class Pk, class Circuit>
Loaded bind(Pk pk, Circuit circuit, const char* path) {
  try {
    return {groth16::BoundKeyT<E>::bind(std::move(pk), std::move(circuit)), nullptr};
  } catch (const DecodeError& e) {  // the key does not belong to the circuit: the caller's files
    throw ApiError(SNARKD_ERR_FILE, std::string(path) + ": " + e.what());
  }
}

Loaded load_files(const snarkd_circuit_files& f) {
  const groth16::PointCheck check = f.check_points ? groth16::PointCheck::kFull : groth16::PointCheck::kTrusted;
  require((f.params_path != nullptr) != (f.zkey_path != nullptr), "files: give exactly one of params_path and zkey_path");
  if (f.params_path) {
    groth16::ProvingKey pk = groth16::read_params(f.params_path, check);
    if (f.circuit_path == nullptr)  // the key alone: a/b/c jobs only
      return {groth16::BoundKeyPtr<groth16::Bls12_381>{}, std::make_shared<const groth16::ProvingKey>(std::move(pk))};
    return bind<groth16::Bls12_381>(std::move(pk), load_circuit(f.circuit_path), f.params_path);
  }
  return groth16::with_curve(groth16::zkey_curve(f.zkey_path), [&](auto e) {
    using E = decltype(e);
    groth16::ZkeyT<E> zk = groth16::read_zkey<E>(f.zkey_path, check);
    return bind<E>(std::move(zk.pk), std::move(zk.circuit), f.zkey_path);
  });
}

snarkd_circuit_info info_of(const Loaded& l) {
  snarkd_circuit_info i;
  snarkd_circuit_info_init(&i);
  if (l.pk) {  // a key alone: its IC and L points say how many variables; the circuit is unknown
    const uint64_t inputs = l.pk->vk.ic.size();
    i.num_vars = inputs + l.pk->l.size();
    i.num_public_inputs = inputs - 1;
    i.log_domain = l.pk->log_domain;
    i.proof_bytes = SNARKD_PROOF_BYTES;
    return i;
  }
  std::visit(
      [&](const auto& k) {
        i.num_vars = k->num_vars();
        i.num_public_inputs = k->num_inputs() - 1;
        i.num_constraints = k->circuit().num_constraints();
        i.log_domain = k->pk().log_domain;
      },
      l.key);
  i.curve = curve_code(groth16::curve_of(l.key));
  i.proof_bytes = uint32_t(groth16::proof_bytes_size(groth16::curve_of(l.key)));
  return i;
}

snarkd_circuit_info circuit_info(snarkd_engine* e, const char* id) {
  require(id != nullptr, "circuit_id is a null pointer");
  std::lock_guard<std::mutex> g(e->mu);
  auto it = e->circuits.find(id);
  if (it == e->circuits.end()) throw ApiError(SNARKD_ERR_NOT_FOUND, std::string("unknown circuit \"") + id + "\"");
  return it->second;
}

// One partition's witness over the circuit's curve, converted (and range-checked) in parallel
// chunks.
groth16::AnyScalars read_witness(const uint8_t* p, uint64_t n, int32_t format, uint32_t partition, int32_t curve) {
  return groth16::with_curve(curve_id(curve), [&](auto e) -> groth16::AnyScalars {
    using F = typename decltype(e)::Fr;
    std::vector<F> w(n);
    parallel_for(n, [&](size_t b, size_t end) {
      for (size_t i = b; i < end; ++i)
        w[i] = read_fr<F>(p + 32 * i, format, "witnesses[" + num(partition) + "][" + num(i) + "]");
    });
    return w;
  });
}

// n values of `format` at p (range-checked) in parallel chunks, named what[i] in errors.
std::vector<ff::Fr> read_values(const void* p, uint64_t n, int32_t format, const std::string& what) {
  require(p != nullptr || n == 0, what + " is a null pointer for " + num(n) + " values");
  const auto* bytes = static_cast<const uint8_t*>(p);
  std::vector<ff::Fr> v(n);
  parallel_for(n, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) v[i] = read_fr(bytes + 32 * i, format, what + "[" + num(i) + "]");
  });
  return v;
}

std::vector<uint64_t> read_words(const uint64_t* p, uint64_t bits, uint64_t& popcount, const std::string& what) {
  require(p != nullptr || bits == 0, what + " is a null pointer for " + num(bits) + " bits");
  std::vector<uint64_t> w(p, p + (bits + 63) / 64);
  if (bits % 64) w.back() &= (uint64_t{1} << (bits % 64)) - 1;  // bits past the length are not ours
  popcount = 0;
  for (uint64_t x : w) popcount += uint64_t(std::popcount(x));
  return w;
}

// One a/b/c partition, copied (the C API's jobs own their data) and converted.
engine::AbcPartition read_abc(const snarkd_abc_partition& p, int32_t format, const std::string& name) {
  auto s = std::make_shared<groth16::BellpersonSynthesis>();
  s->a = read_values(p.a, p.abc_size, format, name + ".a");
  s->b = read_values(p.b, p.abc_size, format, name + ".b");
  s->c = read_values(p.c, p.abc_size, format, name + ".c");
  s->inputs = read_values(p.inputs, p.num_inputs, format, name + ".inputs");
  s->aux = read_values(p.aux, p.num_aux, format, name + ".aux");
  s->a_aux_words = read_words(p.a_aux_density, p.num_aux, s->a_aux_popcount, name + ".a_aux_density");
  s->b_inp_words = read_words(p.b_inp_density, p.num_inputs, s->b_inp_popcount, name + ".b_inp_density");
  s->b_aux_words = read_words(p.b_aux_density, p.num_aux, s->b_aux_popcount, name + ".b_aux_density");
  return engine::AbcPartition{s->view(), s};
}

// The job must exist (engine calls on an unknown id throw InvalidArgument; we say NOT_FOUND).
void require_job(Engine& en, uint64_t id) {
  try {
    en.peek(id);
  } catch (const InvalidArgument&) {
    throw ApiError(SNARKD_ERR_NOT_FOUND, "unknown job " + num(id));
  }
}

}  // namespace
}  // namespace snarkd::capi

struct snarkd_job_result {
  snarkd::engine::JobResult r;
  std::vector<std::vector<uint8_t>> proofs;  // snarkd::groth16::proof_bytes
};

using namespace snarkd;        // NOLINT: C entry points
using namespace snarkd::capi;  // NOLINT

extern "C" {

void snarkd_engine_options_init(snarkd_engine_options* o) {
  if (!o) return;
  *o = snarkd_engine_options{sizeof(snarkd_engine_options), "cpu", 0, 0, 0, 1};
}

snarkd_status snarkd_engine_create(const snarkd_engine_options* options, snarkd_engine** out) {
  return guarded([&] {
    require(out != nullptr, "out is a null pointer");
    *out = nullptr;
    const snarkd_engine_options o = read_struct(options, snarkd_engine_options_init, "options");
    require(o.workers_per_device <= 256, "options->workers_per_device is " + std::to_string(o.workers_per_device) + " (at most 256)");
    engine::DeviceOptions dopt;
    dopt.vram_bytes = o.device_memory_bytes;
    auto devices = engine::make_devices(o.devices ? o.devices : "cpu", dopt);
    engine::EngineConfig cfg;
    if (o.workers_per_device) cfg.workers_per_device = o.workers_per_device;
    cfg.host_budget_bytes = o.host_budget_bytes;
    cfg.self_check = o.self_check != 0;
    cfg.record_timeline = false;  // a long-lived library would keep every span
    auto e = std::make_unique<snarkd_engine>();
    e->num_devices = static_cast<uint32_t>(devices.size());
    e->workers_per_device = cfg.workers_per_device;
    e->engine = std::make_unique<engine::Engine>(std::move(devices), cfg);
    *out = e.release();
  });
}

void snarkd_engine_destroy(snarkd_engine* engine) {
  try {
    delete engine;
  } catch (...) {  // the engine's destructor joins its threads; nothing may escape
  }
}

snarkd_status snarkd_set_paused(snarkd_engine* e, int32_t paused) {
  return guarded([&] { engine_of(e).set_paused(paused != 0); });
}

void snarkd_circuit_files_init(snarkd_circuit_files* f) {
  if (f) *f = snarkd_circuit_files{sizeof(snarkd_circuit_files), nullptr, nullptr, nullptr, 0};
}

void snarkd_circuit_info_init(snarkd_circuit_info* i) {
  if (i) *i = snarkd_circuit_info{sizeof(snarkd_circuit_info), 0, 0, 0, 0, SNARKD_CURVE_BLS12_381, SNARKD_PROOF_BYTES};
}

snarkd_status snarkd_register_circuit(snarkd_engine* e, const char* circuit_id, const snarkd_circuit_files* files) {
  return guarded([&] {
    Engine& en = engine_of(e);
    require(circuit_id != nullptr && *circuit_id != 0, "circuit_id is a null pointer or empty");
    const snarkd_circuit_files f = read_struct(files, snarkd_circuit_files_init, "files");
    const Loaded l = load_files(f);
    if (l.pk)
      en.register_abc_key(circuit_id, l.pk);
    else
      en.register_circuit(circuit_id, l.key);
    std::lock_guard<std::mutex> g(e->mu);
    e->circuits[circuit_id] = info_of(l);
  });
}

snarkd_status snarkd_unregister_circuit(snarkd_engine* e, const char* circuit_id) {
  return guarded([&] {
    Engine& en = engine_of(e);
    circuit_info(e, circuit_id);  // NOT_FOUND for an unknown id
    en.unregister_circuit(circuit_id);
    std::lock_guard<std::mutex> g(e->mu);
    e->circuits.erase(circuit_id);
  });
}

snarkd_status snarkd_get_circuit_info(snarkd_engine* e, const char* circuit_id, snarkd_circuit_info* out) {
  return guarded([&] {
    engine_of(e);
    write_struct(out, circuit_info(e, circuit_id), "out");
  });
}

void snarkd_job_init(snarkd_job* j) {
  if (j) *j = snarkd_job{sizeof(snarkd_job), nullptr, SNARKD_PRIORITY_NORMAL, SNARKD_FR_MONTGOMERY, 0, nullptr, 0, -1};
}

void snarkd_abc_job_init(snarkd_abc_job* j) {
  if (j) *j = snarkd_abc_job{sizeof(snarkd_abc_job), nullptr, SNARKD_PRIORITY_NORMAL, SNARKD_FR_MONTGOMERY, 0, nullptr, -1, -1};
}

snarkd_status snarkd_submit(snarkd_engine* e, const snarkd_job* job, uint64_t* job_id) {
  return guarded([&] {
    Engine& en = engine_of(e);
    require(job_id != nullptr, "job_id is a null pointer");
    const snarkd_job j = read_struct(job, snarkd_job_init, "job");
    const snarkd_circuit_info info = circuit_info(e, j.circuit_id);
    require(j.priority >= SNARKD_PRIORITY_LOW && j.priority <= SNARKD_PRIORITY_CRITICAL,
            "job->priority is " + std::to_string(j.priority) + " (0 … 3)");
    require_format(j.fr_format, "job->fr_format");
    require(j.num_partitions >= 1, "job->num_partitions is 0");
    require(j.witnesses != nullptr, "job->witnesses is a null pointer");
    require(j.witness_len == info.num_vars, "job->witness_len is " + num(j.witness_len) + ", circuit \"" +
                                                std::string(j.circuit_id) + "\" has " + num(info.num_vars) + " variables");
    engine::JobRequest req;
    req.circuit_id = j.circuit_id;
    req.priority = static_cast<engine::Priority>(j.priority);
    for (uint32_t p = 0; p < j.num_partitions; ++p) {
      require(j.witnesses[p] != nullptr, "job->witnesses[" + num(p) + "] is a null pointer");
      req.witnesses.push_back(
          read_witness(static_cast<const uint8_t*>(j.witnesses[p]), j.witness_len, j.fr_format, p, info.curve));
    }
    const auto wait = j.wait_ms < 0 ? std::chrono::milliseconds::max() : std::chrono::milliseconds(j.wait_ms);
    *job_id = en.submit(std::move(req), wait);
  });
}

snarkd_status snarkd_submit_abc(snarkd_engine* e, const snarkd_abc_job* job, uint64_t* job_id) {
  return guarded([&] {
    Engine& en = engine_of(e);
    require(job_id != nullptr, "job_id is a null pointer");
    const snarkd_abc_job j = read_struct(job, snarkd_abc_job_init, "job");
    circuit_info(e, j.circuit_id);  // NOT_FOUND for an unknown id
    require(j.priority >= SNARKD_PRIORITY_LOW && j.priority <= SNARKD_PRIORITY_CRITICAL,
            "job->priority is " + std::to_string(j.priority) + " (0 … 3)");
    require_format(j.fr_format, "job->fr_format");
    require(j.num_partitions >= 1, "job->num_partitions is 0");
    require(j.partitions != nullptr, "job->partitions is a null pointer");
    require(j.device >= -1, "job->device is " + std::to_string(j.device) + " (−1 = any)");
    engine::JobRequest req;
    req.circuit_id = j.circuit_id;
    req.priority = static_cast<engine::Priority>(j.priority);
    req.device = j.device;
    for (uint32_t p = 0; p < j.num_partitions; ++p)
      req.abc.push_back(read_abc(j.partitions[p], j.fr_format, "job->partitions[" + num(p) + "]"));
    const auto wait = j.wait_ms < 0 ? std::chrono::milliseconds::max() : std::chrono::milliseconds(j.wait_ms);
    *job_id = en.submit(std::move(req), wait);
  });
}

snarkd_status snarkd_await(snarkd_engine* e, uint64_t job_id, int64_t timeout_ms, snarkd_job_result** out) {
  return guarded([&] {
    Engine& en = engine_of(e);
    require(out != nullptr, "out is a null pointer");
    *out = nullptr;
    require_job(en, job_id);
    std::optional<std::chrono::milliseconds> timeout;
    if (timeout_ms >= 0) timeout = std::chrono::milliseconds(timeout_ms);
    std::optional<engine::JobResult> r;
    try {
      r = en.await(job_id, timeout);
    } catch (const InvalidArgument&) {  // forgotten meanwhile
      throw ApiError(SNARKD_ERR_NOT_FOUND, "unknown job " + num(job_id));
    }
    if (!r) throw ApiError(SNARKD_ERR_TIMEOUT, "job " + num(job_id) + " has not finished after " + std::to_string(timeout_ms) + " ms");
    auto res = std::make_unique<snarkd_job_result>();
    for (const groth16::AnyProof& p : r->proofs) res->proofs.push_back(groth16::proof_bytes(p));
    res->r = std::move(*r);
    *out = res.release();
  });
}

snarkd_status snarkd_cancel(snarkd_engine* e, uint64_t job_id, int32_t* was_running) {
  return guarded([&] {
    Engine& en = engine_of(e);
    require_job(en, job_id);
    const bool running = en.cancel(job_id);
    if (was_running) *was_running = running ? 1 : 0;
  });
}

snarkd_status snarkd_forget(snarkd_engine* e, uint64_t job_id) {
  return guarded([&] {
    Engine& en = engine_of(e);
    require_job(en, job_id);
    en.forget(job_id);
  });
}

snarkd_job_state snarkd_job_result_state(const snarkd_job_result* r) {
  return r ? static_cast<snarkd_job_state>(r->r.state) : SNARKD_JOB_FAILED;
}

const char* snarkd_job_result_error(const snarkd_job_result* r) { return r ? r->r.error.c_str() : "null result"; }

int32_t snarkd_job_result_verified(const snarkd_job_result* r) { return r && r->r.verified ? 1 : 0; }

int32_t snarkd_job_result_curve(const snarkd_job_result* r) { return r ? curve_code(r->r.curve) : SNARKD_CURVE_BLS12_381; }

uint32_t snarkd_job_result_proof_bytes(const snarkd_job_result* r) {
  return uint32_t(groth16::proof_bytes_size(r ? r->r.curve : groth16::CurveId::kBls12_381));
}

uint32_t snarkd_job_result_num_proofs(const snarkd_job_result* r) {
  return r ? static_cast<uint32_t>(r->proofs.size()) : 0;
}

snarkd_status snarkd_job_result_proof(const snarkd_job_result* r, uint32_t partition, uint8_t* out) {
  return guarded([&] {
    require(r != nullptr && out != nullptr, "result or out is a null pointer");
    require(partition < r->proofs.size(), "partition " + num(partition) + " of a result with " + num(r->proofs.size()) + " proofs");
    std::memcpy(out, r->proofs[partition].data(), r->proofs[partition].size());
  });
}

uint64_t snarkd_job_result_num_public_inputs(const snarkd_job_result* r) {
  return r && !r->r.public_inputs.empty() ? groth16::size_of(r->r.public_inputs[0]) : 0;
}

snarkd_status snarkd_job_result_public_input(const snarkd_job_result* r, uint32_t partition, uint64_t index,
                                             int32_t fr_format, uint8_t* out) {
  return guarded([&] {
    require(r != nullptr && out != nullptr, "result or out is a null pointer");
    require_format(fr_format, "fr_format");
    require(partition < r->r.public_inputs.size(), "partition " + num(partition) + " of a result with " +
                                                       num(r->r.public_inputs.size()) + " partitions");
    std::visit(
        [&](const auto& in) {
          require(index < in.size(), "public input " + num(index) + " of " + num(in.size()));
          write_fr(in[index], fr_format, out);
        },
        r->r.public_inputs[partition]);
  });
}

void snarkd_job_result_free(snarkd_job_result* r) { delete r; }

void snarkd_stats_init(snarkd_stats* s) {
  if (!s) return;
  *s = snarkd_stats{};
  s->struct_size = sizeof(snarkd_stats);
}

snarkd_status snarkd_get_stats(snarkd_engine* e, snarkd_stats* out) {
  return guarded([&] {
    const engine::EngineStats st = engine_of(e).stats();
    snarkd_stats s;
    snarkd_stats_init(&s);
    s.submitted = st.submitted;
    s.completed = st.completed;
    s.failed = st.failed;
    s.cancelled = st.cancelled;
    s.queued_partitions = st.queued_partitions;
    s.in_flight_partitions = st.in_flight_partitions;
    s.invalid_proofs = st.invalid_proofs;
    s.deadlocks = st.deadlocks;
    s.vram_overcommits = st.vram_overcommits;
    s.peak_device_bytes = st.peak_vram_bytes;
    s.host_in_use_bytes = st.host_in_use_bytes;
    s.host_peak_bytes = st.host_peak_bytes;
    s.num_devices = e->num_devices;
    s.num_workers = static_cast<uint32_t>(st.workers.size());
    write_struct(out, s, "out");
  });
}

}  // extern "C"
