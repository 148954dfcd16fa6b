#!/bin/sh
# usage: status_page.sh SNARKD SNARKCTL REPO_ROOT [OUT.png]
# The live status page in headless Chromium (Debian package `chromium`): a daemon on two
# simulated devices with 2 workers each and slow compute stages gets a few multi-partition jobs
# (one cancelled, one failing on an unsatisfied witness); Chromium runs the page's JavaScript
# against /status and the rendered DOM must show the devices, busy workers in their stages, the
# keys and the jobs. With OUT.png it also writes the screenshot (docs/status_page.png).
set -u
S=$1
C=$2
ROOT=$3
OUT=${4:-}
Z=$ROOT/tests/groth16/fixtures
T=$(mktemp -d /tmp/snarkd-page-XXXXXX)
PID=""
failures=0
trap '[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null; rm -rf "$T"' EXIT
export SNARKD_SOCKET=$T/d.sock
command -v chromium >/dev/null 2>&1 || { echo "FAIL: chromium is not installed (apt-get install chromium)"; exit 1; }

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
while [ ! -s "$T/ports.json" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
HTTP=$(sed -n 's/.*"http": \([0-9]*\).*/\1/p' "$T/ports.json")
M=$Z/multiplier/multiplier.wtns
L=$Z/lincomb/lincomb.wtns
"$C" prove --circuit lincomb "$L" --no-progress >/dev/null
size=$(wc -c <"$M")
cp "$M" "$T/unsat.wtns"
printf '\007' | dd of="$T/unsat.wtns" bs=1 seek=$((size - 32)) conv=notrunc status=none
"$C" prove --circuit multiplier "$T/unsat.wtns" --no-progress >/dev/null
c=$("$C" submit --circuit lincomb "$L" "$L")
"$C" cancel "$c" >/dev/null
"$C" submit --circuit multiplier "$M" "$M" "$M" --priority high >/dev/null
"$C" submit --circuit lincomb "$L" "$L" >/dev/null
"$C" submit --circuit multiplier "$M" --priority critical >/dev/null
"$C" submit --circuit multiplier "$M" "$M" >/dev/null
sleep 2

check() {  # check PATTERN: the rendered DOM contains it
  if grep -Eq -- "$1" "$T/dom.html"; then echo "ok   page shows /$1/"; else echo "FAIL page lacks /$1/"; failures=$((failures + 1)); fi
}
chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=4000 --dump-dom "http://127.0.0.1:$HTTP/" >"$T/dom.html" 2>/dev/null
check '<b>sim:0</b>'
check '<b>sim:1</b>'
check 'class="chip compute">compute<'
check 'job [0-9]+ · partition [0-9]'
check '<td>multiplier</td><td>snarkjs</td>'
check 'class="s-failed">failed<'
check 'class="s-cancelled">cancelled<'
check 'class="s-done">done<'
check 'proofs do not verify'
check 'live · '
if [ -n "$OUT" ]; then
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,1000 --virtual-time-budget=4000 \
    --screenshot="$OUT" "http://127.0.0.1:$HTTP/" >/dev/null 2>&1
  [ -s "$OUT" ] && echo "ok   screenshot $OUT" || { echo "FAIL no screenshot"; failures=$((failures + 1)); }
fi
kill -TERM "$PID"
wait "$PID"
PID=""
[ "$failures" -eq 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "status page checks passed"
