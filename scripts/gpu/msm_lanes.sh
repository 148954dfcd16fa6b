#!/bin/sh
# Issue 20, the batch-affine lanes (cuda/msm_accumulate.hpp): one device call that checks and
# times the grouped inversion (SNARKD_MSM_INVERT_GROUP = K lane threads per binary GCD).
#   1. test_cuda_msm, test_cuda_msm_split, test_cuda_msm_precomp at the default K;
#   2. `snarkd_gpu_bench --only=kinds` (G1 2^24, 2^26, 2^27, G2 2^24; every kind's result compared)
#      for each K in $KS (default "1 2 4 8"; `default` leaves SNARKD_MSM_INVERT_GROUP unset: G1's
#      K = 4, G2's 2), after the binary at $OLD/bench/gpu (the code before)
#      when OLD is set, then at the default K for each lane count M in $MS
#      (SNARKD_MSM_AFFINE_LANES; default none), then with each VAR=value of $ENVS: one process
#      each, one after the other;
#   3. with PRECOMP=1, precomputed-table MSMs (the bench's plain-path check runs once each): G1 at
#      2^26 and 2^27, c = 24, within PGIB GiB of table (default 100; H200 only), by $OLD's binary
#      when OLD is set, then in the build's own kind and in XYZZ; then G1 and G2 at 2^24 within
#      40 GiB for each c in $PCS (default "20 22 24");
#   4. with PROFILE=1, Nsight Compute's time per kernel of the G2 2^24 MSMs (ncu_g2.csv);
#   5. with EXTRA=1, test_cuda_msm again with K = 1, 2, 8 and compute-sanitizer memcheck on the
#      edge cases.
# Logs under $OUT (tests.txt, kinds.txt, extra.txt). MAXLOG (default 27) bounds the kinds' sizes.
#   usage: OUT=dir B=unpacked-build [OLD=unpacked-old-build] [KS="default 1 4"] [MS="32 128"]
#          [ENVS="SNARKD_MSM_AFFINE_WAVES=0 ..."] [MAXLOG=26]
#          [PRECOMP=1 [PGIB=36] [PCS="20 24"]] [PROFILE=1] [EXTRA=1]
#          sh scripts/gpu/msm_lanes.sh
set -u
B=${B:-b}
OUT=${OUT:-/tmp/msm-lanes}
KS=${KS:-1 2 4 8}
MS=${MS:-}
mkdir -p "$OUT"
T=$OUT/tests.txt K=$OUT/kinds.txt X=$OUT/extra.txt

run() {  # LOG LIMIT CMD...: the command's summary lines and status appended to LOG
  log=$1 lim=$2
  shift 2
  echo "== $(date -u +%H:%M:%S) $*" >> "$log"
  timeout "$lim" "$@" > "$log.part" 2>&1
  rc=$?
  grep -E 'seed|PASSED|FAILED|ERROR SUMMARY|G1 |G2 |device:|Fp +mul|table|error|Error' "$log.part" >> "$log"
  echo "rc=$rc" >> "$log"
  rm -f "$log.part"
}

nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv >> "$T" 2>&1
run "$T" 200 "$B/tests/cuda/test_cuda_msm"
run "$T" 120 "$B/tests/cuda/test_cuda_msm_split"
run "$T" 120 "$B/tests/cuda/test_cuda_msm_precomp"

kinds="--only=kinds --min-log=24 --max-log=${MAXLOG:-27} --reps=3"
[ -n "${OLD:-}" ] && run "$K" 120 "$OLD/bench/gpu/snarkd_gpu_bench" $kinds
for k in $KS; do
  if [ "$k" = default ]; then
    run "$K" 120 "$B/bench/gpu/snarkd_gpu_bench" $kinds
  else
    run "$K" 120 env SNARKD_MSM_INVERT_GROUP=$k "$B/bench/gpu/snarkd_gpu_bench" $kinds
  fi
done
for m in $MS; do
  run "$K" 120 env SNARKD_MSM_AFFINE_LANES=$m "$B/bench/gpu/snarkd_gpu_bench" $kinds
done
for e in ${ENVS:-}; do
  run "$K" 120 env "$e" "$B/bench/gpu/snarkd_gpu_bench" $kinds
done

if [ "${PRECOMP:-0}" = 1 ]; then
  p="--only=msm --reps=5 --precomp-only"
  g1="$p --min-log=26 --max-log=27 --precomp-c=24 --precomp-gib=${PGIB:-100}"
  [ -n "${OLD:-}" ] && run "$K" 150 "$OLD/bench/gpu/snarkd_gpu_bench" $g1
  run "$K" 150 "$B/bench/gpu/snarkd_gpu_bench" $g1
  run "$K" 150 env SNARKD_MSM_ACCUMULATE=xyzz "$B/bench/gpu/snarkd_gpu_bench" $g1
  for c in ${PCS:-20 22 24}; do
    run "$K" 120 "$B/bench/gpu/snarkd_gpu_bench" $p --min-log=24 --max-log=24 --precomp-c="$c" --precomp-gib=40
  done
fi

# Per-kernel device time of the G2 2^24 MSMs (every kind, warm-ups included) by Nsight Compute:
# one metric, caches and clocks left alone; `scripts/gpu/ncu_sum.py` sums it by kernel.
if [ "${PROFILE:-0}" = 1 ] && command -v ncu > /dev/null; then
  timeout 240 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv --page raw \
    --kernel-name-base mangled --kernel-name regex:Fp2T \
    "$B/bench/gpu/snarkd_gpu_bench" --only=kinds --min-log=24 --max-log=24 --reps=3 > "$OUT/ncu_g2.csv" 2>&1
  echo "ncu rc=$?" >> "$K"
fi

if [ "${EXTRA:-0}" = 1 ]; then
  for k in 1 2 8; do
    run "$X" 200 env SNARKD_MSM_INVERT_GROUP=$k "$B/tests/cuda/test_cuda_msm"
  done
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2> /dev/null | head -1)
  if [ -n "$cs" ]; then
    run "$X" 240 "$cs" --tool memcheck "$B/tests/cuda/test_cuda_msm" --gtest_filter='*EdgeCases*:*StreamOrdered*'
  else
    echo "memcheck: no compute-sanitizer" >> "$X"
  fi
fi
