# Sourced by the CLI test scripts (cli_test.sh, snarkctl_test.sh): one line per check, failures
# counted in $failures; $T is the caller's temporary directory.

# expect CODE PATTERN cmd...: runs cmd, wants exit code CODE and PATTERN (grep -E) in stderr+stdout.
expect() {
  code=$1; pattern=$2; shift 2
  "$@" >"$T/out" 2>&1
  got=$?
  if [ "$got" -eq "$code" ] && { [ -z "$pattern" ] || grep -Eq -- "$pattern" "$T/out"; }; then
    echo "ok   [$code] $pattern"
  else
    echo "FAIL [want $code got $got, want /$pattern/]: $*"
    sed 's/^/     | /' "$T/out" | head -5
    failures=$((failures + 1))
  fi
}

# same FILE1 FILE2 WHAT: the two files are byte-identical.
same() {
  if cmp -s "$1" "$2"; then echo "ok   $3"; else echo "FAIL $3"; failures=$((failures + 1)); fi
}
