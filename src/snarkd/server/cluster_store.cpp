#include "snarkd/server/cluster_store.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>

namespace snarkd::server {

namespace {

// Version 1. Witness chunks are stored uncompressed (STORAGE EXTERNAL): field elements do not
// compress, and pglz would spend CPU finding that out on every chunk.
constexpr const char* kSchemaV1 = R"sql(
CREATE SEQUENCE job_ids;
CREATE SEQUENCE fence;
CREATE TABLE hosts(
  id bigserial PRIMARY KEY, name text NOT NULL, pid bigint NOT NULL, version text NOT NULL,
  devices text NOT NULL, workers integer NOT NULL, keys text NOT NULL DEFAULT '',
  started_at timestamptz NOT NULL DEFAULT now(), heartbeat_at timestamptz NOT NULL DEFAULT now(),
  in_flight integer NOT NULL DEFAULT 0, stopped_at timestamptz);
CREATE TABLE jobs(
  id bigint PRIMARY KEY, request_id text UNIQUE, payload_sha256 bytea NOT NULL, circuit_id text NOT NULL,
  key_hash text NOT NULL, priority smallint NOT NULL, partitions integer NOT NULL,
  partitions_done integer NOT NULL DEFAULT 0,
  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'done', 'failed', 'cancelled')),
  submitted_by bigint, submitted_at double precision NOT NULL, finished_at double precision,
  error text NOT NULL DEFAULT '', result bytea, witness_dir text);
CREATE INDEX jobs_finished ON jobs(finished_at) WHERE state <> 'queued';
CREATE TABLE partitions(
  job_id bigint NOT NULL REFERENCES jobs(id) ON DELETE CASCADE, k integer NOT NULL,
  priority smallint NOT NULL, key_hash text NOT NULL, format text NOT NULL, witness_bytes bigint NOT NULL,
  witness_path text,
  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'claimed', 'done', 'failed', 'stopped')),
  host_id bigint, token bigint, lease_until timestamptz, attempts integer NOT NULL DEFAULT 0,
  verified boolean NOT NULL DEFAULT false, result bytea,
  PRIMARY KEY (job_id, k));
CREATE INDEX partitions_queue ON partitions(priority DESC, job_id, k) WHERE state = 'queued';
CREATE INDEX partitions_leases ON partitions(lease_until) WHERE state = 'claimed';
CREATE INDEX partitions_tokens ON partitions(token) WHERE state = 'claimed';
CREATE TABLE witness_chunks(
  job_id bigint NOT NULL REFERENCES jobs(id) ON DELETE CASCADE, k integer NOT NULL, seq integer NOT NULL,
  data bytea NOT NULL, PRIMARY KEY (job_id, k, seq));
ALTER TABLE witness_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
CREATE TABLE events(
  seq bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT clock_timestamp(), job_id bigint NOT NULL,
  k integer, host_id bigint, token bigint, event text NOT NULL, detail text NOT NULL DEFAULT '');
CREATE INDEX events_job ON events(job_id);
)sql";

// Migrations[v] takes a schema at version v to v + 1.
const std::vector<const char*> kMigrations = {kSchemaV1};
static_assert(kClusterSchemaVersion == 1, "add the migration to kMigrations");

std::string bytes_of(const Digest& d) { return std::string(reinterpret_cast<const char*>(d.data()), d.size()); }

WitnessFormat format_of(const std::string& s) {
  return s == "wtns" ? WitnessFormat::kWtns : WitnessFormat::kFrMontgomery;
}

// Reads a staged witness file piece by piece into witness_chunks.
void insert_chunks(pg::Conn& c, int64_t job, uint32_t k, const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cluster: cannot open the staged witness " + path + ": " + std::strerror(errno));
  std::string buf(kWitnessChunkBytes, '\0');
  try {
    for (int64_t seq = 0;; ++seq) {
      size_t got = 0;
      while (got < buf.size()) {
        const ssize_t n = ::read(fd, buf.data() + got, buf.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw std::runtime_error("cluster: cannot read " + path + ": " + std::strerror(errno));
        if (n == 0) break;
        got += size_t(n);
      }
      if (got == 0 && seq > 0) break;
      c.query("INSERT INTO witness_chunks(job_id, k, seq, data) VALUES ($1, $2, $3, $4::bytea)",
              pg::Params().i64(job).i64(k).i64(seq).bytes(buf.substr(0, got)));
      if (got < buf.size()) break;
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
}

v1::JobResult parse_result(const std::string& blob, uint64_t id) {
  v1::JobResult r;
  if (!r.ParseFromString(blob)) throw std::runtime_error("cluster: job " + std::to_string(id) + ": unreadable result");
  return r;
}

}  // namespace

ClusterStore::ClusterStore(Options o) : o_(std::move(o)) {}

std::unique_ptr<pg::Conn> ClusterStore::connect() const {
  auto c = std::make_unique<pg::Conn>(o_.conninfo, o_.application_name);
  c->exec("SET search_path TO " + o_.schema);
  return c;
}

// Delivered at the commit of the caller's transaction (or at once, outside one: reap_expired).
void ClusterStore::notify(pg::Conn& c, const char* what, const std::string& payload) const {
  if (o_.notify) c.query("SELECT pg_notify($1, $2)", pg::Params().text(channel(what)).text(payload));
}

std::unique_ptr<pg::Conn> ClusterStore::take() {
  {
    std::lock_guard l(mu_);
    while (!idle_.empty()) {
      std::unique_ptr<pg::Conn> c = std::move(idle_.back());
      idle_.pop_back();
      if (c->ok()) return c;
    }
  }
  return connect();
}

void ClusterStore::give(std::unique_ptr<pg::Conn> c) {
  if (!c || !c->ok()) return;
  std::lock_guard l(mu_);
  if (idle_.size() < o_.pool_size) idle_.push_back(std::move(c));
}

int ClusterStore::migrate() {
  return with([&](pg::Conn& c) {
    pg::Tx tx(c);
    c.query("SELECT pg_advisory_xact_lock(hashtext($1))", pg::Params().text("snarkd-schema:" + o_.schema));
    c.exec("CREATE SCHEMA IF NOT EXISTS " + o_.schema);
    c.exec("CREATE TABLE IF NOT EXISTS meta(key text PRIMARY KEY, value text NOT NULL)");
    const pg::Result r = c.exec("SELECT value FROM meta WHERE key = 'schema_version'");
    const int have = r.rows() ? int(r.i64(0, 0)) : 0;
    if (have > kClusterSchemaVersion)
      throw pg::Error("cluster: schema " + o_.schema + " is at version " + std::to_string(have) +
                          ", newer than this daemon's " + std::to_string(kClusterSchemaVersion),
                      "");
    for (int v = have; v < kClusterSchemaVersion; ++v) c.exec(kMigrations[size_t(v)]);
    c.query("INSERT INTO meta(key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = $1",
            pg::Params().text(std::to_string(kClusterSchemaVersion)));
    tx.commit();
    return kClusterSchemaVersion;
  });
}

// ---- hosts ----------------------------------------------------------------------------------

int64_t ClusterStore::register_host(const ClusterHostInfo& h) {
  return with([&](pg::Conn& c) {
    return c
        .query("INSERT INTO hosts(name, pid, version, devices, workers, keys) VALUES ($1, $2, $3, $4, $5, $6) "
               "RETURNING id",
               pg::Params().text(h.name).i64(h.pid).text(h.version).text(h.devices).i64(h.workers).text(h.keys))
        .i64(0, 0);
  });
}

void ClusterStore::heartbeat(int64_t host, const ClusterHostInfo& h) {
  with([&](pg::Conn& c) {
    c.query("UPDATE hosts SET heartbeat_at = now(), in_flight = $2, keys = $3, devices = $4, workers = $5, "
            "stopped_at = NULL WHERE id = $1",
            pg::Params().i64(host).i64(h.in_flight).text(h.keys).text(h.devices).i64(h.workers));
  });
}

void ClusterStore::host_stopped(int64_t host) {
  with([&](pg::Conn& c) {
    c.query("UPDATE hosts SET stopped_at = now(), in_flight = 0 WHERE id = $1", pg::Params().i64(host));
  });
}

// ---- submit ---------------------------------------------------------------------------------

int64_t ClusterStore::next_job_id() {
  return with([](pg::Conn& c) { return c.query("SELECT nextval('job_ids')").i64(0, 0); });
}

ClusterAccepted ClusterStore::accept(const ClusterNewJob& j) {
  return with([&](pg::Conn& c) {
    ClusterAccepted out;
    {
      pg::Tx tx(c);
      pg::Params p;
      j.id ? p.i64(*j.id) : p.null();
      p.text(j.request_id).bytes(bytes_of(j.payload)).text(j.circuit_id).text(j.key_hash).i64(j.priority);
      p.i64(int64_t(j.partitions.size())).i64(j.host).text(j.shared ? j.shared_dir : "");
      const pg::Result r = c.query(
          "INSERT INTO jobs(id, request_id, payload_sha256, circuit_id, key_hash, priority, partitions, submitted_by, "
          "submitted_at, witness_dir) VALUES (coalesce($1::bigint, nextval('job_ids')), NULLIF($2, ''), $3::bytea, $4, "
          "$5, $6, $7, $8, extract(epoch from now()), NULLIF($9, '')) ON CONFLICT (request_id) DO NOTHING RETURNING id",
          p);
      if (r.rows() == 1) {
        out.id = uint64_t(r.i64(0, 0));
        std::vector<std::string> formats, paths;
        std::vector<int64_t> sizes;
        for (const ClusterPartitionIn& w : j.partitions) {
          formats.push_back(witness_format_ext(w.format));
          sizes.push_back(int64_t(w.bytes));
          paths.push_back(j.shared ? w.path : "");
        }
        c.query("INSERT INTO partitions(job_id, k, priority, key_hash, format, witness_bytes, witness_path) "
                "SELECT $1, t.k - 1, $2, $3, t.f, t.b, NULLIF(t.p, '') "
                "FROM unnest($4::text[], $5::bigint[], $6::text[]) WITH ORDINALITY AS t(f, b, p, k)",
                pg::Params().i64(int64_t(out.id)).i64(j.priority).text(j.key_hash).text_array(formats).i64_array(sizes)
                    .text_array(paths));
        if (!j.shared)
          for (size_t k = 0; k < j.partitions.size(); ++k) insert_chunks(c, int64_t(out.id), uint32_t(k), j.partitions[k].path);
        c.query("INSERT INTO events(job_id, host_id, event, detail) VALUES ($1, $2, 'accepted', $3)",
                pg::Params().i64(int64_t(out.id)).i64(j.host).text(j.request_id));
        notify(c, "work", j.key_hash);
        tx.commit();
        out.state = "queued";
        return out;
      }
    }  // the request id is taken (by a committed job: the insert waited for it): that job answers
    const pg::Result e =
        c.query("SELECT id, payload_sha256, state FROM jobs WHERE request_id = $1", pg::Params().text(j.request_id));
    if (e.rows() != 1) throw pg::Retry("cluster: request id " + j.request_id + " vanished (purged); again", "40001");
    out.id = uint64_t(e.i64(0, 0));
    out.deduplicated = true;
    const std::string h = e.bytes(0, 1);
    if (h.size() == out.existing_payload.size()) std::memcpy(out.existing_payload.data(), h.data(), h.size());
    out.state = e.text(0, 2);
    return out;
  });
}

// ---- claims ---------------------------------------------------------------------------------

std::vector<ClusterClaim> ClusterStore::claim(int64_t host, const std::vector<std::string>& key_hashes, uint32_t max,
                                              double lease_s) {
  if (max == 0 || key_hashes.empty()) return {};
  const pg::Result r = with([&](pg::Conn& c) {
    return c.query(
        "WITH c AS (SELECT job_id, k FROM partitions WHERE state = 'queued' AND key_hash = ANY($1::text[]) "
        "           ORDER BY priority DESC, job_id, k LIMIT $2 FOR UPDATE SKIP LOCKED), "
        "u AS (UPDATE partitions p SET state = 'claimed', host_id = $3, token = nextval('fence'), "
        "             lease_until = now() + make_interval(secs => $4), attempts = p.attempts + 1 "
        "      FROM c WHERE p.job_id = c.job_id AND p.k = c.k "
        "      RETURNING p.job_id, p.k, p.token, p.priority, p.key_hash, p.format, p.witness_bytes, "
        "                coalesce(p.witness_path, ''), p.attempts), "
        "e AS (INSERT INTO events(job_id, k, host_id, token, event, detail) "
        "      SELECT job_id, k, $3, token, 'claimed', 'xact=' || txid_current() FROM u) "
        "SELECT * FROM u ORDER BY priority DESC, job_id, k",
        pg::Params().text_array(key_hashes).i64(max).i64(host).f64(lease_s));
  });
  std::vector<ClusterClaim> out;
  for (int i = 0; i < r.rows(); ++i) {
    ClusterClaim cl;
    cl.job_id = uint64_t(r.i64(i, 0));
    cl.k = uint32_t(r.i64(i, 1));
    cl.token = r.i64(i, 2);
    cl.priority = int(r.i64(i, 3));
    cl.key_hash = r.text(i, 4);
    cl.format = format_of(r.text(i, 5));
    cl.witness_bytes = uint64_t(r.i64(i, 6));
    cl.witness_path = r.text(i, 7);
    cl.attempt = uint32_t(r.i64(i, 8));
    out.push_back(std::move(cl));
  }
  return out;
}

std::string ClusterStore::witness(const ClusterClaim& cl) {
  return with([&](pg::Conn& c) {
    std::string out;
    out.reserve(cl.witness_bytes);
    for (int64_t seq = 0;;) {  // 64 chunks (64 MiB) per round trip bounds libpq's buffer
      const pg::Result r = c.query(
          "SELECT data FROM witness_chunks WHERE job_id = $1 AND k = $2 AND seq >= $3 ORDER BY seq LIMIT 64",
          pg::Params().i64(int64_t(cl.job_id)).i64(cl.k).i64(seq), true);
      for (int i = 0; i < r.rows(); ++i) out.append(r.raw(i, 0));
      seq += r.rows();
      if (r.rows() < 64) break;
    }
    if (out.size() != cl.witness_bytes)
      throw std::runtime_error("cluster: job " + std::to_string(cl.job_id) + " partition " + std::to_string(cl.k) +
                               ": the database holds " + std::to_string(out.size()) + " witness bytes of " +
                               std::to_string(cl.witness_bytes));
    return out;
  });
}

namespace {

struct LockedJob {
  bool found = false;
  std::string state;
  uint32_t partitions = 0, done = 0;
};

// Every multi-row transaction of one job takes the job row first (no deadlocks: see the header).
LockedJob lock_job(pg::Conn& c, uint64_t id) {
  const pg::Result r = c.query("SELECT state, partitions, partitions_done FROM jobs WHERE id = $1 FOR UPDATE",
                               pg::Params().i64(int64_t(id)));
  LockedJob j;
  if (r.rows() == 0) return j;
  j.found = true;
  j.state = r.text(0, 0);
  j.partitions = uint32_t(r.i64(0, 1));
  j.done = uint32_t(r.i64(0, 2));
  return j;
}

// The partition is not (any more) claimed under this token: a retry of our own recorded result,
// or a late result that is refused and logged as an event.
ClusterOutcome fenced_or_recorded(pg::Conn& c, int64_t host, const ClusterClaim& cl, const char* done_state) {
  const pg::Result r = c.query("SELECT state, token FROM partitions WHERE job_id = $1 AND k = $2",
                               pg::Params().i64(int64_t(cl.job_id)).i64(cl.k));
  if (r.rows() == 1 && r.text(0, 0) == done_state && r.i64(0, 1) == cl.token) return ClusterOutcome::kRecorded;
  c.query("INSERT INTO events(job_id, k, host_id, token, event, detail) VALUES ($1, $2, $3, $4, 'fenced', $5)",
          pg::Params()
              .i64(int64_t(cl.job_id))
              .i64(cl.k)
              .i64(host)
              .i64(cl.token)
              .text(r.rows() ? "state=" + r.text(0, 0) + " token=" + r.text(0, 1) : "gone"));
  return ClusterOutcome::kFenced;
}

}  // namespace

std::map<int64_t, std::string> ClusterStore::witnesses(const std::vector<ClusterClaim>& cs) {
  std::vector<int64_t> jobs, ks;
  std::map<std::string, const ClusterClaim*> by_partition;  // "job:k"
  uint64_t total = 0;
  for (const ClusterClaim& cl : cs)
    if (cl.witness_path.empty() && (total += cl.witness_bytes) <= (uint64_t{64} << 20)) {
      jobs.push_back(int64_t(cl.job_id));
      ks.push_back(cl.k);
      by_partition[std::to_string(cl.job_id) + ":" + std::to_string(cl.k)] = &cl;
    }
  std::map<int64_t, std::string> out;
  if (jobs.empty()) return out;
  const pg::Result r = with([&](pg::Conn& c) {
    return c.query(
        "SELECT w.job_id || ':' || w.k, w.data FROM witness_chunks w "  // binary results: text as is
        "JOIN unnest($1::bigint[], $2::int[]) AS i(job_id, k) ON w.job_id = i.job_id AND w.k = i.k "
        "ORDER BY w.job_id, w.k, w.seq",
        pg::Params().i64_array(jobs).i64_array(ks), true);
  });
  for (int i = 0; i < r.rows(); ++i) {
    const ClusterClaim* cl = by_partition.at(std::string(r.raw(i, 0)));
    out[cl->token].append(r.raw(i, 1));
  }
  for (auto it = out.begin(); it != out.end();) {
    const auto cl = std::find_if(cs.begin(), cs.end(), [&](const ClusterClaim& x) { return x.token == it->first; });
    it = it->second.size() == cl->witness_bytes ? std::next(it) : out.erase(it);
  }
  return out;
}

ClusterOutcome ClusterStore::complete(int64_t host, const ClusterClaim& cl, const std::string& result, bool verified,
                                      std::string* ended_dir) {
  return with([&](pg::Conn& c) {
    // Fast path, one autocommitted statement (one round trip instead of four): a partition that
    // is not its job's last. The job row is locked first (the scalar subquery runs before the
    // partitions scan), and FOR UPDATE re-reads it after any wait, so a concurrent completion
    // that made this one the last sends it to the transaction below, which finishes the job.
    const pg::Result f = c.query(
        "WITH j AS MATERIALIZED (SELECT id FROM jobs WHERE id = $1 AND state = 'queued' "
        "                        AND partitions_done + 1 < partitions FOR UPDATE), "
        "p AS (UPDATE partitions SET state = 'done', result = $4::bytea, verified = $5, lease_until = NULL "
        "      WHERE job_id = (SELECT id FROM j) AND k = $2 AND token = $3 AND state = 'claimed' RETURNING job_id, k), "
        "e AS (INSERT INTO events(job_id, k, host_id, token, event) SELECT job_id, k, $6, $3, 'partition_done' FROM p) "
        "UPDATE jobs SET partitions_done = partitions_done + 1 FROM p WHERE jobs.id = p.job_id RETURNING 1",
        pg::Params().i64(int64_t(cl.job_id)).i64(cl.k).i64(cl.token).bytes(result).boolean(verified).i64(host));
    if (f.rows() == 1) return ClusterOutcome::kRecorded;
    pg::Tx tx(c);  // the last partition, a retry, or a fenced result
    if (!lock_job(c, cl.job_id).found) {
      tx.commit();
      return ClusterOutcome::kFenced;  // purged meanwhile
    }
    const pg::Result r = c.query(
        "WITH p AS (UPDATE partitions SET state = 'done', result = $4::bytea, verified = $5, lease_until = NULL "
        "           WHERE job_id = $1 AND k = $2 AND token = $3 AND state = 'claimed' RETURNING job_id, k), "
        "e AS (INSERT INTO events(job_id, k, host_id, token, event) SELECT job_id, k, $6, $3, 'partition_done' FROM p) "
        "UPDATE jobs SET partitions_done = partitions_done + 1 FROM p WHERE jobs.id = p.job_id "
        "RETURNING jobs.partitions_done, jobs.partitions",
        pg::Params().i64(int64_t(cl.job_id)).i64(cl.k).i64(cl.token).bytes(result).boolean(verified).i64(host));
    ClusterOutcome out = ClusterOutcome::kRecorded;
    if (r.rows() == 0)
      out = fenced_or_recorded(c, host, cl, "done");
    else if (r.i64(0, 0) == r.i64(0, 1))
      out = finish_job(c, cl.job_id, "done", "", ended_dir);
    tx.commit();
    return out;
  });
}

namespace {
std::string to_hex(const std::string& b) {
  static const char* d = "0123456789abcdef";
  std::string h(b.size() * 2, '0');
  for (size_t i = 0; i < b.size(); ++i) {
    h[2 * i] = d[uint8_t(b[i]) >> 4];
    h[2 * i + 1] = d[uint8_t(b[i]) & 15];
  }
  return h;
}
}  // namespace

// BEGIN; lock the jobs (in id order, like every multi-job transaction); one statement records
// every result whose token still holds its partition and counts them into their jobs; the jobs
// whose count reached their partitions finish; the rest are told apart (retry or fenced); COMMIT.
// 4 round trips and one WAL flush for the whole batch (complete(): 1 each, but k flushes).
std::vector<ClusterOutcome> ClusterStore::complete_many(int64_t host, const std::vector<ClusterResult>& rs,
                                                        std::vector<std::string>* ended_dirs) {
  if (rs.empty()) return {};
  std::vector<int64_t> jobs, ks, tokens;
  std::vector<std::string> results, verified;
  for (const ClusterResult& x : rs) {
    jobs.push_back(int64_t(x.claim.job_id));
    ks.push_back(x.claim.k);
    tokens.push_back(x.claim.token);
    results.push_back(to_hex(x.result));
    verified.push_back(x.verified ? "t" : "f");
  }
  return with([&](pg::Conn& c) {
    std::vector<ClusterOutcome> out(rs.size(), ClusterOutcome::kFenced);
    pg::Tx tx(c);
    c.query("SELECT id FROM jobs WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE", pg::Params().i64_array(jobs));
    const pg::Result r = c.query(
        "WITH i AS (SELECT * FROM unnest($1::bigint[], $2::int[], $3::bigint[], $4::text[], $5::bool[]) "
        "           AS i(job_id, k, token, result, verified)), "
        "p AS (UPDATE partitions p SET state = 'done', result = decode(i.result, 'hex'), verified = i.verified, "
        "             lease_until = NULL FROM i "
        "      WHERE p.job_id = i.job_id AND p.k = i.k AND p.token = i.token AND p.state = 'claimed' "
        "      RETURNING p.job_id, p.k, p.token), "
        "e AS (INSERT INTO events(job_id, k, host_id, token, event) SELECT job_id, k, $6, token, 'partition_done' FROM p), "
        "n AS (SELECT job_id, count(*) AS c FROM p GROUP BY job_id), "
        "u AS (UPDATE jobs SET partitions_done = partitions_done + n.c FROM n WHERE jobs.id = n.job_id "
        "      RETURNING jobs.id, jobs.partitions_done = jobs.partitions AS last) "
        "SELECT p.token, u.last FROM p JOIN u ON u.id = p.job_id",
        pg::Params().i64_array(jobs).i64_array(ks).i64_array(tokens).text_array(results).text_array(verified).i64(host));
    std::map<int64_t, bool> recorded;  // token → its job reached its last partition
    for (int i = 0; i < r.rows(); ++i) recorded[r.i64(i, 0)] = r.boolean(i, 1);
    std::set<uint64_t> finished;
    for (size_t i = rs.size(); i-- > 0;) {  // the last result of a finished job carries kJobEnded
      const auto it = recorded.find(rs[i].claim.token);
      if (it == recorded.end()) {
        out[i] = fenced_or_recorded(c, host, rs[i].claim, "done");
        continue;
      }
      out[i] = ClusterOutcome::kRecorded;
      if (it->second && finished.insert(rs[i].claim.job_id).second) {
        std::string dir;
        out[i] = finish_job(c, rs[i].claim.job_id, "done", "", &dir);
        if (ended_dirs && !dir.empty()) ended_dirs->push_back(dir);
      }
    }
    tx.commit();
    return out;
  });
}

ClusterOutcome ClusterStore::fail(int64_t host, const ClusterClaim& cl, const std::string& error,
                                  std::string* ended_dir) {
  return with([&](pg::Conn& c) {
    pg::Tx tx(c);
    const LockedJob j = lock_job(c, cl.job_id);
    const pg::Result r = c.query(
        "WITH p AS (UPDATE partitions SET state = 'failed', lease_until = NULL "
        "           WHERE job_id = $1 AND k = $2 AND token = $3 AND state = 'claimed' RETURNING job_id, k) "
        "INSERT INTO events(job_id, k, host_id, token, event, detail) "
        "SELECT job_id, k, $4, $3, 'partition_failed', $5 FROM p RETURNING 1",
        pg::Params().i64(int64_t(cl.job_id)).i64(cl.k).i64(cl.token).i64(host).text(error));
    ClusterOutcome out = ClusterOutcome::kRecorded;
    if (r.rows() == 0)
      out = fenced_or_recorded(c, host, cl, "failed");
    else if (j.found && j.state == "queued")
      out = finish_job(c, cl.job_id, "failed", "partition " + std::to_string(cl.k) + ": " + error, ended_dir);
    tx.commit();
    return out;
  });
}

// The job row is locked. Builds the job's result from its partitions, records the end exactly
// once (the row is 'queued' under our lock), drops its witness chunks, notifies.
ClusterOutcome ClusterStore::finish_job(pg::Conn& c, uint64_t id, const std::string& state, const std::string& error,
                                        std::string* ended_dir) {
  const auto jid = int64_t(id);
  // Claimed partitions of a job that did not complete are told to stop.
  const pg::Result stopped = c.query(
      "WITH o AS (SELECT k, state FROM partitions WHERE job_id = $1 AND state IN ('queued', 'claimed') FOR UPDATE) "
      "UPDATE partitions p SET state = 'stopped', lease_until = NULL FROM o WHERE p.job_id = $1 AND p.k = o.k "
      "RETURNING o.state = 'claimed'",
      pg::Params().i64(jid));
  const pg::Result j = c.query(
      "SELECT circuit_id, priority, coalesce(request_id, ''), submitted_at, extract(epoch from now()), "
      "coalesce(witness_dir, '') FROM jobs WHERE id = $1",
      pg::Params().i64(jid));
  const pg::Result p =
      c.query("SELECT k, state, result, verified, attempts FROM partitions WHERE job_id = $1 ORDER BY k", pg::Params().i64(jid));
  v1::JobResult out;
  out.set_job_id(id);
  out.set_circuit_id(j.text(0, 0));
  out.set_priority(v1::Priority(j.i64(0, 1)));
  out.set_request_id(j.text(0, 2));
  out.set_submitted_unix_s(j.f64(0, 3));
  out.set_finished_unix_s(j.f64(0, 4));
  out.set_error(error);
  const bool done = state == "done";
  out.set_state(done ? v1::JOB_STATE_DONE : state == "failed" ? v1::JOB_STATE_FAILED : v1::JOB_STATE_CANCELLED);
  bool verified = done;
  uint32_t attempts = 1;
  for (int i = 0; i < p.rows(); ++i) {
    v1::PartitionResult* pr = out.add_partitions();
    if (done && !pr->ParseFromString(p.bytes(i, 2)))
      throw std::runtime_error("cluster: job " + std::to_string(id) + ": unreadable partition result");
    if (!done) pr->set_stage(v1::PARTITION_STAGE_STOPPED);
    verified = verified && p.boolean(i, 3);
    attempts = std::max(attempts, uint32_t(p.i64(i, 4)));
  }
  out.set_verified(verified);
  out.set_attempts(attempts);
  // The partitions' results carry the curve their proving hosts gave them (one key hash, one
  // curve); a job of daemons from before BN254 has none, and was BLS12-381's.
  if (done && out.partitions_size() > 0)
    out.set_curve(out.partitions(0).curve().empty() ? r1cs::curve_name(r1cs::CurveId::kBls12_381)
                                                    : out.partitions(0).curve());
  // The end in one statement (one round trip instead of four: a job's end was ~1 of a 10-partition
  // job's ~3 round trips per partition); the NOTIFY is delivered at commit all the same.
  c.query("WITH u AS (UPDATE jobs SET state = $2, error = $3, result = $4::bytea, finished_at = $5 WHERE id = $1), "
          "d AS (DELETE FROM witness_chunks WHERE job_id = $1), "
          "e AS (INSERT INTO events(job_id, event, detail) VALUES ($1, $2, $3)) "
          "SELECT CASE WHEN $6 THEN pg_notify($7, $8) END",
          pg::Params().i64(jid).text(state).text(error).bytes(out.SerializeAsString()).f64(out.finished_unix_s())
              .boolean(o_.notify).text(channel("done")).text(std::to_string(id)));
  bool any_claimed = false;
  for (int i = 0; i < stopped.rows(); ++i) any_claimed = any_claimed || stopped.boolean(i, 0);
  if (any_claimed) notify(c, "cancel", std::to_string(id));
  if (ended_dir) *ended_dir = j.text(0, 5);
  return ClusterOutcome::kJobEnded;
}

bool ClusterStore::release(int64_t host, const ClusterClaim& cl) {
  return with([&](pg::Conn& c) {
    const pg::Result r = c.query(
        "WITH p AS (UPDATE partitions SET state = 'queued', lease_until = NULL "
        "           WHERE job_id = $1 AND k = $2 AND token = $3 AND state = 'claimed' RETURNING job_id, k), "
        "e AS (INSERT INTO events(job_id, k, host_id, token, event) SELECT job_id, k, $4, $3, 'released' FROM p) "
        "SELECT CASE WHEN $5 THEN pg_notify($6, '') END FROM p",
        pg::Params().i64(int64_t(cl.job_id)).i64(cl.k).i64(cl.token).i64(host).boolean(o_.notify).text(channel("work")));
    return r.rows() == 1;
  });
}

std::vector<int64_t> ClusterStore::renew(int64_t host, const std::vector<int64_t>& tokens, double lease_s) {
  if (tokens.empty()) return {};
  return with([&](pg::Conn& c) {
    // Rows another transaction holds (a completion, a cancel) are skipped, not waited for; they
    // are ours still if claimed under our token, and get renewed next time.
    const pg::Result r = c.query(
        "WITH r AS (SELECT job_id, k FROM partitions WHERE token = ANY($2::bigint[]) AND host_id = $1 "
        "           AND state = 'claimed' FOR UPDATE SKIP LOCKED) "
        "UPDATE partitions p SET lease_until = now() + make_interval(secs => $3) FROM r "
        "WHERE p.job_id = r.job_id AND p.k = r.k RETURNING p.token",
        pg::Params().i64(host).i64_array(tokens).f64(lease_s));
    std::set<int64_t> held;
    for (int i = 0; i < r.rows(); ++i) held.insert(r.i64(i, 0));
    std::vector<int64_t> missing;
    for (int64_t t : tokens)
      if (!held.count(t)) missing.push_back(t);
    if (missing.empty()) return missing;
    const pg::Result s = c.query(
        "SELECT token FROM partitions WHERE token = ANY($2::bigint[]) AND host_id = $1 AND state = 'claimed'",
        pg::Params().i64(host).i64_array(missing));
    for (int i = 0; i < s.rows(); ++i) held.insert(s.i64(i, 0));
    std::vector<int64_t> lost;
    for (int64_t t : missing)
      if (!held.count(t)) lost.push_back(t);
    return lost;
  });
}

uint64_t ClusterStore::reap_expired() {
  return with([&](pg::Conn& c) {
    const pg::Result r = c.query(
        "WITH r AS (SELECT job_id, k FROM partitions WHERE state = 'claimed' AND lease_until < now() "
        "           FOR UPDATE SKIP LOCKED), "
        "u AS (UPDATE partitions p SET state = 'queued', lease_until = NULL FROM r "
        "      WHERE p.job_id = r.job_id AND p.k = r.k RETURNING p.job_id, p.k, p.host_id, p.token), "
        "e AS (INSERT INTO events(job_id, k, host_id, token, event) SELECT job_id, k, host_id, token, 'lease_expired' "
        "      FROM u) "
        "SELECT count(*) FROM u");
    const uint64_t n = uint64_t(r.i64(0, 0));
    if (n) notify(c, "work", "");
    return n;
  });
}

// ---- jobs -----------------------------------------------------------------------------------

std::optional<v1::JobResult> ClusterStore::job(uint64_t id) {
  return with([&](pg::Conn& c) -> std::optional<v1::JobResult> {
    const pg::Result j = c.query(
        "SELECT state, result, circuit_id, priority, coalesce(request_id, ''), submitted_at FROM jobs WHERE id = $1",
        pg::Params().i64(int64_t(id)));
    if (j.rows() == 0) return std::nullopt;
    if (j.text(0, 0) != "queued") return parse_result(j.bytes(0, 1), id);
    v1::JobResult out;
    out.set_job_id(id);
    out.set_circuit_id(j.text(0, 2));
    out.set_priority(v1::Priority(j.i64(0, 3)));
    out.set_request_id(j.text(0, 4));
    out.set_submitted_unix_s(j.f64(0, 5));
    const pg::Result p = c.query(
        "SELECT p.state, p.attempts, coalesce(h.name, '') FROM partitions p LEFT JOIN hosts h ON h.id = p.host_id "
        "WHERE p.job_id = $1 ORDER BY p.k",
        pg::Params().i64(int64_t(id)));
    bool started = false;
    uint32_t attempts = 1;
    for (int i = 0; i < p.rows(); ++i) {
      v1::PartitionResult* pr = out.add_partitions();
      const std::string st = p.text(i, 0);
      // Another host's partition: claimed is as much as the table knows (it may be queued on
      // that host, uploading or computing).
      pr->set_stage(st == "done" ? v1::PARTITION_STAGE_PROVEN
                    : st == "claimed" ? v1::PARTITION_STAGE_COMPUTE
                                      : v1::PARTITION_STAGE_QUEUED);
      if (st != "queued") pr->set_device(p.text(i, 2));
      started = started || st != "queued";
      attempts = std::max(attempts, uint32_t(p.i64(i, 1)));
    }
    out.set_attempts(attempts);
    out.set_state(started ? v1::JOB_STATE_RUNNING : v1::JOB_STATE_QUEUED);
    return out;
  });
}

std::optional<v1::JobResult> ClusterStore::cancel(uint64_t id, std::string* ended_dir) {
  const bool found = with([&](pg::Conn& c) {
    pg::Tx tx(c);
    const LockedJob j = lock_job(c, id);
    if (j.found && j.state == "queued") finish_job(c, id, "cancelled", "cancelled", ended_dir);
    tx.commit();
    return j.found;
  });
  return found ? job(id) : std::nullopt;
}

ClusterCounts ClusterStore::counts() {
  return with([](pg::Conn& c) {
    const pg::Result r = c.query(
        "SELECT (SELECT count(*) FROM jobs WHERE state = 'queued' AND NOT EXISTS "
        "         (SELECT 1 FROM partitions p WHERE p.job_id = jobs.id AND p.state <> 'queued')), "
        "       (SELECT count(*) FROM jobs WHERE state = 'queued'), "
        "       (SELECT count(*) FROM jobs WHERE state = 'done'), "
        "       (SELECT count(*) FROM jobs WHERE state = 'failed'), "
        "       (SELECT count(*) FROM jobs WHERE state = 'cancelled'), "
        "       (SELECT count(*) FROM partitions WHERE state = 'queued'), "
        "       (SELECT count(*) FROM partitions WHERE state = 'claimed')");
    ClusterCounts n;
    n.jobs_queued = uint64_t(r.i64(0, 0));
    n.jobs_running = uint64_t(r.i64(0, 1)) - n.jobs_queued;
    n.jobs_done = uint64_t(r.i64(0, 2));
    n.jobs_failed = uint64_t(r.i64(0, 3));
    n.jobs_cancelled = uint64_t(r.i64(0, 4));
    n.partitions_queued = uint64_t(r.i64(0, 5));
    n.partitions_claimed = uint64_t(r.i64(0, 6));
    return n;
  });
}

std::vector<v1::JobSummary> ClusterStore::recent(uint32_t n, double now_unix) {
  const pg::Result r = with([&](pg::Conn& c) {
    return c.query(
        "SELECT id, circuit_id, state, priority, partitions, partitions_done, submitted_at, error, "
        "       EXISTS (SELECT 1 FROM partitions p WHERE p.job_id = jobs.id AND p.state <> 'queued') "
        "FROM jobs ORDER BY id DESC LIMIT $1",
        pg::Params().i64(n));
  });
  std::vector<v1::JobSummary> out;
  for (int i = 0; i < r.rows(); ++i) {
    v1::JobSummary s;
    s.set_job_id(uint64_t(r.i64(i, 0)));
    s.set_circuit_id(r.text(i, 1));
    const std::string st = r.text(i, 2);
    s.set_state(st == "done"        ? v1::JOB_STATE_DONE
                : st == "failed"    ? v1::JOB_STATE_FAILED
                : st == "cancelled" ? v1::JOB_STATE_CANCELLED
                : r.boolean(i, 8)   ? v1::JOB_STATE_RUNNING
                                    : v1::JOB_STATE_QUEUED);
    s.set_priority(v1::Priority(r.i64(i, 3)));
    s.set_partitions(uint32_t(r.i64(i, 4)));
    s.set_partitions_proven(uint32_t(r.i64(i, 5)));
    s.set_age_s(std::max(0.0, now_unix - r.f64(i, 6)));
    s.set_error(r.text(i, 7));
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<v1::ClusterHost> ClusterStore::hosts(double lease_s) {
  const pg::Result r = with([](pg::Conn& c) {
    return c.query(
        "SELECT id, name, pid, version, devices, workers, keys, extract(epoch from now() - heartbeat_at), "
        "       extract(epoch from started_at), stopped_at IS NOT NULL, "
        "       (SELECT count(*) FROM partitions p WHERE p.host_id = h.id AND p.state = 'claimed') "
        "FROM hosts h WHERE stopped_at IS NULL OR stopped_at > now() - interval '1 hour' ORDER BY id");
  });
  std::vector<v1::ClusterHost> out;
  for (int i = 0; i < r.rows(); ++i) {
    v1::ClusterHost h;
    h.set_id(uint64_t(r.i64(i, 0)));
    h.set_name(r.text(i, 1));
    h.set_pid(uint32_t(r.i64(i, 2)));
    h.set_version(r.text(i, 3));
    h.set_devices(r.text(i, 4));
    h.set_workers(uint32_t(r.i64(i, 5)));
    h.set_keys(r.text(i, 6));
    h.set_heartbeat_age_s(std::max(0.0, r.f64(i, 7)));
    h.set_started_unix_s(r.f64(i, 8));
    h.set_stopped(r.boolean(i, 9));
    h.set_alive(!h.stopped() && h.heartbeat_age_s() < lease_s);
    h.set_partitions_in_flight(uint64_t(r.i64(i, 10)));
    out.push_back(std::move(h));
  }
  return out;
}

uint64_t ClusterStore::purge(double retention_s) {
  return with([&](pg::Conn& c) {
    pg::Tx tx(c);
    const pg::Result r = c.query(
        "WITH d AS (DELETE FROM jobs WHERE state <> 'queued' AND finished_at < extract(epoch from now()) - $1 "
        "           RETURNING id), "
        "e AS (DELETE FROM events WHERE job_id IN (SELECT id FROM d)) SELECT count(*) FROM d",
        pg::Params().f64(retention_s));
    c.query("DELETE FROM hosts WHERE heartbeat_at < now() - interval '1 day'");
    tx.commit();
    return uint64_t(r.i64(0, 0));
  });
}

std::vector<uint64_t> ClusterStore::queued_among(const std::vector<uint64_t>& ids) {
  if (ids.empty()) return {};
  std::vector<int64_t> v(ids.begin(), ids.end());
  const pg::Result r = with([&](pg::Conn& c) {
    return c.query("SELECT id FROM jobs WHERE id = ANY($1::bigint[]) AND state = 'queued'", pg::Params().i64_array(v));
  });
  std::vector<uint64_t> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(uint64_t(r.i64(i, 0)));
  return out;
}

}  // namespace snarkd::server
