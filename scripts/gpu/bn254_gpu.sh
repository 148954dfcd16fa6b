#!/bin/sh
# Issue 23's GPU run: BN254 (and the shared code's BLS12-381 regressions) on the device, and
# snarkd against rapidsnark on the same BN254 keys on the same machine.
# Builds nothing: run from the repository root with the binaries of a Release sm_90 build in $B:
#   $B/tests/cuda/test_cuda_*, $B/tests/engine/test_engine_cuda, $B/bench/gpu/snarkd_gpu_bench,
#   $B/bench/gpu/snarkd_zkey_bench, $B/tools/dev_zkey/snarkd_dev_zkey
# and RAPIDSNARK = rapidsnark's `prover` (built outside this repository: bench/circom/README.md).
#   usage: sh scripts/gpu/bn254_gpu.sh STEP...    (STEP: tests, kernels, cli, peers16, peers20, bits20,
#          accum20)
# tests    the GPU tests of the curve-generic kernels and provers, each under a time limit;
# kernels  snarkd_gpu_bench --curve=bn254: field rates, NTT and G1/G2 MSM 2^16..2^24;
# peers16  circom's 2^16 Poseidon-chain key ($K16, $W16: scripts/bn254-bench-circuits.sh 16);
# peers20  a 2^20 key made here by snarkd_dev_zkey (insecure, synthetic circuit of circom's shape:
#          the real 2^20 zkey is ~0.5 GB, more than the device tool carries).
# For each key: rapidsnark's prover as whole processes ($RUNS, alternating with snarkd's CLI on
# the GPU and on the CPU when $SNARKD is set), then snarkd_zkey_bench (GPU and CPU medians, key
# resident). accum20 times the 2^20 proof under each MSM accumulation kind. The last proofs
# of each side land in $OUT/proofs.tar for snarkjs on the dev machine; logs in $OUT/logs.tgz and
# $OUT/summary.txt.
set -u
OUT=${OUT:-/tmp/snarkd-bn254-out}
B=${B:-build}
RUNS=${RUNS:-5}
W=/tmp/snarkd-bn254-logs
P=/tmp/snarkd-bn254-proofs
mkdir -p "$OUT" "$W" "$P"
S="$W/summary.txt"
T0=$(date +%s)

# step NAME SECONDS COMMAND...: under `timeout`, logged to $W/NAME.log, rc and seconds recorded.
step() {
  name=$1; limit=$2; shift 2
  start=$(date +%s)
  timeout "$limit" "$@" > "$W/$name.log" 2>&1
  rc=$?
  echo "$name rc=$rc $(( $(date +%s) - start ))s" | tee -a "$W/steps.txt"
}

# wall SECONDS-FILE COMMAND...: appends the command's wall seconds (3 decimals) to the file.
wall() {
  f=$1; shift
  t=$(date +%s.%N)
  "$@" > /dev/null 2>> "$W/wall-errors.log" || echo "failed: $*" >> "$W/wall-errors.log"
  awk -v a="$t" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f\n", b - a }' >> "$f"
}
median() { sort -n "$1" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

tests() {
  for t in field ntt msm spmv prover_snarkjs prover h_phase prover_stream; do
    step "test_$t" 120 "$B/tests/cuda/test_cuda_$t"
  done
  step test_engine_cuda 120 "$B/tests/engine/test_engine_cuda"
  grep -h -E "^\[  (PASSED|FAILED) |^\[seed\]|FAILED  \]" "$W"/test_*.log > "$W/tests-summary.txt"
}

kernels() {
  step bench_bn254 240 "$B/bench/gpu/snarkd_gpu_bench" --curve=bn254 --only=all --min-log=16 --max-log=24 --reps=5
}

# peers TAG ZKEY WTNS: rapidsnark and snarkd's CLI alternating (whole processes), then the bench.
peers() {
  tag=$1; zkey=$2; wtns=$3
  : > "$W/rapidsnark$tag.s"; : > "$W/snarkd-gpu$tag.s"; : > "$W/snarkd-cpu$tag.s"
  for i in $(seq "$RUNS"); do
    wall "$W/rapidsnark$tag.s" "$RAPIDSNARK" "$zkey" "$wtns" "$P/rapidsnark$tag-proof.json" "$P/rapidsnark$tag-public.json"
    if [ -n "${SNARKD:-}" ]; then
      wall "$W/snarkd-gpu$tag.s" "$SNARKD" prove "$zkey" "$wtns" "$P/snarkd-cli$tag-proof.json" \
        "$P/snarkd-cli$tag-public.json" --device cuda:0 --no-progress
      wall "$W/snarkd-cpu$tag.s" "$SNARKD" prove "$zkey" "$wtns" "$P/snarkd-cpu$tag-proof.json" \
        "$P/snarkd-cpu$tag-public.json" --no-progress
    fi
  done
  for side in rapidsnark snarkd-gpu snarkd-cpu; do
    [ -s "$W/$side$tag.s" ] &&
      echo "$side $tag: median $(median "$W/$side$tag.s") s of $(tr '\n' ' ' < "$W/$side$tag.s")" >> "$W/peers.txt"
  done
  step "zkey_bench$tag" 400 "$B/bench/gpu/snarkd_zkey_bench" "$zkey" "$wtns" --runs=9 --cpu-runs=3 \
    --proof="$P/snarkd-gpu$tag-proof.json" --public="$P/snarkd-gpu$tag-public.json"
}

# The CLI's GPU path on the repository's snarkjs fixtures (both curves), each proof checked by
# `snarkd verify`; rapidsnark on the BN254 ones (does the carried binary run here?).
cli() {
  F=tests/groth16/fixtures
  for d in "$F/multiplier" "$F/lincomb" "$F/bn128/multiplier" "$F/bn128/lincomb"; do
    c=$(basename "$d"); t=$(basename "$(dirname "$d")")-$c
    step "cli-$t" 60 sh -c "'$SNARKD' prove $d/$c.zkey $d/$c.wtns $P/cli-$t-proof.json $P/cli-$t-public.json \
      --device cuda:0 --no-progress --json && '$SNARKD' verify $d/verification_key.json $P/cli-$t-public.json \
      $P/cli-$t-proof.json"
  done
  step rapidsnark-fixture 60 "$RAPIDSNARK" "$F/bn128/multiplier/multiplier.zkey" "$F/bn128/multiplier/multiplier.wtns" \
    "$P/rs-fixture-proof.json" "$P/rs-fixture-public.json"
}

peers16() { peers 16 "$K16" "$W16"; }

# A bit-heavy 2^20 key (90 % of the witness 0 or 1, as in circuits of bit decompositions): the
# witness MSMs' runs of equal digits (cuda/prover_snarkjs.hpp, detail::witness_msm_options).
bits20() {
  Z=/tmp/bn254-20b
  mkdir -p "$Z"
  step dev_zkey20b 300 "$B/tools/dev_zkey/snarkd_dev_zkey" --curve bn254 --log 20 --seed 24 --bit-fraction 0.9 \
    --zero-fraction 0.45 --zkey "$Z/K.zkey" --wtns "$Z/W.wtns" --vk "$P/vk20b.json"
  peers 20b "$Z/K.zkey" "$Z/W.wtns"
}

# The MSM accumulation kinds (SNARKD_MSM_ACCUMULATE, cuda/msm.hpp) on the 2^20 key's proof.
accum20() {
  for k in legacy xyzz affine; do
    step "accum20-$k" 120 env SNARKD_MSM_ACCUMULATE="$k" "$B/bench/gpu/snarkd_zkey_bench" /tmp/bn254-20/K.zkey \
      /tmp/bn254-20/W.wtns --runs=9 --cpu-runs=0
  done
}

peers20() {
  Z=/tmp/bn254-20
  mkdir -p "$Z"
  step dev_zkey20 300 "$B/tools/dev_zkey/snarkd_dev_zkey" --curve bn254 --log 20 --seed 23 \
    --zkey "$Z/K.zkey" --wtns "$Z/W.wtns" --vk "$P/vk20.json"
  peers 20 "$Z/K.zkey" "$Z/W.wtns"
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$W/nvidia-smi.txt" 2>&1
lscpu | grep -E "Model name|^CPU\(s\)" > "$W/cpu.txt"
: > "$W/steps.txt"; : > "$W/peers.txt"
for s in "$@"; do "$s"; done
{
  echo "== device"; cat "$W/nvidia-smi.txt" "$W/cpu.txt"
  echo "== steps (rc 0 = pass; 124 = time limit)"; cat "$W/steps.txt"
  [ -f "$W/tests-summary.txt" ] && { echo "== tests"; cat "$W/tests-summary.txt"; }
  echo "== peers (whole processes, wall seconds)"; cat "$W/peers.txt"
  for f in "$W"/cli-*.log "$W"/zkey_bench*.log "$W"/accum*.log "$W"/dev_zkey*.log; do [ -f "$f" ] && { echo "== $(basename "$f")"; cat "$f"; }; done
  [ -f "$W/bench_bn254.log" ] && { echo "== bench_bn254"; cat "$W/bench_bn254.log"; }
  [ -s "$W/wall-errors.log" ] && { echo "== wall errors"; tail -20 "$W/wall-errors.log"; }
  echo "== total $(( $(date +%s) - T0 )) s"
} > "$S"
cp "$S" "$OUT/summary.txt"
tar cf "$OUT/proofs.tar" -C "$P" . 2> /dev/null
tar czf "$OUT/logs.tgz" -C "$W" . 2> /dev/null
cat "$S"
