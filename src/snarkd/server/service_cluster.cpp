// Cluster mode's seam in the Service: with [cluster] database set, Submit validates and stages
// the witnesses as always and then hands the job to the ClusterNode (the shared table) instead
// of the journal and the local engine; Await, Cancel and the job half of Status go to the node
// too (a line at the top of each). Everything else — circuits, the engine, drain, the HTTP side —
// is the Service's as on a single host, and the local journal keeps PreloadKey circuits.
#include <spdlog/spdlog.h>

#include <filesystem>

#include "snarkd/server/service.hpp"

namespace fs = std::filesystem;

namespace snarkd::server {

void Service::start_cluster() {
  if (cfg_.cluster.database.empty()) return;
  cluster_ = std::make_unique<ClusterNode>(cfg_, *engine_, metrics_, [this] { return cluster_keys(); });
  cluster_->start();
}

std::vector<ClusterNode::Key> Service::cluster_keys() const {
  std::vector<ClusterNode::Key> out;
  std::lock_guard l(mu_);
  for (const auto& [id, c] : circuits_)
    out.push_back({id, to_hex(c->lc.key_hash), c->lc.shape.num_vars, c->lc.shape.curve});
  return out;
}

std::string Service::staging_dir() {
  if (cluster_)
    if (std::string d = cluster_->new_staging_dir(); !d.empty()) return d;
  return journal_->new_staging_dir();
}

v1::SubmitReply Service::submit_cluster(const v1::SubmitRequest& req, const Circuit& c) {
  Staged st = stage_witnesses(req, c);  // checked and decoded; the decoded values are not needed
  st.witnesses = {};
  ClusterNewJob j;
  j.request_id = req.request_id();
  j.payload = st.hash;
  j.circuit_id = req.circuit_id();
  j.key_hash = to_hex(c.lc.key_hash);
  j.priority = req.priority() == v1::PRIORITY_UNSPECIFIED ? int(v1::PRIORITY_NORMAL) : req.priority();
  for (size_t k = 0; k < st.formats.size(); ++k) {
    const std::string file = st.dir + "/" + std::to_string(k) + "." + witness_format_ext(st.formats[k]);
    j.partitions.push_back(ClusterPartitionIn{st.formats[k], uint64_t(fs::file_size(file)), file});
  }
  ClusterNode::Accepted a;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    a = cluster_->accept(std::move(j), st.dir);
  } catch (...) {
    journal_->remove_dir(st.dir);
    throw;
  }
  journal_->remove_dir(st.dir);  // copied into the database, or moved to witness_dir
  v1::SubmitReply reply;
  reply.set_job_id(a.id);
  reply.set_state(a.state);
  if (a.deduplicated) {
    reply.set_deduplicated(true);
    metric_dedup(req.circuit_id());
    return reply;
  }
  metric_journal_commit(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  metric_submitted(req.circuit_id());
  spdlog::info("job_accepted job={} circuit={} partitions={} priority={} request_id={} cluster=true", a.id,
               req.circuit_id(), req.partitions_size(), engine::priority_name(to_engine_priority(req.priority())),
               req.request_id().empty() ? "-" : req.request_id());
  return reply;
}

}  // namespace snarkd::server
