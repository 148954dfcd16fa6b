#!/bin/sh
# usage: snarkctl_test.sh SNARKD SNARKCTL REPO_ROOT
# snarkctl's command line against a real daemon (CPU backend, the snarkjs multiplier circuit):
# connection options before or after the verb, per-verb --help and --version, --json, and the
# snarkjs files `await|prove --proof OUT.json --public PUB.json` write (checked by snarkd verify
# and byte for byte against snarkjs's own public.json). The daemon's own behaviour is
# tests/server's. Each check prints one line; exit 1 at the end if any failed.
set -u
S=$1
C=$2
ROOT=$3
M=$ROOT/tests/groth16/fixtures/multiplier
. "$ROOT/tests/common/checks.sh"
begin_test snarkctl-test
unset SNARKD_SOCKET SNARKD_ADDR SNARKD_TOKEN

echo "== without a daemon: help, version, usage errors"
expect 0 "^snarkctl [0-9]+\.[0-9]+\.[0-9]+$" "$C" --version
expect 0 "Subcommands" "$C" --help
for verb in submit await prove cancel status metrics preload evict; do
  expect 0 "snarkctl $verb" "$C" "$verb" --help
done
expect 2 "unknown command 'frobnicate'" "$C" frobnicate
expect 2 "unknown option --bogus" "$C" status --bogus
expect 3 "UNAVAILABLE" "$C" --socket "$T/nobody.sock" status

echo "== a daemon on a private socket"
cat >"$T/d.toml" <<EOT
[server]
socket = "$T/d.sock"
http_listen = ""
ports_file = "$T/ports.json"
[engine]
devices = "cpu"
[journal]
state_dir = "$T/state"
[[circuit]]
id = "multiplier"
zkey = "$M/multiplier.zkey"
EOT
"$S" serve --config "$T/d.toml" >"$T/daemon.log" 2>&1 &
PID=$!
i=0  # ready once it has written its ports file (after the circuit loaded and the socket is bound)
while [ ! -s "$T/ports.json" ] && [ $i -lt 600 ] && kill -0 "$PID" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
[ -s "$T/ports.json" ] || { echo "FAIL: the daemon did not start"; tail -20 "$T/daemon.log"; exit 1; }

echo "== connection options before or after the verb"
expect 0 "^key multiplier: snarkjs" "$C" --socket "$T/d.sock" status
expect 0 "^key multiplier: snarkjs" "$C" status --socket "$T/d.sock"
expect 0 "\"keys\"" "$C" --json --socket "$T/d.sock" status
export SNARKD_SOCKET=$T/d.sock
expect 0 "^key multiplier: snarkjs" "$C" status

echo "== snarkjs files from the daemon: prove and await write proof.json + public.json"
expect 0 "^job [0-9]+ done" "$C" prove --circuit multiplier "$M/multiplier.wtns" --proof "$T/proof.json" \
  --public "$T/public.json" --no-progress
expect 0 "^valid" "$S" verify "$M/verification_key.json" "$T/public.json" "$T/proof.json"
same "$T/public.json" "$M/public.json" "public.json is byte-identical to snarkjs's"
expect 0 "snarkjs proof json" "$S" info "$T/proof.json"
job=$("$C" submit --circuit multiplier "$M/multiplier.wtns")
expect 0 "^job $job done" "$C" --socket "$T/d.sock" await "$job" --proof "$T/awaited.json" --public "$T/awaited_public.json"
expect 0 "^valid" "$S" verify "$M/verification_key.json" "$T/awaited_public.json" "$T/awaited.json"
expect 0 "^job $job done" "$C" await "$job" --proof "$T/awaited.bin"
expect 0 "^valid" "$S" verify "$M/verification_key.json" "$T/awaited_public.json" "$T/awaited.bin"
expect 0 "" "$S" convert-proof "$T/awaited.bin" "$T/converted.json"
same "$T/converted.json" "$T/awaited.json" "the daemon's 192 bytes converted by snarkd = the proof.json snarkctl wrote"
two=$("$C" submit --circuit multiplier "$M/multiplier.wtns" "$M/multiplier.wtns")
expect 2 "a snarkjs proof.json holds one proof, the job has 2 partitions" "$C" await "$two" --proof "$T/two.json"
expect 0 "^job $two done" "$C" await "$two" --proof "$T/two.bin" --public "$T/two_public.json"
expect 0 "^valid" "$S" verify "$M/verification_key.json" "$T/two_public.json" "$T/two.bin"

kill -TERM "$PID"
wait "$PID"
rc=$?
PID=""
[ "$rc" -eq 0 ] && echo "ok   SIGTERM: the daemon exited 0" || { echo "FAIL: the daemon exited $rc"; failures=$((failures + 1)); }

end_test snarkctl
