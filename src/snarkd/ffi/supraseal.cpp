// The supraseal-c2 C ABI over snarkd (include/snarkd/supraseal_c2.h for the contract). Each entry
// point is one guarded() call: exceptions become an errno code and a message naming the entry
// and the argument; nothing escapes. Every call is one job of the engine's a/b/c form on the
// process-wide engine (engine_host.hpp): GPUs when visible, else the CPU device; the caller's
// arrays are lent to the job until its partitions have consumed them (uploaded or copied).
#include "snarkd/supraseal_c2.h"

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "snarkd/ffi/engine_host.hpp"
#include "snarkd/ffi/registry.hpp"
#include "snarkd/groth16/prove_abc.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::ffi {
namespace {

using ff::Fr;

// Our types have blst's bytes (docs/ARCHITECTURE.md, representation contracts), so the ABI's
// arrays are read in place and proofs are written by copy.
static_assert(sizeof(Fr) == sizeof(supraseal_fr) && alignof(Fr) == alignof(supraseal_fr));
static_assert(sizeof(ec::G1Affine) == sizeof(supraseal_g1_affine) && sizeof(ec::G2Affine) == sizeof(supraseal_g2_affine));
static_assert(sizeof(groth16::Proof) == sizeof(supraseal_groth16_proof));
static_assert(offsetof(groth16::Proof, b) == offsetof(supraseal_groth16_proof, b) &&
              offsetof(groth16::Proof, c) == offsetof(supraseal_groth16_proof, c));
static_assert(std::is_standard_layout_v<groth16::Proof> && std::is_trivially_copyable_v<groth16::Proof>);
static_assert(sizeof(supraseal_assignment) == 17 * 8 && sizeof(supraseal_error) == 16);

std::string num(uint64_t v) { return std::to_string(v); }

void require(bool ok, const std::string& what) {
  if (!ok) throw InvalidArgument(what);
}

supraseal_error make_error(int code, const char* fn, const char* what) {
  const std::string msg = std::string(fn) + ": " + what;
  return supraseal_error{code, ::strdup(msg.c_str())};  // the caller frees it (free())
}

// Runs f, turning every exception into a code and a message.
template <class F>
supraseal_error guarded(const char* fn, F&& f) noexcept {
  try {
    f();
    return supraseal_error{0, nullptr};
  } catch (const ErrnoError& e) {
    return make_error(e.code(), fn, e.what());
  } catch (const groth16::UnsatisfiedWitness& e) {
    return make_error(EDOM, fn, e.what());
  } catch (const std::invalid_argument& e) {  // InvalidArgument
    return make_error(EINVAL, fn, e.what());
  } catch (const DecodeError& e) {
    return make_error(EINVAL, fn, e.what());
  } catch (const std::bad_alloc&) {
    return make_error(ENOMEM, fn, "out of memory");
  } catch (const std::exception& e) {
    return make_error(ENOTRECOVERABLE, fn, (std::string("internal error: ") + e.what()).c_str());
  } catch (...) {
    return make_error(ENOTRECOVERABLE, fn, "internal error: unknown exception");
  }
}

// For the void entry points: what they cannot use is ignored, and said.
void warn(const char* fn, const std::string& what) noexcept {
  std::fprintf(stderr, "snarkd_supraseal: %s: %s\n", fn, what.c_str());
}

// Fr values must be fully reduced Montgomery limbs (< r), as blst keeps them; the field code
// assumes it. One comparison per value, in parallel for the big arrays.
void require_reduced(const supraseal_fr* p, uint64_t n, const std::string& what) {
  std::atomic<uint64_t> bad{UINT64_MAX};
  parallel_for(n, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
      ff::BigInt<4> v;
      std::memcpy(v.limb, p[i].l, sizeof v.limb);
      if (!ff::less_than(v, Fr::kModulus)) {
        uint64_t cur = bad.load();
        while (i < cur && !bad.compare_exchange_weak(cur, i)) {
        }
        return;
      }
    }
  });
  if (bad.load() != UINT64_MAX)
    throw InvalidArgument(what + "[" + num(bad.load()) + "] is not a reduced field element (Montgomery limbs ≥ r)");
}

// Null pointers are refused here; the values are read only after every size has been checked
// against the SRS (a wrong size must not make us read past the caller's buffer).
std::span<const Fr> fr_span(const supraseal_fr* p, size_t n, const std::string& what) {
  require(p != nullptr || n == 0, what + " is a null pointer for " + num(n) + " values");
  return {reinterpret_cast<const Fr*>(p), n};
}

void require_reduced(std::span<const Fr> v, const std::string& what) {
  require_reduced(reinterpret_cast<const supraseal_fr*>(v.data()), v.size(), what);
}

groth16::AbcAssignment view(const supraseal_assignment& p, const std::string& name) {
  groth16::AbcAssignment a;
  a.a = fr_span(p.a, p.abc_size, name + ".a");
  a.b = fr_span(p.b, p.abc_size, name + ".b");
  a.c = fr_span(p.c, p.abc_size, name + ".c");
  a.inputs = fr_span(p.inp_assignment_data, p.inp_assignment_size, name + ".inp_assignment_data");
  a.aux = fr_span(p.aux_assignment_data, p.aux_assignment_size, name + ".aux_assignment_data");
  a.a_aux = {p.a_aux_density, p.a_aux_bit_len, p.a_aux_popcount};
  a.b_inputs = {p.b_inp_density, p.b_inp_bit_len, p.b_inp_popcount};
  a.b_aux = {p.b_aux_density, p.b_aux_bit_len, p.b_aux_popcount};
  return a;
}

// Sizes first (check_abc_assignment reads only the density words, bit_len bits), then values.
groth16::AbcAssignment checked_view(const groth16::ProvingKey& pk, const supraseal_assignment& p, const std::string& name) {
  const groth16::AbcAssignment a = view(p, name);
  groth16::check_abc_assignment(pk, a, name);
  require_reduced(a.a, name + ".a");
  require_reduced(a.b, name + ".b");
  require_reduced(a.c, name + ".c");
  require_reduced(a.inputs, name + ".inp_assignment_data");
  require_reduced(a.aux, name + ".aux_assignment_data");
  return a;
}

// The job's failure as the ABI's error: an unsatisfied assignment (or a proof that did not
// verify) is the caller's (EDOM); anything else is ours.
[[noreturn]] void throw_job_error(const engine::JobResult& r) {
  if (r.unsatisfied && r.error.find("do not verify") != std::string::npos)  // the self-check's word
    throw groth16::UnsatisfiedWitness("a proof does not verify (the assignment does not satisfy the circuit): " + r.error,
                                      UINT64_MAX);
  if (r.unsatisfied) throw groth16::UnsatisfiedWitness(r.error, UINT64_MAX);
  throw std::runtime_error("the engine's job " + std::string(engine::job_state_name(r.state)) + ": " + r.error);
}

// The start half: every check, then one engine job of the a/b/c form lent the caller's arrays;
// returns once the job's partitions have consumed them.
std::unique_ptr<PendingProof> start(const supraseal_assignment* provers, size_t num_circuits, const supraseal_fr* r_s,
                                    const supraseal_fr* s_s, const supraseal_srs* srs, int gpu_index) {
  require(srs != nullptr, "srs is a null pointer");
  const auto pk = SrsRegistry::instance().key(srs->ptr, "srs");
  require(provers != nullptr || num_circuits == 0, "provers is a null pointer");
  require(gpu_index >= -1, "gpu_index is " + std::to_string(gpu_index) + " (−1 = any device, else a device ordinal)");
  const auto r = fr_span(r_s, num_circuits, "r_s"), s = fr_span(s_s, num_circuits, "s_s");
  require_reduced(r, "r_s");
  require_reduced(s, "s_s");
  engine::JobRequest req;
  for (size_t c = 0; c < num_circuits; ++c) {
    req.abc.push_back(engine::AbcPartition{checked_view(*pk, provers[c], "provers[" + num(c) + "]"), nullptr});
    req.randomness.push_back(groth16::ProofRandomness{r[c], s[c]});
  }
  auto pp = std::make_unique<PendingProof>();
  pp->count = num_circuits;
  if (num_circuits == 0) return pp;
  EngineHost& host = EngineHost::instance();
  req.device = host.device_for(gpu_index);
  req.circuit_id = host.key_id(pk);
  engine::Engine& e = host.engine();
  const uint64_t ni = pk->vk.ic.size(), na = pk->l.size();
  pp->abc_bytes = (ni + na + 3 * pk->domain_size()) * sizeof(Fr) + engine::abc_density_words(ni, na) * 8;
  pp->job = e.submit(std::move(req));
  pp->has_job = true;
  e.await_consumed(pp->job);
  return pp;
}

// SNARKD_SUPRASEAL_TRACE=1: one stderr line per partition with its stage times (the GPU script
// reads the upload times of the a/b/c form from them).
void trace(const PendingProof& pp, const engine::JobResult& r) {
  static const bool on = [] {
    const char* v = std::getenv("SNARKD_SUPRASEAL_TRACE");
    return v && std::strcmp(v, "1") == 0;
  }();
  if (!on) return;
  for (size_t k = 0; k < r.timings.size(); ++k) {
    const engine::PartitionTiming& t = r.timings[k];
    std::fprintf(stderr,
                 "snarkd_supraseal: job %llu partition %zu device %u: wait %.3f s, upload %.3f s (%llu bytes), "
                 "compute %.3f s, finalize %.3f s\n",
                 (unsigned long long)r.id, k, t.device, t.reserved_s - t.submitted_s, t.uploaded_s - t.reserved_s,
                 (unsigned long long)pp.abc_bytes, t.computed_s - t.uploaded_s, t.finalized_s - t.computed_s);
  }
}

// Awaits the job and writes its proofs (verified by the engine unless SNARKD_SUPRASEAL_SELF_CHECK=0).
void finalize(const PendingProof& pp, supraseal_groth16_proof* proofs) {
  require(proofs != nullptr || pp.count == 0, "proofs is a null pointer");
  if (!pp.has_job) return;
  engine::Engine& e = EngineHost::instance().engine();
  const engine::JobResult r = *e.await(pp.job);
  e.forget(pp.job);
  if (r.state != engine::JobState::kDone) throw_job_error(r);
  trace(pp, r);
  if (r.proofs.size() != pp.count) throw std::logic_error("the engine returned " + num(r.proofs.size()) + " proofs");
  // groth16_proof is the layout of groth16::Proof (blst affine points; a static_assert pins it).
  for (size_t k = 0; k < r.proofs.size(); ++k) {
    const groth16::Proof& p = groth16::as_curve<groth16::Bls12_381>(r.proofs[k], "proof");
    std::memcpy(static_cast<void*>(proofs + k), &p, sizeof(groth16::Proof));
  }
}

// A pending proof given up: its job is cancelled and forgotten.
void drop(const PendingProof& pp) {
  if (!pp.has_job) return;
  engine::Engine& e = EngineHost::instance().engine();
  e.cancel(pp.job);
  e.forget(pp.job);  // cancelled jobs are finished (their in-flight partitions stop on their own)
}

}  // namespace
}  // namespace snarkd::ffi

using namespace snarkd::ffi;  // NOLINT: the entry points below are C functions

extern "C" {

supraseal_error create_SRS(supraseal_srs* ret, const char* srs_path, bool cache) {
  return guarded("create_SRS", [&] {
    require(ret != nullptr, "ret is a null pointer");
    require(srs_path != nullptr, "srs_path is a null pointer");
    ret->ptr = SrsRegistry::instance().create(srs_path, cache);
  });
}

void evict_SRS(const supraseal_srs* by_ref) {
  try {
    if (!by_ref || !by_ref->ptr) return;
    // The device copies go (the engine's registration; a later proof uploads the key again),
    // unless a job of the key is unfinished: then they stay until the next evict.
    const auto pk = SrsRegistry::instance().key(by_ref->ptr, "srs");
    if (EngineHost* h = EngineHost::if_created(); h && !h->forget_key(pk.get()))
      warn("evict_SRS", "proofs of this SRS are running: its device copies stay");
    if (!SrsRegistry::instance().evict(by_ref->ptr)) warn("evict_SRS", "unknown SRS handle, ignored");
  } catch (const std::invalid_argument&) {
    warn("evict_SRS", "unknown SRS handle, ignored");
  } catch (...) {
    warn("evict_SRS", "internal error, ignored");
  }
}

void drop_SRS(const supraseal_srs* by_ref) {
  try {
    if (by_ref && by_ref->ptr && !SrsRegistry::instance().release(by_ref->ptr)) warn("drop_SRS", "unknown SRS handle, ignored");
    // A key no handle uses any more leaves the devices (unless a job of it is unfinished).
    if (EngineHost* h = EngineHost::if_created())
      h->forget_unheld([](const snarkd::groth16::ProvingKey* k) { return SrsRegistry::instance().holds(k); });
  } catch (...) {
    warn("drop_SRS", "internal error, ignored");
  }
}

supraseal_srs clone_SRS(const supraseal_srs* by_ref) {
  try {
    if (by_ref && by_ref->ptr && SrsRegistry::instance().retain(by_ref->ptr)) return *by_ref;
    if (by_ref && by_ref->ptr) warn("clone_SRS", "unknown SRS handle: returning a null handle");
  } catch (...) {
    warn("clone_SRS", "internal error: returning a null handle");
  }
  return supraseal_srs{nullptr};
}

supraseal_error generate_groth16_proofs_c(const supraseal_assignment provers[], size_t num_circuits,
                                          const supraseal_fr r_s[], const supraseal_fr s_s[],
                                          supraseal_groth16_proof proofs[], const supraseal_srs* srs, void* gpu_mtx,
                                          int gpu_index) {
  (void)gpu_mtx;  // accepted, never needed (supraseal_c2.h)
  return guarded("generate_groth16_proofs_c", [&] {
    require(proofs != nullptr || num_circuits == 0, "proofs is a null pointer");
    finalize(*start(provers, num_circuits, r_s, s_s, srs, gpu_index), proofs);
  });
}

supraseal_error generate_groth16_proofs_start_c(const supraseal_assignment provers[], size_t num_circuits,
                                                const supraseal_fr r_s[], const supraseal_fr s_s[],
                                                const supraseal_srs* srs, void* gpu_mtx, int gpu_index,
                                                void** pending_out) {
  (void)gpu_mtx;
  return guarded("generate_groth16_proofs_start_c", [&] {
    require(pending_out != nullptr, "pending_out is a null pointer");
    *pending_out = nullptr;
    *pending_out = pending_proofs().add(start(provers, num_circuits, r_s, s_s, srs, gpu_index));
  });
}

supraseal_error finalize_groth16_proof_c(void* handle, supraseal_groth16_proof proofs[]) {
  return guarded("finalize_groth16_proof_c", [&] {
    require(handle != nullptr, "handle is a null pointer");
    const std::unique_ptr<PendingProof> pp = pending_proofs().take(handle);
    require(pp != nullptr, "handle is not a pending proof (finalized or destroyed already?)");
    if (proofs == nullptr && pp->count > 0) drop(*pp);  // the handle is used up either way
    finalize(*pp, proofs);
  });
}

void destroy_pending_proof(void* handle) {
  try {
    if (!handle) return;
    const std::unique_ptr<PendingProof> pp = pending_proofs().take(handle);
    if (!pp) warn("destroy_pending_proof", "unknown pending proof handle, ignored");
    else drop(*pp);
  } catch (...) {
    warn("destroy_pending_proof", "internal error, ignored");
  }
}

void* create_gpu_mutex(void) {
  try {
    return gpu_mutexes().add(std::make_unique<std::mutex>());
  } catch (...) {
    warn("create_gpu_mutex", "out of memory: returning a null mutex (accepted by every call)");
    return nullptr;
  }
}

void destroy_gpu_mutex(void* mtx) {
  try {
    if (mtx && !gpu_mutexes().take(mtx)) warn("destroy_gpu_mutex", "unknown mutex, ignored");
  } catch (...) {
    warn("destroy_gpu_mutex", "internal error, ignored");
  }
}

}  // extern "C"
