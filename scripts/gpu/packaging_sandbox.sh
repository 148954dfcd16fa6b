#!/bin/sh
# On the GPU machine (device tool), from the repository root, with build/apps/snarkd carried
# (either build: sm_90, or the compile check, whose PTX exercises the driver's JIT): evidence for
# packaging/snarkd.service's GPU-facing sandbox choices, which the driver-less dev VM cannot check.
#   1. /proc/devices and /dev/nvidia*: the groups DeviceAllow=char-nvidia* must match at start-up
#      (is nvidia-uvm loaded before any CUDA process ran?).
#   2. `snarkd bench --device cuda:0` (the engine's CUDA prover, every proof verified) plainly, then
#      under the kernel's W^X (prctl PR_SET_MDWE, Linux ≥ 6.3: what MemoryDenyWriteExecute= asks):
#      both pass → the unit may add MemoryDenyWriteExecute=yes.
#   3. the writable+executable mappings the CUDA process holds during the plain run.
# $OUT receives summary.txt (printed last) and the logs. About 1–2 minutes.
set -u
OUT=${OUT:-/tmp/snarkd-packaging-out}
mkdir -p "$OUT"
S=$OUT/summary.txt
: >"$S"
SNARKD=${SNARKD:-build/apps/snarkd}
DEV=${DEV:-cuda:0}  # DEV=cpu: a dry run of this script without a GPU
BENCH="bench --device $DEV --circuit porep-shaped --constraints ${CONSTRAINTS:-65536} --jobs 4 --partitions-per-job 1 --workers 2"

echo "== kernel $(uname -r); /proc/devices nvidia groups before any CUDA process:" >>"$S"
grep nvidia /proc/devices >>"$S" 2>&1 || echo "  (none)" >>"$S"
ls -l /dev/nvidia* >"$OUT/dev_nvidia_before.txt" 2>&1

# shellcheck disable=SC2086
"$SNARKD" $BENCH >"$OUT/bench_plain.log" 2>&1 &
pid=$!
: >"$OUT/wx_maps.txt"
while kill -0 "$pid" 2>/dev/null; do
  awk '$2 ~ /w/ && $2 ~ /x/' "/proc/$pid/maps" >>"$OUT/wx_maps.txt" 2>/dev/null
  sleep 0.5
done
wait "$pid"
echo "== plain bench: rc=$?" >>"$S"
grep -E "proofs|invalid" "$OUT/bench_plain.log" >>"$S"
echo "== writable+executable mappings seen during it: $(sort -u "$OUT/wx_maps.txt" | wc -l)" >>"$S"
sort -u "$OUT/wx_maps.txt" | head -5 >>"$S"
echo "== /proc/devices nvidia groups after:" >>"$S"
grep nvidia /proc/devices >>"$S" 2>&1
ls -l /dev/nvidia* >"$OUT/dev_nvidia_after.txt" 2>&1

# PR_SET_MDWE = 65, PR_MDWE_REFUSE_EXEC_GAIN = 1; kept across execve.
# shellcheck disable=SC2086
python3 - "$SNARKD" $BENCH >"$OUT/bench_mdwe.log" 2>&1 <<'EOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(65, 1, 0, 0, 0) != 0:
    print("prctl(PR_SET_MDWE) failed, errno", ctypes.get_errno(), "(kernel < 6.3?)")
    sys.exit(77)
os.execv(sys.argv[1], sys.argv[1:])
EOF
echo "== bench under PR_SET_MDWE (W^X): rc=$? (77: the kernel has no MDWE)" >>"$S"
grep -E "proofs|invalid|error|rror" "$OUT/bench_mdwe.log" | head -5 >>"$S"
cat "$S"
