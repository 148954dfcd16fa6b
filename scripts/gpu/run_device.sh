#!/bin/sh
# Runs on the GPU machine through the device tool, from the repository root, with the binaries
# built here carried along (build/tests/cuda/test_cuda_*, build/bench/gpu/snarkd_gpu_bench):
# GPU tests, compute-sanitizer (memcheck + racecheck) on the small tests, the benchmark, and the
# SASS instruction mix of the NTT and multiplication kernels. $OUT receives summary.txt (also
# printed last), sass_mix.txt and logs.tgz (every log and the full SASS).
#   usage: sh scripts/gpu/run_device.sh [bench args...]
set -u
OUT=${OUT:-/tmp/snarkd-gpu-out}
W=/tmp/snarkd-gpu-logs
mkdir -p "$OUT" "$W"
B=build
S="$W/summary.txt"
: > "$S"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv > "$W/nvidia-smi.txt" 2>&1
cat "$W/nvidia-smi.txt" >> "$S"

run() {  # name, command...: runs, logs to $W/name.log, appends the exit code and gtest tail
  name=$1; shift
  start=$(date +%s)
  "$@" > "$W/$name.log" 2>&1
  rc=$?
  echo "== $name: rc=$rc, $(( $(date +%s) - start )) s" >> "$S"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |\[seed\]|ERROR SUMMARY|RACECHECK SUMMARY|^\[  FAILED  \]" "$W/$name.log" | head -20 >> "$S"
}

run test_cuda_field "$B/tests/cuda/test_cuda_field"
run test_cuda_ntt "$B/tests/cuda/test_cuda_ntt"
SMALL_NTT='--gtest_filter=CudaNtt/*.EveryOutputMatchesNaiveUpTo1024:CudaNtt/*.SmallestMultiPassSizes'
run memcheck_field compute-sanitizer --tool memcheck --error-exitcode 9 "$B/tests/cuda/test_cuda_field" \
  --gtest_filter='*InPlace*:*Inverse*'
run memcheck_ntt compute-sanitizer --tool memcheck --error-exitcode 9 "$B/tests/cuda/test_cuda_ntt" "$SMALL_NTT"
run racecheck_ntt compute-sanitizer --tool racecheck --error-exitcode 9 "$B/tests/cuda/test_cuda_ntt" \
  '--gtest_filter=CudaNtt/*.EveryOutputMatchesNaiveUpTo1024'
run bench "$B/bench/gpu/snarkd_gpu_bench" "$@"
cat "$W/bench.log" >> "$S"

# Instruction mix per kernel (multiplier-pipe vs ALU work), from the carried binary.
if command -v cuobjdump > /dev/null; then
  cuobjdump --dump-sass "$B/bench/gpu/snarkd_gpu_bench" > "$W/sass.txt" 2>&1
  awk '/Function :/ { f = $3 }
       /^ +\/\*[0-9a-f]+\*\// { line = $0; sub(/^ +\/\*[0-9a-f]+\*\/ +/, "", line); split(line, t, " ");
         op = (t[1] ~ /^@/) ? t[2] : t[1]; sub(/;$/, "", op); n[f " " op]++ }
       END { for (x in n) print n[x], x }' "$W/sass.txt" | sort -k2,2 -k1,1nr > "$W/sass_mix.txt"
  for f in ntt_passILi9 mul_chainsINS0_5FieldINS_2ff5FieldINS4_8FrParams; do
    echo "-- SASS mix (top 12): $f" >> "$S"
    grep "$f" "$W/sass_mix.txt" | sort -k1,1nr | head -12 | awk '{ printf "  %s %s", $1, $3 } END { print "" }' >> "$S"
  done
fi

# Occupancy and issue statistics of the three passes of a 2^24 transform (Nsight Compute reads
# the counters on Firecracker machines; clocks left alone).
if command -v ncu > /dev/null; then
  timeout 180 ncu --clock-control none -k regex:ntt_pass --launch-skip 21 --launch-count 3 \
    --section SpeedOfLight --section Occupancy --section SchedulerStats --section WarpStateStats \
    --section ComputeWorkloadAnalysis "$B/bench/gpu/snarkd_gpu_bench" --min-log=24 --max-log=24 --reps=5 \
    > "$W/ncu.txt" 2>&1
  grep -E "ntt_pass<|Duration|Achieved Active Warps|Issue Slots Busy|Eligible Warps Per|highest-utilized" "$W/ncu.txt" \
    | sed 's/  */ /g' | cut -c1-110 >> "$S"
fi
echo "== done" >> "$S"
cp "$S" "$W/sass_mix.txt" "$OUT/" 2>/dev/null
tar czf "$OUT/logs.tgz" -C "$W" .
cat "$S"
