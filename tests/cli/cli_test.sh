#!/bin/sh
# usage: cli_test.sh SNARKD_BINARY REPO_ROOT
# Each check prints one line; the script exits 1 at the end if any failed.
set -u
S=$1
ROOT=$2
F=$ROOT/tests/r1cs/fixtures
Z=$ROOT/tests/groth16/fixtures
NOBLE=$ROOT/tools/vectors/verify_bellperson.mjs
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
failures=0

# expect CODE PATTERN cmd...: runs cmd, wants exit code CODE and PATTERN (grep -E) in stderr+stdout.
expect() {
  code=$1; pattern=$2; shift 2
  "$@" >"$T/out" 2>&1
  got=$?
  if [ "$got" -eq "$code" ] && { [ -z "$pattern" ] || grep -Eq -- "$pattern" "$T/out"; }; then
    echo "ok   [$code] $pattern"
  else
    echo "FAIL [want $code got $got, want /$pattern/]: $*"
    sed 's/^/     | /' "$T/out" | head -5
    failures=$((failures + 1))
  fi
}

# Copies $1 to $2 with byte $3 (0-based offset) replaced by the value $4 (octal escape, e.g. \377).
patch_byte() {
  cp "$1" "$2"
  printf "$4" | dd of="$2" bs=1 seek="$3" conv=notrunc status=none
}

[ -f "$ROOT/tools/vectors/node_modules/@noble/curves/package.json" ] || {
  echo "FAIL: tools/vectors/node_modules missing: run (cd tools/vectors && npm install)"; exit 1; }

echo "== the independent verifier's own self-test (constructed valid/tampered proofs)"
expect 0 "" node "$NOBLE" --self-test

echo "== bellperson flavour: setup, prove, verify (snarkd and @noble/curves)"
expect 0 "INSECURE" "$S" setup --r1cs "$F/fixture.r1cs" --params "$T/k.params" --vk "$T/k.vk" --seed 7
expect 0 "" "$S" prove --params "$T/k.params" --r1cs "$F/fixture.r1cs" --witness "$F/fixture.wtns" \
  --proof "$T/p.bin" --public "$T/pub.json" --threads 2
expect 0 "^valid" "$S" verify --vk "$T/k.vk" --proof "$T/p.bin" --public "$T/pub.json"
expect 0 "^valid" "$S" verify --vk "$T/k.params" --proof "$T/p.bin" --public "$T/pub.json"
expect 0 "^valid" node "$NOBLE" "$T/k.vk" "$T/p.bin" "$T/pub.json"
sed 's/"5"/"6"/' "$T/pub.json" > "$T/pub_bad.json"
expect 1 "^invalid" "$S" verify --vk "$T/k.vk" --proof "$T/p.bin" --public "$T/pub_bad.json"
expect 1 "^invalid" node "$NOBLE" "$T/k.vk" "$T/p.bin" "$T/pub_bad.json"
# A second proof of the same statement: the pair verifies as one batch (multi-partition file).
"$S" prove --params "$T/k.params" --r1cs "$F/fixture.r1cs" --witness "$F/fixture.wtns" --proof "$T/p2.bin" >/dev/null 2>&1
cat "$T/p.bin" "$T/p2.bin" > "$T/pp.bin"
printf '[%s,%s]' "$(cat "$T/pub.json")" "$(cat "$T/pub.json")" > "$T/pp.json"
expect 0 "^valid" "$S" verify --vk "$T/k.vk" --proof "$T/pp.bin" --public "$T/pp.json"
expect 0 "^valid" node "$NOBLE" "$T/k.vk" "$T/pp.bin" "$T/pp.json"
printf '[%s,%s]' "$(cat "$T/pub.json")" "$(cat "$T/pub_bad.json")" > "$T/pp_bad.json"
expect 1 "^invalid" "$S" verify --vk "$T/k.vk" --proof "$T/pp.bin" --public "$T/pp_bad.json"
expect 0 "bellperson params" "$S" info "$T/k.params"

echo "== snarkjs flavour: prove from a snarkjs zkey, verify ours and snarkjs's own proofs"
M=$Z/multiplier
expect 0 "" "$S" prove --zkey "$M/multiplier.zkey" --witness "$M/multiplier.wtns" --proof "$T/sp.json" --public "$T/spub.json"
expect 0 "^valid" "$S" verify --vk "$M/verification_key.json" --proof "$T/sp.json" --public "$T/spub.json"
expect 0 "^valid" "$S" verify --vk "$M/multiplier.zkey" --proof "$T/sp.json" --public "$T/spub.json"
expect 0 "^valid" "$S" verify --vk "$M/verification_key.json" --proof "$M/proof.json" --public "$M/public.json"
expect 0 "" "$S" export-vk --zkey "$M/multiplier.zkey" --out "$T/vk.json"
expect 0 "^valid" "$S" verify --vk "$T/vk.json" --proof "$M/proof.json" --public "$M/public.json"
sed 's/"11"/"12"/' "$M/public.json" > "$T/spub_bad.json"
expect 1 "^invalid" "$S" verify --vk "$M/verification_key.json" --proof "$M/proof.json" --public "$T/spub_bad.json"

echo "== bad inputs: exit 2, the message names the file"
expect 2 "unknown command" "$S" frobnicate
expect 2 "missing --proof" "$S" verify --vk "$T/k.vk" --public "$T/pub.json"
expect 2 "exactly one of --zkey and --params" "$S" prove --zkey a --params b --witness w --proof p --public q
expect 2 "unknown option --bogus" "$S" info --bogus x
expect 2 "nonexistent.zkey" "$S" prove --zkey "$T/nonexistent.zkey" --witness "$M/multiplier.wtns" --proof "$T/x" --public "$T/y"
head -c 700 "$M/multiplier.zkey" > "$T/trunc.zkey"
expect 2 "trunc.zkey" "$S" prove --zkey "$T/trunc.zkey" --witness "$M/multiplier.wtns" --proof "$T/x" --public "$T/y"
patch_byte "$M/multiplier.zkey" "$T/garbled.zkey" 0 'x'
expect 2 "garbled.zkey" "$S" prove --zkey "$T/garbled.zkey" --witness "$M/multiplier.wtns" --proof "$T/x" --public "$T/y"
head -c 2000 "$T/k.params" > "$T/trunc.params"
expect 2 "trunc.params" "$S" prove --params "$T/trunc.params" --r1cs "$F/fixture.r1cs" --witness "$F/fixture.wtns" --proof "$T/x"
patch_byte "$T/k.params" "$T/flags.params" 0 '\377'
expect 2 "flags.params" "$S" verify --vk "$T/flags.params" --proof "$T/p.bin" --public "$T/pub.json"
head -c 100 "$F/fixture.r1cs" > "$T/trunc.r1cs"
expect 2 "trunc.r1cs" "$S" prove --params "$T/k.params" --r1cs "$T/trunc.r1cs" --witness "$F/fixture.wtns" --proof "$T/x"
head -c 90 "$F/fixture.wtns" > "$T/trunc.wtns"
expect 2 "trunc.wtns" "$S" prove --params "$T/k.params" --r1cs "$F/fixture.r1cs" --witness "$T/trunc.wtns" --proof "$T/x"
expect 2 "lincomb.wtns: has [0-9]+ witness values" "$S" prove --zkey "$M/multiplier.zkey" --witness "$Z/lincomb/lincomb.wtns" --proof "$T/x" --public "$T/y"
# The last witness value changed: unsatisfied. With the circuit: the failing constraint; with
# only a zkey: the self-check refuses the proof.
size=$(wc -c < "$F/fixture.wtns")
patch_byte "$F/fixture.wtns" "$T/unsat.wtns" $((size - 32)) '\007'
expect 2 "does not satisfy constraint [0-9]+ of .*fixture.r1cs" "$S" prove --params "$T/k.params" --r1cs "$F/fixture.r1cs" --witness "$T/unsat.wtns" --proof "$T/x"
size=$(wc -c < "$M/multiplier.wtns")
patch_byte "$M/multiplier.wtns" "$T/unsat_m.wtns" $((size - 32)) '\007'
expect 2 "does not satisfy" "$S" prove --zkey "$M/multiplier.zkey" --witness "$T/unsat_m.wtns" --proof "$T/x" --public "$T/y"
expect 2 "does not satisfy constraint" "$S" prove --zkey "$M/multiplier.zkey" --witness "$T/unsat_m.wtns" --r1cs "$M/multiplier.r1cs" --proof "$T/x" --public "$T/y"
[ ! -e "$T/x" ] && echo "ok   no proof file written for refused witnesses" || { echo "FAIL: a proof file was written"; failures=$((failures + 1)); }
# pi_a's x replaced by 1: (1, y) is not on the curve.
awk 'f == 1 { sub(/"[0-9]+"/, "\"1\""); f = 2 } /"pi_a"/ { f = 1 } { print }' "$M/proof.json" > "$T/offcurve.json"
expect 2 "offcurve.json" "$S" verify --vk "$M/verification_key.json" --proof "$T/offcurve.json" --public "$M/public.json"
R=52435875175126190479447740508185965837690552500527637822603658699938581184513
sed "s/\"[0-9]*\"/\"$R\"/" "$T/pub.json" > "$T/big.json"
expect 2 "big.json" "$S" verify --vk "$T/k.vk" --proof "$T/p.bin" --public "$T/big.json"
printf '["1"]' > "$T/short.json"
expect 2 "short.json: 1 public inputs, the verifying key expects 3" "$S" verify --vk "$T/k.vk" --proof "$T/p.bin" --public "$T/short.json"
head -c 191 "$T/p.bin" > "$T/short.bin"
expect 2 "short.bin" "$S" verify --vk "$T/k.vk" --proof "$T/short.bin" --public "$T/pub.json"

if [ "$failures" -ne 0 ]; then echo "$failures check(s) failed"; exit 1; fi
echo "all CLI checks passed"
