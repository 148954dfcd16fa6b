#!/bin/sh
# usage: rust_crate_test.sh CARGO FFI_LIB_DIR BUILD_DIR SNARKD REPO
# The supraseal-c2 crate (rust/supraseal-c2) built offline and tested twice: linked with the
# static archive (SNARKD_SUPRASEAL_LIB_DIR, as Curio links the upstream library: the whole
# suite) and with the shared library found through pkg-config (the build tree's pkgconfig
# folder: one test, for the linking path). Its tests prove
# through every entry point, from 8 threads on one gpu_mtx, and check every proof with
# `snarkd verify` and the @noble/curves verifier.
set -eu
CARGO=$1
LIBDIR=$(realpath "$2") BUILD=$(realpath "$3") SNARKD=$(realpath "$4") REPO=$(realpath "$5")
# Debian's cargo runs the first rustc on PATH (a rustup one on some machines): give it Debian's.
if [ "$CARGO" = /usr/bin/cargo ] && [ -x /usr/bin/rustc ]; then export RUSTC=/usr/bin/rustc; fi
export SNARKD_BIN=$SNARKD SNARKD_NOBLE_VERIFIER=$REPO/tools/vectors/verify_bellperson.mjs RUST_BACKTRACE=0
cd "$REPO/rust/supraseal-c2"
echo "== $("$CARGO" --version), $("${RUSTC:-rustc}" --version)"
echo "== static archive ($LIBDIR/libsnarkd_supraseal.a)"
SNARKD_SUPRASEAL_STATIC=1 SNARKD_SUPRASEAL_LIB_DIR=$LIBDIR CARGO_TARGET_DIR=$BUILD/rust/static \
  "$CARGO" test --offline --locked
# The linking path only (the suite above already ran against the same code).
echo "== shared library through pkg-config ($BUILD/pkgconfig): one test"
PKG_CONFIG_PATH=$BUILD/pkgconfig CARGO_TARGET_DIR=$BUILD/rust/shared "$CARGO" test --offline --locked -- srs_clones
