#!/bin/sh
# Issue 23 item 4 on the device: the engine's CUDA device proving BN254 snarkjs keys beside
# BLS12-381 ones, and the daemon serving a BN254 zkey on cuda:0.
# Builds nothing: run from the repository root with a Release sm_90 build's binaries in $B
# (scripts/gpu/pack.sh; scripts/gpu/batch.sh unpacks them).
#   usage: sh scripts/gpu/engine_curves.sh STEP...   (STEP: tests, memcheck, daemon)
# tests     test_engine_cuda (every case: the BLS12-381 load and worker paths changed too),
#           test_engine_cuda_abc, test_cuda_prover_snarkjs, test_cuda_prover, test_cuda_abc_host
# memcheck  compute-sanitizer memcheck on the BN254 engine cases and the placed snarkjs key
# daemon    `snarkd serve` with devices = "cuda:0" and a 2^LOG BN254 dev zkey (snarkd_dev_zkey):
#           $JOBS jobs of $PARTS partitions through snarkctl, each proof checked by `snarkd
#           verify`; wall seconds per partition, clients included (needs $B/apps/snarkd,
#           $B/apps/snarkctl and their shared libraries on LD_LIBRARY_PATH)
# Logs in $OUT/logs.tgz, the summary in $OUT/summary.txt.
set -u
OUT=${OUT:-/tmp/snarkd-curves-out}
B=${B:-build}
W=/tmp/snarkd-curves-logs
mkdir -p "$OUT" "$W"
S="$W/summary.txt"
: > "$S"

step() {
  name=$1; limit=$2; shift 2
  start=$(date +%s)
  timeout "$limit" "$@" > "$W/$name.log" 2>&1
  rc=$?
  echo "$name rc=$rc $(( $(date +%s) - start ))s" | tee -a "$S"
}

tests() {
  step test_engine_cuda 300 "$B/tests/engine/test_engine_cuda"
  step test_engine_cuda_abc 120 "$B/tests/engine/test_engine_cuda_abc"
  step test_cuda_prover_snarkjs 120 "$B/tests/cuda/test_cuda_prover_snarkjs"
  step test_cuda_prover 120 "$B/tests/cuda/test_cuda_prover"
  step test_cuda_abc_host 60 "$B/tests/engine/test_cuda_abc_host"
  grep -h -E "^\[  (PASSED|FAILED) |^\[seed\]|FAILED  \]|SKIPPED" "$W"/test_*.log >> "$S"
}

memcheck() {
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2> /dev/null | head -1)
  [ -n "$cs" ] || { echo "memcheck: no compute-sanitizer" >> "$S"; return; }
  step memcheck_engine_bn254 240 "$cs" --tool memcheck --error-exitcode 9 \
    "$B/tests/engine/test_engine_cuda" --gtest_filter='*Bn254*:-*Cancelled*'
  step memcheck_placed 120 "$cs" --tool memcheck --error-exitcode 9 \
    "$B/tests/cuda/test_cuda_prover_snarkjs" --gtest_filter='*Placed*'
  grep -h -E "ERROR SUMMARY|^\[  (PASSED|FAILED) " "$W"/memcheck_*.log >> "$S"
}

# The daemon on cuda:0 with a BN254 key: all jobs in flight at once through snarkctl, every proof
# verified by snarkd verify.
daemon() {
  log=${LOG:-16}; jobs=${JOBS:-12}; parts=${PARTS:-4}
  d=/tmp/snarkd-curves-daemon
  rm -rf "$d"; mkdir -p "$d/state"
  step dev_zkey 300 "$B/tools/dev_zkey/snarkd_dev_zkey" --curve bn254 --log "$log" --seed 23 --zkey "$d/k.zkey" \
    --wtns "$d/w.wtns" --vk "$d/vk.json" --public "$d/public.json" --quiet
  printf '[server]\nsocket = "%s"\nhttp_listen = "127.0.0.1:0"\nports_file = "%s"\nsubmit_wait_ms = 60000\n' \
    "$d/d.sock" "$d/ports.json" > "$d/d.toml"
  printf '[engine]\ndevices = "%s"\nworkers_per_device = 3\n[journal]\nstate_dir = "%s"\n' "${DEVICES:-cuda:0}" "$d/state" >> "$d/d.toml"
  printf '[[circuit]]\nid = "bn"\nzkey = "%s"\n' "$d/k.zkey" >> "$d/d.toml"
  export SNARKD_SOCKET="$d/d.sock"
  "$B/apps/snarkd" serve --config "$d/d.toml" > "$W/daemon.log" 2>&1 &
  pid=$!
  for _ in $(seq 600); do [ -s "$d/ports.json" ] && break; sleep 0.2; done
  "$B/apps/snarkctl" status > "$W/status-before.txt" 2>&1
  echo "daemon up: $(grep -c '^key bn: snarkjs BN254' "$W/status-before.txt") BN254 key(s) loaded" >> "$S"
  ws=""
  for _ in $(seq "$parts"); do ws="$ws $d/w.wtns"; done
  t0=$(date +%s.%N)
  pids=""
  for j in $(seq "$jobs"); do
    # shellcheck disable=SC2086  # one witness per partition
    ( "$B/apps/snarkctl" prove --circuit bn $ws --proof "$d/p$j-{k}.json" --public "$d/x$j-{k}.json" \
        --no-progress > "$W/prove-$j.log" 2>&1 || echo "job $j failed: $(tail -1 "$W/prove-$j.log")" >> "$S" ) &
    pids="$pids $!"
  done
  # shellcheck disable=SC2086
  wait $pids
  awk -v a="$t0" -v b="$(date +%s.%N)" -v n=$((jobs * parts)) 'BEGIN {
    printf "daemon: %d BN254 partitions in %.3f s wall (clients included): %.4f s/partition\n", n, b - a, (b - a) / n }' >> "$S"
  bad=0; n=0
  for f in "$d"/p*-*.json; do
    x=$d/x${f#"$d"/p}
    n=$((n + 1))
    "$B/apps/snarkd" verify "$d/vk.json" "$x" "$f" > /dev/null 2>&1 || bad=$((bad + 1))
  done
  echo "daemon: $bad of $n proofs rejected by snarkd verify" >> "$S"
  "$B/apps/snarkctl" status > "$W/status-after.txt" 2>&1
  cp "$d/p1-0.json" "$d/x1-0.json" "$d/vk.json" "$OUT/" 2> /dev/null
  kill "$pid" 2> /dev/null; wait "$pid" 2> /dev/null
}

for s in "$@"; do "$s"; done
tar czf "$OUT/logs.tgz" -C "$W" . 2> /dev/null
cp "$S" "$OUT/summary.txt"
cat "$S"
