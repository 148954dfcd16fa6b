// The circuits the daemon serves: the config's [[circuit]]s (trusted: the operator wrote them)
// and PreloadKey's (a client names the files: they must lie under server.key_dirs, and the
// journal remembers them, re-checked at every start). A circuit that fails to load stays in
// the failed list, with its error, until a reload loads it or EvictKey drops it.
#include <spdlog/spdlog.h>

#include <set>

#include "snarkd/server/service.hpp"

namespace snarkd::server {

std::shared_ptr<const Service::Circuit> Service::find_circuit(const std::string& id) const {
  std::lock_guard l(mu_);
  const auto it = circuits_.find(id);
  if (it != circuits_.end()) return it->second;
  if (const auto f = failed_circuits_.find(id); f != failed_circuits_.end())
    throw ServiceError(Code::kFailedPrecondition, "circuit '" + id + "' failed to load: " + f->second.error);
  std::string known;
  for (const auto& [k, c] : circuits_) known += (known.empty() ? "" : ", ") + k;
  throw ServiceError(Code::kNotFound,
                     "unknown circuit '" + id + "' (loaded: " + (known.empty() ? "none" : known) + ")");
}

std::string Service::loaded_curve(const std::string& id) const {
  std::lock_guard l(mu_);
  const auto it = circuits_.find(id);
  return it == circuits_.end() ? "" : r1cs::curve_name(it->second->lc.shape.curve);
}

void Service::register_circuit(LoadedCircuit lc) {
  const std::string id = lc.spec.id;
  // Throws if the id is taken, no device proves the key's curve, or it does not fit.
  engine_->register_circuit(id, lc.key);
  auto c = std::make_shared<Circuit>();
  c->lc = std::move(lc);
  spdlog::info("circuit_registered circuit={} curve={} constraints={} vars={} source=\"{}\" load_s={:.3f}", id,
               r1cs::curve_name(c->lc.shape.curve), c->lc.shape.constraints, c->lc.shape.num_vars,
               describe_source(c->lc.spec), c->lc.load_s);
  std::lock_guard l(mu_);
  circuits_[id] = std::move(c);
  failed_circuits_.erase(id);
  if (cluster_) cluster_->keys_changed();
}

v1::KeyInfo Service::key_info(const Circuit& c) const {  // mu_ held
  v1::KeyInfo k;
  k.set_circuit_id(c.lc.spec.id);
  const KeyShape& shape = c.lc.shape;
  k.set_curve(r1cs::curve_name(shape.curve));
  k.set_flavour(groth16::flavour_name(shape.flavour));
  k.set_constraints(shape.constraints);
  k.set_num_vars(shape.num_vars);
  k.set_num_public(shape.num_inputs - 1);
  k.set_domain_log2(shape.log_domain);
  k.set_source(describe_source(c.lc.spec));
  k.set_load_s(c.lc.load_s);
  k.set_from_config(c.lc.from_config);
  uint64_t unfinished = 0;
  for (const auto& [id, r] : records_) unfinished += !r->terminal && r->circuit_id == c.lc.spec.id;
  k.set_unfinished_jobs(unfinished);
  return k;
}

// Every file of the spec resolved under key_dirs and opened as a regular file; the spec with
// the canonical paths (what is loaded and journaled). One answer for every failure.
CircuitSpec Service::checked_key_spec(const CircuitSpec& spec) const {
  std::vector<std::string> dirs;
  {
    std::lock_guard l(mu_);
    dirs = cfg_.key_dirs;
  }
  if (dirs.empty()) throw ServiceError(Code::kPermissionDenied, "PreloadKey is disabled (server.key_dirs is empty)");
  CircuitSpec out = spec;
  for (std::string* p : {&out.params, &out.circuit, &out.zkey}) {
    if (p->empty()) continue;
    std::optional<OpenedFile> f = open_under(*p, dirs);
    if (!f)
      throw ServiceError(Code::kNotFound,
                         "key file '" + clip(*p) + "' is not a readable regular file under server.key_dirs");
    *p = f->real_path;
  }
  return out;
}

bool Service::try_load(const CircuitSpec& spec, bool from_config, const char* source) {
  try {
    LoadedCircuit lc = load_circuit_files(from_config ? spec : checked_key_spec(spec));
    lc.from_config = from_config;
    register_circuit(std::move(lc));
    return true;
  } catch (const std::exception& e) {
    spdlog::error("circuit_load_failed circuit={} source={} error=\"{}\"", spec.id, source, e.what());
    std::lock_guard l(mu_);
    failed_circuits_[spec.id] = FailedCircuit{spec, from_config, e.what(), unix_now()};
    return false;
  }
}

void Service::load_start_circuits() {
  std::set<std::string> from_config;
  for (const CircuitSpec& spec : cfg_.circuits) {
    from_config.insert(spec.id);
    try_load(spec, true, "config");
  }
  for (const CircuitSpec& spec : journal_->load_circuits())
    if (!from_config.count(spec.id)) try_load(spec, false, "journal");  // the config's declaration wins
}

v1::KeyInfo Service::preload(const v1::PreloadKeyRequest& req) {
  check_id("circuit_id", req.circuit_id());
  check_path("params_path", req.params_path());
  check_path("circuit_path", req.circuit_path());
  check_path("zkey_path", req.zkey_path());
  CircuitSpec spec{req.circuit_id(), req.params_path(), req.circuit_path(), req.zkey_path(), req.check_key()};
  if (spec.zkey.empty() == (spec.params.empty() || spec.circuit.empty()))
    throw ServiceError(Code::kInvalidArgument, "give either zkey_path, or params_path and circuit_path");
  {
    std::lock_guard l(mu_);
    if (circuits_.count(spec.id))
      throw ServiceError(Code::kAlreadyExists, "circuit id '" + spec.id + "' is taken (evict it first)");
  }
  spec = checked_key_spec(spec);
  register_circuit(load_circuit_files(spec));  // the engine refuses a racing duplicate id
  journal_->put_circuit(spec);
  std::lock_guard l(mu_);
  return key_info(*circuits_.at(spec.id));
}

void Service::evict(const std::string& id) {
  check_id("circuit_id", id);
  std::shared_ptr<const Circuit> c;
  {
    std::lock_guard l(mu_);
    if (const auto f = failed_circuits_.find(id); f != failed_circuits_.end()) {
      const bool from_config = f->second.from_config;
      failed_circuits_.erase(f);
      if (!from_config) journal_->remove_circuit(id);
      spdlog::info("circuit_evicted circuit={} was=failed", id);
      return;
    }
    const auto it = circuits_.find(id);
    if (it == circuits_.end()) throw ServiceError(Code::kNotFound, "unknown circuit '" + id + "'");
    std::string busy;
    for (const auto& [jid, r] : records_)
      if (!r->terminal && r->circuit_id == id) busy += (busy.empty() ? "" : ", ") + std::to_string(jid);
    if (!busy.empty())
      throw ServiceError(Code::kFailedPrecondition, "circuit '" + id + "' is in use by unfinished jobs " + busy);
    c = it->second;
    circuits_.erase(it);  // new submissions for it fail from here on
  }
  try {
    engine_->unregister_circuit(id);
  } catch (const std::exception& e) {  // a submission raced in between
    std::lock_guard l(mu_);
    circuits_[id] = c;
    throw ServiceError(Code::kFailedPrecondition, std::string("circuit '") + id + "' is in use: " + e.what());
  }
  journal_->remove_circuit(id);
  activity_.forget_circuit(id);
  spdlog::info("circuit_evicted circuit={}", id);
}

// SIGHUP: new [[circuit]] ids and the config's failed ones are (re)tried; a failed config
// circuit no longer in the config leaves the failed list.
void Service::reload_circuits(const ServerConfig& next, std::vector<std::string>& ignored) {
  std::set<std::string> declared;
  for (const CircuitSpec& spec : next.circuits) declared.insert(spec.id);
  {
    std::lock_guard l(mu_);
    for (auto it = failed_circuits_.begin(); it != failed_circuits_.end();)
      it = it->second.from_config && !declared.count(it->first) ? failed_circuits_.erase(it) : std::next(it);
  }
  for (const CircuitSpec& spec : next.circuits) {
    {
      std::lock_guard l(mu_);
      if (circuits_.count(spec.id)) continue;
    }
    if (!try_load(spec, true, "reload")) {
      std::lock_guard l(mu_);
      ignored.push_back("circuit " + spec.id + ": " + failed_circuits_.at(spec.id).error);
    }
  }
}

void Service::fill_failed_circuits(v1::StatusReply& s) const {  // mu_ held
  for (const auto& [id, f] : failed_circuits_) {
    v1::CircuitError* e = s.add_failed_circuits();
    e->set_circuit_id(id);
    e->set_source(describe_source(f.spec));
    e->set_error(f.error);
    e->set_from_config(f.from_config);
    e->set_failed_unix_s(f.at);
  }
}

bool Service::ready(std::string* why) const {
  if (draining_ || stopping_) {
    if (why) *why = "draining";
    return false;
  }
  if (cluster_ && !cluster_->ready(why)) return false;
  std::lock_guard l(mu_);
  if (failed_circuits_.empty()) return true;
  if (why) {
    *why = "not ready: ";
    for (const auto& [id, f] : failed_circuits_) *why += "circuit " + id + " failed to load: " + f.error + "; ";
    why->resize(why->size() - 2);
  }
  return false;
}

}  // namespace snarkd::server
