#!/bin/sh
# On the GPU machine (device tool), from the repository root, with build/tests/cuda/test_cuda_prover
# carried (the GPU prover's GTest binary, as scripts/gpu/run_device.sh carries it; either build:
# sm_90, or the compile check, whose PTX exercises the driver's JIT): evidence for
# packaging/snarkd.service's GPU-facing sandbox choices, which the driver-less dev VM cannot check.
#   1. /proc/devices and /dev/nvidia*: the groups DeviceAllow=char-nvidia* must match at start-up
#      (is nvidia-uvm loaded before any CUDA process ran?).
#   2. the CUDA command plainly, then under the kernel's W^X (prctl PR_SET_MDWE, Linux >= 6.3: what
#      MemoryDenyWriteExecute= asks for): both pass -> the unit may add MemoryDenyWriteExecute=yes.
#   3. the writable+executable mappings the CUDA process holds during the plain run.
# $OUT receives summary.txt (printed last) and the logs. About 1-2 minutes.
#   CUDA_CMD: the command (default: build/tests/cuda/test_cuda_prover); a dry run without a GPU:
#   CUDA_CMD="build/apps/snarkd bench --device cpu --circuit porep-shaped --constraints 4096 --jobs 2"
set -u
OUT=${OUT:-/tmp/snarkd-packaging-out}
mkdir -p "$OUT"
S=$OUT/summary.txt
: >"$S"
CUDA_CMD=${CUDA_CMD:-build/tests/cuda/test_cuda_prover}
result() { grep -E "^\[  (PASSED|FAILED|SKIPPED) |proofs|invalid|rror" "$1" | head -6 >>"$S"; }

echo "== kernel $(uname -r); /proc/devices nvidia groups before any CUDA process:" >>"$S"
grep nvidia /proc/devices >>"$S" 2>&1 || echo "  (none)" >>"$S"
ls -l /dev/nvidia* >"$OUT/dev_nvidia_before.txt" 2>&1

# shellcheck disable=SC2086
$CUDA_CMD >"$OUT/plain.log" 2>&1 &
pid=$!
: >"$OUT/wx_maps.txt"
while kill -0 "$pid" 2>/dev/null; do
  awk '$2 ~ /w/ && $2 ~ /x/' "/proc/$pid/maps" >>"$OUT/wx_maps.txt" 2>/dev/null
  sleep 0.5
done
wait "$pid"
echo "== plain: rc=$?  ($CUDA_CMD)" >>"$S"
result "$OUT/plain.log"
echo "== writable+executable mappings seen during it: $(sort -u "$OUT/wx_maps.txt" | wc -l)" >>"$S"
sort -u "$OUT/wx_maps.txt" | head -5 >>"$S"
echo "== /proc/devices nvidia groups after:" >>"$S"
grep nvidia /proc/devices >>"$S" 2>&1
ls -l /dev/nvidia* >"$OUT/dev_nvidia_after.txt" 2>&1

# mdwe_exec CMD...: CMD under PR_SET_MDWE (= 65) with PR_MDWE_REFUSE_EXEC_GAIN (= 1), which
# execve keeps; python3 where the host has it, else a 10-line C helper, else status 78.
mdwe_exec() {
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(65, 1, 0, 0, 0) != 0:
    print("prctl(PR_SET_MDWE) failed, errno", ctypes.get_errno(), "(kernel < 6.3?)"); sys.exit(77)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
  elif command -v cc >/dev/null 2>&1; then
    printf '%s\n' '#include <stdio.h>' '#include <sys/prctl.h>' '#include <unistd.h>' \
      'int main(int c, char** v) { (void)c; if (prctl(65, 1, 0, 0, 0)) { perror("prctl(PR_SET_MDWE)"); return 77; }' \
      '  execvp(v[1], v + 1); perror("execvp"); return 127; }' >"$OUT/mdwe_exec.c"
    cc -O1 -o "$OUT/mdwe_exec" "$OUT/mdwe_exec.c" && "$OUT/mdwe_exec" "$@"
  else
    echo "neither python3 nor cc: W^X not tried"
    return 78
  fi
}
# shellcheck disable=SC2086
mdwe_exec $CUDA_CMD >"$OUT/mdwe.log" 2>&1
echo "== under PR_SET_MDWE (W^X): rc=$? (77: the kernel has no MDWE; 78: no python3 or cc)" >>"$S"
result "$OUT/mdwe.log"
cat "$S"
