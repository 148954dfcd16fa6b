#!/bin/sh
# snarkjs 0.7.6 against snarkd_dev_ptau (tools/dev_ptau), the insecure development powers-of-tau
# writer that scripts/bn254-lib.sh uses by default:
#   1. a 2^8 file is identical, section by section (1-7, 12-15), to what `snarkjs powersoftau
#      prepare phase2` makes of its own sections 1-7: the Lagrange sections match snarkjs's
#      inverse FFTs, including section 12's top level (2^9 points from 2^9 - 1 powers);
#   2. tests/bn254/dev_ptau/chain.circom (a 2^7 domain) keyed from a 2^7 file (the domain is the
#      file's power, so zkey new reads section 12's top level for H) and from the 2^8 file:
#      `groth16 setup`, `zkey contribute`, `wtns calculate`, `groth16 prove`, `groth16 verify`.
# `snarkjs powersoftau verify` is not run: it rejects any file without a contribution record
# ("This file has no contribution!") and a valid record needs snarkjs's proof-of-knowledge
# transcript (BLAKE2b challenge hashes, ChaCha-derived G2 points), which a file whose secrets
# one party chose has no use for.
#
# Run from the repository root:  sh scripts/bn254-dev-ptau-check.sh   (about 30 s)
# Environment (and those of scripts/bn254-lib.sh): DEV_PTAU, the snarkd_dev_ptau binary
# (default build/tools/dev_ptau/snarkd_dev_ptau). Outputs under $BN254_DIR/dev_ptau.
# Exit status 77 (ctest's skip) when node or npm is missing.
set -eu

CIRCUIT=tests/bn254/dev_ptau/chain.circom
[ -f "$CIRCUIT" ] || { echo "run from the repository root ($CIRCUIT not found)" >&2; exit 2; }
for tool in node npm; do
  command -v $tool >/dev/null 2>&1 || { echo "bn254 dev ptau check: skipped, $tool not found"; exit 77; }
done
. scripts/bn254-lib.sh
DEV_PTAU=${DEV_PTAU:-build/tools/dev_ptau/snarkd_dev_ptau}
[ -x "$DEV_PTAU" ] || bn254_fail "$DEV_PTAU not found (ninja -C build snarkd_dev_ptau, or set DEV_PTAU)"
bn254_tools
OUT=$BN254_DIR/dev_ptau
rm -rf "$OUT"
mkdir -p "$OUT"
LOG=$OUT/log.txt
: >"$LOG"

bn254_step "snarkd_dev_ptau 7 and 8"
bn254_quiet "$DEV_PTAU" 7 "$OUT/dev7.ptau" --seed 7
bn254_quiet "$DEV_PTAU" 8 "$OUT/dev8.ptau" --seed 8

bn254_step "snarkjs powersoftau prepare phase2 of the 2^8 file, compared section by section"
bn254_quiet "$SNARKJS" powersoftau prepare phase2 "$OUT/dev8.ptau" "$OUT/snarkjs8.ptau"
node - "$OUT/dev8.ptau" "$OUT/snarkjs8.ptau" <<'EOF' || bn254_fail "sections differ from snarkjs's"
const fs = require("fs");
// iden3 binary container: magic, version, section count, then (id u32, size u64, body).
function sections(file) {
  const b = fs.readFileSync(file), out = new Map();
  let o = 12;
  for (let n = b.readUInt32LE(8); n > 0; --n) {
    const id = b.readUInt32LE(o), size = Number(b.readBigUInt64LE(o + 4));
    out.set(id, b.subarray(o + 12, o + 12 + size));
    o += 12 + size;
  }
  return out;
}
const ours = sections(process.argv[2]), theirs = sections(process.argv[3]);
let bad = 0;
for (const id of [1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15]) {
  const same = ours.has(id) && theirs.has(id) && ours.get(id).equals(theirs.get(id));
  if (!same) { console.error(`section ${id} differs`); ++bad; }
}
if (![...theirs.keys()].every((id) => ours.has(id))) { console.error("snarkjs wrote a section we lack"); ++bad; }
process.exit(bad ? 1 : 0);
EOF

bn254_step "circom2 $CIRCUIT"
bn254_quiet "$CIRCOM" "$CIRCUIT" --r1cs --wasm --prime bn128 -o "$OUT"
echo '{"x": "3"}' >"$OUT/input.json"
bn254_quiet "$SNARKJS" wtns calculate "$OUT/chain_js/chain.wasm" "$OUT/input.json" "$OUT/chain.wtns"
for p in 7 8; do
  bn254_step "2^$p ptau: groth16 setup, zkey contribute, prove, verify"
  k=$OUT/chain$p
  bn254_quiet "$SNARKJS" groth16 setup "$OUT/chain.r1cs" "$OUT/dev$p.ptau" "${k}_0.zkey"
  bn254_quiet "$SNARKJS" zkey contribute "${k}_0.zkey" "$k.zkey" --name=dev-ptau-check -e="dev ptau check $p"
  bn254_quiet "$SNARKJS" zkey export verificationkey "$k.zkey" "${k}_vk.json"
  bn254_quiet "$SNARKJS" groth16 prove "$k.zkey" "$OUT/chain.wtns" "${k}_proof.json" "${k}_public.json"
  bn254_quiet "$SNARKJS" groth16 verify "${k}_vk.json" "${k}_public.json" "${k}_proof.json"  # exit 1 when invalid
done
bn254_step "dev ptau check: OK"
