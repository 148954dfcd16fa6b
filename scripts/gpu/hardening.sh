#!/bin/sh
# The GPU half of issue 17 item 3 (cancel stops running work), for the device tool: run from the
# repository root with a CUDA build (not the compile check) carried along:
#   build/tests/engine/test_engine_cuda     (target test_engine_cuda)
#   build/tests/engine/test_engine_cancel   (target test_engine_cancel; CPU + simulated device)
#   build/tests/cuda/test_cuda_prover_stream (target test_cuda_prover_stream)
# It runs the engine's GPU tests (CudaEngine.CancelStopsAtAPhaseBoundaryAndFreesTheWorkspace:
# prove_on_stream with a stop requested leaves its stream idle and writes no sums; a 16-partition
# job cancelled while computing stops, frees its workspace, and the next job's proofs equal the
# CPU prover's; CudaEngine.CancelInsideAStreamedStepReleasesItsReservationAndSlots: the same on a
# key that streams, no slot lease left), the streamed drivers' stop test
# (StreamProver.AStopEndsEachStepBeforeItsNextChunkWithTheStreamIdle), the cancel tests again
# under compute-sanitizer memcheck (no access to a released workspace or slot), and the CPU-side
# cancel tests. Logs under $OUT; the summary table is printed last. Expected: < 8 minutes on one
# H200.
set -u
OUT=${OUT:-/tmp/snarkd-gpu-hardening}
mkdir -p "$OUT"
B=build
S="$OUT/summary.txt"
: > "$S"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/nvidia-smi.txt" 2>&1
run() {  # name, command...
  name=$1; shift
  start=$(date +%s)
  "$@" > "$OUT/$name.log" 2>&1
  rc=$?
  printf '%-28s rc=%-3s %4s s  %s\n' "$name" "$rc" "$(( $(date +%s) - start ))" \
    "$(grep -E '^\[  (PASSED|FAILED) |ERROR SUMMARY' "$OUT/$name.log" | tr '\n' ' ')" >> "$S"
}
run engine_cuda "$B/tests/engine/test_engine_cuda"
run stream_stop "$B/tests/cuda/test_cuda_prover_stream" --gtest_filter='StreamProver.AStopEnds*'
CANCEL='--gtest_filter=CudaEngine.Cancel*'
if command -v compute-sanitizer > /dev/null; then
  run memcheck_cancel compute-sanitizer --tool memcheck --error-exitcode 9 "$B/tests/engine/test_engine_cuda" "$CANCEL"
fi
run engine_cancel_cpu "$B/tests/engine/test_engine_cancel"
grep -h "cancel took" "$OUT/engine_cuda.log" >> "$S"
echo "== $(cat "$OUT/nvidia-smi.txt")"
cat "$S"
