#!/bin/sh
# usage: overhead.sh SNARKD DAEMON_BENCH [CONSTRAINTS=16384] [JOBS=8] [PARTITIONS=2] [ROUNDS=3]
# Throughput of the daemon path against the engine in-process, on the same circuit, device and
# worker count: `snarkd bench` (one submitter thread, witnesses already in memory) versus
# `snarkd serve` + daemon_bench (one client process submitting the jobs back to back over the
# socket — witness bytes sent, spooled, journaled with fsync, decoded — then awaiting each).
# Rounds alternate bench / daemon so drift on a shared machine hits both.
# JOBS may be auto:SECONDS: one calibration run of `snarkd bench` with 4 jobs picks the job count
# that makes a run last about SECONDS (for a machine whose speed is not known beforehand).
# Prints one line per round with its ratio daemon / bench, then the median of those ratios (the
# figure the ≤ 2 % goal is judged on: pairs cancel slow drift) and the ratio of the medians; and
# the same for the partitions' median compute stage, which the daemon path should not change.
# DAEMON_BENCH is build/tests/server/daemon_bench; SNARKD_OVERHEAD_DEVICE picks the device (cpu).
# Needs only sh, sed, sort and awk (no bc: it runs on bare machines, tools/daemon-carry).
set -eu
S=$1
B=$2
N=${3:-16384}
J=${4:-8}
P=${5:-2}
R=${6:-3}
DEV=${SNARKD_OVERHEAD_DEVICE:-cpu}
T=$(mktemp -d "${TMPDIR:-/tmp}/snarkd-overhead-XXXXXX")
PID=""
trap '[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM  # so that the EXIT trap cleans up after a signal too

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

bench_run() {  # bench_run JOBS → "WALL_S COMPUTE_MEDIAN_S"
  "$S" bench --device "$DEV" --circuit "$T/c.csr" --witness "$T/w.wtns" --params "$T/k.params" --jobs "$1" \
    --partitions-per-job "$P" --workers 1 --json "$T/b.json" >/dev/null 2>&1
  echo "$(sed -n 's/.*"wall_s": \([0-9.e+-]*\).*/\1/p' "$T/b.json")" \
    "$(sed -n 's/.*"stage_median_s".*"compute": \([0-9.e+-]*\).*/\1/p' "$T/b.json")"
}

daemon_run() {
  rm -f "$T/ports.json"
  "$S" serve --config "$T/d.toml" 2>>"$T/log" &
  PID=$!
  i=0
  while [ ! -s "$T/ports.json" ]; do
    kill -0 "$PID" 2>/dev/null && [ $i -lt 6000 ] || { tail -5 "$T/log" >&2; echo "the daemon did not start" >&2; exit 1; }
    sleep 0.05
    i=$((i + 1))
  done
  # "WALL_S COMPUTE_MEDIAN_S": first Submit → last result, as bench's wall_s
  wall=$("$B" "$T/d.sock" bench "$T/w.wtns" "$J" "$P") || { kill -9 "$PID"; echo "daemon_bench failed" >&2; exit 1; }
  kill -TERM "$PID"
  wait "$PID" || true
  PID=""
  rm -rf "$T/state"
  echo "$wall"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

case $J in
  auto:*)
    target=${J#auto:}
    c=$(bench_run 4 | cut -d' ' -f1)
    J=$(awk -v t="$target" -v c="$c" 'BEGIN { j = int(4 * t / c + 0.999); print (j < 4) ? 4 : j }')
    echo "calibration: 4 jobs × $P partitions took $c s; $J jobs for about $target s per run"
    ;;
esac

: >"$T/bench.txt"
: >"$T/daemon.txt"
: >"$T/ratio.txt"
: >"$T/cratio.txt"
r=0
while [ $r -lt "$R" ]; do
  set -- $(bench_run "$J") $(daemon_run)
  [ $# -eq 4 ] || { echo "overhead: round $((r + 1)) failed (bench and daemon gave: $*)" >&2; exit 1; }
  b=$1 d=$3
  q=$(awk -v d="$d" -v b="$b" 'BEGIN { printf "%.4f", d / b }')
  qc=$(awk -v d="$4" -v b="$2" 'BEGIN { printf "%.4f", (b > 0) ? d / b : 0 }')
  echo "round $((r + 1)): bench ${b} s, daemon ${d} s, daemon/bench $q; compute stage medians bench $2 s, daemon $4 s," \
    "daemon/bench $qc ($J jobs × $P partitions, $N constraints, $DEV)"
  echo "$b" >>"$T/bench.txt"
  echo "$d" >>"$T/daemon.txt"
  echo "$q" >>"$T/ratio.txt"
  echo "$qc" >>"$T/cratio.txt"
  r=$((r + 1))
done
mb=$(median <"$T/bench.txt")
md=$(median <"$T/daemon.txt")
mq=$(median <"$T/ratio.txt")
lo=$(sort -g "$T/ratio.txt" | head -1)
hi=$(sort -g "$T/ratio.txt" | tail -1)
echo "median bench $mb s, daemon $md s: overhead $(awk -v d="$md" -v b="$mb" 'BEGIN { printf "%.2f", (d / b - 1) * 100 }') % (ratio of the medians)"
echo "median of the per-round ratios daemon/bench: $mq (range $lo .. $hi over $R rounds):" \
  "overhead $(awk -v q="$mq" 'BEGIN { printf "%.2f %%, goal ≤ 2 %%: %s", (q - 1) * 100, (q <= 1.02) ? "met" : "NOT met" }')"
echo "median of the per-round compute-stage ratios daemon/bench: $(median <"$T/cratio.txt")" \
  "(far from 1: the two paths prove at different speeds, so the wall ratio is not the daemon's cost alone)"
