#!/bin/sh
# snarkd vs snarkjs on the same circom circuit, zkey and witness (bench/circom/README.md).
#
# Run from the repository root:  scripts/bench-vs-snarkjs.sh
# Times `snarkjs groth16 prove` and `snarkd prove --zkey` as whole processes (start-up, file
# reading and writing included), alternately A B A B ... so that drift in the speed of a shared
# machine hits both, prints the medians and the ratio, then checks that `snarkjs groth16 verify`
# accepts snarkd's proof. Everything is cached under build/bench14.
#
# Environment:
#   SNARKD_BIN  the snarkd binary (default build/apps/snarkd)
#   PTAU        a prepared BLS12-381 powers-of-tau file of at least 2^14 (default
#               build/bench14/pot14_final.ptau; made if missing, which takes minutes)
#   NPM_TOOLS   a node_modules/.bin holding snarkjs and circom2 (default
#               /work/npm-tools/node_modules/.bin if present, else installed into build/npm-tools)
#   RUNS        timed runs of each prover (default 5)
set -eu

SNARKD_BIN=${SNARKD_BIN:-build/apps/snarkd}
OUT=build/bench14
PTAU=${PTAU:-$OUT/pot14_final.ptau}
RUNS=${RUNS:-5}
CIRCUIT=bench/circom/bench14.circom

if [ ! -f "$CIRCUIT" ]; then
  echo "run from the repository root ($CIRCUIT not found)" >&2
  exit 2
fi
mkdir -p "$OUT"

if [ -z "${NPM_TOOLS:-}" ]; then
  if [ -x /work/npm-tools/node_modules/.bin/snarkjs ] && [ -x /work/npm-tools/node_modules/.bin/circom2 ]; then
    NPM_TOOLS=/work/npm-tools/node_modules/.bin
  else
    NPM_TOOLS=build/npm-tools/node_modules/.bin
    if [ ! -x "$NPM_TOOLS/snarkjs" ] || [ ! -x "$NPM_TOOLS/circom2" ]; then
      echo "installing snarkjs and circom2 into build/npm-tools"
      npm install --prefix build/npm-tools --no-audit --no-fund snarkjs@0.7.6 circom2@0.2.23
    fi
  fi
fi
SNARKJS=$NPM_TOOLS/snarkjs
CIRCOM=$NPM_TOOLS/circom2

# Powers of tau: snarkjs's `prepare phase2` is slow (38 minutes for 2^14 on the loaded 2-core dev
# VM), so the file is made once and reused; it is 28 MB, too large for the repository.
if [ ! -f "$PTAU" ]; then
  echo "making $PTAU (powersoftau new + contribute + prepare phase2): this takes minutes"
  mkdir -p "$(dirname "$PTAU")"
  "$SNARKJS" powersoftau new bls12381 14 "$OUT/pot14_0.ptau"
  "$SNARKJS" powersoftau contribute "$OUT/pot14_0.ptau" "$OUT/pot14_1.ptau" \
    --name=bench -e="snarkd bench14 entropy"
  "$SNARKJS" powersoftau prepare phase2 "$OUT/pot14_1.ptau" "$PTAU.part"
  mv "$PTAU.part" "$PTAU"
  rm -f "$OUT/pot14_0.ptau" "$OUT/pot14_1.ptau"
fi

# stale TARGET SOURCE...: TARGET is missing or older than a SOURCE (find -newer: POSIX test has
# no -nt). Circuit, key and witness are each redone only then.
stale() {
  target=$1
  shift
  [ ! -f "$target" ] || [ -n "$(find "$@" -newer "$target")" ]
}
if stale "$OUT/bench14.r1cs" "$CIRCUIT"; then
  echo "compiling $CIRCUIT"
  "$CIRCOM" --r1cs --wasm --prime bls12381 -o "$OUT" "$CIRCUIT"
fi
if stale "$OUT/K.zkey" "$OUT/bench14.r1cs" "$PTAU"; then
  echo "snarkjs groth16 setup (about a minute)"
  "$SNARKJS" groth16 setup "$OUT/bench14.r1cs" "$PTAU" "$OUT/K.zkey.part"
  mv "$OUT/K.zkey.part" "$OUT/K.zkey"
  "$SNARKJS" zkey export verificationkey "$OUT/K.zkey" "$OUT/vk.json"
fi
# Sixteen 64-bit words (below 2^64, as the circuit's bit split requires) and two public inputs.
if stale "$OUT/input.json" "$0"; then
  cat >"$OUT/input.json" <<'EOF'
{"seed": "123456789", "nonce": "987654321",
 "words": ["1", "18446744073709551615", "12297829382473034410", "6148914691236517205",
           "81985529216486895", "1311768467463790320", "16045690984503098046", "3735928559",
           "9223372036854775808", "42", "7", "11400714819323198485",
           "13835058055282163712", "4294967295", "281474976710655", "1099511627776"]}
EOF
fi
if stale "$OUT/W.wtns" "$OUT/bench14.r1cs" "$OUT/input.json"; then
  echo "snarkjs wtns calculate"
  "$SNARKJS" wtns calculate "$OUT/bench14_js/bench14.wasm" "$OUT/input.json" "$OUT/W.wtns.part"
  mv "$OUT/W.wtns.part" "$OUT/W.wtns"
fi
"$SNARKJS" r1cs info "$OUT/bench14.r1cs"

if [ ! -x "$SNARKD_BIN" ]; then
  echo "$SNARKD_BIN not found: build the CLI first or set SNARKD_BIN (the fixtures are ready)" >&2
  exit 2
fi

# Whole-process wall times, alternating, in node (scripts/time-alternating.cjs). A run that
# fails stops the benchmark.
echo "timing $RUNS runs each, alternating (whole-process wall time)"
node scripts/time-alternating.cjs "$RUNS" \
  "snarkjs groth16 prove|$SNARKJS groth16 prove $OUT/K.zkey $OUT/W.wtns $OUT/p.json $OUT/pub.json" \
  "snarkd prove --zkey|$SNARKD_BIN prove --zkey $OUT/K.zkey --witness $OUT/W.wtns --proof $OUT/p2.json --public $OUT/pub2.json"
echo "(goal: speed-up >= 3x)"

echo "snarkjs groth16 verify on snarkd's proof:"
"$SNARKJS" groth16 verify "$OUT/vk.json" "$OUT/pub2.json" "$OUT/p2.json"
# Same public signals as snarkjs's (formatting aside)?
pub_a=$(tr -d ' \n\r\t' <"$OUT/pub.json")
pub_b=$(tr -d ' \n\r\t' <"$OUT/pub2.json")
if [ "$pub_a" != "$pub_b" ]; then
  echo "public inputs differ: snarkjs wrote $pub_a, snarkd $pub_b" >&2
  exit 1
fi
echo "public inputs agree: $pub_b"
