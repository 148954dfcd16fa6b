#!/bin/sh
# usage: status_page.sh SNARKD SNARKCTL REPO_ROOT [OUT.png]
# The live status page in headless Chromium (Debian package `chromium`; ctest test_status_page,
# label daemon): a daemon on two simulated devices with 2 workers each finishes a job, fails one
# (an unsatisfied witness) and cancels one; then, held by its sim_hold_file (no compute stage
# ends while the file exists), it gets a few multi-partition jobs and the page is rendered only
# once `snarkctl status` shows a worker computing — a handshake, no stage time to race. Chromium
# runs the page's JavaScript against /status and the rendered DOM must show the build, the host,
# throughput and duration quantiles, the devices with their ledgers honestly labelled (a
# simulated device's "VRAM" is a host arena), busy workers in their stages, the keys and the
# jobs; no cluster section (one host, SQLite; cluster_test.sh checks the hosts table). With OUT.png it also writes the screenshot (docs/status_page.png).
# A missing chromium is a failure, not a skip: CI installs it (scripts/install-deps.sh).
# Robust on a loaded CI runner: its own temp dir and Chromium profile, ports picked by the
# kernel, every wait bounded.
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
sim_hold_file = "$T/hold"
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
: >"$T/hold"  # from here no compute stage ends: the page sees running work, however slow the machine
c=$("$C" submit --circuit lincomb "$L" "$L") || die "submit"
"$C" cancel "$c" >/dev/null || die "cancel $c"
"$C" submit --circuit multiplier "$M" "$M" "$M" --priority high >/dev/null || die "submit"
"$C" submit --circuit lincomb "$L" "$L" >/dev/null || die "submit"
"$C" submit --circuit multiplier "$M" --priority critical >/dev/null || die "submit"
"$C" submit --circuit multiplier "$M" "$M" >/dev/null || die "submit"
i=0  # workers hold partitions in their compute stage (they stay there while the file exists)
while [ "$("$C" status 2>/dev/null | grep -c ': compute job')" -lt 2 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
[ $i -lt 600 ] || die "no worker computing after 60 s: $("$C" status 2>&1)"

# Chromium as root in a container: no sandbox, no GPU, /dev/shm may be tiny; a profile, HOME
# and caches of its own (concurrent runs never share one); killed if it hangs.
browse() {
  HOME=$T/home XDG_CONFIG_HOME=$T/home/.config XDG_CACHE_HOME=$T/home/.cache \
    timeout -k 5 90 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --disable-extensions --disable-background-networking --user-data-dir="$T/profile" --crash-dumps-dir="$T/crash" \
    --virtual-time-budget=4000 "$@" "http://127.0.0.1:$HTTP/" 2>>"$T/chromium.log"
}
PATTERNS='class="chip compute">compute<
job [0-9]+ · partition [0-9]
simulated VRAM \(host arena\) [0-9.]+ [KMGT]?i?B of [0-9.]+ [KMGT]?i?B reserved \(peak [1-9][0-9.]* [KMGT]?i?B\)
simulated VRAM \(host arena\) [1-9][0-9.]* [KMGT]?i?B of
live · 
<b>sim:0</b>
<b>sim:1</b>
<td>multiplier</td><td>BLS12-381</td><td>snarkjs</td>
class="s-failed">failed<
class="s-cancelled">cancelled<
class="s-done">done<
proofs do not verify
CUDA (on|off)
host memory: [0-9.]+ [KMGT]?i?B of [1-9][0-9.]* [KMGT]?i?B in use
snarkd: [1-9][0-9.]* [KMGT]?i?B resident \(peak
NVML: (ok|unavailable)
<span class="dim">partitions/s</span>
completed in the last [0-9]
<td>lincomb</td><td>1</td><td>[0-9.]+ (ms|s)</td>
<td>compute</td><td>1</td><td>[0-9.]+ (ms|s)</td>
id="cluster-section" hidden'
# The DOM once the page has rendered (virtual time runs its first poll), without the script
# (whose source holds the page's words too).
browse --dump-dom | sed '/<script>/,/<\/script>/d' >"$T/dom.html"
check() {  # check PATTERN: the rendered DOM contains it
  if grep -Eq -- "$1" "$T/dom.html"; then echo "ok   page shows /$1/"; else echo "FAIL page lacks /$1/"; failures=$((failures + 1)); fi
}
echo "$PATTERNS" >"$T/patterns"
while IFS= read -r p; do check "$p"; done <"$T/patterns"
# A simulated device has no VRAM and no GPU: nothing on the page may say otherwise.
if grep -Eq -- '(^|[^d]) VRAM [0-9]|GPU figures' "$T/dom.html"; then
  echo "FAIL the page shows a VRAM or GPU figure for a simulated device"; failures=$((failures + 1))
else
  echo "ok   no VRAM or GPU figure for simulated devices"
fi
kill -0 "$PID" 2>/dev/null || die "the daemon died while serving the page"
if [ -n "$OUT" ]; then
  browse --hide-scrollbars --window-size=1400,1250 --screenshot="$OUT" >/dev/null
  [ -s "$OUT" ] && echo "ok   screenshot $OUT" || { echo "FAIL no screenshot"; failures=$((failures + 1)); }
fi
if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed; Chromium's log and the daemon's log:"
  tail -20 "$T/chromium.log"
  tail -20 "$T/log"
  exit 1
fi
echo "status page checks passed"
