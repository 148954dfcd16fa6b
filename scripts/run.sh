#!/bin/sh
# Installs what is missing, builds (Release) and runs the main job: for now, the benchmark
# suite's quick mode (field, curve, pairing, NTT and MSM on this machine).
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
./build/bench/snarkd_bench --quick
