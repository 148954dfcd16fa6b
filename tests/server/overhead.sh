#!/bin/sh
# usage: overhead.sh SNARKD DAEMON_BENCH [CONSTRAINTS=16384] [JOBS=8] [PARTITIONS=2] [ROUNDS=3]
# Throughput of the daemon path against the engine in-process, on the same circuit, device and
# worker count: `snarkd bench` (one submitter thread, witnesses already in memory) versus
# `snarkd serve` + daemon_bench (one client process submitting the jobs back to back over the
# socket — witness bytes sent, spooled, journaled with fsync, decoded — then awaiting each).
# Rounds alternate bench / daemon so drift on a shared machine hits both; medians are compared.
# Prints one line per run and "overhead X %" (the daemon's median wall over the bench's, − 1).
# DAEMON_BENCH is build/tests/server/daemon_bench; SNARKD_OVERHEAD_DEVICE picks the device (cpu).
set -eu
S=$1
B=$2
N=${3:-16384}
J=${4:-8}
P=${5:-2}
R=${6:-3}
DEV=${SNARKD_OVERHEAD_DEVICE:-cpu}
T=$(mktemp -d /tmp/snarkd-overhead-XXXXXX)
PID=""
trap '[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null; rm -rf "$T"' EXIT

"$S" synth --constraints "$N" --circuit "$T/c.csr" --witness "$T/w.wtns" --seed 3
"$S" setup --r1cs "$T/c.csr" --params "$T/k.params" --seed 3 2>/dev/null
cat >"$T/d.toml" <<EOF
[server]
socket = "$T/d.sock"
http_listen = ""
ports_file = "$T/ports.json"
[engine]
devices = "$DEV"
workers_per_device = 1
[journal]
state_dir = "$T/state"
[log]
level = "warn"
[[circuit]]
id = "bench"
params = "$T/k.params"
circuit = "$T/c.csr"
EOF

bench_run() {
  "$S" bench --device "$DEV" --circuit "$T/c.csr" --witness "$T/w.wtns" --params "$T/k.params" --jobs "$J" \
    --partitions-per-job "$P" --workers 1 --json "$T/b.json" >/dev/null 2>&1
  sed -n 's/.*"wall_s": \([0-9.e+-]*\).*/\1/p' "$T/b.json"
}

daemon_run() {
  rm -f "$T/ports.json"
  "$S" serve --config "$T/d.toml" 2>>"$T/log" &
  PID=$!
  while [ ! -s "$T/ports.json" ]; do sleep 0.05; done
  wall=$("$B" "$T/d.sock" bench "$T/w.wtns" "$J" "$P")  # first Submit → last result, as bench's wall_s
  kill -TERM "$PID"
  wait "$PID" || true
  PID=""
  rm -rf "$T/state"
  echo "$wall"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: >"$T/bench.txt"
: >"$T/daemon.txt"
r=0
while [ $r -lt "$R" ]; do
  b=$(bench_run)
  d=$(daemon_run)
  echo "round $((r + 1)): bench ${b} s, daemon ${d} s ($J jobs × $P partitions, $N constraints, $DEV)"
  echo "$b" >>"$T/bench.txt"
  echo "$d" >>"$T/daemon.txt"
  r=$((r + 1))
done
mb=$(median <"$T/bench.txt")
md=$(median <"$T/daemon.txt")
echo "median bench $mb s, daemon $md s: overhead $(echo "($md / $mb - 1) * 100" | bc -l | awk '{ printf "%.2f", $1 }') %"
