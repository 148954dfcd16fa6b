#!/bin/sh
# Packs the binaries of a Release sm_90 build for the device tool's carry (64 MiB at most):
# the named build-tree paths, stripped, into one xz tarball keeping the tree's layout, so the
# scripts under scripts/gpu/ find them with B=<unpacked dir> (scripts/gpu/batch.sh unpacks it).
#   usage: sh scripts/gpu/pack.sh BUILD OUT.tar.xz PATH... (paths relative to BUILD; a shared
#          library's versioned names are taken with it)
set -eu
build=$1; out=$2; shift 2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
for p in "$@"; do
  for f in "$build/$p" "$build/$p".*; do
    [ -e "$f" ] || { [ "$f" = "$build/$p" ] && { echo "pack: missing $build/$p" >&2; exit 1; }; continue; }
    rel=${f#"$build"/}
    mkdir -p "$stage/$(dirname "$rel")"
    cp -P "$f" "$stage/$rel"
    [ -L "$stage/$rel" ] || strip --strip-unneeded "$stage/$rel" 2> /dev/null || true
  done
done
mkdir -p "$(dirname "$out")"
# -9e: the binaries share the CUDA library's code; its long matches took 146 MB of test
# binaries to 17 MB where -6 gave 66 MB.
tar -cf - -C "$stage" . | xz -T2 -9e > "$out"
ls -l "$out"
