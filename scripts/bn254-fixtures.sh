#!/bin/sh
# BN254 (circom's bn128) Groth16 fixtures made with circom2 + snarkjs + circomlib from npm
# (issue 23): the circuits under tests/bn254/fixtures, each compiled, keyed, witnessed and proved
# by snarkjs, whose own verifier must accept its proof with the public signals circomlibjs
# computes (tests/bn254/fixtures/inputs.mjs). Binaries are made here, not committed.
#
# Run from the repository root:  sh scripts/bn254-fixtures.sh
# For each NAME in poseidon, merkle, eddsa, $BN254_DIR/fixtures/NAME/ holds:
#   NAME.r1cs, NAME_js/NAME.wasm   circom2 --r1cs --wasm --prime bn128
#   NAME.zkey                      groth16 setup + one zkey contribute (so delta != 1)
#   verification_key.json          zkey export verificationkey
#   input.json, expected_public.json, NAME.wtns (wtns calculate, then wtns check)
#   proof.json, public.json        snarkjs groth16 prove; groth16 verify must accept
# and $BN254_DIR/fixtures/fixtures.txt lists each one's sizes (constraints, public, domain).
# Idempotent: a file is remade only when missing or older than what it is made from.
#
# Interop with snarkd (every run, when SNARKD_BIN is set; ctest's test_bn254_fixtures sets it):
#   snarkd prove → snarkjs groth16 verify accepts, with snarkjs's public signals;
#   snarkjs's proof → snarkd verify accepts (under verification_key.json and under the zkey);
#   snarkd export-vk writes snarkjs's verification_key.json byte for byte;
#   a tampered public input and a tampered proof → both verifiers reject (snarkd exit 1
#   "invalid", snarkjs exit 1 "Invalid proof"), for snarkd's proof and snarkjs's alike.
#
# Environment (and those of scripts/bn254-lib.sh):
#   PTAU        a prepared bn128 ptau of at least 2^13 (default: made once by bn254_ptau,
#               $BN254_DIR/ptau/dev13.ptau from snarkd_dev_ptau, about a second)
#   SNARKD_BIN  the snarkd binary for the interop checks (skipped, saying so, when unset)
# Exit status 77 (ctest's skip) when node or npm is missing.
set -eu

FIXTURES=tests/bn254/fixtures
NAMES="poseidon merkle eddsa"
[ -d "$FIXTURES" ] || { echo "run from the repository root ($FIXTURES not found)" >&2; exit 2; }
for tool in node npm; do
  command -v $tool >/dev/null 2>&1 || { echo "bn254 fixtures: skipped, $tool not found"; exit 77; }
done
. scripts/bn254-lib.sh
bn254_tools
OUT=$BN254_DIR/fixtures
mkdir -p "$OUT"

# 2^13 = 8192 rows: EdDSA-Poseidon is the largest, 8086 constraints + 3 public + 1.
[ -n "${PTAU:-}" ] || bn254_ptau 13

LOG=$OUT/log.txt
: >"$LOG"

# expect_verdict WANT WHO VK PUBLIC PROOF: WHO (snarkd or snarkjs) must say valid (WANT 0) or
# invalid (WANT 1): the exit status and the verdict line both, so an error is not taken for
# "invalid".
expect_verdict() {
  want=$1 who=$2
  shift 2
  if [ "$who" = snarkd ]; then
    out=$("$SNARKD_BIN" verify "$@" 2>&1) && got=0 || got=$?
    word=$([ "$want" = 0 ] && echo valid || echo invalid)
    printf '%s\n' "$out" | grep -qx "$word" || got="$got ($out)"
  else
    out=$("$SNARKJS" groth16 verify "$@" 2>&1) && got=0 || got=$?
    word=$([ "$want" = 0 ] && echo "OK!" || echo "Invalid proof")
    printf '%s\n' "$out" | grep -q "$word" || got="$got ($(printf '%s' "$out" | tail -n 2))"
  fi
  [ "$got" = "$want" ] || bn254_fail "$who verify $*: expected exit $want ($word), got $got"
}

# tamper IN OUT KIND: a copy of public.json with its first value plus one, or of proof.json with
# pi_a and pi_c swapped (still valid points, no longer a proof).
tamper() {
  node - "$1" "$2" "$3" <<'EOF'
const fs = require("fs");
const [src, dst, kind] = process.argv.slice(2);
const j = JSON.parse(fs.readFileSync(src, "utf8"));
if (kind === "public") j[0] = (BigInt(j[0]) + 1n).toString();
else [j.pi_a, j.pi_c] = [j.pi_c, j.pi_a];
fs.writeFileSync(dst, JSON.stringify(j, null, 1));
EOF
}

# interop NAME DIR: the checks listed at the top, both directions.
interop() {
  name=$1 w=$2
  vk=$w/verification_key.json
  bn254_quiet "$SNARKD_BIN" prove "$w/$name.zkey" "$w/$name.wtns" "$w/proof_snarkd.json" "$w/public_snarkd.json" \
    --no-progress
  [ "$(tr -d ' \n\r\t' <"$w/public_snarkd.json")" = "$(tr -d ' \n\r\t' <"$w/public.json")" ] ||
    bn254_fail "$name: snarkd's public signals differ from snarkjs's"
  expect_verdict 0 snarkjs "$vk" "$w/public_snarkd.json" "$w/proof_snarkd.json"
  expect_verdict 0 snarkd "$vk" "$w/public.json" "$w/proof.json"
  expect_verdict 0 snarkd "$w/$name.zkey" "$w/public.json" "$w/proof.json"
  bn254_quiet "$SNARKD_BIN" export-vk "$w/$name.zkey" "$w/vk_snarkd.json"
  cmp -s "$w/vk_snarkd.json" "$vk" || bn254_fail "$name: snarkd export-vk differs from snarkjs's $vk"
  for tag in snarkd snarkjs; do
    proof=$w/proof.json public=$w/public.json
    [ "$tag" = snarkd ] && proof=$w/proof_snarkd.json public=$w/public_snarkd.json
    tamper "$public" "$w/public_bad.json" public
    tamper "$proof" "$w/proof_bad.json" proof
    for verifier in snarkd snarkjs; do
      expect_verdict 1 $verifier "$vk" "$w/public_bad.json" "$proof"
      expect_verdict 1 $verifier "$vk" "$public" "$w/proof_bad.json"
    done
  done
  bn254_step "$name: snarkd proves and snarkjs verifies, snarkjs proves and snarkd verifies; tampering rejected by both"
}

if bn254_stale "$OUT/eddsa/input.json" "$FIXTURES/inputs.mjs"; then
  bn254_step "inputs (circomlibjs)"
  bn254_quiet node "$FIXTURES/inputs.mjs" "$CIRCOM_LIBS" "$OUT"
fi

: >"$OUT/fixtures.txt.part"
for name in $NAMES; do
  src=$FIXTURES/$name/$name.circom
  w=$OUT/$name
  mkdir -p "$w"
  if bn254_stale "$w/$name.r1cs" "$src"; then
    bn254_step "$name: circom2"
    bn254_quiet "$CIRCOM" "$src" --r1cs --wasm --prime bn128 -l "$CIRCOM_LIBS" -o "$w"
  fi
  if bn254_stale "$w/$name.zkey" "$w/$name.r1cs" "$PTAU"; then
    bn254_step "$name: groth16 setup, zkey contribute"
    bn254_quiet "$SNARKJS" groth16 setup "$w/$name.r1cs" "$PTAU" "$w/${name}_0.zkey"
    bn254_quiet "$SNARKJS" zkey contribute "$w/${name}_0.zkey" "$w/$name.zkey.part" \
      --name=snarkd-bn254 -e="snarkd bn254 fixture $name"
    mv "$w/$name.zkey.part" "$w/$name.zkey"
    rm -f "$w/${name}_0.zkey"
    bn254_quiet "$SNARKJS" zkey export verificationkey "$w/$name.zkey" "$w/verification_key.json"
  fi
  if bn254_stale "$w/$name.wtns" "$w/$name.r1cs" "$w/input.json"; then
    bn254_step "$name: witness"
    bn254_quiet "$SNARKJS" wtns calculate "$w/${name}_js/$name.wasm" "$w/input.json" "$w/$name.wtns"
    bn254_quiet "$SNARKJS" wtns check "$w/$name.r1cs" "$w/$name.wtns"
  fi
  if bn254_stale "$w/proof.json" "$w/$name.zkey" "$w/$name.wtns"; then
    bn254_step "$name: snarkjs groth16 prove"
    bn254_quiet "$SNARKJS" groth16 prove "$w/$name.zkey" "$w/$name.wtns" "$w/proof.json" "$w/public.json"
  fi
  # Checked on every run: cheap, and it is the point of the fixtures.
  "$SNARKJS" groth16 verify "$w/verification_key.json" "$w/public.json" "$w/proof.json" >>"$LOG" 2>&1 ||
    bn254_fail "$name: snarkjs groth16 verify rejects its own proof"
  [ "$(tr -d ' \n\r\t' <"$w/public.json")" = "$(tr -d ' \n\r\t' <"$w/expected_public.json")" ] ||
    bn254_fail "$name: public.json differs from circomlibjs's expected_public.json"
  [ -z "${SNARKD_BIN:-}" ] || interop "$name" "$w"
  echo "$name: $(bn254_info "$w/$name.r1cs" "$w/$name.zkey")" | tee -a "$OUT/fixtures.txt.part"
done
[ -n "${SNARKD_BIN:-}" ] || echo "bn254 fixtures: SNARKD_BIN not set, the snarkd interop checks were skipped"
mv "$OUT/fixtures.txt.part" "$OUT/fixtures.txt"
bn254_step "fixtures ok: snarkjs verifies its proofs (ptau $PTAU), in $OUT"
