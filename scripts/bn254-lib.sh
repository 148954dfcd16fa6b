# Sourced by the BN254 (circom's bn128) scripts: scripts/bn254-fixtures.sh,
# scripts/bn254-bench-circuits.sh and scripts/bench-bn254-peers.sh (issue 23). Run from the
# repository root. Everything they make lives under $BN254_DIR (default build/bn254, git-ignored).
#
# Environment:
#   BN254_DIR   where outputs are cached (default build/bn254)
#   NPM_BN254   an npm prefix holding the pinned tools below (default build/npm-bn254; installed
#               there once). A prefix of its own rather than build/npm-tools: `npm install
#               --no-save` prunes what it was not asked for, and scripts/interop.sh installs only
#               snarkjs and circom2 there.
#   BN254_PTAU_TOOL, DEV_PTAU, BN254_PTAU20   how bn254_ptau makes a powers-of-tau file (below)

BN254_DIR=${BN254_DIR:-build/bn254}
NPM_BN254=${NPM_BN254:-build/npm-bn254}
# Pinned like scripts/interop.sh; circomlib for the circuits, circomlibjs for their inputs
# (Poseidon hashes, Baby Jubjub EdDSA signatures).
BN254_NPM_PKGS="snarkjs@0.7.6 circom2@0.2.23 circomlib@2.0.5 circomlibjs@0.1.7"

bn254_fail() {
  echo "bn254: FAIL: $*" >&2
  exit 1
}
bn254_step() { echo "bn254: $*"; }

# Installs the pinned tools when one is missing or of another version; sets SNARKJS and CIRCOM.
bn254_tools() {
  command -v node >/dev/null 2>&1 || bn254_fail "node not found"
  case $NPM_BN254 in
    /*) npm_abs=$NPM_BN254 ;;
    *) npm_abs=$(pwd)/$NPM_BN254 ;;
  esac
  for pkg in $BN254_NPM_PKGS; do
    name=${pkg%@*}
    have=$(node -e 'try { console.log(require(process.argv[1]).version) } catch (e) {}' \
      "$npm_abs/node_modules/$name/package.json")
    if [ "$name@$have" != "$pkg" ]; then
      command -v npm >/dev/null 2>&1 || bn254_fail "npm not found"
      bn254_step "installing $BN254_NPM_PKGS into $NPM_BN254"
      mkdir -p "$NPM_BN254"
      # shellcheck disable=SC2086 # the package list is meant to split
      npm install --prefix "$NPM_BN254" --no-save --no-package-lock --no-audit --no-fund \
        $BN254_NPM_PKGS >"$NPM_BN254/install.log" 2>&1 ||
        bn254_fail "npm install failed (see $NPM_BN254/install.log)"
      break
    fi
  done
  SNARKJS=$npm_abs/node_modules/.bin/snarkjs
  # shellcheck disable=SC2034 # used by the scripts that source this file
  CIRCOM=$npm_abs/node_modules/.bin/circom2
  # shellcheck disable=SC2034
  CIRCOM_LIBS=$npm_abs/node_modules # `include "circomlib/circuits/..."` resolves under it
}

# bn254_quiet CMD...: runs CMD with its output appended to $LOG (set by the caller); when it fails,
# prints the log's tail and fails.
bn254_quiet() {
  if ! "$@" >>"$LOG" 2>&1; then
    tail -n 20 "$LOG" >&2
    bn254_fail "command failed: $*"
  fi
}

# bn254_stale TARGET SOURCE...: TARGET is missing or older than a SOURCE (POSIX test has no -nt).
bn254_stale() {
  target=$1
  shift
  [ ! -f "$target" ] || [ -n "$(find "$@" -newer "$target")" ]
}

# bn254_ptau POWER: sets PTAU to a prepared bn128 powers-of-tau file of 2^POWER (enough for an
# r1cs whose nConstraints + nPublic + 1 <= 2^POWER), made once under $BN254_DIR/ptau. Its secrets
# are public or were one machine's: these keys are for tests and benchmarks only, never for use.
#   BN254_PTAU_TOOL=dev (default): snarkd_dev_ptau (tools/dev_ptau, $DEV_PTAU), devPOWER.ptau,
#     from the fixed seed 23 (2-core dev VM, loaded: 7 s CPU at 2^16, 95 s at 2^20;
#     bench/circom/README.md).
#   BN254_PTAU_TOOL=snarkjs: snarkjs's new + contribute + prepare phase2, potPOWER.ptau. slow.
bn254_ptau() {
  case ${BN254_PTAU_TOOL:-dev} in
    dev) bn254_dev_ptau "$1" ;;
    snarkjs) bn254_snarkjs_ptau "$1" ;;
    *) bn254_fail "BN254_PTAU_TOOL must be dev or snarkjs, not $BN254_PTAU_TOOL" ;;
  esac
}

# DEV_PTAU: the snarkd_dev_ptau binary (default build/tools/dev_ptau/snarkd_dev_ptau), built
# with `cmake --build build` when missing and build/ is configured.
bn254_dev_ptau() {
  p=$1
  PTAU=$BN254_DIR/ptau/dev$p.ptau
  [ -f "$PTAU" ] && return 0
  DEV_PTAU=${DEV_PTAU:-build/tools/dev_ptau/snarkd_dev_ptau}
  if [ ! -x "$DEV_PTAU" ]; then
    [ -f build/CMakeCache.txt ] ||
      bn254_fail "$DEV_PTAU not found: build it (cmake -S . -B build; ninja -C build snarkd_dev_ptau)" \
        "or set DEV_PTAU"
    bn254_step "building snarkd_dev_ptau"
    cmake --build build --target snarkd_dev_ptau >/dev/null || bn254_fail "building snarkd_dev_ptau failed"
  fi
  mkdir -p "$BN254_DIR/ptau"
  bn254_step "powers of tau 2^$p with $DEV_PTAU (INSECURE development file), cached as $PTAU"
  t0=$(date +%s)
  "$DEV_PTAU" "$p" "$PTAU" --seed 23 || bn254_fail "snarkd_dev_ptau failed"
  bn254_step "ptau 2^$p: $(($(date +%s) - t0)) s"
}

# `prepare phase2` is the slow step (2-core dev VM, loaded: 31 s at 2^10, 122 s at 2^12, 1959 s
# at 2^16 after 187 s of new + contribute; 2^20 estimated at ~12 h: bench/circom/README.md), so
# 2^20 and above are made only with BN254_PTAU20=1.
bn254_snarkjs_ptau() {
  p=$1
  PTAU=$BN254_DIR/ptau/pot$p.ptau
  [ -f "$PTAU" ] && return 0
  if [ "$p" -ge 20 ] && [ "${BN254_PTAU20:-0}" != 1 ]; then
    echo "bn254: no 2^$p ptau ($PTAU): set BN254_PTAU20=1 to make it with snarkjs" \
      "(estimated ~12 h at 2^20 on the 2-core dev VM), or use BN254_PTAU_TOOL=dev" >&2
    exit 3
  fi
  d=$BN254_DIR/ptau
  mkdir -p "$d"
  bn254_step "powers of tau 2^$p (snarkjs new, contribute, prepare phase2): slow, cached as $PTAU"
  t0=$(date +%s)
  "$SNARKJS" powersoftau new bn128 "$p" "$d/pot${p}_0.ptau" >/dev/null
  "$SNARKJS" powersoftau contribute "$d/pot${p}_0.ptau" "$d/pot${p}_1.ptau" \
    --name=snarkd-bn254 -e="snarkd bn254 test entropy $p" >/dev/null
  t1=$(date +%s)
  "$SNARKJS" powersoftau prepare phase2 "$d/pot${p}_1.ptau" "$PTAU.part" >/dev/null
  mv "$PTAU.part" "$PTAU"
  rm -f "$d/pot${p}_0.ptau" "$d/pot${p}_1.ptau"
  bn254_step "ptau 2^$p: new+contribute $((t1 - t0)) s, prepare phase2 $(($(date +%s) - t1)) s"
}

# bn254_info R1CS ZKEY: one line with the circuit's sizes: constraints, public signals, wires
# and the zkey's domain (snarkjs: the power of two above nConstraints + nPublic + 1).
bn254_info() {
  node - "$1" "$2" <<'EOF'
const fs = require("fs");
// Both files are iden3 binary containers: magic, version, section count, then (type u32,
// size u64, body) sections. Only the header sections are read.
function section(file, want) {
  const b = fs.readFileSync(file);
  let o = 12;
  for (let n = b.readUInt32LE(8); n > 0; --n) {
    const type = b.readUInt32LE(o), size = Number(b.readBigUInt64LE(o + 4));
    if (type === want) return b.subarray(o + 12, o + 12 + size);
    o += 12 + size;
  }
  throw new Error(`${file}: no section ${want}`);
}
const r = section(process.argv[2], 1); // r1cs header: n8, prime, nWires, nOut, nPubIn, nPrvIn, nLabels, nConstraints
const n8 = r.readUInt32LE(0);
const [nWires, nOut, nPubIn, nPrvIn] = [0, 1, 2, 3].map((i) => r.readUInt32LE(4 + n8 + 4 * i));
const nConstraints = r.readUInt32LE(4 + n8 + 24);
const z = section(process.argv[3], 2); // groth16 zkey header: n8q, q, n8r, r, nVars, nPublic, domainSize
const n8q = z.readUInt32LE(0), n8r = z.readUInt32LE(4 + n8q);
const domain = z.readUInt32LE(8 + n8q + n8r + 8);
console.log(`constraints ${nConstraints}, public ${nOut + nPubIn} (outputs ${nOut}, inputs ${nPubIn}), ` +
            `private inputs ${nPrvIn}, wires ${nWires}, domain 2^${Math.log2(domain)} = ${domain}`);
EOF
}
