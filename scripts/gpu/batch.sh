#!/bin/sh
# Several scripts/gpu/*.sh in one device call (a lease is minutes; each call pays a start-up).
# Unpacks the carried binaries (an xz tarball of a Release sm_90 build tree, made by
# scripts/gpu/pack.sh) into b/, runs each named script with B=b and its own OUT under /tmp, then
# leaves in the real $OUT one logs.tgz and every script's summary (the device tool returns at
# most 8 files). Prints each summary last.
#   usage: sh scripts/gpu/batch.sh CARRY.tar.xz 'name:script.sh [args]' ...
#   e.g.   sh scripts/gpu/batch.sh build-carry/bin.tar.xz 'kern:run_kernels.sh' 'cards:small_cards_tests.sh'
set -u
tarball=$1; shift
FINAL=${OUT:-/tmp/snarkd-batch}
mkdir -p b "$FINAL" /tmp/batch
tar -xJf "$tarball" -C b || { echo "cannot unpack $tarball"; exit 2; }
for spec in "$@"; do
  name=${spec%%:*}
  cmd=${spec#*:}
  mkdir -p "/tmp/batch/$name"
  t=$(date +%s)
  # shellcheck disable=SC2086  # cmd is a script name and its arguments
  OUT="/tmp/batch/$name" B=b sh scripts/gpu/$cmd > "/tmp/batch/$name/stdout.log" 2>&1
  echo "== $name ($cmd): rc=$?, $(( $(date +%s) - t )) s" >> "$FINAL/batch.txt"
done
tar czf "$FINAL/logs.tgz" -C /tmp/batch . 2> /dev/null
for d in /tmp/batch/*/; do
  name=$(basename "$d")
  for s in "$d"summary.txt "$d"tests-summary.txt; do
    [ -f "$s" ] && cp "$s" "$FINAL/$name-$(basename "$s")"
  done
done
for f in "$FINAL"/*summary.txt; do [ -f "$f" ] && { echo "### $f"; tail -c 2500 "$f"; }; done
cat "$FINAL/batch.txt"
