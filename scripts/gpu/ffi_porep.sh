#!/bin/sh
# Partitions through the supraseal-c2 ABI (libsnarkd_supraseal: engine jobs of the a/b/c form on
# the GPU) from 3 caller threads sharing one gpu_mtx on one device, next to `snarkd bench` (the
# engine's witness form) on the same circuit and key in the same lease: s/partition of each, the
# a/b/c bytes every partition uploads and the median upload (memory stage) time, proofs verified.
# First the a/b/c form's GPU tests (identical proofs to the CPU reference at 2^10 … 2^16).
#
# Needs an optimised CUDA build carried in $B (default build): apps/snarkd,
# $B/tests/ffi/snarkd_ffi_porep_harness, $B/src/snarkd/ffi/libsnarkd_supraseal.so*,
# $B/tests/engine/test_engine_cuda_abc and test_cuda_abc_host
# (ninja -C build snarkd_cli snarkd_ffi_porep_harness snarkd_supraseal test_engine_cuda_abc test_cuda_abc_host).
#   usage: sh scripts/gpu/ffi_porep.sh
#   env:   FFI_SETUP=gpu|cpu, FFI_DEVICE (cuda:0) for a dry run elsewhere; FFI_MODE=smoke|porep (smoke), FFI_CONSTRAINTS (smoke 2^20; porep
#          130,278,869, a PoRep partition), FFI_PARAMS=file|pipe (smoke file, porep pipe: a 2^27 key's .params file, 72.6 GB,
#          does not fit the GPU host's 64 GiB disk, so each harness run streams a fresh dev setup (seed 1) through a named pipe
#          into create_SRS, and snarkd bench makes the same key itself), FFI_THREADS (3),
#          FFI_PARTITIONS (6), B (build), OUT; FFI_STEPS (all: "tests abi split bench") and
#          FFI_KEEP=1 (keep the circuit and key in FFI_WORK) split a long porep run over several
#          commands: e.g. FFI_KEEP=1 FFI_STEPS="tests abi", then FFI_STEPS="split bench" (the
#          second reuses the synthesised circuit and the .params file; OUT accumulates).
# $OUT receives every log, the JSON reports and summary.txt (printed last).
set -u
OUT=${OUT:-/tmp/snarkd-ffi-out}
B=${B:-build}
MODE=${FFI_MODE:-smoke}
case "$MODE" in
  smoke) N=${FFI_CONSTRAINTS:-1048576}; PARAMS=${FFI_PARAMS:-file} ;;
  porep) N=${FFI_CONSTRAINTS:-130278869}; PARAMS=${FFI_PARAMS:-pipe} ;;
  *) echo "FFI_MODE must be smoke or porep"; exit 2 ;;
esac
T=${FFI_THREADS:-3}
SETUP=${FFI_SETUP:-gpu}      # cpu: for a dry run of this script on a machine without a GPU
DEVICE=${FFI_DEVICE:-cuda:0} # the engine's device for the comparison (sim/cpu for a dry run)
P=${FFI_PARTITIONS:-6}
W=${FFI_WORK:-/tmp/snarkd-ffi-work}
mkdir -p "$OUT" "$W"
S=$OUT/summary.txt
STEPS=${FFI_STEPS:-tests abi split bench}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
[ -f "$S" ] && [ "${FFI_KEEP:-0}" = 1 ] || : > "$S"
export LD_LIBRARY_PATH="$B/src/snarkd/ffi${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >> "$S" 2>&1
nproc | sed 's/^/host cores: /' >> "$S"

step() {  # name, command...: logs to $OUT/name.log, notes rc and seconds in the summary
  name=$1; shift
  start=$(date +%s)
  "$@" > "$OUT/$name.log" 2>&1
  rc=$?
  echo "== $name: rc=$rc, $(( $(date +%s) - start )) s" >> "$S"
  return $rc
}

export SNARKD_SUPRASEAL_TRACE=1  # the library's per-partition stage times (upload) on stderr
if want tests; then
  step gtest_abc_host "$B/tests/engine/test_cuda_abc_host"
  step gtest_abc_gpu "$B/tests/engine/test_engine_cuda_abc"
  grep -hE "^\[  (PASSED|FAILED|SKIPPED) " "$OUT/gtest_abc_host.log" "$OUT/gtest_abc_gpu.log" >> "$S"
fi
if [ ! -s "$W/c.csr" ] || [ ! -s "$W/w.wtns" ]; then
  step synth "$B/apps/snarkd" synth --constraints "$N" --circuit "$W/c.csr" --witness "$W/w.wtns" || { cat "$S"; exit 1; }
fi
# The key: an INSECURE dev setup (seed 1) on the GPU. file: written once as a .params file (what
# create_SRS reads; the harness skips the setup when the file exists) and loaded by the bench;
# pipe: each harness run streams its setup through a named pipe into create_SRS, and the bench
# runs the same setup itself.
case "$PARAMS" in
  file) KEY="--make-params $SETUP"; BENCH_KEY="--params $W/k.params" ;;
  pipe) KEY="--make-params $SETUP --params-pipe"; BENCH_KEY="--setup $SETUP" ;;
  *) echo "FFI_PARAMS must be file or pipe"; exit 2 ;;
esac
# shellcheck disable=SC2086  # $KEY and $BENCH_KEY are lists of words
want abi && step harness_abi "$B/tests/ffi/snarkd_ffi_porep_harness" --circuit "$W/c.csr" --witness "$W/w.wtns" \
  --params "$W/k.params" $KEY --threads "$T" --partitions "$P" --gpu-index 0 --json "$OUT/abi.json"
# shellcheck disable=SC2086
want split && step harness_split "$B/tests/ffi/snarkd_ffi_porep_harness" --circuit "$W/c.csr" --witness "$W/w.wtns" \
  --params "$W/k.params" $KEY --threads "$T" --partitions "$P" --gpu-index 0 --split \
  --json "$OUT/abi_split.json"
# shellcheck disable=SC2086
want bench && step engine_bench "$B/apps/snarkd" bench --device "$DEVICE" --circuit "$W/c.csr" --witness "$W/w.wtns" \
  $BENCH_KEY --jobs 2 --partitions-per-job "$P" --workers 2 --json "$OUT/engine.json"
# This call's harness logs only (FFI_KEEP=1 keeps an earlier call's in $OUT).
ran=""
want abi && ran="harness_abi"
want split && ran="$ran harness_split"
for f in $ran; do
  grep -hE "^params:|^synthesis|^create_SRS|^warm-up|^partitions" "$OUT/$f.log" >> "$S"
done
echo "-- key: $PARAMS; free disk and memory now:" >> "$S"
df -h "$W" | tail -n 1 >> "$S"; free -g | sed -n 2p >> "$S"

field() { sed -n "s/.*\"$2\": *\([0-9.e+-]*\).*/\1/p" "$1" | head -n 1; }
{
  echo "-- s/partition, $N constraints, $T caller threads, $P partitions (mode $MODE, key $PARAMS)"
  printf '%-34s %12s %10s %14s\n' path s/partition valid "a/b/c GiB/call"
  for f in abi abi_split; do
    [ -f "$OUT/$f.json" ] || continue
    label="ABI generate_groth16_proofs_c"
    [ "$f" = abi_split ] && label="ABI start_c + finalize_c"
    printf '%-34s %12s %10s %14s\n' "$label" "$(field "$OUT/$f.json" s_per_partition)" \
      "$(field "$OUT/$f.json" valid)/$P" "$(awk "BEGIN { printf \"%.2f\", $(field "$OUT/$f.json" abc_bytes_per_call) / 1073741824 }")"
  done
  [ -f "$OUT/engine.json" ] && printf '%-34s %12s   (steady state %s)\n' "snarkd bench $DEVICE, 2 workers" \
    "$(field "$OUT/engine.json" s_per_partition)" "$(field "$OUT/engine.json" s_per_partition_steady)"
  # The acceptance line: the ABI's s/partition within 10 % of the engine's on the same circuit.
  if [ -f "$OUT/abi.json" ] && [ -f "$OUT/engine.json" ]; then
    awk -v a="$(field "$OUT/abi.json" s_per_partition)" -v b="$(field "$OUT/engine.json" s_per_partition)" 'BEGIN {
      if (b > 0) printf "ratio ABI / snarkd bench s/partition: %.3f (acceptance: <= 1.10)\n", a / b }'
  fi
  # The a/b/c form's extra upload: bytes per partition and the median memory-stage time.
  med() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
  for f in $ran; do
    grep -h "^snarkd_supraseal: job" "$OUT/$f.log" 2>/dev/null |
      sed -n 's/.*upload \([0-9.]*\) s (\([0-9]*\) bytes), compute \([0-9.]*\) s.*/\1 \2 \3/p' > "$OUT/$f.stages"
    [ -s "$OUT/$f.stages" ] || continue
    up=$(cut -d' ' -f1 "$OUT/$f.stages" | med); comp=$(cut -d' ' -f3 "$OUT/$f.stages" | med)
    bytes=$(head -n 1 "$OUT/$f.stages" | cut -d' ' -f2)
    awk -v f="$f" -v up="$up" -v comp="$comp" -v b="$bytes" -v n="$(wc -l < "$OUT/$f.stages")" 'BEGIN {
      printf "%-14s a/b/c upload per partition %.2f GiB: median %.3f s (%.1f GiB/s); median compute stage %.3f s (%d partitions)\n",
        f, b / 1073741824, up, b / 1073741824 / (up + 1e-9), comp, n }'
  done
} >> "$S"
[ "${FFI_KEEP:-0}" = 1 ] || rm -rf "$W"
cat "$S"
