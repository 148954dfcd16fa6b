#!/bin/sh
# usage: status_page.sh SNARKD SNARKCTL REPO_ROOT [OUT.png]
# The live status page in headless Chromium (Debian package `chromium`; ctest test_status_page,
# label daemon): a daemon on two simulated devices with 2 workers each and slow compute stages
# gets a few multi-partition jobs (one cancelled, one failing on an unsatisfied witness);
# Chromium runs the page's JavaScript against /status and the rendered DOM must show the
# devices with their VRAM use, busy workers in their stages, the keys and the jobs. With
# OUT.png it also writes the screenshot (docs/status_page.png).
# A missing chromium is a failure, not a skip: CI installs it (scripts/install-deps.sh).
# Robust on a loaded CI runner: its own temp dir and Chromium profile, ports picked by the
# kernel, every wait bounded, and the DOM taken up to 3 times until the live checks hold.
set -u
S=$1
C=$2
ROOT=$3
OUT=${4:-}
Z=$ROOT/tests/groth16/fixtures
T=$(mktemp -d "${TMPDIR:-/tmp}/snarkd-page-XXXXXX")
PID=""
failures=0
trap '[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM  # so that the EXIT trap cleans up after a signal too
export SNARKD_SOCKET=$T/d.sock
command -v chromium >/dev/null 2>&1 || { echo "FAIL: chromium is not installed (apt-get install chromium)"; exit 1; }
die() {
  echo "FAIL $1"
  [ -f "$T/log" ] && tail -20 "$T/log"
  exit 1
}

cat >"$T/d.toml" <<EOF
[server]
socket = "$T/d.sock"
http_listen = "127.0.0.1:0"
ports_file = "$T/ports.json"
drain_timeout_s = 1
[engine]
devices = "sim:2"
workers_per_device = 2
sim_compute_ms = 6000
host_budget_gib = 0.001
[journal]
state_dir = "$T/state"
[[circuit]]
id = "multiplier"
zkey = "$Z/multiplier/multiplier.zkey"
[[circuit]]
id = "lincomb"
zkey = "$Z/lincomb/lincomb.zkey"
EOF
"$S" serve --config "$T/d.toml" >"$T/log" 2>&1 &
PID=$!
i=0
while [ ! -s "$T/ports.json" ] && [ $i -lt 600 ]; do
  kill -0 "$PID" 2>/dev/null || die "the daemon exited at start-up"
  sleep 0.1
  i=$((i + 1))
done
HTTP=$(sed -n 's/.*"http": \([0-9]*\).*/\1/p' "$T/ports.json")
[ -n "$HTTP" ] || die "no HTTP port in $T/ports.json after 60 s"
M=$Z/multiplier/multiplier.wtns
L=$Z/lincomb/lincomb.wtns
"$C" prove --circuit lincomb "$L" --no-progress >/dev/null || die "prove lincomb"
size=$(wc -c <"$M")
cp "$M" "$T/unsat.wtns"
printf '\007' | dd of="$T/unsat.wtns" bs=1 seek=$((size - 32)) conv=notrunc status=none
"$C" prove --circuit multiplier "$T/unsat.wtns" --no-progress >/dev/null  # fails: shown as failed
c=$("$C" submit --circuit lincomb "$L" "$L") || die "submit"
"$C" cancel "$c" >/dev/null || die "cancel $c"
# 8 partitions of 6 s on 2 devices whose compute engines take one at a time: ≥ 24 s in which
# some worker computes, for Chromium to start and render in.
"$C" submit --circuit multiplier "$M" "$M" "$M" --priority high >/dev/null || die "submit"
"$C" submit --circuit lincomb "$L" "$L" >/dev/null || die "submit"
"$C" submit --circuit multiplier "$M" --priority critical >/dev/null || die "submit"
"$C" submit --circuit multiplier "$M" "$M" >/dev/null || die "submit"
sleep 1

# Chromium as root in a container: no sandbox, no GPU, /dev/shm may be tiny; a profile, HOME
# and caches of its own (concurrent runs never share one); killed if it hangs.
browse() {
  HOME=$T/home XDG_CONFIG_HOME=$T/home/.config XDG_CACHE_HOME=$T/home/.cache \
    timeout -k 5 90 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --disable-extensions --disable-background-networking --user-data-dir="$T/profile" --crash-dumps-dir="$T/crash" \
    --virtual-time-budget=4000 "$@" "http://127.0.0.1:$HTTP/" 2>>"$T/chromium.log"
}
LIVE='class="chip compute">compute<
job [0-9]+ · partition [0-9]
VRAM [0-9.]+ [KMGT]?i?B of [0-9.]+ [KMGT]?i?B reserved \(peak [1-9][0-9.]* [KMGT]?i?B\)
VRAM [1-9][0-9.]* [KMGT]?i?B of
live · '
STATIC='<b>sim:0</b>
<b>sim:1</b>
<td>multiplier</td><td>snarkjs</td>
class="s-failed">failed<
class="s-cancelled">cancelled<
class="s-done">done<
proofs do not verify'
live_ok() { echo "$LIVE" | while IFS= read -r p; do grep -Eq -- "$p" "$T/dom.html" || exit 1; done; }
attempt=1
while :; do
  browse --dump-dom >"$T/dom.html"
  live_ok && break
  [ $attempt -ge 3 ] && break
  echo "note: attempt $attempt: the DOM lacks a live check, taking it again"
  attempt=$((attempt + 1))
done
check() {  # check PATTERN: the rendered DOM contains it
  if grep -Eq -- "$1" "$T/dom.html"; then echo "ok   page shows /$1/"; else echo "FAIL page lacks /$1/"; failures=$((failures + 1)); fi
}
printf '%s\n%s\n' "$STATIC" "$LIVE" >"$T/patterns"
while IFS= read -r p; do check "$p"; done <"$T/patterns"
kill -0 "$PID" 2>/dev/null || die "the daemon died while serving the page"
if [ -n "$OUT" ]; then
  browse --hide-scrollbars --window-size=1400,1000 --screenshot="$OUT" >/dev/null
  [ -s "$OUT" ] && echo "ok   screenshot $OUT" || { echo "FAIL no screenshot"; failures=$((failures + 1)); }
fi
if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed; Chromium's log and the daemon's log:"
  tail -20 "$T/chromium.log"
  tail -20 "$T/log"
  exit 1
fi
echo "status page checks passed"
