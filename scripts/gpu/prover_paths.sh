#!/bin/sh
# Issue 20 items 5 and 6 wired into the provers: the fused H phase (cuda::h_phase through
# enqueue_h_scalars) and one classification of the B scalars for both B MSMs, against the old
# paths (SNARKD_H_PHASE=unfused SNARKD_B_CLASSIFY=twice). Builds nothing: run from the repository
# root with a Release sm_90 build (not SNARKD_CUDA_COMPILE_CHECK) in $B (default build/), targets
#   test_cuda_h_phase test_cuda_prover test_cuda_prover_stream test_engine_cuda snarkd
#   usage: sh scripts/gpu/prover_paths.sh [tests|bench|bench-fused|bench-unfused|all]  (default all)
# tests (≈ 3 min): the GPU tests, each comparing both paths' sums/proofs with the CPU prover, and
#   compute-sanitizer memcheck on the prover test's small cases.
# bench (≈ 2 × 3.5 min, one process per path: the switches are read once per process): the
#   PoRep-shaped partition with 3 workers, docs/PERFORMANCE.md's command (today 1.656 s/partition;
#   bar ≤ 1.2 s), fused+once first, then unfused+twice. Each run is cut at 280 s.
# `all` does not fit one 600 s device command: run `tests`, then `bench` (or, if the key set-up
# runs long, `bench-fused` and `bench-unfused` as two commands; OUT may be the same folder).
# Logs to $OUT; the summary table is printed last.
set -u
MODE=${1:-all}
case "$MODE" in
  tests|bench|bench-fused|bench-unfused|all) ;;
  *) echo "usage: sh scripts/gpu/prover_paths.sh [tests|bench|bench-fused|bench-unfused|all]" >&2; exit 2 ;;
esac
OUT=${OUT:-/tmp/snarkd-prover-paths}
B=${B:-build}
mkdir -p "$OUT"
S="$OUT/summary.txt"
: >> "$S"

run() {  # NAME SECONDS COMMAND...
  name=$1; limit=$2; shift 2
  start=$(date +%s)
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  echo "$name rc=$? $(( $(date +%s) - start ))s" >> "$S"
}

if [ "$MODE" = tests ] || [ "$MODE" = all ]; then
  run test_cuda_h_phase 60 "$B/tests/cuda/test_cuda_h_phase"
  run test_cuda_prover 120 "$B/tests/cuda/test_cuda_prover"
  run test_cuda_prover_stream 120 "$B/tests/cuda/test_cuda_prover_stream"
  run test_engine_cuda 240 "$B/tests/engine/test_engine_cuda"
  run memcheck_prover 120 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/tests/cuda/test_cuda_prover" \
    --gtest_filter='CudaProver.ZkeyFixtures*:CudaProver.Refuses*'
fi

case "$MODE" in
  bench|all) PATHS="fused:once unfused:twice" ;;
  bench-fused) PATHS="fused:once" ;;
  bench-unfused) PATHS="unfused:twice" ;;
  *) PATHS="" ;;
esac
if [ -n "$PATHS" ]; then
  for p in $PATHS; do
    p=$(echo "$p" | tr : ' ')
    # shellcheck disable=SC2086  # two words: the two switches
    set -- $p
    run "bench_${1}_$2" 280 env SNARKD_H_PHASE="$1" SNARKD_B_CLASSIFY="$2" "$B/apps/snarkd" bench --device cuda:0 \
      --circuit porep-shaped --constraints 130278869 --jobs 3 --partitions-per-job 6 --workers 3 --host-gib 60
  done
fi

{
  echo "== steps (rc 0 = pass; 124 = time limit)"
  cat "$S"
  for f in "$OUT"/test_*.log "$OUT"/memcheck_*.log; do
    [ -f "$f" ] || continue
    echo "== $(basename "$f" .log)"
    grep -E "^\[  PASSED  \]|^\[  FAILED  \]|^\[  SKIPPED \] [0-9]+ test|ERROR SUMMARY" "$f" | head -12
  done
  for f in "$OUT"/bench_*.log; do
    [ -f "$f" ] || continue
    echo "== $(basename "$f" .log)"
    grep -E "steady state|compute phases|invalid proofs|stage medians" "$f" | head -8
  done
} > "$OUT/table.txt"
cat "$OUT/table.txt"
