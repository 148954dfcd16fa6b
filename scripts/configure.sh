#!/bin/sh
# The one build configuration (build/, Release) that scripts/run.sh and scripts/test.sh share, so
# test.sh after run.sh only builds what run.sh left out. Idempotent: a second run changes nothing.
#
# Without a visible GPU the CUDA backend is only compile-checked: PTX at -O0 instead of optimised
# sm_90 code (SNARKD_CUDA_COMPILE_CHECK in CMakeLists.txt; the whole build on the 2-core EPYC VM:
# 26 min 47 s → 7 min 36 s). Such binaries still run on a GPU, JIT-compiling that PTX at load, but
# slowly: never time GPU code built so. SNARKD_CUDA_COMPILE_CHECK=ON|OFF overrides the choice;
# SNARKD_CMAKE_ARGS adds CMake arguments (e.g. "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache").
set -eu
cd "$(dirname "$0")/.."
check=OFF
{ command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; } || check=ON
# Ninja for a new build directory when present (it schedules both cores better than make); an
# existing directory keeps the generator it was made with.
gen=""
if [ ! -f build/CMakeCache.txt ] && command -v ninja >/dev/null 2>&1; then gen="-G Ninja"; fi
# shellcheck disable=SC2086  # $gen and $SNARKD_CMAKE_ARGS are lists of words
cmake -S . -B build $gen -DCMAKE_BUILD_TYPE=Release \
  -DSNARKD_CUDA_COMPILE_CHECK="${SNARKD_CUDA_COMPILE_CHECK:-$check}" ${SNARKD_CMAKE_ARGS:-}
