#!/bin/sh
# usage: cluster_bench.sh SNARKD SNARKCTL CLUSTER_BENCH REPO_ROOT [HOSTS=16] [JOBS=400] [PARTITIONS=10] [ROUNDS=3]
#        environment: BENCH_WORKERS (4), BENCH_AHEAD (claim_ahead, 4), BENCH_CIRCUIT (multiplier or
#        lincomb: the fixture the daemons prove), BENCH_PARTS ("store daemons": which halves run)
# Claim throughput of one PostgreSQL (issue 22; docs/SCALING.md, docs/PERFORMANCE.md), on a
# throwaway server in a temporary directory (pg_throwaway.sh: unix socket, default settings,
# synchronous_commit on — every accepted job and every result is durable).
#   store:   CLUSTER_BENCH with HOSTS claimer processes running the daemon's ClusterStore code
#            (claim FOR UPDATE SKIP LOCKED → witness fetch → complete with the fencing token),
#            proving replaced by a fixed result: the database's own ceiling; "single" fetches
#            and completes each partition alone, "batched" as the daemon does (the claim's
#            witnesses in one round trip, its results in one transaction).
#   daemons: HOSTS `snarkd serve` daemons, each on a simulated device (4 workers, claim_ahead 4,
#            the snarkjs multiplier: a real but tiny proof, self-check off), sharing the table.
#            JOBS × PARTITIONS partitions are queued in one transaction while the daemons idle
#            (copies of one submitted job: its witness chunks, key hash), then one NOTIFY starts
#            them; the rate is partitions / (last partition_done − the NOTIFY), both by the
#            database's clock — claims, witness fetches, proofs and completions through the
#            daemons' own threads.
# Each round prints partitions/s; the median over ROUNDS is the figure (each partition is one
# claim and one completion: 1,000 GPUs at 2 s per partition need 500 partitions/s).
set -eu
S=$1
C=$2
B=$3
ROOT=$4
H=${5:-16}
J=${6:-400}
P=${7:-10}
R=${8:-3}
WK=${BENCH_WORKERS:-4}
AH=${BENCH_AHEAD:-4}
CI=${BENCH_CIRCUIT:-multiplier}
PARTS=${BENCH_PARTS:-store daemons}
Z=$ROOT/tests/groth16/fixtures/$CI
T=$(mktemp -d /tmp/snarkd-cluster-bench-XXXXXX)
. "$ROOT/tests/server/pg_throwaway.sh"
cleanup() {
  for f in "$T"/*.pid; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null; done
  [ -n "${PGDIR:-}" ] && pg_stop
  rm -rf "$T"
}
trap cleanup EXIT
trap "exit 1" INT TERM HUP
pg_start "$T/pg" >/dev/null || exit 1
sql() { psql "$PGCONN" -XAtq -v ON_ERROR_STOP=1 -c "SET search_path TO snarkd" -c "$1"; }
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
# cpu_s PID...: the processes' user + system CPU seconds so far (where the time goes per partition)
cpu_s() { for p in "$@"; do cat "/proc/$p/stat" 2>/dev/null; done | sed 's/.*) //' |
  awk -v hz="$(getconf CLK_TCK)" '{t += $12 + $13} END {printf "%.2f", t / hz}'; }
pg_pids() { pm=$(head -1 "$PGDIR/data/postmaster.pid"); echo "$pm $(pgrep -P "$pm" | tr '\n' ' ')"; }
echo "machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}')"

case $PARTS in *store*) modes="single batched" ;; *) modes="" ;; esac
for mode in $modes; do
  flag=""; [ $mode = batched ] && flag=--batched
  echo "== store ($mode): $H claimer processes, $J jobs x $P partitions, 1 KiB witnesses, claims of 4"
  for r in $(seq 1 "$R"); do
    "$B" --database "$PGURL" --claimers "$H" --jobs "$J" --partitions-per-job "$P" --batch 4 $flag --json "$T/store$r.json" |
      sed -n 's/^\([0-9]* claimers.*\)/   \1/p; s/^\(medians.*\)/   \1/p'
    grep -q '"exactly_once": true' "$T/store$r.json" || { echo "FAIL: round $r did not complete every partition exactly once"; exit 1; }
    sed 's/.*"partitions_per_s": \([0-9.]*\).*/\1/' "$T/store$r.json" >>"$T/store.$mode"
  done
  echo "store ($mode): median $(median <"$T/store.$mode" | xargs printf '%.0f') partitions/s over $R rounds"
done

case $PARTS in *daemons*) ;; *) exit 0 ;; esac
echo "== daemons: $H snarkd serve on simulated devices ($WK workers, claim_ahead $AH, circuit $CI)"
start() {  # start N
  cat >"$T/d$1.toml" <<EOF
[server]
socket = "$T/d$1.sock"
http_listen = ""
[engine]
devices = "sim"
workers_per_device = $WK
threads = 1
self_check = false
[journal]
state_dir = "$T/d$1.state"
[log]
level = "warn"
file = "$T/d$1.log"
[cluster]
database = "$PGURL"
host = "d$1"
lease_s = 60
claim_ahead = $AH
[[circuit]]
id = "$CI"
zkey = "$Z/$CI.zkey"
EOF
  "$S" serve --config "$T/d$1.toml" >>"$T/d$1.out" 2>&1 &
  echo $! >"$T/d$1.pid"
}
for i in $(seq 1 "$H"); do start "$i"; done
# Handshake: every daemon has a host row with its key (it claims only what it has loaded).
i=0
until [ "$(sql "SELECT count(*) FROM hosts WHERE keys <> '' AND stopped_at IS NULL" 2>/dev/null)" = "$H" ]; do
  i=$((i + 1)); [ $i -ge 1200 ] && { echo "FAIL: the daemons did not all register"; tail -3 "$T"/d*.out; exit 1; }
  sleep 0.1
done
tmpl=$("$C" --socket "$T/d1.sock" submit --circuit "$CI" "$Z/$CI.wtns" | sed 's/ .*//')
"$C" --socket "$T/d1.sock" await "$tmpl" >/dev/null
hex=$(od -An -v -tx1 "$Z/$CI.wtns" | tr -d ' \n')
wbytes=$(wc -c <"$Z/$CI.wtns")
for r in $(seq 1 "$R"); do
  # JOBS copies of the template job (its key hash; the witness file's bytes as its one chunk),
  # queued in one transaction without a NOTIFY: the idle daemons do not see them yet.
  sql "BEGIN;
       CREATE TEMP TABLE n AS SELECT nextval('job_ids') AS id FROM generate_series(1, $J);
       INSERT INTO jobs(id, payload_sha256, circuit_id, key_hash, priority, partitions, submitted_at)
         SELECT n.id, t.payload_sha256, t.circuit_id, t.key_hash, 1 + n.id % 4, $P, extract(epoch from now())
         FROM n, jobs t WHERE t.id = $tmpl;
       INSERT INTO partitions(job_id, k, priority, key_hash, format, witness_bytes)
         SELECT j.id, k, j.priority, j.key_hash, 'wtns', $wbytes FROM n JOIN jobs j USING (id), generate_series(0, $P - 1) k;
       INSERT INTO witness_chunks(job_id, k, seq, data)
         SELECT n.id, k, 0, decode('$hex', 'hex') FROM n, generate_series(0, $P - 1) k;
       COMMIT;
       SELECT min(id) || ' ' || max(id) FROM n;" >"$T/ids"
  read lo hi <"$T/ids"
  dpids=$(cat "$T"/d*.pid | tr '\n' ' ')
  # shellcheck disable=SC2086
  d0=$(cpu_s $dpids); p0=$(cpu_s $(pg_pids))
  t0=$(sql "SELECT extract(epoch from clock_timestamp()), pg_notify('snarkd_work', '')" | cut -d'|' -f1)
  # One waiting backend for the round (a psql and a fresh backend every 0.5 s cost the 2 cores
  # ~4 ms of CPU each, counted nowhere); READ COMMITTED: each count sees the latest commits.
  sql "DO \$\$ BEGIN
         FOR i IN 1..2400 LOOP
           EXIT WHEN (SELECT count(*) FROM jobs WHERE id BETWEEN $lo AND $hi AND state <> 'queued') = $J;
           PERFORM pg_sleep(0.25);
         END LOOP;
       END \$\$"
  [ "$(sql "SELECT count(*) FROM jobs WHERE id BETWEEN $lo AND $hi AND state <> 'queued'")" = "$J" ] ||
    { echo "FAIL: round $r did not finish in 10 min"; exit 1; }
  # shellcheck disable=SC2086
  d1=$(cpu_s $dpids); p1=$(cpu_s $(pg_pids))
  sql "SELECT count(*) FILTER (WHERE state = 'done') = $J,
              (SELECT count(*) FROM (SELECT job_id, k FROM events WHERE event = 'partition_done' AND job_id BETWEEN $lo AND $hi
                                     GROUP BY 1, 2 HAVING count(*) <> 1) x) = 0,
              (SELECT count(*) FROM events WHERE event = 'partition_done' AND job_id BETWEEN $lo AND $hi),
              (SELECT count(*) FROM events WHERE event = 'claimed' AND job_id BETWEEN $lo AND $hi),
              (SELECT count(DISTINCT detail) FROM events WHERE event = 'claimed' AND job_id BETWEEN $lo AND $hi),
              (SELECT count(DISTINCT xmin::text) FROM partitions WHERE job_id BETWEEN $lo AND $hi),
              (SELECT count(DISTINCT host_id) FROM events WHERE event = 'claimed' AND job_id BETWEEN $lo AND $hi),
              (SELECT extract(epoch from max(at)) FROM events WHERE event = 'partition_done' AND job_id BETWEEN $lo AND $hi) - $t0
       FROM jobs WHERE id BETWEEN $lo AND $hi" >"$T/r$r"
  IFS='|' read all_done once parts claims xacts cxacts hosts secs <"$T/r$r"
  [ "$all_done" = t ] && [ "$once" = t ] && [ "$parts" -eq $((J * P)) ] ||
    { echo "FAIL: round $r: done=$all_done exactly_once=$once partitions=$parts"; exit 1; }
  # (A done row's xmin is the transaction that completed it: distinct xmins = completion transactions.)
  # The proofs are real: the round's last job's 10 proofs, through another daemon, verified.
  "$C" --socket "$T/d2.sock" await "$hi" --proof "$T/p.bin" --public "$T/p.json" >/dev/null &&
    "$S" verify --vk "$Z/verification_key.json" --proof "$T/p.bin" --public "$T/p.json" >"$T/v.out" 2>&1 ||
    { echo "FAIL: round $r: job $hi's proofs do not verify: $(head -3 "$T/v.out")"; exit 1; }
  rate=$(awk -v n="$parts" -v s="$secs" 'BEGIN {printf "%.0f", n / s}')
  echo "   round $r: $parts partitions ($claims claims by $hosts daemons) ($xacts claim transactions, $cxacts completion transactions) claimed, proven, completed in $(printf '%.2f' "$secs") s = $rate partitions/s; every partition once, job $hi's proofs valid;
            CPU per partition: daemons $(awk -v a="$d0" -v b="$d1" -v n="$parts" 'BEGIN {printf "%.2f", (b - a) * 1e3 / n}') ms, PostgreSQL $(awk -v a="$p0" -v b="$p1" -v n="$parts" 'BEGIN {printf "%.2f", (b - a) * 1e3 / n}') ms"
  echo "$rate" >>"$T/daemon.rates"
done
grep -h -E ' (error|critical) ' "$T"/d*.log | head -5
echo "daemons: median $(median <"$T/daemon.rates") partitions/s over $R rounds ($H daemons; each partition one claim and one completion)"
for f in "$T"/d*.pid; do kill -TERM "$(cat "$f")" 2>/dev/null; done
for f in "$T"/d*.pid; do wait "$(cat "$f")" || echo "daemon $f: exit $?"; rm -f "$f"; done
