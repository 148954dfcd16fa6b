#!/bin/sh
# Partitions through the supraseal-c2 ABI (libsnarkd_supraseal) from 3 caller threads sharing one
# gpu_mtx on one device, next to `snarkd bench` (the engine) on the same circuit and key in the
# same lease: s/partition of each, the a/b/c bytes every ABI call hands over, proofs verified.
# The harness measures whatever path the library has: in this phase the ABI proves on the CPU
# (groth16 layer), so the default is a small circuit; FFI_MODE=porep is for the engine's a/b/c
# GPU path (phase 2).
#
# Needs an optimised CUDA build carried in $B (default build): apps/snarkd,
# $B/tests/ffi/snarkd_ffi_porep_harness, $B/src/snarkd/ffi/libsnarkd_supraseal.so*
# (ninja -C build snarkd_cli snarkd_ffi_porep_harness snarkd_supraseal).
#   usage: sh scripts/gpu/ffi_porep.sh
#   env:   FFI_SETUP=gpu|cpu, FFI_DEVICE (cuda:0) for a dry run elsewhere; FFI_MODE=smoke|porep (smoke), FFI_CONSTRAINTS (smoke 2^20; porep 2^26 − 2^16: a 2^27
#          key's .params file (~75 GB) does not fit this machine's 64 GiB disk), FFI_THREADS (3),
#          FFI_PARTITIONS (6), B (build), OUT
# $OUT receives every log, the JSON reports and summary.txt (printed last).
set -u
OUT=${OUT:-/tmp/snarkd-ffi-out}
B=${B:-build}
MODE=${FFI_MODE:-smoke}
case "$MODE" in
  smoke) N=${FFI_CONSTRAINTS:-1048576} ;;
  porep) N=${FFI_CONSTRAINTS:-67043328} ;;
  *) echo "FFI_MODE must be smoke or porep"; exit 2 ;;
esac
T=${FFI_THREADS:-3}
SETUP=${FFI_SETUP:-gpu}      # cpu: for a dry run of this script on a machine without a GPU
DEVICE=${FFI_DEVICE:-cuda:0} # the engine's device for the comparison (sim/cpu for a dry run)
P=${FFI_PARTITIONS:-6}
W=${FFI_WORK:-/tmp/snarkd-ffi-work}
mkdir -p "$OUT" "$W"
S=$OUT/summary.txt
: > "$S"
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

step synth "$B/apps/snarkd" synth --constraints "$N" --circuit "$W/c.csr" --witness "$W/w.wtns" || { cat "$S"; exit 1; }
# The key: an INSECURE dev setup on the GPU, written once as a .params file (what create_SRS reads).
step harness_abi "$B/tests/ffi/snarkd_ffi_porep_harness" --circuit "$W/c.csr" --witness "$W/w.wtns" \
  --params "$W/k.params" --make-params "$SETUP" --threads "$T" --partitions "$P" --gpu-index 0 --json "$OUT/abi.json"
step harness_split "$B/tests/ffi/snarkd_ffi_porep_harness" --circuit "$W/c.csr" --witness "$W/w.wtns" \
  --params "$W/k.params" --threads "$T" --partitions "$P" --gpu-index 0 --split --json "$OUT/abi_split.json"
step engine_bench "$B/apps/snarkd" bench --device "$DEVICE" --circuit "$W/c.csr" --witness "$W/w.wtns" \
  --params "$W/k.params" --jobs 2 --partitions-per-job "$P" --workers 2 --json "$OUT/engine.json"
grep -hE "^params:|^synthesis|^create_SRS|^partitions" "$OUT/harness_abi.log" "$OUT/harness_split.log" >> "$S"

field() { sed -n "s/.*\"$2\": *\([0-9.e+-]*\).*/\1/p" "$1" | head -n 1; }
{
  echo "-- s/partition, $N constraints, $T caller threads, $P partitions (mode $MODE)"
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
} >> "$S"
rm -rf "$W"
cat "$S"
