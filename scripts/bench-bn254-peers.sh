#!/bin/sh
# BN254 Groth16 provers on the same zkey and witness (issue 23): `snarkjs groth16 prove`,
# rapidsnark's `prover` (built outside this repository, bench/circom/README.md) and
# `snarkd prove --zkey` (the curve comes from the zkey). Each is timed as a whole process
# (start-up, file reading and writing included), alternately, on the same pinned cores; medians
# and speed-ups are printed, then `snarkjs groth16 verify` must accept every side's proof and all
# sides must write the same public signals.
#
# Run from the repository root:
#   sh scripts/bench-bn254-peers.sh [ZKEY WTNS]
# Default ZKEY WTNS: the 2^16 circuit's, build/bn254/bench16/{K.zkey,W.wtns}
# (scripts/bn254-bench-circuits.sh 16 makes them).
#
# Environment (and those of scripts/bn254-lib.sh):
#   RAPIDSNARK  rapidsnark's prover (default /work/peers/rapidsnark/build_prover/src/prover;
#               skipped, saying so, when absent)
#   SNARKD_BIN  snarkd (default build/apps/snarkd when it exists); tried once and timed only if
#               that proof succeeds
#   RUNS        timed runs of each prover (default 5), after one untimed run each
#   CPUS        the cores every side is pinned to with taskset (default all: 0-(nproc-1));
#               OMP_NUM_THREADS is set to their count (rapidsnark v0.0.6 ignores it: its
#               prover threads through std::thread, one per hardware thread; taskset still pins)
set -eu

. scripts/bn254-lib.sh
ZKEY=${1:-$BN254_DIR/bench16/K.zkey}
WTNS=${2:-$BN254_DIR/bench16/W.wtns}
RAPIDSNARK=${RAPIDSNARK:-/work/peers/rapidsnark/build_prover/src/prover}
RUNS=${RUNS:-5}
if [ -z "${SNARKD_BIN:-}" ] && [ -x build/apps/snarkd ]; then SNARKD_BIN=build/apps/snarkd; fi
CPUS=${CPUS:-0-$(($(nproc) - 1))}
for f in "$ZKEY" "$WTNS"; do
  [ -f "$f" ] || bn254_fail "$f not found (sh scripts/bn254-bench-circuits.sh 16 makes the default files)"
done
bn254_tools
OUT=$(dirname "$ZKEY")/peers
mkdir -p "$OUT"
if bn254_stale "$OUT/vk.json" "$ZKEY"; then
  "$SNARKJS" zkey export verificationkey "$ZKEY" "$OUT/vk.json" >/dev/null
fi

# Pinning: taskset where present (util-linux); the cores' count goes to OpenMP.
PIN=""
if command -v taskset >/dev/null 2>&1; then PIN="taskset -c $CPUS "; fi
NCPU=$(taskset -c "$CPUS" nproc 2>/dev/null || nproc)
export OMP_NUM_THREADS="$NCPU"

# Each side: LABEL|COMMAND for scripts/time-alternating.cjs, writing proof_TAG.json and
# public_TAG.json. A side is kept only if its untimed first run succeeds (that run also warms
# the page cache for the timed ones).
SIDES=""
TAGS=""
try_side() {
  tag=$1 label=$2 cmd=$3
  if $cmd >"$OUT/first_$tag.log" 2>&1; then
    SIDES="$SIDES
$label|$cmd"
    TAGS="$TAGS $tag"
  else
    echo "$label: skipped, its first run failed (exit $?; $OUT/first_$tag.log):" >&2
    tail -n 3 "$OUT/first_$tag.log" | sed 's/^/  | /' >&2
  fi
}
try_side snarkjs "snarkjs groth16 prove" \
  "${PIN}$SNARKJS groth16 prove $ZKEY $WTNS $OUT/proof_snarkjs.json $OUT/public_snarkjs.json"
if [ -x "$RAPIDSNARK" ]; then
  try_side rapidsnark "rapidsnark prover" \
    "${PIN}$RAPIDSNARK $ZKEY $WTNS $OUT/proof_rapidsnark.json $OUT/public_rapidsnark.json"
else
  echo "rapidsnark prover: skipped, $RAPIDSNARK not found (bench/circom/README.md builds it)" >&2
fi
if [ -n "${SNARKD_BIN:-}" ]; then
  try_side snarkd "snarkd prove --zkey" "${PIN}$SNARKD_BIN prove --zkey $ZKEY --witness $WTNS \
--proof $OUT/proof_snarkd.json --public $OUT/public_snarkd.json --no-progress"
fi
case $TAGS in " snarkjs"*) ;; *) bn254_fail "snarkjs groth16 prove failed: nothing to compare against" ;; esac

echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n), cores $CPUS of $(nproc)," \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "zkey $ZKEY ($(du -h "$ZKEY" | cut -f1)), witness $WTNS; $RUNS runs each, alternating"
# Word splitting on newlines only: each side is one argument.
old_ifs=$IFS
IFS='
'
# shellcheck disable=SC2086 # split on newlines, one argument per side
node scripts/time-alternating.cjs "$RUNS" $SIDES
IFS=$old_ifs

for tag in $TAGS; do
  "$SNARKJS" groth16 verify "$OUT/vk.json" "$OUT/public_$tag.json" "$OUT/proof_$tag.json" >"$OUT/verify_$tag.log" 2>&1 ||
    bn254_fail "snarkjs groth16 verify rejects the $tag proof ($OUT/verify_$tag.log)"
  [ "$(tr -d ' \n\r\t' <"$OUT/public_$tag.json")" = "$(tr -d ' \n\r\t' <"$OUT/public_snarkjs.json")" ] ||
    bn254_fail "$tag's public signals differ from snarkjs's"
  echo "snarkjs groth16 verify accepts the $tag proof"
done
