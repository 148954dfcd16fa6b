#!/bin/sh
# usage: daemon_test.sh SNARKD SNARKCTL REPO_ROOT
# The daemon end to end over its real unix socket / TCP port with snarkctl (ctest label daemon):
#   1. CPU backend: 12 concurrent clients prove the example circuits (bellperson fixture, snarkjs
#      multiplier and lincomb; 1 and 2 partitions), every proof checked by `snarkd verify` and the
#      bellperson ones by the independent @noble/curves verifier; request-id de-duplication;
#      malformed requests each answered with its code and message while the daemon keeps
#      serving; witness paths; preload/evict; TCP without/with the token; /metrics (promtool
#      check metrics; build_info, process_*, host memory, the CPU device's ledger labelled host
#      memory, no VRAM or GPU series), /status (validated against docs/STATUS_SCHEMA.json; NVML
#      "unavailable" without the driver, throughput and durations), the status page; SIGTERM
#      exits 0.
#   2. Simulated device held by a file (sim_hold_file: while $T/hold exists no compute stage
#      ends, so every check below happens while the job it needs is running, however loaded the
#      machine — no stage time races the checks): Await's timeout, EvictKey refused while in use,
#      cancel of a queued and of a running job, SIGHUP reload, kill -9 with jobs queued → restart
#      → every accepted job finishes exactly once (journal events) with valid proofs and earlier
#      results unchanged; SIGTERM drains the running job and leaves the queued one journaled.
#      This daemon logs JSON at debug level ([log] format = "json"): every line of its log must
#      parse, with a partition_finished event per partition (device, stage times).
#   3. Results expire after the retention time.
# Each check prints one line; the script exits 1 at the end if any failed.
set -u
S=$1
C=$2
ROOT=$3
F=$ROOT/tests/r1cs/fixtures
Z=$ROOT/tests/groth16/fixtures
NOBLE=$ROOT/tools/vectors/verify_bellperson.mjs
SCHEMA=$ROOT/docs/STATUS_SCHEMA.json
. "$ROOT/tests/common/checks.sh"
begin_test snarkd-daemon
export SNARKD_SOCKET=$T/d.sock
unset SNARKD_ADDR SNARKD_TOKEN

# config NAME DEVICES SIM_COMPUTE_MS RETENTION_S [json]: writes $T/NAME.toml (json: the log as
# JSON lines in $T/json.log instead of text on stderr)
config() {
  log_extra=""
  [ "${5:-}" = json ] && log_extra="format = \"json\"
file = \"$T/json.log\""
  cat >"$T/$1.toml" <<EOF
[server]
socket = "$T/d.sock"
tcp_listen = "127.0.0.1:0"
token_file = "$T/token"
http_listen = "127.0.0.1:0"
ports_file = "$T/ports.json"
max_message_mib = 1
witness_dirs = ["$T/allowed"]
key_dirs = ["$T", "$Z"]
submit_wait_ms = 20000
drain_timeout_s = 60
[engine]
devices = "$2"
sim_compute_ms = $3
sim_hold_file = "$T/hold"
[journal]
state_dir = "$T/state"
retention_s = $4
[log]
level = "debug"
$log_extra
[[circuit]]
id = "fixture"
params = "$T/k.params"
circuit = "$F/fixture.r1cs"
[[circuit]]
id = "multiplier"
zkey = "$Z/multiplier/multiplier.zkey"
[[circuit]]
id = "lincomb"
zkey = "$Z/lincomb/lincomb.zkey"
EOF
}

start_daemon() { start_snarkd "$T/$1.toml"; }

stop_daemon() {
  kill -TERM "$PID"
  wait "$PID"
  rc=$?
  PID=""
  [ "$rc" -eq 0 ] && pass "SIGTERM: the daemon exited 0" || fail "SIGTERM: exit code $rc"
}

kill9_daemon() {
  kill -9 "$PID"
  wait "$PID" 2>/dev/null
  PID=""
}

now_ms() { date +%s%3N; }
state_of() { "$C" await "$1" --timeout 0 --json 2>/dev/null | sed -n 's/.*"state": "JOB_STATE_\([A-Z]*\)".*/\1/p' | head -1; }
wait_state() {  # wait_state JOB STATE: up to 30 s
  i=0
  while [ "$(state_of "$1")" != "$2" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
  [ "$(state_of "$1")" = "$2" ]
}
sql() { sqlite3 "$T/state/journal.db" "$1"; }

for tool in sqlite3 curl python3 node promtool; do
  command -v $tool >/dev/null 2>&1 || { echo "FAIL: $tool is missing (scripts/install-deps.sh installs it)"; exit 1; }
done
python3 -c 'import jsonschema' 2>/dev/null || { echo "FAIL: python3-jsonschema is missing (scripts/install-deps.sh)"; exit 1; }
[ -f "$ROOT/tools/vectors/node_modules/@noble/curves/package.json" ] || {
  echo "FAIL: tools/vectors/node_modules missing: run (cd tools/vectors && npm install)"; exit 1; }

mkdir -p "$T/allowed"
printf 'test-token-%s\n' "$$" >"$T/token"
"$S" setup --r1cs "$F/fixture.r1cs" --params "$T/k.params" --vk "$T/k.vk" --seed 7 >/dev/null 2>&1
cp "$F/fixture.wtns" "$T/allowed/fixture.wtns"
cp "$F/fixture.wtns" "$T/outside.wtns"

# witness CIRCUIT: the example witness of a circuit; vk CIRCUIT: a verifying key for it.
witness() { case $1 in fixture) echo "$F/fixture.wtns" ;; *) echo "$Z/$1/$1.wtns" ;; esac; }
vk() { case $1 in fixture) echo "$T/k.vk" ;; *) echo "$Z/$1/verification_key.json" ;; esac; }

echo "== 1. CPU backend over the unix socket"
config cpu cpu 0 86400
expect 2 "unknown key 'server.bogus'" sh -c "printf '[server]\nbogus = 1\n' > '$T/bad.toml'; '$S' serve --config '$T/bad.toml'"
expect 2 "log.format: 'xml' is not text or json" sh -c "printf '[log]\nformat = \"xml\"\n' > '$T/bad.toml'; '$S' serve --config '$T/bad.toml'"
start_daemon cpu
mode=$(stat -c %a "$T/d.sock")
[ "$mode" = "600" ] && pass "socket mode 0600" || fail "socket mode is $mode"

echo "-- 12 concurrent clients"
pids=""
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
  case $((i % 3)) in 0) c=fixture ;; 1) c=multiplier ;; 2) c=lincomb ;; esac
  w=$(witness $c)
  parts="$w"
  [ $((i % 4)) -eq 0 ] && parts="$w $w"
  ( "$C" prove --circuit $c $parts --proof "$T/p$i.bin" --public "$T/pub$i.json" --no-progress >"$T/c$i.out" 2>&1
    echo $? >"$T/c$i.rc" ) &
  pids="$pids $!"
  echo $c >"$T/c$i.circuit"
done
wait $pids
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
  c=$(cat "$T/c$i.circuit")
  if [ "$(cat "$T/c$i.rc")" != 0 ]; then fail "client $i ($c): $(cat "$T/c$i.out")"; continue; fi
  expect 0 "^valid" "$S" verify --vk "$(vk $c)" --proof "$T/p$i.bin" --public "$T/pub$i.json"
  [ $c = fixture ] && expect 0 "^valid" node "$NOBLE" "$T/k.vk" "$T/p$i.bin" "$T/pub$i.json"
done

echo "-- request ids de-duplicate and never become job ids"
j1=$("$C" submit --circuit fixture --request-id same-1 "$F/fixture.wtns")
expect 0 "^$j1 \(deduplicated\)" "$C" submit --circuit fixture --request-id same-1 "$F/fixture.wtns"
expect 3 "ALREADY_EXISTS: request id 'same-1' was used for job $j1 with a different payload" \
  "$C" submit --circuit fixture --request-id same-1 "$F/fixture.wtns" "$F/fixture.wtns"
[ "$j1" != "same-1" ] && pass "job id $j1 is the daemon's"

echo "-- malformed requests: each refused with its reason, the daemon keeps serving"
head -c 1000 /dev/urandom >"$T/garbage.bin"
{ printf 'wtns'; head -c 200 /dev/urandom; } >"$T/garbage.wtns"
head -c 320 /dev/zero | tr '\000' '\377' >"$T/big.fr"
head -c 320 /dev/zero >"$T/zeros.fr"
head -c 2000000 /dev/urandom >"$T/huge.fr"
expect 3 "INVALID_ARGUMENT: partition 0: 1000 bytes is not a whole number of 32-byte Fr values" "$C" submit --circuit fixture "$T/garbage.bin"
expect 3 "INVALID_ARGUMENT: partition 0 \(.wtns\)" "$C" submit --circuit fixture "$T/garbage.wtns"
expect 3 "INVALID_ARGUMENT: partition 1: has 12 witness values, the circuit has 10 variables" \
  "$C" submit --circuit fixture "$F/fixture.wtns" "$Z/multiplier/multiplier.wtns"
expect 3 "INVALID_ARGUMENT: partition 0: value 0 is not below the BLS12-381 Fr modulus" "$C" submit --circuit fixture "$T/big.fr"
expect 3 "INVALID_ARGUMENT: partition 0: value 0 \(the constant ONE\) is not 1" "$C" submit --circuit fixture "$T/zeros.fr"
expect 3 "NOT_FOUND: unknown circuit 'nope' \(loaded: fixture, lincomb, multiplier\)" "$C" submit --circuit nope "$F/fixture.wtns"
expect 3 "INVALID_ARGUMENT: priority 9 is not one of" "$C" submit --circuit fixture --priority 9 "$F/fixture.wtns"
expect 3 "INVALID_ARGUMENT: unknown witness format 7|partition 0: unknown witness format 7" "$C" submit --circuit fixture --format 7 "$F/fixture.wtns"
expect 3 "INVALID_ARGUMENT: request_id must be printable ASCII" "$C" submit --circuit fixture --request-id "a b" "$F/fixture.wtns"
expect 3 "RESOURCE_EXHAUSTED" "$C" submit --circuit fixture "$T/huge.fr"
expect 3 "NOT_FOUND: unknown job 999999" "$C" await 999999
expect 3 "NOT_FOUND: unknown job 0" "$C" cancel 0
expect 2 "'abc' is not a job id" "$C" await abc
expect 3 "NOT_FOUND: witness path '$T/outside.wtns' is not a readable regular file under server.witness_dirs" \
  "$C" submit --circuit fixture --by-path "$T/outside.wtns"
expect 3 "NOT_FOUND" "$C" submit --circuit fixture --by-path "$T/allowed/../outside.wtns"
expect 3 "NOT_FOUND: witness path '$T/allowed/none.wtns' is not a readable regular file under server.witness_dirs" \
  "$C" submit --circuit fixture --by-path "$T/allowed/none.wtns"
cp "$T/huge.fr" "$T/allowed/huge.fr"
expect 3 "INVALID_ARGUMENT: partition 0: the witness is 2000000 bytes, more than the circuit's variables can take" \
  "$C" submit --circuit fixture --by-path "$T/allowed/huge.fr"
expect 3 "NOT_FOUND: unknown circuit 'ghost'" "$C" evict ghost
expect 3 "NOT_FOUND: key file '$T/missing.zkey' is not a readable regular file" \
  "$C" preload --id x --zkey "$T/missing.zkey"
head -c 700 "$Z/multiplier/multiplier.zkey" >"$T/trunc.zkey"
expect 3 "INVALID_ARGUMENT: .*trunc.zkey" "$C" preload --id x --zkey "$T/trunc.zkey"
expect 3 "ALREADY_EXISTS: circuit id 'fixture' is taken" "$C" preload --id fixture --zkey "$Z/multiplier/multiplier.zkey"
# Bytes that are not a protobuf message at all, in a well-formed gRPC frame: gRPC refuses them
# (its callback API answers a request it cannot parse with 12, UNIMPLEMENTED).
printf '\000\000\000\000\010\377\377\377\377\377\377\377\377' >"$T/frame.bin"
expect 0 "grpc-status: (3|12|13)" sh -c "curl -s -v --http2-prior-knowledge --unix-socket '$T/d.sock' -H 'content-type: application/grpc' \
  -H 'te: trailers' --data-binary @'$T/frame.bin' http://localhost/snarkd.v1.Prover/Submit -o /dev/null 2>&1"
alive && pass "the daemon is still running" || fail "the daemon died"
expect 0 "^job [0-9]+ done" "$C" prove --circuit fixture --by-path "$T/allowed/fixture.wtns" --proof "$T/path.bin" --public "$T/path.json"
expect 0 "^valid" node "$NOBLE" "$T/k.vk" "$T/path.bin" "$T/path.json"

echo "-- preload and evict"
expect 0 "loaded lincomb2: snarkjs" "$C" preload --id lincomb2 --zkey "$Z/lincomb/lincomb.zkey"
expect 0 "^job [0-9]+ done" "$C" prove --circuit lincomb2 "$Z/lincomb/lincomb.wtns"
expect 0 "evicted lincomb2" "$C" evict lincomb2
expect 3 "NOT_FOUND: unknown circuit 'lincomb2'" "$C" submit --circuit lincomb2 "$Z/lincomb/lincomb.wtns"

echo "-- TCP needs the bearer token"
expect 3 "UNAUTHENTICATED: missing 'authorization: Bearer <token>'" "$C" status --addr "127.0.0.1:$TCP"
echo wrong >"$T/wrong"
expect 3 "UNAUTHENTICATED: invalid bearer token" "$C" prove --circuit fixture "$F/fixture.wtns" --addr "127.0.0.1:$TCP" --token-file "$T/wrong"
expect 0 "^job [0-9]+ done" "$C" prove --circuit fixture "$F/fixture.wtns" --addr "127.0.0.1:$TCP" --token-file "$T/token"
expect 0 "" "$C" status --addr "127.0.0.1:$TCP" --token-file "$T/token"

echo "-- /metrics, the Metrics RPC, /status against its schema, the status page"
curl -s "http://127.0.0.1:$HTTP/metrics" >"$T/metrics.txt"
for m in 'snarkd_jobs_submitted_total\{circuit="fixture"\} [1-9]' 'snarkd_jobs_completed_total\{circuit="multiplier"\} [1-9]' \
         'snarkd_jobs_failed_total\{circuit="fixture"\} 0' 'snarkd_jobs_cancelled_total\{circuit="lincomb"\} 0' \
         '^snarkd_queue_depth_partitions 0' 'snarkd_stage_duration_seconds_bucket\{stage="compute",le="\+Inf"\} [1-9]' \
         'snarkd_stage_duration_seconds_count\{stage="queued"\}' \
         'snarkd_ledger_reserved_bytes\{device="cpu:0",memory="host"\} 0' \
         'snarkd_ledger_capacity_bytes\{device="cpu:0",memory="host"\} [1-9]' '^snarkd_host_budget_in_use_bytes ' \
         'snarkd_rpc_requests_total\{code="INVALID_ARGUMENT",method="Submit"\} [1-9]' \
         'snarkd_rpc_requests_total\{code="UNAUTHENTICATED",method="Status"\} 1' \
         '^snarkd_build_info\{commit="[^"]+",compile_check="(on|off)",cuda="(on|off)",version="[0-9.]+"\} 1$' \
         '^process_cpu_seconds_total [0-9]' '^process_resident_memory_bytes [1-9]' '^process_virtual_memory_bytes [1-9]' \
         '^process_open_fds [1-9]' '^process_max_fds [1-9]' '^process_start_time_seconds 1[0-9.]+$' \
         '^snarkd_host_memory_total_bytes [1-9]' '^snarkd_host_memory_available_bytes [1-9]' '^snarkd_nvml_available [01]$'; do
  grep -Eq "$m" "$T/metrics.txt" && pass "/metrics has $m" || fail "/metrics lacks $m"
done
for m in 'memory="vram"' '^snarkd_gpu_' 'snarkd_vram_'; do  # the CPU device has no VRAM and is no GPU
  grep -Eq "$m" "$T/metrics.txt" && fail "/metrics has $m on the CPU device" || pass "/metrics has no $m"
done
expect 0 "" sh -c "promtool check metrics <'$T/metrics.txt'"
# Without the NVIDIA driver NVML is "unavailable" and nothing fails; with it, "ok".
if ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml\.so\.1 '; then nvml='^ok'; else nvml='^unavailable: '; fi
expect 0 "^# TYPE snarkd_job_duration_seconds histogram" "$C" metrics
curl -s "http://127.0.0.1:$HTTP/status" >"$T/status.json"
expect 0 "" python3 -c "
import json, sys, jsonschema
jsonschema.validate(json.load(open('$T/status.json')), json.load(open('$SCHEMA')))
s = json.load(open('$T/status.json'))
assert s['jobs_done'] >= 12 and s['devices'][0]['name'] == 'cpu:0', s
d = s['devices'][0]
assert d['memory'] == 'host' and not d['gpu']['available'] and d['gpu']['reason'] == 'not a GPU', d
assert d['gpu']['memory_total_bytes'] == 0, d
import re
assert re.match('$nvml', s['nvml']), s['nvml']
assert s['build']['git_commit'] and s['build']['version'] == s['version'], s['build']
assert s['host']['memory_total_bytes'] > 0 and s['host']['process_resident_bytes'] > 0, s['host']
t = s['throughput']
assert t['jobs'] >= 1 and t['partitions'] >= t['jobs'] and t['partitions_per_s'] > 0, t  # the last jobs, seconds ago
q = {x['name']: x for x in s['job_durations']}
assert set(q) >= {'fixture', 'multiplier', 'lincomb'}, q
assert all(0 < x['median_s'] <= x['p95_s'] <= x['max_s'] for x in q.values()), q
assert [x['name'] for x in s['stage_durations']] == ['queued', 'wait_vram', 'upload', 'compute', 'finalize'], s
"
expect 0 "^device cpu:0: host RAM for working sets " "$C" status
expect 0 "<title>snarkd status</title>" curl -s "http://127.0.0.1:$HTTP/"
expect 0 "^ok" curl -s "http://127.0.0.1:$HTTP/healthz"
expect 0 "404" curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HTTP/nope"
stop_daemon
[ ! -e "$T/d.sock" ] && pass "socket removed on exit" || fail "socket left behind"

echo "== 2. simulated device held by a file: timeouts, cancel, evict, reload, kill -9, drain"
config sim sim 0 86400 json
start_daemon sim
expect 0 "^device sim:0: simulated VRAM \(host arena\) " "$C" status
M=$Z/multiplier/multiplier.wtns
hold() { : >"$T/hold"; }
release() { rm -f "$T/hold"; }
hold
j_run=$("$C" submit --circuit multiplier "$M")
j_queued=$("$C" submit --circuit multiplier "$M")
j_later=$("$C" submit --circuit multiplier "$M")
wait_state "$j_run" RUNNING && pass "job $j_run running" || fail "job $j_run never ran"
t0=$(now_ms)
expect 1 "^job $j_later queued" "$C" await "$j_later" --timeout 0.5 --no-progress
dt=$(($(now_ms) - t0))
[ $dt -ge 450 ] && [ $dt -lt 10000 ] && pass "await --timeout 0.5 returned after $dt ms" || fail "await --timeout 0.5 took $dt ms"
expect 3 "FAILED_PRECONDITION: circuit 'multiplier' is in use by unfinished jobs" "$C" evict multiplier
expect 0 "^job $j_queued cancelled" "$C" cancel "$j_queued"
expect 0 "^job $j_run cancelled" "$C" cancel "$j_run"
expect 1 "^job $j_run cancelled" "$C" await "$j_run"
release
expect 0 "^job $j_later done" "$C" await "$j_later" --proof "$T/later.bin" --public "$T/later.json"
expect 0 "^valid" "$S" verify --vk "$Z/multiplier/verification_key.json" --proof "$T/later.bin" --public "$T/later.json"

echo "-- SIGHUP loads a circuit added to the config"
cat >>"$T/sim.toml" <<EOF
[[circuit]]
id = "reloaded"
zkey = "$Z/lincomb/lincomb.zkey"
EOF
kill -HUP "$PID"
i=0
while ! "$C" status 2>/dev/null | grep -q "^key reloaded" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
expect 0 "^key reloaded: snarkjs" "$C" status

echo "-- kill -9 with jobs queued, restart: every accepted job finishes exactly once"
hold  # none of the five can finish before the crash
ks=""
for i in 1 2 3 4 5; do ks="$ks $("$C" submit --circuit multiplier "$M" --request-id crash-$i)"; done
kill9_daemon
queued=$(sql "SELECT count(*) FROM jobs WHERE state = 'queued'")
[ "$queued" -eq 5 ] && pass "5 jobs journaled as queued at the crash" || fail "$queued jobs queued at the crash, expected 5"
release
start_daemon sim
for k in $ks; do
  expect 0 "^job $k done" "$C" await "$k" --proof "$T/k$k.bin" --public "$T/k$k.json"
  expect 0 "^valid" "$S" verify --vk "$Z/multiplier/verification_key.json" --proof "$T/k$k.bin" --public "$T/k$k.json"
done
expect 0 "^job $j_later done" "$C" await "$j_later" --proof "$T/later2.bin"
cmp -s "$T/later.bin" "$T/later2.bin" && pass "a result from before the crash is unchanged" || fail "the old result changed"
set -- $ks
expect 0 "^$1 \(deduplicated\)" "$C" submit --circuit multiplier "$M" --request-id crash-1
bad=$(sql "SELECT count(*) FROM (SELECT job_id FROM job_events WHERE event IN ('done','failed','cancelled') GROUP BY job_id HAVING count(*) != 1)")
finished=$(sql "SELECT count(DISTINCT job_id) FROM job_events WHERE event IN ('done','failed','cancelled')")
total=$(sql "SELECT count(*) FROM jobs")
[ "$bad" -eq 0 ] && [ "$finished" -eq "$total" ] && pass "each of $total jobs finished exactly once (journal events)" ||
  fail "exactly once: $bad jobs with ≠ 1 terminal event, $finished of $total finished"
restarts=$(sql "SELECT count(*) FROM jobs WHERE request_id LIKE 'crash-%' AND attempts = 2")
[ "$restarts" -eq 5 ] && pass "the 5 crashed jobs ran on their second attempt" || fail "$restarts of 5 crashed jobs have attempts = 2"

echo "-- SIGTERM drains the running job, the queued one stays journaled and runs after a restart"
hold  # d_run is still computing when SIGTERM arrives; one worker, so d_queued waits behind it
d_run=$("$C" submit --circuit multiplier "$M")
d_queued=$("$C" submit --circuit multiplier "$M")
wait_state "$d_run" RUNNING || fail "job $d_run never ran"
drains=$(grep -c "drain_started" "$T/json.log")
kill -TERM "$PID"
i=0  # the drain has begun (the engine is paused) before the held stage may end
while [ "$(grep -c "drain_started" "$T/json.log")" -le "$drains" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
release
stop_daemon
[ "$(sql "SELECT state FROM jobs WHERE id = $d_run")" = done ] && pass "drained job $d_run done" || fail "job $d_run not done after the drain"
[ "$(sql "SELECT state FROM jobs WHERE id = $d_queued")" = queued ] && pass "job $d_queued still queued in the journal" ||
  fail "job $d_queued is $(sql "SELECT state FROM jobs WHERE id = $d_queued")"
start_daemon sim
expect 0 "^job $d_queued done" "$C" await "$d_queued"
stop_daemon
echo "-- the JSON log: every line one object; a debug line per partition"
cat >"$T/check_log.py" <<'EOF'
import json, sys
lines = parts = 0
for line in open(sys.argv[1], encoding="utf-8"):  # strict UTF-8: bad bytes must have been replaced
    o = json.loads(line)
    assert isinstance(o, dict) and {"ts", "level", "thread", "msg"} <= o.keys(), line
    assert o["ts"].endswith("Z") and o["level"] in ("debug", "info", "warning", "error", "critical"), line
    if o.get("event") == "partition_finished":
        f = o["fields"]
        assert f["device"] in ("sim:0", "-") and f["state"] in ("done", "failed", "cancelled"), line
        float(f["compute_s"]), float(f["queued_s"])
        parts += 1
    lines += 1
assert lines > 20 and parts >= 8, (lines, parts)
print(lines, "lines,", parts, "partition lines")
EOF
expect 0 "^[0-9]+ lines, [0-9]+ partition lines" python3 "$T/check_log.py" "$T/json.log"

echo "== 3. results expire after the retention time"
config short cpu 0 1
start_daemon short
e=$("$C" submit --circuit fixture "$F/fixture.wtns")
expect 0 "^job $e done" "$C" await "$e"
sleep 1.5  # past the 1 s retention; a loaded machine's expiry pass may come later still:
i=0
while "$C" await "$e" --timeout 0 >/dev/null 2>&1 && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
expect 3 "NOT_FOUND: unknown job $e" "$C" await "$e"
stop_daemon

end_test daemon "$T/daemon.log"
