#!/bin/sh
# usage: check_exports.sh LIBRARY.so NAME...
# nm -D must list every NAME as a defined function, and the library must export no other
# function (snarkd's own C++ symbols stay inside: the version script).
set -u
lib=$1
shift
T=$(mktemp)
trap 'rm -f "$T"' EXIT
nm -D --defined-only "$lib" | awk '$2 == "T" || $2 == "W" { print $3 }' | sed 's/@.*//' | sort > "$T"
status=0
for name in "$@"; do
  if grep -qx "$name" "$T"; then echo "ok   $name"; else echo "FAIL $name is not exported by $lib"; status=1; fi
done
extra=$(printf '%s\n' "$@" | sort | comm -23 "$T" -)
if [ -n "$extra" ]; then
  echo "FAIL $lib exports functions beyond the ABI:"; echo "$extra" | head -20; status=1
fi
exit $status
