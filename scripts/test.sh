#!/bin/sh
# Installs what is missing, builds (Release) and runs every test, the circom/snarkjs interop
# script and the fuzz targets. CI runs exactly this.
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
# The vector scripts must reproduce the committed known-answer files byte for byte.
sh tools/vectors/generate.sh
git diff --exit-code -- tests/vectors || { echo "tests/vectors differ from their generator" >&2; exit 1; }
ctest --test-dir build --output-on-failure -j"$(nproc)"
# circom2 → snarkjs keys → snarkd proofs → snarkjs verify, and snarkjs proofs → snarkd verify.
sh scripts/interop.sh
# Every file reader under libFuzzer with ASan + UBSan (clang), 60 s per target by default.
sh scripts/fuzz.sh "${SNARKD_FUZZ_SECONDS:-60}"
