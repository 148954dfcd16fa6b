#!/bin/sh
# Regenerates every known-answer vector under tests/vectors/ from independent implementations
# (@noble/curves, mcl-wasm, ffjavascript). Usage: sh tools/vectors/generate.sh   (needs node + npm)
set -eu
cd "$(dirname "$0")"
[ -d node_modules/@noble/curves ] && [ -d node_modules/ffjavascript ] || npm install --no-audit --no-fund >/dev/null
# The generators (verify_bellperson.mjs is a verifier, run by tests/cli).
for script in curves.mjs pairing.mjs bn254.mjs; do
  echo "vectors: $script"
  node "$script"
done
