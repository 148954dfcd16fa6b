#!/bin/sh
# Issue 18's acceptance on one H200, from the repository root with the Release sm_90 build in
# $B (default build/; target: snarkd): PoRep-size partitions (the synthetic 130,278,869-constraint
# circuit, domain 2^27, 2 jobs × 10 partitions a run) with everything the engine puts on the GPU
# capped at 16 GiB (1, 2, 3 workers), at 24 GiB (3 workers) and uncapped (3 workers), in ONE
# process (the circuit and the ~70 GB development key are set up once, ~2 min of GPU time);
# device memory sampled by nvidia-smi from another process every 200 ms meanwhile.
# Writes to $OUT: summary.txt (printed last), bench.log, memory.csv, runs.tgz (JSON reports and
# timelines of every run). Wall: 94 s before the first run (the key 69 s) and 180 s for the four capped runs on an
# H100 (2026-12-07), ≈ 2.5 min of set-up on the H200 before; the bench is stopped at 510 s
# whatever happens, and the summary still comes out.
#   usage: [RUNS=16:1,16:2,16:3,24:3,0:3] sh scripts/gpu/porep_small_cards.sh [extra bench arguments]
# RUNS: the bench's --runs list (cap GiB:workers; 0 = no cap); PARTS: partitions per job (10). Where the five runs do not
# fit the 510 s limit (BENCH_LIMIT, at most a call's 600 s), split them over calls in one lease
# (RUNS=16:1,16:2,16:3, then RUNS=24:3,0:3). SNARKD_WITNESS_COMPACT=0: witnesses uploaded plain, not compacted
# (engine/compact_upload.hpp). SNARKD_MSM_LANES=1 in the environment: a streamed partition's witness MSMs
# run after its H MSM instead of beside it (engine/cuda_worker.cpp). SNARKD_H_MSM=plain: an uncapped (resident)
# partition's H MSM in the plain MSM's kind, its workspace sized for it (cuda/prover.hpp, ProverPaths::h_msm_plain);
# the A/B: RUNS=0:3 once with it and once without, one process each, in one lease (H200).
set -u
OUT=${OUT:-/tmp/snarkd-small-cards}
B=${B:-build}
W=/tmp/snarkd-small-cards-work
RUNS=${RUNS:-16:1,16:2,16:3,24:3,0:3}
LIMIT=${BENCH_LIMIT:-510}  # seconds the bench may run
mkdir -p "$OUT" "$W"
S="$OUT/summary.txt"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > "$W/gpu.txt" 2>&1
nvidia-smi --query-gpu=timestamp,memory.used --format=csv,noheader,nounits -lms 200 > "$OUT/memory.csv" 2>&1 &
SMI=$!
start=$(date +%s)
# --host-gib 44: one job's ten 4.2 GB witnesses (39 GiB) in host RAM at a time, beside the pinned
# key (~65 GiB) on the 125 GiB host; the next job's copies start when a job's partitions have
# left host memory.
# Line-buffered (stdbuf) so that a run cut by the limit still leaves its finished runs' lines.
LB=$(command -v stdbuf > /dev/null && echo "stdbuf -oL")
timeout "$LIMIT" $LB "$B/apps/snarkd" bench --device cuda:0 --circuit porep-shaped --constraints 130278869 \
  --jobs 2 --partitions-per-job "${PARTS:-10}" --runs "$RUNS" --host-gib 44 \
  --json "$W/bench.json" --timeline "$W/timeline.svg" "$@" > "$OUT/bench.log" 2>&1
rc=$?
kill "$SMI" 2> /dev/null
wall=$(( $(date +%s) - start ))
tar czf "$OUT/runs.tgz" -C "$W" . 2> /dev/null

{
  echo "GPU: $(cat "$W/gpu.txt")"
  echo "snarkd bench exit code $rc (0: every run's proofs valid, no failed job, no deadlock, no over-commit), wall $wall s"
  grep -E "^circuit:|in use at start-up|in use between runs" "$OUT/bench.log"
  # One block per run: its lines from the bench, then the largest memory.used sampled between
  # its start and end (timestamps in nvidia-smi's format compare as strings).
  # The CUDA context: the most device memory in use with no engine alive (at start-up, and after
  # each run once its pool is freed, kernels loaded by then included).
  ctx=$(grep -E "in use at start-up|in use between runs" "$OUT/bench.log" | awk '{ v = $(NF - 1) + 0; if (v > m) m = v } END { print m + 0 }')
  awk -v mem="$OUT/memory.csv" -v ctx="$ctx" '
    function maxmem(t0, t1,   line, f, m) {
      m = 0
      while ((getline line < mem) > 0) {
        split(line, f, ", ")
        if (f[1] >= t0 && f[1] <= t1 && f[2] + 0 > m) m = f[2] + 0
      }
      close(mem)
      return m
    }
    /^run start/ { t0 = $3 " " $4; head = $0; sub(/^run start [^ ]+ [^ ]+ /, "", head); cap = $6; n = 0; next }
    /^run end/ {
      t1 = $3 " " $4
      printf "== run %s\n", head
      for (i = 0; i < n; ++i) print "   " keep[i]
      used = maxmem(t0, t1)
      if (cap == "no") printf "   max device memory used (nvidia-smi) during the run: %d MiB\n", used
      else printf "   max device memory used (nvidia-smi) during the run: %d MiB; cap + CUDA context %d MiB: %s\n",
                  used, cap * 1024 + ctx, used <= cap * 1024 + ctx ? "within" : "EXCEEDED"
      next
    }
    /s\/partition|invalid proofs|overlap:|stage medians|peak VRAM|^  key:|streamed .*PCIe floor|pinned host memory|compute phases|failed:/ {
      keep[n++] = $0
    }
  ' "$OUT/bench.log"
  grep -E "failed:|error|Error" "$OUT/bench.log" | head -5
  echo "Bars (issue 18): 16 GiB ≤ 2.0 s/partition steady state and rising throughput with workers;"
  echo "  24 GiB ≤ 1.6 s; uncapped ≤ 1.656 s; every proof valid; memory used ≤ cap + the CUDA context above."
} > "$S"
cat "$S"
