#!/bin/sh
# `snarkd bench` on a simulated device whose whole memory is smaller than the key (issue 18's CI
# case, scaled down): every partition proven and verified, no over-commit, no deadlock, the
# ledger's peak (resident key parts and slots included) within the cap, the key streamed.
#   usage: bench_small_memory.sh SNARKD
set -u
S=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; cat "$T/log"; exit 1; }
cap_gib=0.004  # 4.3 MB: the 8192-constraint key is ~5 MB
"$S" bench --device sim --circuit porep-shaped --constraints 8192 --jobs 4 --partitions-per-job 3 --workers 3 \
  --vram-gib "$cap_gib" --sim-copy-gbps 2 --json "$T/out.json" --timeline "$T/tl.svg" > "$T/log" 2>&1 || fail "exit code $?"
j() { sed -n "s/^  \"$1\": \([^,]*\),*$/\1/p" "$T/out.json"; }
[ "$(j proofs)" = 12 ] || fail "proofs $(j proofs)"
[ "$(j invalid_proofs)" = 0 ] || fail "invalid proofs"
[ "$(j vram_overcommits)" = 0 ] || fail "over-commits"
[ "$(j deadlocks)" = 0 ] || fail "deadlocks"
[ "$(j peak_vram_bytes)" -le "$(j vram_cap_bytes)" ] || fail "peak $(j peak_vram_bytes) > cap $(j vram_cap_bytes)"
grep -q '"key_residency": "streaming' "$T/out.json" || fail "the key did not stream"
[ "$(j chunk_fills)" -gt 0 ] || fail "no chunk was streamed"
grep -q "copy engine" "$T/tl.svg" || fail "no copy-engine lane in the timeline"
echo "ok: $(j proofs) proofs under a $cap_gib GiB cap, peak $(j peak_vram_bytes) bytes, $(j chunk_fills) chunk fills"
