#!/bin/sh
# usage: cluster_test.sh SNARKD SNARKCTL REPO_ROOT [CLUSTER_BENCH]
# Cluster mode end to end (ctest label cluster): a throwaway PostgreSQL on a unix socket
# (pg_throwaway.sh), three daemons a, b, c on simulated devices (real CPU proofs of the snarkjs
# multiplier circuit) sharing one job table, each with its own hold file (sim_hold_file: while
# it exists no simulated compute stage of that daemon ends), so every step below waits on a
# handshake — a row in the table, a log line — never on the clock; the few waits are failure
# bounds.
#   1. priorities: every daemon held and full; 10 LOW then 10 HIGH jobs queued; only a released:
#      a claims all 10 HIGH before any LOW (claim transactions in order, from the events table).
#   2. cancel through another daemon, of a queued job and of one running on a third.
#   3. 200 jobs submitted round-robin through a, b, c (1–2 partitions, mixed priorities, request
#      ids: a submit retried after an error finds its job). Meanwhile b is killed with -9 while it
#      holds claims and started again; the database is restarted while submissions and proofs are
#      in flight; c is stopped with SIGSTOP while it holds claims, until other daemons have taken
#      them over (its leases expired), then resumed: its late work is refused (fenced) or stopped.
#   4. every accepted job completed exactly once (events: one partition_done per partition, one
#      end per job), none twice, each proof valid (`snarkd verify`), awaited through a daemon other
#      than the one it was submitted to; /status lists the hosts, /metrics the cluster gauges,
#      and the status page (headless Chromium, when installed) its hosts table.
# Witnesses go both ways throughout: the daemons share a witness_dir (shared-storage mode) with
# witness_dir_min_mib at 629 bytes, so every 2-partition job (2 × 460 bytes) keeps its witnesses
# there as files and every 1-partition job keeps them in the database; 5. checks that each went
# its way and that the shared directories of ended jobs are gone.
#   6. BN254: a fourth daemon d on the CPU device serves snarkjs's bn128 multiplier key; its jobs
#      (witnesses in the database and in witness_dir) are awaited through a, whose snarkctl
#      writes snarkjs proof.json that `snarkd verify` and @noble/curves accept; a BLS12-381
#      witness for it is refused naming both curves.
#   0. (with CLUSTER_BENCH) `cluster_bench --check-fencing`: batched completions, step by step.
set -u
S=$1
C=$2
ROOT=$3
B=${4:-}
Z=$ROOT/tests/groth16/fixtures
W=$Z/multiplier/multiplier.wtns
VK=$Z/multiplier/verification_key.json
T=$(mktemp -d /tmp/snarkd-cluster-XXXXXX)
. "$ROOT/tests/server/pg_throwaway.sh"
failures=0
cleanup() {
  for n in a b c d; do
    [ -f "$T/$n.pid" ] && { kill -CONT "$(cat "$T/$n.pid")" 2>/dev/null; kill -9 "$(cat "$T/$n.pid")" 2>/dev/null; }
  done
  [ -n "${PGDIR:-}" ] && pg_stop
  rm -rf "$T"
}
trap cleanup EXIT
trap "exit 1" INT TERM HUP
pass() { echo "ok   $*"; }
fail() {
  echo "FAIL $*"
  failures=$((failures + 1))
}
# Without Debian's postgresql the test is skipped (ctest SKIP_RETURN_CODE 77), not failed.
pg_bin >/dev/null || { echo "SKIP: $(pg_bin)"; exit 77; }
for tool in curl python3 node; do
  command -v $tool >/dev/null 2>&1 || { echo "FAIL: $tool is missing (scripts/install-deps.sh test)"; exit 1; }
done
[ -f "$ROOT/tools/vectors/node_modules/@noble/curves/package.json" ] || {
  echo "FAIL: tools/vectors/node_modules missing: run (cd tools/vectors && npm install)"; exit 1; }

pg_start "$T/pg" || exit 1
if [ -n "$B" ]; then
  "$B" --database "$PGURL" --check-fencing >"$T/fencing.out" 2>&1 &&
    pass "complete_many: $(grep -c '^ok' "$T/fencing.out") fencing checks (cluster_bench --check-fencing)" ||
    fail "complete_many fencing: $(grep -v '^ok' "$T/fencing.out" | head -5)"
fi
sql() { psql "$PGCONN" -XAtq -v ON_ERROR_STOP=1 -c "SET search_path TO snarkd" -c "$1"; }
# wait_sql QUERY [SECONDS]: until QUERY answers t (polled every 0.1 s; SECONDS only bounds a failure).
wait_sql() {
  i=0; lim=$((${2:-120} * 10))
  while [ "$(sql "$1" 2>/dev/null)" != t ]; do
    i=$((i + 1)); [ $i -ge $lim ] && return 1
    sleep 0.1
  done
}

config() {  # config NAME
  cat >"$T/$1.toml" <<EOF
[server]
socket = "$T/$1.sock"
http_listen = "127.0.0.1:0"
ports_file = "$T/$1.ports"
submit_wait_ms = 20000
[engine]
devices = "sim"
workers_per_device = 1
sim_hold_file = "$T/$1.hold"
[journal]
state_dir = "$T/$1.state"
[log]
level = "debug"
file = "$T/$1.log"
[cluster]
database = "$PGURL"
host = "$1"
lease_s = 3
claim_ahead = 1
witness_dir = "$T/shared"
witness_dir_min_mib = 0.0006
[[circuit]]
id = "multiplier"
zkey = "$Z/multiplier/multiplier.zkey"
EOF
}
start() {  # start NAME: until its ports file is written and it is connected to the database
  rm -f "$T/$1.ports"
  before=$(grep -c cluster_db_connected "$T/$1.log" 2>/dev/null || true)
  "$S" serve --config "$T/$1.toml" >>"$T/$1.out" 2>&1 &
  echo $! >"$T/$1.pid"
  i=0
  while [ ! -s "$T/$1.ports" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
  i=0
  while [ "$(grep -c cluster_db_connected "$T/$1.log" 2>/dev/null)" -le "${before:-0}" ] && [ $i -lt 600 ]; do
    sleep 0.1; i=$((i + 1))
  done
  [ "$(grep -c cluster_db_connected "$T/$1.log" 2>/dev/null)" -gt "${before:-0}" ] || { fail "daemon $1 did not start"; tail -20 "$T/$1.out" "$T/$1.log"; exit 1; }
}
ctl() { n=$1; shift; "$C" --socket "$T/$n.sock" "$@"; }
hold() { for n in "$@"; do : >"$T/$n.hold"; done; }
release() { for n in "$@"; do rm -f "$T/$n.hold"; done; }
host_id() { sql "SELECT max(id) FROM hosts WHERE name = '$1'"; }
held_by() { sql "SELECT count(*) FROM partitions WHERE state = 'claimed' AND host_id = $(host_id "$1")"; }
# submit RID DAEMON PRIORITY PARTITIONS: the job id on stdout; an UNAVAILABLE answer (database
# restarting) or a refused connection (daemon restarting) is retried with the same request id.
submit() {
  parts=$W; [ "$4" -eq 2 ] && parts="$W $W"
  k=0
  while [ $k -lt 600 ]; do
    # shellcheck disable=SC2086
    if out=$(ctl "$2" submit --circuit multiplier --priority "$3" --request-id "$1" $parts 2>&1); then
      echo "$out" | sed 's/ .*//'; return 0
    fi
    case $out in *UNAVAILABLE*|*"failed to connect"*|*"Connection refused"*|*"No such file"*) ;; *) echo "$out" >&2; return 1 ;; esac
    k=$((k + 1)); sleep 0.1
  done
  return 1
}

for n in a b c; do config $n; done
hold a b c
for n in a b c; do start $n; done
pass "3 daemons connected to one database"
daemon_of() { case $(($1 % 3)) in 0) echo a ;; 1) echo b ;; 2) echo c ;; esac; }

echo "== 1. priorities: the held daemons are full, a alone claims the queued batch"
for i in 1 2 3 4 5 6; do submit fill-$i "$(daemon_of $i)" normal 1 >/dev/null || fail "filler $i"; done
wait_sql "SELECT count(*) = 6 FROM partitions WHERE state = 'claimed'" && pass "6 fillers claimed (2 per daemon: 1 worker + claim_ahead 1)" ||
  fail "fillers not claimed: $(sql "SELECT state, count(*) FROM partitions GROUP BY 1")"
for i in 1 2 3 4 5 6 7 8 9 10; do submit prio-low-$i "$(daemon_of $i)" low 1 >/dev/null || fail "low $i"; done
for i in 1 2 3 4 5 6 7 8 9 10; do submit prio-high-$i "$(daemon_of $i)" high 1 >/dev/null || fail "high $i"; done
[ "$(sql "SELECT count(*) FROM partitions WHERE state = 'queued'")" -eq 20 ] && pass "20 batch partitions queued" ||
  fail "batch: $(sql "SELECT state, count(*) FROM partitions GROUP BY 1")"
release a
wait_sql "SELECT count(*) = 20 FROM jobs WHERE request_id LIKE 'prio-%' AND state = 'done'" || fail "the batch did not finish"
# Each partition's first claim (a lease that expired on this loaded machine may add a later one).
ok=$(sql "WITH c AS (SELECT DISTINCT ON (e.job_id, e.k) split_part(e.detail, '=', 2)::bigint AS x, j.priority, e.host_id
            FROM events e JOIN jobs j ON j.id = e.job_id WHERE e.event = 'claimed' AND j.request_id LIKE 'prio-%'
            ORDER BY e.job_id, e.k, e.seq)
          SELECT (SELECT max(x) FROM c WHERE priority = 3) <= (SELECT min(x) FROM c WHERE priority = 1)
             AND (SELECT count(DISTINCT host_id) FROM c) = 1")
[ "$ok" = t ] && pass "all 10 HIGH claimed before any LOW, all by a" ||
  fail "priority order: $(sql "SELECT e.seq, e.host_id, j.priority, e.detail FROM events e JOIN jobs j ON j.id = e.job_id WHERE e.event = 'claimed' AND j.request_id LIKE 'prio-%' ORDER BY e.seq")"

echo "== 2. cancel through another daemon"
hold a
for i in 7 8; do submit fill-$i a normal 1 >/dev/null; done
wait_sql "SELECT count(*) = 6 FROM partitions WHERE state = 'claimed'" || fail "a did not fill up again"
q=$(submit cancel-queued a normal 1)
r=$(ctl c cancel "$q"); echo "$r" | grep -q "^job $q cancelled" && pass "queued job $q cancelled through c" || fail "cancel $q: $r"
ctl b await "$q" | grep -q "^job $q cancelled" && pass "b sees job $q cancelled" || fail "b: job $q not cancelled"
running=$(sql "SELECT job_id FROM partitions WHERE state = 'claimed' AND host_id = $(host_id a) ORDER BY job_id LIMIT 1")
ctl b cancel "$running" | grep -q "^job $running cancelled" && pass "job $running (held by a) cancelled through b" || fail "cancel $running"
i=0; while ! grep -q "cluster_partitions_stopped job=$running " "$T/a.log" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
grep -q "cluster_partitions_stopped job=$running " "$T/a.log" && pass "a stopped its partition of job $running (NOTIFY)" || fail "a did not stop job $running"
release a b c
wait_sql "SELECT count(*) = 0 FROM jobs WHERE state = 'queued'" && pass "fillers done" || fail "fillers unfinished"

echo "== 3. 200 jobs round-robin; kill -9, a database restart, SIGSTOP past the lease"
prio_of() { case $(($1 % 5)) in 0) echo high ;; 1|2) echo normal ;; 3) echo low ;; 4) echo critical ;; esac; }
batch() {  # batch FROM TO: 4 submitting lanes (a bare `wait` would wait for the daemons too)
  lanes=""
  for lane in 0 1 2 3; do
    (i=$1; while [ $i -le $2 ]; do
       if [ $((i % 4)) -eq $lane ]; then
         submit main-$i "$(daemon_of $i)" "$(prio_of $i)" $((1 + i % 2)) >"$T/job.$i" 2>"$T/job.$i.err" || echo "submit main-$i failed" >>"$T/submit.errors"
       fi
       i=$((i + 1)); done) &
    lanes="$lanes $!"
  done
  wait $lanes
}
hold b  # its claims from the first batch stay on its device until it is killed
batch 1 60
wait_sql "SELECT count(*) >= 1 FROM partitions WHERE state = 'claimed' AND host_id = $(host_id b)" || fail "b holds nothing"
b_held=$(held_by b)
kill -9 "$(cat "$T/b.pid")"; wait "$(cat "$T/b.pid")" 2>/dev/null
release b
old_b=$(host_id b)
start b
pass "b killed with $b_held claims held, started again"
batch 61 130 &
batch2=$!
wait_sql "SELECT count(*) >= 10 FROM jobs WHERE request_id LIKE 'main-%' AND id > (SELECT min(id) FROM jobs WHERE request_id = 'main-61')" 60 ||
  fail "batch 2 did not start"
pg_restart && pass "database restarted mid-run" || fail "pg_ctl restart"
wait $batch2
wait_sql "SELECT count(*) = 0 FROM partitions WHERE state = 'claimed' AND host_id = $old_b" &&
  pass "the killed b's claims went back to the queue after their lease" || fail "b's old claims are still claimed"
hold c
batch 131 160
wait_sql "SELECT count(*) >= 1 FROM partitions WHERE state = 'claimed' AND host_id = $(host_id c)" || fail "c holds nothing"
c_id=$(host_id c)
sql "SELECT job_id || ' ' || k || ' ' || token FROM partitions WHERE state = 'claimed' AND host_id = $c_id" >"$T/c.claims"
kill -STOP "$(cat "$T/c.pid")"
# Handshake: every partition c held has been claimed again by another daemon (its lease expired).
cond="SELECT bool_and(EXISTS (SELECT 1 FROM events e WHERE e.job_id = x.j AND e.k = x.k AND e.event = 'claimed' AND e.host_id <> $c_id AND e.token > x.t))
      FROM (VALUES $(awk '{printf "%s(%s,%s,%s)", (NR>1?",":""), $1, $2, $3}' "$T/c.claims")) AS x(j, k, t)"
wait_sql "$cond" && pass "c stopped past its lease: its $(wc -l <"$T/c.claims") claims taken over" || fail "c's claims not taken over"
release c
kill -CONT "$(cat "$T/c.pid")"
i=0
while ! grep -Eq "cluster_result_fenced|cluster_lease_lost" "$T/c.log" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
grep -Eq "cluster_result_fenced|cluster_lease_lost" "$T/c.log" && pass "c resumed: its stale claims were fenced off or stopped ($(grep -Ec "cluster_result_fenced|cluster_lease_lost" "$T/c.log") lines)" ||
  fail "c logged neither a fenced result nor a lost lease"
batch 161 200
[ -s "$T/submit.errors" ] && fail "$(cat "$T/submit.errors")"
wait_sql "SELECT count(*) = 200 FROM jobs WHERE request_id LIKE 'main-%' AND state = 'done'" 300 &&
  pass "200 jobs done" || fail "main jobs: $(sql "SELECT state, count(*) FROM jobs WHERE request_id LIKE 'main-%' GROUP BY 1")"

echo "== 4. exactly once, valid proofs, status"
bad=$(sql "SELECT count(*) FROM (SELECT job_id, k FROM events WHERE event = 'partition_done' GROUP BY 1, 2 HAVING count(*) <> 1) x")
missing=$(sql "SELECT count(*) FROM partitions p JOIN jobs j ON j.id = p.job_id WHERE j.state = 'done' AND NOT EXISTS
               (SELECT 1 FROM events e WHERE e.job_id = p.job_id AND e.k = p.k AND e.event = 'partition_done')")
ends=$(sql "SELECT count(*) FROM (SELECT j.id FROM jobs j LEFT JOIN events e ON e.job_id = j.id AND e.event IN ('done', 'failed', 'cancelled')
            GROUP BY j.id HAVING count(e.seq) <> 1) x")
[ "$bad" -eq 0 ] && [ "$missing" -eq 0 ] && [ "$ends" -eq 0 ] && pass "every partition proven once, every job ended once" ||
  fail "exactly once: $bad partitions recorded twice, $missing never, $ends jobs without exactly one end"
[ "$(sql "SELECT count(*) FROM jobs WHERE request_id LIKE 'main-%'")" -eq 200 ] && pass "200 accepted jobs for 200 request ids (retries deduplicated)" ||
  fail "$(sql "SELECT count(*) FROM jobs WHERE request_id LIKE 'main-%'") jobs for 200 request ids"
echo "   events: $(sql "SELECT string_agg(event || '=' || n, ' ') FROM (SELECT event, count(*) AS n FROM events GROUP BY 1 ORDER BY 1) x")"
[ "$(sql "SELECT count(*) FROM events WHERE event = 'lease_expired'")" -ge 2 ] && pass "expired leases returned to the queue" || fail "no lease expired"
verify_lane() {  # verify_lane LANE: await each job through the next daemon, verify its proof
  i=1
  while [ $i -le 200 ]; do
    if [ $((i % 3)) -eq "$1" ]; then
      j=$(cat "$T/job.$i"); n=$(daemon_of $((i + 1)))
      if ! ctl "$n" await "$j" --proof "$T/p$i.bin" --public "$T/p$i.json" >"$T/v$i.out" 2>&1; then
        echo "job $j (main-$i) through $n: $(head -1 "$T/v$i.out")" >>"$T/verify.errors"
      elif ! "$S" verify --vk "$VK" --proof "$T/p$i.bin" --public "$T/p$i.json" >"$T/v$i.out" 2>&1; then
        echo "job $j (main-$i): $(head -1 "$T/v$i.out")" >>"$T/verify.errors"
      fi
    fi
    i=$((i + 1))
  done
}
verify_lane 0 & v0=$!
verify_lane 1 & v1=$!
verify_lane 2 & v2=$!
wait $v0 $v1 $v2
[ -s "$T/verify.errors" ] && fail "proofs: $(head -5 "$T/verify.errors")" || pass "200 jobs' proofs valid (snarkd verify), each awaited through another daemon"
HTTP=$(sed -n 's/.*"http": \([0-9]*\).*/\1/p' "$T/a.ports")
curl -s "http://127.0.0.1:$HTTP/status" >"$T/status.json"
python3 -c "
import json, sys, jsonschema
s = json.load(open('$T/status.json'))
try:
    c = s['cluster']
    alive = sorted(h['name'] for h in c['hosts'] if h['alive'])
    assert c['connected'] and alive == ['a', 'b', 'c'], 'hosts alive: %s' % alive
    assert s['jobs_done'] >= 200 and s['jobs_cancelled'] == 2, 'done %s cancelled %s' % (s['jobs_done'], s['jobs_cancelled'])
    jsonschema.validate(s, json.load(open('$ROOT/docs/STATUS_SCHEMA.json')))
except (AssertionError, KeyError, jsonschema.ValidationError) as e:
    sys.exit(str(e).splitlines()[0])
" && pass "/status: connected, hosts a b c alive, cluster-wide counts, schema-valid" || fail "/status (above)"
curl -s "http://127.0.0.1:$HTTP/metrics" >"$T/metrics.txt"
for m in '^snarkd_cluster_connected 1' 'snarkd_cluster_hosts\{state="alive"\} 3' 'snarkd_cluster_claims_total [1-9]' \
         'snarkd_cluster_partitions\{state="queued"\} 0' 'snarkd_cluster_results_total\{outcome="done"\} [1-9]'; do
  grep -Eq "$m" "$T/metrics.txt" && pass "/metrics has $m" || fail "/metrics lacks $m"
done
if command -v chromium >/dev/null 2>&1; then  # the status page's hosts table (status_page.sh covers the rest)
  HOME=$T/home XDG_CONFIG_HOME=$T/home/.config XDG_CACHE_HOME=$T/home/.cache \
    timeout -k 5 90 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --disable-extensions --disable-background-networking --user-data-dir="$T/profile" --crash-dumps-dir="$T/crash" \
    --virtual-time-budget=4000 --dump-dom "http://127.0.0.1:$HTTP/" 2>>"$T/chromium.log" | sed '/<script>/,/<\/script>/d' >"$T/page.html"
  for p in 'database connected' '<td>a \(this daemon\)</td><td>[0-9.]+ (ms|s)</td><td>sim[:0-9]*</td><td>1</td><td>[0-9]+</td><td class="s-done">alive</td>' \
           '<td>b</td><td>[0-9.]+ (ms|s)</td><td>sim[:0-9]*</td>' '<td>c</td>(<td>[^<]*</td>){4}<td class="s-done">alive</td>' 'class="s-failed">silent<'; do
    grep -Eq -- "$p" "$T/page.html" && pass "status page shows /$p/" || fail "status page lacks /$p/"
  done
else
  echo "   (no chromium: the status page's hosts table is not checked)"
fi

echo "== 5. shared-storage witnesses"
shared=$(sql "SELECT count(*) FILTER (WHERE partitions = 2 AND witness_dir LIKE '$T/shared/%') || ' ' ||
                     count(*) FILTER (WHERE partitions = 2) || ' ' || count(*) FILTER (WHERE partitions = 1 AND witness_dir IS NULL)
                     || ' ' || count(*) FILTER (WHERE partitions = 1)
              FROM jobs WHERE request_id LIKE 'main-%'")
set -- $shared
s2=${1:-0} n2=${2:-0} s1=${3:-0} n1=${4:-0}
[ "$s2" -eq "$n2" ] && [ "$s1" -eq "$n1" ] && [ "$n2" -gt 0 ] && pass "$n2 2-partition jobs' witnesses in $T/shared, $n1 1-partition jobs' in the database" ||
  fail "witness placement: shared $s2 of $n2 2-partition jobs, in the database $s1 of $n1 1-partition jobs"
[ "$(sql "SELECT count(*) FROM partitions p JOIN jobs j ON j.id = p.job_id WHERE j.partitions = 2 AND j.request_id LIKE 'main-%'
          AND p.witness_path LIKE j.witness_dir || '/%'")" -eq $((2 * n2)) ] && pass "their partitions were claimed from files (proofs valid above)" ||
  fail "shared partitions without a witness path"
left=$(find "$T/shared" -mindepth 1 -maxdepth 1 -name '[0-9]*' | wc -l)
staged=$(find "$T/shared/.staging" -mindepth 1 | wc -l)
[ "$left" -eq 0 ] && [ "$staged" -eq 0 ] && pass "every ended job's shared directory removed, nothing left staged" ||
  fail "$left job directories and $staged staged entries left in $T/shared: $(ls "$T/shared" | head -5)"
echo "== 6. BN254: a CPU daemon d serves snarkjs's bn128 key; its jobs are awaited through a"
NOBLE=$ROOT/tools/vectors/verify_snarkjs_bn254.mjs
BN=$Z/bn128/multiplier
config d
sed -i 's/^devices = "sim"/devices = "cpu"/' "$T/d.toml"
printf '[[circuit]]\nid = "bn"\nzkey = "%s"\n' "$BN/multiplier.zkey" >>"$T/d.toml"
start d
bn1=$(ctl d submit --circuit bn "$BN/multiplier.wtns") || fail "BN254 submit through d"
bn2=$(ctl d submit --circuit bn "$BN/multiplier.wtns" "$BN/multiplier.wtns") || fail "BN254 submit of 2 partitions through d"
# 1 partition (460 bytes) keeps its witness in the database, 2 partitions go to witness_dir.
ctl a await "$bn1" --proof "$T/bn1.json" --public "$T/bn1_pub.json" >"$T/bn.out" 2>&1 &&
  "$S" verify "$BN/verification_key.json" "$T/bn1_pub.json" "$T/bn1.json" >>"$T/bn.out" 2>&1 &&
  node "$NOBLE" "$BN/verification_key.json" "$T/bn1_pub.json" "$T/bn1.json" >>"$T/bn.out" 2>&1 &&
  pass "BN254 job $bn1 (witness in the database) awaited through a: proof.json valid (snarkd verify, @noble/curves)" ||
  fail "BN254 job $bn1: $(tail -3 "$T/bn.out")"
ctl a await "$bn2" --proof "$T/bn2_{k}.json" --public "$T/bn2_{k}_pub.json" >"$T/bn.out" 2>&1 &&
  node "$NOBLE" "$BN/verification_key.json" "$T/bn2_0_pub.json" "$T/bn2_0.json" >>"$T/bn.out" 2>&1 &&
  node "$NOBLE" "$BN/verification_key.json" "$T/bn2_1_pub.json" "$T/bn2_1.json" >>"$T/bn.out" 2>&1 &&
  pass "BN254 job $bn2 (witnesses in witness_dir) awaited through a: 2 proofs valid (@noble/curves)" ||
  fail "BN254 job $bn2: $(tail -3 "$T/bn.out")"
[ "$(sql "SELECT (SELECT witness_dir IS NULL FROM jobs WHERE id = $bn1) AND (SELECT witness_dir LIKE '$T/shared/%' FROM jobs WHERE id = $bn2)")" = t ] &&
  pass "BN254 witnesses went both ways (database, witness_dir)" || fail "BN254 witness placement"
ctl b await "$bn1" --json | grep -q '"curve": "BN254"' && pass "job $bn1's result names its curve" || fail "job $bn1: no curve in its result"
ctl d submit --circuit bn "$W" >"$T/bn.out" 2>&1
grep -q "INVALID_ARGUMENT: partition 0 (.wtns): .*is not BN254's r .*it is BLS12-381's" "$T/bn.out" &&
  pass "a BLS12-381 witness for the BN254 key refused naming both curves" || fail "wrong-curve witness: $(cat "$T/bn.out")"
ctl a submit --circuit bn "$BN/multiplier.wtns" >"$T/bn.out" 2>&1
grep -q "NOT_FOUND: unknown circuit 'bn'" "$T/bn.out" && pass "a (no BN254 key loaded) refuses bn jobs" ||
  fail "a accepted a bn job: $(cat "$T/bn.out")"

for n in a b c d; do
  kill -TERM "$(cat "$T/$n.pid")"; wait "$(cat "$T/$n.pid")"; rc=$?; rm -f "$T/$n.pid"
  [ $rc -eq 0 ] && pass "$n: SIGTERM, exit 0" || fail "$n: exit $rc"
done

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed; logs:"
  for n in a b c d; do echo "-- $n"; grep -Ev " debug " "$T/$n.log" 2>/dev/null | tail -15; done
  exit 1
fi
echo "all cluster checks passed"
