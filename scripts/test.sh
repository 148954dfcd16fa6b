#!/bin/sh
# Installs what is missing, builds (Release) and runs every test, the circom/snarkjs interop
# script and the fuzz targets. CI runs exactly this.
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
# Every repository path named in the docs and in code comments exists (seconds).
python3 scripts/check_paths.py
# Without a visible GPU (CI) the GPU tests skip, so the CUDA backend is only compile-checked:
# PTX at -O0 instead of optimised sm_90 code (the whole build: 26 min 47 s → 7 min 36 s on the
# 2-core AMD EPYC VM; SNARKD_CUDA_COMPILE_CHECK in CMakeLists.txt). The variable of that name
# (ON|OFF) overrides the choice.
check=OFF
{ command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; } || check=ON
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSNARKD_CUDA_COMPILE_CHECK="${SNARKD_CUDA_COMPILE_CHECK:-$check}"
cmake --build build -j"$(nproc)"
# The vector scripts must reproduce the committed known-answer files byte for byte.
sh tools/vectors/generate.sh
git diff --exit-code -- tests/vectors || { echo "tests/vectors differ from their generator" >&2; exit 1; }
ctest --test-dir build --output-on-failure -j"$(nproc)"
# circom2 → snarkjs keys → snarkd proofs → snarkjs verify, and snarkjs proofs → snarkd verify.
sh scripts/interop.sh
# Every file reader under libFuzzer with ASan + UBSan (clang), 60 s per target by default.
sh scripts/fuzz.sh "${SNARKD_FUZZ_SECONDS:-60}"
