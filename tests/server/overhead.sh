#!/bin/sh
# usage: overhead.sh SNARKD DAEMON_BENCH [CONSTRAINTS=16384] [JOBS=8] [PARTITIONS=2] [ROUNDS=3]
# Throughput of the daemon path against the engine in-process, on the same circuit, device and
# worker count: `snarkd bench` (one submitter thread, witnesses already in memory) versus
# `snarkd serve` + daemon_bench (one client process submitting the jobs back to back over the
# socket — witness bytes sent, spooled, journaled with fsync, decoded — then awaiting each).
# Rounds alternate bench / daemon so drift on a shared machine hits both, and which of the two
# runs first alternates from round to round (ABBA).
# JOBS may be auto:SECONDS: one calibration run of `snarkd bench` with 4 jobs picks the job count
# that makes a run last about SECONDS (for a machine whose speed is not known beforehand).
# Prints one line per round with its ratio daemon / bench, then the median of those ratios (the
# figure the ≤ 2 % goal is judged on: pairs cancel slow drift) and the ratio of the medians; and
# to tell where a difference comes from: the steady-state ratio (last − first job done, free of
# the fixed latencies of the first Submit and the last Await), the workers' busy time (Σ upload +
# compute + finalize: proving itself slower) and the partitions' median compute stage; and the
# CPU time each path used (`times`: the bench process against the daemon plus its client), with the
# daemon's share split by thread name into its provers and its other threads (/proc/PID/task):
# the other threads and the client are the work the daemon path adds (CPU time still moves with
# the host's noise: caches, frequency, neighbours).
# DAEMON_BENCH is build/tests/server/daemon_bench; SNARKD_OVERHEAD_DEVICE picks the device (cpu);
# SNARKD_OVERHEAD_THREADS sets both paths' prover threads (default: one per core).
# Needs only sh, sed, sort and awk (no bc: it runs on bare machines, tools/daemon-carry).
set -eu
S=$1
B=$2
N=${3:-16384}
J=${4:-8}
P=${5:-2}
R=${6:-3}
DEV=${SNARKD_OVERHEAD_DEVICE:-cpu}
THREADS=${SNARKD_OVERHEAD_THREADS:-0}
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
threads = $THREADS
[journal]
state_dir = "$T/state"
[log]
level = "warn"
[[circuit]]
id = "bench"
params = "$T/k.params"
circuit = "$T/c.csr"
EOF

# CPU seconds (user + system) of the calling shell's finished children, from `times` (its second
# line), written to a file first: a pipeline or command substitution would fork a subshell whose
# children's times start at zero. Resolution: one clock tick.
children_cpu() {
  times >"$T/times.$1"
  awk 'NR == 2 { t = 0; for (i = 1; i <= 2; ++i) { split($i, a, "m"); sub("s", "", a[2]); t += a[1] * 60 + a[2] } printf "%.2f", t }' "$T/times.$1"
}

bench_run() {  # bench_run JOBS → "WALL_S COMPUTE_MEDIAN_S FIRST_DONE_S LAST_DONE_S BUSY_SUM_S CPU_S"
  "$S" bench --device "$DEV" --circuit "$T/c.csr" --witness "$T/w.wtns" --params "$T/k.params" --jobs "$1" \
    --partitions-per-job "$P" --workers 1 $([ "$THREADS" -gt 0 ] && echo "--threads $THREADS") --json "$T/b.json" >/dev/null 2>&1
  for k in wall_s first_job_done_s last_job_done_s busy_sum_s; do
    sed -n "s/.*\"$k\": \([0-9.e+-]*\).*/\1/p" "$T/b.json"
  done | awk -v c="$(sed -n 's/.*"stage_median_s".*"compute": \([0-9.e+-]*\).*/\1/p' "$T/b.json")" \
    '{ v[NR] = $1 } END { print v[1], c, v[2], v[3], v[4] }' | tr '\n' ' '
  children_cpu bench
  echo
}

# CPU seconds of the daemon's threads by name (util/thread_pool.hpp's name_this_thread): the
# provers ("snarkd-work*", "snarkd-pool") and all the others (gRPC, watcher, start-up), read
# from /proc before the daemon stops. Thread names hold no spaces, so stat's fields split.
daemon_threads_cpu() {
  cat /proc/"$1"/task/*/stat 2>/dev/null | awk -v hz="$(getconf CLK_TCK)" \
    '{ t = ($14 + $15) / hz; if ($2 ~ /^\(snarkd-(work|pool)/) p += t; else o += t } END { printf "%.2f %.2f", p, o }'
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
  # "WALL_S COMPUTE_MEDIAN_S SUBMITTED_S FIRST_DONE_S LAST_DONE_S BUSY_SUM_S": first Submit →
  # last result, as bench's wall_s (tests/server/daemon_bench.cpp)
  wall=$("$B" "$T/d.sock" bench "$T/w.wtns" "$J" "$P" && children_cpu client >"$T/client_cpu") ||
    { kill -9 "$PID"; echo "daemon_bench failed" >&2; exit 1; }
  threads=$(daemon_threads_cpu "$PID")
  kill -TERM "$PID"
  wait "$PID" || true
  PID=""
  rm -rf "$T/state"
  # + "CPU_S PROVERS_CPU_S OTHER_THREADS_CPU_S CLIENT_CPU_S" (CPU_S: daemon and client together)
  children_cpu daemon >"$T/daemon_cpu"  # not in $(…): that subshell would count no children
  echo "$wall $(cat "$T/daemon_cpu") $threads $(cat "$T/client_cpu")"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
range() { echo "$(sort -g "$1" | head -1) .. $(sort -g "$1" | tail -1)"; }  # range FILE

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
: >"$T/sratio.txt"
: >"$T/bratio.txt"
: >"$T/uratio.txt"
r=0
while [ $r -lt "$R" ]; do
  # Alternate which path runs first (ABBA): a drift within a round (clocks, heat) then favours
  # each path equally often.
  if [ $((r % 2)) -eq 0 ]; then
    b=$(bench_run "$J")
    d=$(daemon_run)
  else
    d=$(daemon_run)
    b=$(bench_run "$J")
  fi
  set -- $b $d
  [ $# -eq 16 ] || { echo "overhead: round $((r + 1)) failed (bench and daemon gave: $*)" >&2; exit 1; }
  # bench: $1 wall, $2 compute median, $3 first job done, $4 last job done, $5 busy sum, $6 CPU;
  # daemon: $7 wall, $8 compute median, $9 all submitted, ${10} first result, ${11} last result,
  # ${12} busy sum, ${13} CPU (daemon + client), ${14} provers' CPU, ${15} other threads', ${16} client's.
  line=$(awk -v bw="$1" -v bc="$2" -v bf="$3" -v bl="$4" -v bb="$5" -v bu="$6" -v dw="$7" -v dc="$8" -v ds="$9" \
    -v df="${10}" -v dl="${11}" -v db="${12}" -v du="${13}" -v dp="${14}" -v dt="${15}" -v dk="${16}" 'BEGIN {
      q = dw / bw; qc = (bc > 0) ? dc / bc : 0; qs = (bl > bf && dl > df) ? (dl - df) / (bl - bf) : 0; qb = (bb > 0) ? db / bb : 0
      qu = (bu > 0) ? du / bu : 0
      printf "%.4f %.4f %.4f %.4f %.4f|wall bench %.3f s, daemon %.3f s, daemon/bench %.4f; steady (last − first job done) %.3f against %.3f s, %.4f;", \
        q, qc, qs, qb, qu, bw, dw, q, bl - bf, dl - df, qs
      printf " workers busy %.3f against %.3f s, %.4f; compute median %.4f against %.4f s, %.4f;", bb, db, qb, bc, dc, qc
      printf " first job done %.3f against %.3f s; daemon accepted every job after %.3f s;", bf, df, ds
      printf " CPU bench %.2f s against daemon + client %.2f s, %.4f (daemon provers %.2f s, its other threads %.2f s, client %.2f s)", \
        bu, du, qu, dp, dt, dk }')
  echo "round $((r + 1)): ${line#*|} ($J jobs × $P partitions, $N constraints, $DEV)"
  set -- ${line%%|*} "$1" "$7"
  echo "$5" >>"$T/uratio.txt"
  echo "$6" >>"$T/bench.txt"
  echo "$7" >>"$T/daemon.txt"
  echo "$1" >>"$T/ratio.txt"
  echo "$2" >>"$T/cratio.txt"
  echo "$3" >>"$T/sratio.txt"
  echo "$4" >>"$T/bratio.txt"
  r=$((r + 1))
done
mb=$(median <"$T/bench.txt")
md=$(median <"$T/daemon.txt")
mq=$(median <"$T/ratio.txt")
echo "median bench $mb s, daemon $md s: overhead $(awk -v d="$md" -v b="$mb" 'BEGIN { printf "%.2f", (d / b - 1) * 100 }') % (ratio of the medians)"
echo "median of the per-round ratios daemon/bench: $mq (range $(range "$T/ratio.txt") over $R rounds):" \
  "overhead $(awk -v q="$mq" 'BEGIN { printf "%.2f %%, goal ≤ 2 %%: %s", (q - 1) * 100, (q <= 1.02) ? "met" : "NOT met" }')"
echo "median of the per-round steady-state ratios (last − first job done) daemon/bench: $(median <"$T/sratio.txt")" \
  "(range $(range "$T/sratio.txt"); fixed latencies at both ends cancel)"
echo "median of the per-round workers-busy ratios daemon/bench: $(median <"$T/bratio.txt")" \
  "(above 1: proving itself ran slower beside the daemon)"
echo "median of the per-round compute-stage ratios daemon/bench: $(median <"$T/cratio.txt")"
echo "median of the per-round CPU ratios (daemon + client)/bench: $(median <"$T/uratio.txt")" \
  "(range $(range "$T/uratio.txt"))"
