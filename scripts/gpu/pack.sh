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
  for f in "$build/$p"*; do
    [ -e "$f" ] || { echo "pack: missing $build/$p" >&2; exit 1; }
    rel=${f#"$build"/}
    mkdir -p "$stage/$(dirname "$rel")"
    cp -P "$f" "$stage/$rel"
    [ -L "$stage/$rel" ] || strip --strip-unneeded "$stage/$rel" 2> /dev/null || true
  done
done
mkdir -p "$(dirname "$out")"
tar -cf - -C "$stage" . | xz -T2 -6 > "$out"
ls -l "$out"
