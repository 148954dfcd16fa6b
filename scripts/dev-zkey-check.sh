#!/bin/sh
# snarkjs 0.7.6 against snarkd_dev_zkey (tools/dev_zkey), the insecure development .zkey + .wtns
# generator for benchmark machines without node or snarkjs. For each curve (bn254, bls12-381), a
# 2^10 key from a fixed seed, then:
#   1. `snarkjs zkey export verificationkey` of the zkey equals the tool's --vk byte for byte;
#   2. `snarkjs wtns check` finds the witness satisfies the tool's --r1cs;
#   3. `snarkjs groth16 verify` accepts the proof snarkd's CPU prover made (--proof) and rejects it
#      with the first public input plus one;
#   4. `snarkjs groth16 prove` proves with the zkey and witness, its proof verifies and its
#      public.json equals the tool's;
#   5. when SNARKD_BIN is an executable: `snarkd prove` likewise; when RAPIDSNARK is set:
#      rapidsnark's prover (bn254 only).
#
# Run from the repository root:  sh scripts/dev-zkey-check.sh   (about 15 s)
# Environment (and those of scripts/bn254-lib.sh): DEV_ZKEY, the snarkd_dev_zkey binary (default
# build/tools/dev_zkey/snarkd_dev_zkey); SNARKD_BIN, RAPIDSNARK (optional provers). Outputs under
# $BN254_DIR/dev_zkey. Exit status 77 (ctest's skip) when node or npm is missing.
set -eu

for tool in node npm; do
  command -v $tool >/dev/null 2>&1 || { echo "dev zkey check: skipped, $tool not found"; exit 77; }
done
[ -f scripts/bn254-lib.sh ] || { echo "run from the repository root" >&2; exit 2; }
. scripts/bn254-lib.sh
DEV_ZKEY=${DEV_ZKEY:-build/tools/dev_zkey/snarkd_dev_zkey}
[ -x "$DEV_ZKEY" ] || bn254_fail "$DEV_ZKEY not found (ninja -C build snarkd_dev_zkey, or set DEV_ZKEY)"
bn254_tools
OUT=$BN254_DIR/dev_zkey
rm -rf "$OUT"
mkdir -p "$OUT"
LOG=$OUT/log.txt
: >"$LOG"

step() { echo "dev zkey check: $*"; }

# expect_invalid VK PUBLIC PROOF: snarkjs must reject, saying "Invalid proof" (not failing otherwise).
expect_invalid() {
  if out=$("$SNARKJS" groth16 verify "$@" 2>&1); then bn254_fail "snarkjs accepted a tampered statement: $*"; fi
  echo "$out" >>"$LOG"
  case $out in *"Invalid proof"*) ;; *) bn254_fail "snarkjs failed otherwise on $*: $out" ;; esac
}

# other_prover NAME CMD...: CMD writes $d/proof_NAME.json and $d/public_NAME.json, which must verify.
other_prover() {
  name=$1
  shift
  step "$curve: $name prove"
  bn254_quiet "$@" "$d/K.zkey" "$d/W.wtns" "$d/proof_$name.json" "$d/public_$name.json"
  bn254_quiet "$SNARKJS" groth16 verify "$d/vk.json" "$d/public_$name.json" "$d/proof_$name.json"
  node -e 'const f = require("fs"), [a, b] = process.argv.slice(1).map((p) => JSON.parse(f.readFileSync(p)));
    process.exit(JSON.stringify(a) === JSON.stringify(b) ? 0 : 1)' "$d/public.json" "$d/public_$name.json" ||
    bn254_fail "$name's public signals differ from the tool's"
}

for curve in bn254 bls12-381; do
  d=$OUT/$curve
  mkdir -p "$d"
  step "$curve: snarkd_dev_zkey --log 10"
  bn254_quiet "$DEV_ZKEY" --curve $curve --log 10 --seed 10 --zkey "$d/K.zkey" --wtns "$d/W.wtns" \
    --vk "$d/vk.json" --public "$d/public.json" --proof "$d/proof.json" --r1cs "$d/C.r1cs"
  bn254_quiet "$SNARKJS" zkey export verificationkey "$d/K.zkey" "$d/vk_snarkjs.json"
  cmp -s "$d/vk.json" "$d/vk_snarkjs.json" || bn254_fail "$curve: snarkjs's verification key differs from --vk"
  bn254_quiet "$SNARKJS" wtns check "$d/C.r1cs" "$d/W.wtns"
  step "$curve: snarkjs verifies snarkd's proof, rejects a tampered public input"
  bn254_quiet "$SNARKJS" groth16 verify "$d/vk.json" "$d/public.json" "$d/proof.json"
  node -e 'const f = require("fs"), p = JSON.parse(f.readFileSync(process.argv[1]));
    p[0] = (BigInt(p[0]) + 1n).toString(); f.writeFileSync(process.argv[2], JSON.stringify(p))' \
    "$d/public.json" "$d/public_tampered.json"
  expect_invalid "$d/vk.json" "$d/public_tampered.json" "$d/proof.json"
  other_prover snarkjs "$SNARKJS" groth16 prove
  if [ -x "${SNARKD_BIN:-}" ]; then other_prover snarkd "$SNARKD_BIN" prove; else step "$curve: no snarkd CLI (SNARKD_BIN=${SNARKD_BIN:-}), not tried"; fi
  [ -z "${RAPIDSNARK:-}" ] || [ $curve != bn254 ] || other_prover rapidsnark "$RAPIDSNARK"
done
step OK
