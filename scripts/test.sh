#!/bin/sh
# Installs what is missing, builds everything (Release, the configuration scripts/run.sh shares:
# scripts/configure.sh) and runs every test, the known-answer vector check, the circom/snarkjs
# interop script, the .deb + systemd test and the fuzz targets. CI runs exactly this (.ci/run).
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh test
sh scripts/configure.sh
# Every repository path named in the docs and in code comments exists (seconds).
python3 scripts/check_paths.py
cmake --build build -j"$(nproc)"
# The vector scripts must reproduce the committed known-answer files byte for byte.
sh tools/vectors/generate.sh
git diff --exit-code -- tests/vectors || { echo "tests/vectors differ from their generator" >&2; exit 1; }
ctest --test-dir build --output-on-failure -j"$(nproc)"
# circom2 → snarkjs keys → snarkd proofs → snarkjs verify, and snarkjs proofs → snarkd verify.
sh scripts/interop.sh
# The .deb (CPack) installed in a booted Debian 12 container: `systemctl start snarkd`, a proof
# through snarkctl, checked by `snarkd verify`. Skips, saying why, where no container can boot.
sh tests/packaging/deb_systemd_test.sh
# Every file reader under libFuzzer with ASan + UBSan (clang), 60 s per target by default.
sh scripts/fuzz.sh "${SNARKD_FUZZ_SECONDS:-60}"
