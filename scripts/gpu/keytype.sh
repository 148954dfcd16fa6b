#!/bin/sh
# The GPU half of issue 21 item 8 (groth16::BoundKey: cuda::DeviceProvingKey and the engine's
# CUDA device now take the bound key), for the device tool: run from the repository root with a
# CUDA build (not the compile check) carried along, targets
#   test_cuda_prover test_cuda_prover_stream test_engine_cuda test_engine_cuda_abc test_cuda_abc_host
# Each runs whole under ctest: GPU sums and proofs equal the CPU prover's for both key flavours,
# resident and streamed keys, a malformed circuit refused by BoundKey::bind, the a/b/c form beside
# a bound key. Each test's output in $OUT/ctest.log; ctest's summary is printed last. Expected:
# < 10 minutes on one H200.
set -u
OUT=${OUT:-/tmp/snarkd-gpu-keytype}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/nvidia-smi.txt" 2>&1
ctest --test-dir build -R '^(test_cuda_prover|test_cuda_prover_stream|test_engine_cuda|test_engine_cuda_abc|test_cuda_abc_host)$' \
  --output-on-failure --output-log "$OUT/ctest.log" > "$OUT/ctest-summary.txt" 2>&1
rc=$?
echo "== $(cat "$OUT/nvidia-smi.txt")"
tail -n 12 "$OUT/ctest-summary.txt"
exit $rc
