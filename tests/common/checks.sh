# Sourced by the shell tests (tests/cli, tests/server): one line per check, failures counted in
# $failures; $T is the test's temporary directory, $PID its daemon's (empty when none runs).

# begin_test NAME: a fresh $T (/tmp/NAME-XXXXXX), no failures yet, no daemon. On exit the daemon
# $PID and the processes listed in $ALSO_KILL are stopped and $T removed; an interrupt exits
# the same way.
begin_test() {
  T=$(mktemp -d "/tmp/$1-XXXXXX")
  PID=""
  ALSO_KILL=""
  failures=0
  trap '[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null; for p in $ALSO_KILL; do kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
  trap 'exit 1' INT TERM HUP PIPE
}

# end_test WHAT [LOG]: exit 1 naming the failures (and the last 40 lines of LOG), else report
# that every WHAT check passed.
end_test() {
  if [ "$failures" -ne 0 ]; then
    if [ -n "${2:-}" ]; then echo "$failures check(s) failed; log:"; tail -40 "$2"; else echo "$failures check(s) failed"; fi
    exit 1
  fi
  echo "all $1 checks passed"
}

pass() { echo "ok   $*"; }
fail() {
  echo "FAIL $*"
  failures=$((failures + 1))
}

# expect CODE PATTERN cmd...: runs cmd, wants exit code CODE and PATTERN (grep -E) in stderr+stdout.
expect() {
  code=$1; pattern=$2; shift 2
  "$@" >"$T/out" 2>&1
  got=$?
  if [ "$got" -eq "$code" ] && { [ -z "$pattern" ] || grep -Eq -- "$pattern" "$T/out"; }; then
    pass "[$code] $pattern"
  else
    fail "[want $code got $got, want /$pattern/]: $*"
    sed 's/^/     | /' "$T/out" | head -5
  fi
}

# same FILE1 FILE2 WHAT: the two files are byte-identical.
same() {
  if cmp -s "$1" "$2"; then pass "$3"; else fail "$3"; fi
}

# The caller's daemon is still running.
alive() { [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; }

# start_snarkd CONFIG: `$S serve --config CONFIG` in the background ($PID, log $T/daemon.log),
# waiting until it has written $T/ports.json (the config's ports_file); sets $TCP and $HTTP from
# it. A daemon that did not start ends the test.
start_snarkd() {
  rm -f "$T/ports.json"
  "$S" serve --config "$1" >>"$T/daemon.log" 2>&1 &
  PID=$!
  i=0
  while [ ! -s "$T/ports.json" ] && [ $i -lt 300 ]; do
    alive || break
    sleep 0.1; i=$((i + 1))
  done
  if [ ! -s "$T/ports.json" ]; then
    fail "the daemon did not start ($1)"; tail -20 "$T/daemon.log"; exit 1
  fi
  TCP=$(sed -n 's/.*"tcp": \([0-9]*\).*/\1/p' "$T/ports.json")
  HTTP=$(sed -n 's/.*"http": \([0-9]*\).*/\1/p' "$T/ports.json")
}
