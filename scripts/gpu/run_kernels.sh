#!/bin/sh
# Issue 20's GPU run (MSM accumulation kinds, lazy Fp2, binary-GCD inversion, fused H phase).
# Builds nothing: run from the repository root with the binaries of a Release sm_90 build (not
# SNARKD_CUDA_COMPILE_CHECK) in $B (default build/):
#   $B/tests/cuda/test_cuda_{host,field,ntt,msm,msm_precomp,msm_split,h_phase,prover,fixed_base}
#   $B/bench/gpu/snarkd_gpu_bench
# Steps, each under a time limit and every phase under a deadline so that the whole run stays
# within 7 min (a step past its phase's deadline is skipped and says so): the GPU tests (by 210 s);
# compute-sanitizer memcheck on the small MSM and H-phase tests (by 270 s); the benchmark (by
# 415 s) — the MSM kinds side by side (legacy = the old kernel, xyzz, affine) for G1 2^20..2^27
# and G2 2^20..2^24, the H phase fused vs unfused at 2^24..2^27, field throughput per SM, NTT
# 2^24..2^27, the split MSM at 2^27. Logs go to $OUT (logs.tgz, summary.txt); the summary table
# is printed last. test_cuda_host (CPU only) runs in CI, not here.
#   usage: sh scripts/gpu/run_kernels.sh
set -u
OUT=${OUT:-/tmp/snarkd-kernels-out}
B=${B:-build}
W=/tmp/snarkd-kernels-logs
mkdir -p "$OUT" "$W"
S="$W/summary.txt"
: > "$S"
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv \
  > "$W/nvidia-smi.txt" 2>&1

# step NAME SECONDS DEADLINE COMMAND...: runs under `timeout` (SECONDS, cut to DEADLINE seconds
# after the start of the script), logs to $W/NAME.log, records rc and time; skipped past DEADLINE.
step() {
  name=$1; limit=$2; deadline=$3; shift 3
  now=$(( $(date +%s) - T0 ))
  left=$(( deadline - now ))
  if [ "$left" -lt 10 ]; then echo "$name skipped (phase deadline ${deadline}s)" >> "$W/steps.txt"; return; fi
  [ "$left" -lt "$limit" ] && limit=$left
  start=$(date +%s)
  timeout "$limit" "$@" > "$W/$name.log" 2>&1
  rc=$?
  echo "$name rc=$rc $(( $(date +%s) - start ))s" >> "$W/steps.txt"
}
: > "$W/steps.txt"

for t in msm h_phase msm_split prover msm_precomp ntt field fixed_base; do
  step "test_$t" 90 210 "$B/tests/cuda/test_cuda_$t"
done
MC="compute-sanitizer --tool memcheck --error-exitcode 9"
# shellcheck disable=SC2086  # $MC is a command and its options
step memcheck_msm 45 270 $MC "$B/tests/cuda/test_cuda_msm" --gtest_filter='CudaMsm/*G1.StreamOrdered*'
# shellcheck disable=SC2086
step memcheck_h_phase 45 270 $MC "$B/tests/cuda/test_cuda_h_phase" --gtest_filter='CudaHPhase.Small*:CudaHPhase.Bad*'

G="$B/bench/gpu/snarkd_gpu_bench"
step bench_kinds 150 415 "$G" --only=kinds --min-log=20 --max-log=27 --reps=5
step bench_h 45 415 "$G" --only=h --min-log=24 --max-log=27 --reps=5
step bench_products 30 415 "$G" --only=products --reps=5
step bench_ntt 40 415 "$G" --only=ntt --min-log=24 --max-log=27 --reps=5
step bench_split 40 415 "$G" --only=split --min-log=27 --max-log=27 --reps=5

{
  echo "== device"; cat "$W/nvidia-smi.txt"
  echo "== steps (rc 0 = pass; 124 = time limit)"; cat "$W/steps.txt"
  echo "== tests"
  for f in "$W"/test_*.log "$W"/memcheck_*.log; do
    printf '%s: ' "$(basename "$f" .log)"
    grep -hE "^\[  (PASSED|FAILED) |ERROR SUMMARY|\[seed\]" "$f" | tr '\n' ' '
    echo
    grep -hE "^\[  FAILED  \]" "$f" | head -5
  done
  echo "== MSM kinds (ms; legacy = the old kernel)"; grep -sE "^G[12] 2\^|SELF-CHECK" "$W/bench_kinds.log"
  echo "== H phase"; grep -sE "^H 2\^|SELF-CHECK" "$W/bench_h.log"
  echo "== field throughput"; grep -sE "G/s" "$W/bench_products.log"
  echo "== NTT (ms)"; grep -sE "^ +(24|25|26|27) |log_n" "$W/bench_ntt.log"
  echo "== split MSM"; grep -sE "^G1 2\^|SELF-CHECK" "$W/bench_split.log"
  echo "== total $(( $(date +%s) - T0 )) s"
} > "$S"
tar czf "$OUT/logs.tgz" -C "$W" .
cp "$S" "$OUT/summary.txt"
cat "$S"
