#!/bin/sh
# Installs what is missing, builds (Release) and runs every test. CI runs exactly this.
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
# The vector scripts must reproduce the committed known-answer files byte for byte.
sh tools/vectors/generate.sh
git diff --exit-code -- tests/vectors || { echo "tests/vectors differ from their generator" >&2; exit 1; }
ctest --test-dir build --output-on-failure -j"$(nproc)"
