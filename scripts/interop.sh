#!/bin/sh
# Interoperability with snarkjs 0.7.6 / circom 2.2.3 (circom2@0.2.23 on npm), run from the repo
# root after the build in ./build (CI runs it after the unit tests).
#
# For every example circuit tests/groth16/fixtures/<name>/<name>.circom (with its input.json):
# compile it with circom --prime bls12381, make a small powers-of-tau file and a zkey with
# snarkjs, compute the witness with snarkjs, then check the snarkd CLI contract:
#   1. snarkd prove --zkey K --witness W --proof P --public X   exits 0,
#      and snarkjs groth16 verify accepts (vk, X, P)
#   2. a snarkjs proof (P2, X2) is accepted by snarkd verify --vk vk --proof P2 --public X2 (exit 0)
#   3. X2 with one public input changed: snarkjs rejects and snarkd verify exits 1
#   4. snarkd export-vk --zkey K --out vk2, and snarkjs verify accepts (vk2, X, P)
#   5. snarkd convert-proof P2 → 192 bytes (snarkd verify accepts) → proof.json (snarkjs accepts)
# Any mismatch stops the script with "interop: FAIL: ..." and exit status 1.
#
# Environment: BUILD_DIR (default build), SNARKD_BIN (default $BUILD_DIR/apps/snarkd),
# NPM_TOOLS (default $BUILD_DIR/npm-tools: snarkjs and circom2 are installed there with
# `npm install --no-save`, no lockfile, once), WORK_DIR (default $BUILD_DIR/interop).
set -eu

BUILD_DIR=${BUILD_DIR:-build}
SNARKD_BIN=${SNARKD_BIN:-$BUILD_DIR/apps/snarkd}
NPM_TOOLS=${NPM_TOOLS:-$BUILD_DIR/npm-tools}
WORK_DIR=${WORK_DIR:-$BUILD_DIR/interop}
FIXTURES=tests/groth16/fixtures
SNARKJS_VERSION=0.7.6
CIRCOM2_VERSION=0.2.23
PTAU_POWER=8 # 2^8 rows: enough for the example circuits (the brief allows up to 10)

fail() {
  echo "interop: FAIL: $*" >&2
  exit 1
}
step() { echo "interop: $*"; }

[ -d "$FIXTURES" ] || fail "run from the repository root ($FIXTURES not found)"
[ -x "$SNARKD_BIN" ] || fail "snarkd binary $SNARKD_BIN not found (build first)"
command -v npm >/dev/null 2>&1 || fail "npm not found"
command -v node >/dev/null 2>&1 || fail "node not found"

# Installed version of an npm package under $NPM_TOOLS, or nothing.
case $NPM_TOOLS in
  /*) tools_abs=$NPM_TOOLS ;;
  *) tools_abs=$(pwd)/$NPM_TOOLS ;;
esac
installed_version() {
  node -e 'try { console.log(require(process.argv[1]).version) } catch (e) {}' \
    "$tools_abs/node_modules/$1/package.json"
}
if [ "$(installed_version snarkjs)" != "$SNARKJS_VERSION" ] ||
  [ "$(installed_version circom2)" != "$CIRCOM2_VERSION" ]; then
  step "installing snarkjs@$SNARKJS_VERSION circom2@$CIRCOM2_VERSION into $NPM_TOOLS"
  mkdir -p "$NPM_TOOLS"
  npm install --prefix "$NPM_TOOLS" --no-save --no-package-lock --no-audit --no-fund \
    "snarkjs@$SNARKJS_VERSION" "circom2@$CIRCOM2_VERSION" >"$NPM_TOOLS/install.log" 2>&1 ||
    fail "npm install failed (see $NPM_TOOLS/install.log)"
fi
SNARKJS="$NPM_TOOLS/node_modules/.bin/snarkjs"
CIRCOM="$NPM_TOOLS/node_modules/.bin/circom2"

rm -rf "$WORK_DIR"
mkdir -p "$WORK_DIR"
LOG="$WORK_DIR/log.txt"

# Runs a tool with its output in the log; prints the log's tail when it fails.
quiet() {
  if ! "$@" >>"$LOG" 2>&1; then
    tail -n 20 "$LOG" >&2
    fail "command failed: $*"
  fi
}
# snarkjs groth16 verify VK PUBLIC PROOF: exit 0 = accepted, 1 = rejected.
snarkjs_verify() {
  "$SNARKJS" groth16 verify "$1" "$2" "$3" >>"$LOG" 2>&1
}

step "powers of tau (bls12381, 2^$PTAU_POWER)"
PTAU="$WORK_DIR/pot.ptau"
quiet "$SNARKJS" powersoftau new bls12381 "$PTAU_POWER" "$WORK_DIR/pot_0.ptau"
quiet "$SNARKJS" powersoftau contribute "$WORK_DIR/pot_0.ptau" "$WORK_DIR/pot_1.ptau" \
  --name=interop -e="snarkd interop ptau"
quiet "$SNARKJS" powersoftau prepare phase2 "$WORK_DIR/pot_1.ptau" "$PTAU"

# A copy of public.json $1 with its first value increased by one, written to $2.
tamper_public() {
  node -e '
    const fs = require("fs");
    const x = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    if (!Array.isArray(x) || x.length === 0) process.exit(2);
    x[0] = (BigInt(x[0]) + 1n).toString();
    fs.writeFileSync(process.argv[2], JSON.stringify(x, null, 1));
  ' "$1" "$2" || fail "cannot tamper with $1 (no public inputs?)"
}

run_circuit() {
  name=$1
  src="$FIXTURES/$name"
  w="$WORK_DIR/$name"
  mkdir -p "$w"
  step "$name: circom, zkey, witness"
  quiet "$CIRCOM" "$src/$name.circom" --r1cs --wasm --prime bls12381 -o "$w"
  quiet "$SNARKJS" groth16 setup "$w/$name.r1cs" "$PTAU" "$w/${name}_0.zkey"
  quiet "$SNARKJS" zkey contribute "$w/${name}_0.zkey" "$w/K.zkey" --name=interop -e="snarkd interop $name"
  quiet "$SNARKJS" zkey export verificationkey "$w/K.zkey" "$w/vk.json"
  quiet "$SNARKJS" wtns calculate "$w/${name}_js/$name.wasm" "$src/input.json" "$w/W.wtns"
  quiet "$SNARKJS" wtns check "$w/$name.r1cs" "$w/W.wtns"

  step "$name: 1. snarkd prove, snarkjs verify"
  "$SNARKD_BIN" prove --zkey "$w/K.zkey" --witness "$w/W.wtns" --proof "$w/proof.json" --public "$w/public.json" ||
    fail "$name: snarkd prove exited $?"
  snarkjs_verify "$w/vk.json" "$w/public.json" "$w/proof.json" || fail "$name: snarkjs rejects the snarkd proof"

  step "$name: 2. snarkjs prove, snarkd verify"
  quiet "$SNARKJS" groth16 prove "$w/K.zkey" "$w/W.wtns" "$w/p2.json" "$w/pub2.json"
  snarkjs_verify "$w/vk.json" "$w/pub2.json" "$w/p2.json" || fail "$name: snarkjs rejects its own proof"
  rc=0
  "$SNARKD_BIN" verify --vk "$w/vk.json" --proof "$w/p2.json" --public "$w/pub2.json" || rc=$?
  [ "$rc" -eq 0 ] || fail "$name: snarkd verify exited $rc on a valid snarkjs proof (expected 0)"

  step "$name: 3. tampered public input"
  tamper_public "$w/pub2.json" "$w/pub_bad.json"
  if snarkjs_verify "$w/vk.json" "$w/pub_bad.json" "$w/p2.json"; then
    fail "$name: snarkjs accepts a tampered public input"
  fi
  rc=0
  "$SNARKD_BIN" verify --vk "$w/vk.json" --proof "$w/p2.json" --public "$w/pub_bad.json" || rc=$?
  [ "$rc" -eq 1 ] || fail "$name: snarkd verify exited $rc on a tampered public input (expected 1)"

  step "$name: 4. snarkd export-vk, snarkjs verify"
  "$SNARKD_BIN" export-vk --zkey "$w/K.zkey" --out "$w/vk2.json" || fail "$name: snarkd export-vk exited $?"
  snarkjs_verify "$w/vk2.json" "$w/public.json" "$w/proof.json" ||
    fail "$name: snarkjs rejects the snarkd proof under the snarkd-exported vk"
  snarkjs_verify "$w/vk2.json" "$w/pub2.json" "$w/p2.json" ||
    fail "$name: snarkjs rejects its own proof under the snarkd-exported vk"

  step "$name: 5. snarkd convert-proof both ways, snarkjs verify"
  "$SNARKD_BIN" convert-proof "$w/p2.json" "$w/p2.bin" || fail "$name: convert-proof to 192 bytes exited $?"
  "$SNARKD_BIN" verify "$w/vk.json" "$w/pub2.json" "$w/p2.bin" || fail "$name: snarkd rejects the converted proof"
  "$SNARKD_BIN" convert-proof "$w/p2.bin" "$w/p3.json" || fail "$name: convert-proof to proof.json exited $?"
  snarkjs_verify "$w/vk.json" "$w/pub2.json" "$w/p3.json" || fail "$name: snarkjs rejects the converted proof"
}

count=0
for circom in "$FIXTURES"/*/*.circom; do
  [ -e "$circom" ] || continue
  name=$(basename "$circom" .circom)
  [ "$(basename "$(dirname "$circom")")" = "$name" ] || continue
  [ -f "$FIXTURES/$name/input.json" ] || fail "$FIXTURES/$name/input.json missing"
  run_circuit "$name"
  count=$((count + 1))
done
[ "$count" -gt 0 ] || fail "no example circuits under $FIXTURES"
step "all $count circuits interoperate"
