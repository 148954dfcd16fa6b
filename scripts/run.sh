#!/bin/sh
# Installs what is missing, builds (Release) and runs the main job: prove and verify the bundled
# examples end to end with the `snarkd` CLI —
#   1. circom/snarkjs: the multiplier circuit's snarkjs .zkey + .wtns (tests/groth16/fixtures,
#      made by circom2 + snarkjs, see the README there) → proof.json, verified by snarkd;
#   2. Filecoin/bellperson: a PoRep-shaped circuit of 2^16 constraints (snarkd synth), an
#      INSECURE development setup (.params/.vk), a 192-byte proof with step timings, verified.
# Outputs go to build/example/. It builds only the `snarkd` binary, in the build configuration
# scripts/test.sh shares (scripts/configure.sh: without a visible GPU the CUDA backend is only
# compile-checked), and installs only the build's packages (install-deps.sh run: no Chromium or
# Node.js). Everything else: scripts/test.sh, or `cmake --build build` (snarkctl, tests, the
# benchmark suite ./build/bench/snarkd_bench --quick).
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh run
sh scripts/configure.sh
cmake --build build -j"$(nproc)" --target snarkd_cli
S=./build/apps/snarkd
X=tests/groth16/fixtures/multiplier
T=build/example
mkdir -p "$T"

echo "== circom/snarkjs example: snarkd prove --zkey"
$S prove --zkey "$X/multiplier.zkey" --witness "$X/multiplier.wtns" --proof "$T/proof.json" --public "$T/public.json"
$S verify --vk "$X/verification_key.json" --proof "$T/proof.json" --public "$T/public.json"

echo "== Filecoin-shaped example: 2^16 constraints, bellperson-format keys and proof"
$S synth --constraints 65536 --inputs 20 --circuit "$T/porep16.csr" --witness "$T/porep16.wtns"
$S setup --r1cs "$T/porep16.csr" --params "$T/porep16.params" --vk "$T/porep16.vk" --seed 1
$S prove --params "$T/porep16.params" --r1cs "$T/porep16.csr" --witness "$T/porep16.wtns" \
  --proof "$T/porep16.proof" --public "$T/porep16.public.json" --json
$S verify --vk "$T/porep16.vk" --proof "$T/porep16.proof" --public "$T/porep16.public.json"
