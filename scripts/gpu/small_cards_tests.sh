#!/bin/sh
# GPU tests of issue 18's code (keys placed in the pool, partly resident keys, the streamed
# prover, the CUDA device streaming keys larger than its memory), from the repository root with
# the sm_90 build in $B (default build/; targets: test_cuda_prover_stream test_engine_cuda
# test_cuda_prover test_cuda_ntt). ≈ 3–4 min. Writes $OUT/summary.txt (printed last) and logs.
set -u
OUT=${OUT:-/tmp/snarkd-small-cards-tests}
B=${B:-build}
mkdir -p "$OUT"
S="$OUT/tests-summary.txt"
: > "$S"
run() {  # name, command...: logs to $OUT/name.log, appends the exit code and gtest's verdict
  name=$1; shift
  t=$(date +%s)
  timeout 600 "$@" > "$OUT/$name.log" 2>&1
  echo "== $name: rc=$?, $(( $(date +%s) - t )) s" >> "$S"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |\[seed\]|^\[  FAILED  \]|^workers .* cap " "$OUT/$name.log" | head -24 >> "$S"
}
run test_cuda_prover_stream "$B/tests/cuda/test_cuda_prover_stream"
run test_engine_cuda "$B/tests/engine/test_engine_cuda"
run test_cuda_prover "$B/tests/cuda/test_cuda_prover"
run test_cuda_ntt "$B/tests/cuda/test_cuda_ntt"
cat "$S"
