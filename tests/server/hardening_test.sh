#!/bin/sh
# usage: hardening_test.sh SNARKD SNARKCTL REPO_ROOT
# The daemon over its real socket against what issue 17 found (ctest test_daemon_hardening,
# label daemon). Simulated compute stages last 10 minutes, so nothing here can pass by waiting
# a stage out; every wait is on a state the daemon reports (no sleeps that race the clock).
#   1. files: under umask 000 the state dir, spool, journal (+ WAL, SHM), ports file are
#      0700 / 0600, the log 0640, the socket its socket_mode (also 0660).
#   2. RPC threads: max_rpc_threads = 4 and 8 clients awaiting a running job: Status, Submit,
#      Metrics still answer; a FIFO given to PreloadKey is refused at once.
#   3. cancel of a running job: the reply comes once the partition stopped, EvictKey works right
#      after, the stop time is in /metrics; SIGTERM drain with a cancelled job ends at once, and
#      Status answers while draining.
#   4. key_dirs and witness_dirs: one NOT_FOUND for missing, outside, FIFO, /proc, a directory.
#   5. an 8,000-byte circuit id is refused with a short message and stays out of the log.
#   6. a circuit file claiming 2^32 variables: refused before allocating (daemon peak RSS).
#   7. serve --check opens every file and device; a [[circuit]] that fails to load keeps
#      /healthz at 503 and is listed in /status until SIGHUP loads it.
#   8. the HTTP port: 20 clients trickling header bytes do not keep a scrape from an answer.
set -u
S=$1
C=$2
ROOT=$3
Z=$ROOT/tests/groth16/fixtures
F=$ROOT/tests/r1cs/fixtures
SCHEMA=$ROOT/docs/STATUS_SCHEMA.json
. "$ROOT/tests/common/checks.sh"
begin_test snarkd-hardening
export SNARKD_SOCKET=$T/d.sock
unset SNARKD_ADDR SNARKD_TOKEN
M=$Z/multiplier/multiplier.wtns

mode() { stat -c %a "$1" 2>/dev/null; }
check_mode() { [ "$(mode "$1")" = "$2" ] && pass "mode $2: ${1#$T/}" || fail "mode of ${1#$T/} is $(mode "$1"), want $2"; }

# config NAME DEVICES SIM_COMPUTE_MS SOCKET_MODE [EXTRA_CIRCUIT_ZKEY]
config() {
  cat >"$T/$1.toml" <<EOF
[server]
socket = "$T/d.sock"
socket_mode = "$4"
http_listen = "127.0.0.1:0"
ports_file = "$T/ports.json"
witness_dirs = ["$T/allowed"]
key_dirs = ["$T/keys"]
max_rpc_threads = 4
drain_timeout_s = 600
[engine]
devices = "$2"
sim_compute_ms = $3
[journal]
state_dir = "$T/state"
[log]
level = "debug"
file = "$T/d.log"
[[circuit]]
id = "multiplier"
zkey = "$Z/multiplier/multiplier.zkey"
EOF
  if [ $# -ge 5 ]; then printf '[[circuit]]\nid = "extra"\nzkey = "%s"\n' "$5" >>"$T/$1.toml"; fi
}

start_daemon() {  # start_daemon NAME [UMASK]
  rm -f "$T/ports.json"
  ( umask "${2:-022}"; exec "$S" serve --config "$T/$1.toml" >>"$T/stderr.log" 2>&1 ) &
  PID=$!
  i=0
  while [ ! -s "$T/ports.json" ] && [ $i -lt 600 ]; do alive || break; sleep 0.1; i=$((i + 1)); done
  if [ ! -s "$T/ports.json" ]; then
    fail "the daemon did not start ($1)"; tail -5 "$T/stderr.log" "$T/d.log" 2>/dev/null; exit 1
  fi
  HTTP=$(sed -n 's/.*"http": \([0-9]*\).*/\1/p' "$T/ports.json")
}
stop_daemon() {
  kill -TERM "$PID"; wait "$PID"; rc=$?; PID=""
  [ "$rc" -eq 0 ] && pass "SIGTERM: exit 0" || fail "SIGTERM: exit code $rc"
}
state_of() { "$C" await "$1" --timeout 0 --json 2>/dev/null | sed -n 's/.*"state": "JOB_STATE_\([A-Z]*\)".*/\1/p' | head -1; }
wait_state() {  # wait_state JOB STATE (up to 60 s)
  i=0
  while [ "$(state_of "$1")" != "$2" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
  [ "$(state_of "$1")" = "$2" ]
}
metric() { curl -s "http://127.0.0.1:$HTTP/metrics" | sed -n "s/^$1 //p"; }

mkdir -p "$T/allowed" "$T/keys"
cp "$Z/lincomb/lincomb.zkey" "$T/keys/lincomb.zkey"
mkfifo "$T/keys/fifo.zkey" "$T/allowed/fifo.wtns"
echo x >"$T/outside.zkey"

echo "== 1. files are private whatever the umask"
config sim sim 600000 0600
start_daemon sim 000
for d in state state/spool state/spool/.staging; do check_mode "$T/$d" 700; done
j=$("$C" submit --circuit multiplier "$M")
for f in state/journal.db state/journal.db-wal state/journal.db-shm ports.json; do check_mode "$T/$f" 600; done
check_mode "$T/state/spool/$j" 700
for f in "$T/state/spool/$j"/*; do check_mode "$f" 600; done
check_mode "$T/d.log" 640
check_mode "$T/d.sock" 600

echo "== 2. waiting clients hold no RPC thread (max_rpc_threads = 4)"
wait_state "$j" RUNNING || fail "job $j never ran"
apids=""
for i in 1 2 3 4 5 6 7 8; do "$C" await "$j" --no-progress >"$T/await$i.out" 2>&1 & apids="$apids $!"; done
i=0
while [ "$(metric snarkd_awaits_waiting)" != 8 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(metric snarkd_awaits_waiting)" = 8 ] && pass "8 awaits registered" || fail "awaits waiting: $(metric snarkd_awaits_waiting)"
expect 0 "^snarkd " "$C" status
expect 0 "^# TYPE snarkd_jobs" "$C" metrics
j2=$("$C" submit --circuit multiplier "$M") && pass "Submit answered: job $j2" || fail "Submit refused while 8 clients wait"
t0=$(date +%s)
expect 3 "NOT_FOUND: key file '$T/keys/fifo.zkey' is not a readable regular file under server.key_dirs" \
  "$C" preload --id f --zkey "$T/keys/fifo.zkey"
[ $(($(date +%s) - t0)) -lt 30 ] && pass "a FIFO does not block PreloadKey" || fail "PreloadKey blocked on a FIFO"
expect 0 "^snarkd " "$C" status

echo "== 3. cancel stops the running partition; evict and drain go on at once"
expect 0 "loaded lc: snarkjs" "$C" preload --id lc --zkey "$T/keys/lincomb.zkey"
"$C" cancel "$j2" >/dev/null
l=$("$C" submit --circuit lc "$Z/lincomb/lincomb.wtns")
"$C" cancel "$j" >/dev/null
wait $apids
grep -q "cancelled" "$T/await1.out" && pass "the awaits got the cancel" || fail "await: $(cat "$T/await1.out")"
wait_state "$l" RUNNING || fail "job $l never ran"
expect 0 "^job $l cancelled" "$C" cancel "$l"
expect 0 "evicted lc" "$C" evict lc
[ "$(metric snarkd_in_flight_partitions)" = 0 ] && pass "nothing in flight after the cancels" || fail "in flight: $(metric snarkd_in_flight_partitions)"
n=$(metric snarkd_cancel_stop_seconds_count)
[ "${n:-0}" -ge 2 ] && pass "snarkd_cancel_stop_seconds_count $n" || fail "cancel stop not measured: '$n'"
d=$("$C" submit --circuit multiplier "$M")
wait_state "$d" RUNNING || fail "job $d never ran"
kill -TERM "$PID"
i=0
while ! "$C" status 2>/dev/null | grep -q DRAINING && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
expect 0 "DRAINING" "$C" status
expect 0 "^draining" curl -s "http://127.0.0.1:$HTTP/healthz"
expect 0 "^job $d cancelled" "$C" cancel "$d"
wait "$PID"; rc=$?; PID=""
[ "$rc" -eq 0 ] && pass "the drain ended once the cancelled partition stopped" || fail "drain exit code $rc"

echo "== 4. files only from their directories, one answer"
config sim0660 sim 600000 0660
start_daemon sim0660
check_mode "$T/d.sock" 660
for bad in "$T/outside.zkey" "$T/keys/missing.zkey" "$T/keys/fifo.zkey" "$T/keys/../outside.zkey" /proc/self/environ \
           /etc/passwd "$T/keys"; do
  expect 3 "^snarkctl preload: NOT_FOUND: key file '$bad' is not a readable regular file under server.key_dirs$" \
    "$C" preload --id bad --zkey "$bad"
done
for bad in "$T/outside.zkey" "$T/allowed/missing.wtns" "$T/allowed/fifo.wtns" /proc/self/environ; do
  expect 3 "NOT_FOUND: witness path '$bad' is not a readable regular file under server.witness_dirs$" \
    "$C" submit --circuit multiplier --by-path "$bad"
done

echo "== 5. string fields are capped"
long=$(head -c 8000 /dev/zero | tr '\000' q)
expect 3 "INVALID_ARGUMENT: circuit_id must be 1 to 128 characters \(got 8000\)" "$C" submit --circuit "$long" "$M"
grep -q "qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq" "$T/d.log" &&
  fail "the long id reached the log" || pass "the long id stayed out of the log"
expect 3 "INVALID_ARGUMENT: circuit_id must be printable ASCII" "$C" submit --circuit "a b" "$M"
alive && pass "the daemon is running" || fail "the daemon died"

echo "== 6. huge counts are refused before allocating"
"$S" synth --constraints 64 --circuit "$T/keys/small.csr" --witness "$T/small.wtns" >/dev/null 2>&1
"$S" setup --r1cs "$T/keys/small.csr" --params "$T/keys/small.params" --seed 3 >/dev/null 2>&1
python3 - "$T/keys/small.csr" "$T/keys/huge.csr" <<'EOF' || fail "could not craft huge.csr"
import ctypes, sys
xxh = ctypes.CDLL('libxxhash.so.0')  # Debian's xxHash, whose XXH3-64 r1cs/checksum.cpp compiles in
xxh.XXH3_64bits.restype = ctypes.c_uint64
xxh.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
def checksum64(b): return xxh.XXH3_64bits(b, len(b))
b = bytearray(open(sys.argv[1], 'rb').read())
assert checksum64(bytes(b[:72])) == int.from_bytes(b[72:80], 'little'), "checksum port disagrees"
inputs = int.from_bytes(b[24:32], 'little')
b[32:40] = (2**32 - 1 - inputs).to_bytes(8, 'little')  # num_aux: 2^32 - 1 variables in all
b[72:80] = checksum64(bytes(b[:72])).to_bytes(8, 'little')
open(sys.argv[2], 'wb').write(b)
EOF
hwm() { sed -n 's/^VmHWM: *\([0-9]*\) kB/\1/p' "/proc/$PID/status"; }
before=$(hwm)
expect 3 "INVALID_ARGUMENT: .*huge.csr: the key has .* the circuit claims" \
  "$C" preload --id huge --params "$T/keys/small.params" --circuit "$T/keys/huge.csr"
after=$(hwm)
[ $((after - before)) -lt 262144 ] && pass "peak RSS grew by $((after - before)) KiB" ||
  fail "a refused 2^32-variable circuit grew the daemon's peak RSS by $((after - before)) KiB"
stop_daemon

echo "== 7. serve --check, and a circuit that fails to load"
config bad sim 0 0600 "$T/keys/late.zkey"
expect 2 "circuit 'extra': $T/keys/late.zkey: cannot open the zkey file" "$S" serve --config "$T/bad.toml" --check
config gpu "cuda:0" 0 0600
expect 2 "device spec 'cuda:0'" "$S" serve --config "$T/gpu.toml" --check
config good sim 0 0600
expect 0 "ok \(1 circuits, devices sim:0\)" "$S" serve --config "$T/good.toml" --check
start_daemon bad
expect 0 "^503$" curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HTTP/healthz"
expect 0 "circuit extra failed to load" curl -s "http://127.0.0.1:$HTTP/healthz"
curl -s "http://127.0.0.1:$HTTP/status" >"$T/status.json"
expect 0 "" python3 -c "
import json, jsonschema
s = json.load(open('$T/status.json'))
jsonschema.validate(s, json.load(open('$SCHEMA')))
f = s['failed_circuits']
assert len(f) == 1 and f[0]['circuit_id'] == 'extra' and f[0]['from_config'] and 'late.zkey' in f[0]['error'], f
"
expect 3 "FAILED_PRECONDITION: circuit 'extra' failed to load" "$C" submit --circuit extra "$M"
expect 0 "^job [0-9]+ done" "$C" prove --circuit multiplier "$M"
cp "$Z/multiplier/multiplier.zkey" "$T/keys/late.zkey"
kill -HUP "$PID"
i=0
while [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HTTP/healthz")" != 200 ] && [ $i -lt 600 ]; do
  sleep 0.1; i=$((i + 1))
done
expect 0 "^ok" curl -s "http://127.0.0.1:$HTTP/healthz"
expect 0 "^job [0-9]+ done" "$C" prove --circuit extra "$M"

echo "== 8. the HTTP port: slow clients cannot starve it"
python3 - "$HTTP" 20 >"$T/slow.out" 2>&1 <<'EOF' &
import socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
for s in socks: s.sendall(b"GET /status HTTP/1.1\r\n")
open_ = set(range(n))
end = time.time() + 120
while open_ and time.time() < end:
    for k in list(open_):
        try:
            socks[k].sendall(b"X")  # one header byte per client every 2 s
        except OSError:
            open_.discard(k)
    time.sleep(2)
print("still open:", len(open_))
EOF
ALSO_KILL=$!
sleep 1  # let the slow clients connect first (the check below must pass however they are scheduled)
expect 0 "^ok" curl -s --max-time 60 "http://127.0.0.1:$HTTP/healthz"
wait "$ALSO_KILL"; ALSO_KILL=""
grep -q "still open: 0" "$T/slow.out" && pass "every slow client was cut off" || fail "slow clients: $(cat "$T/slow.out")"
stop_daemon

end_test hardening "$T/d.log"
