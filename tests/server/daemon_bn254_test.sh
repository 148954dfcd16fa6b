#!/bin/sh
# usage: daemon_bn254_test.sh SNARKD SNARKCTL REPO_ROOT SNARKD_DEV_ZKEY
# The daemon proving snarkjs BN254 (circom bn128) keys end to end over its unix socket, on the
# CPU device (ctest test_daemon_bn254, label daemon):
#   - a BN254 zkey from snarkd_dev_zkey (2^10, seed 7) in the config, beside a BLS12-381 one;
#     Status, /status (against docs/STATUS_SCHEMA.json) and the live page's data name each key's
#     curve;
#   - concurrent one-partition jobs, and jobs of two and three partitions (a .wtns, the same
#     witness as BN254 Montgomery bytes, witness paths): every proof written as snarkjs's
#     proof.json by snarkctl (--proof 'p{k}.json': a file per partition) and accepted by `snarkd
#     verify` AND by the independent @noble/curves verifier (tools/vectors/verify_snarkjs_bn254.mjs);
#     both reject a tampered public input; the wire bytes are 256 per proof;
#   - bad witnesses, each refused with its reason while the daemon keeps serving: a BLS12-381
#     .wtns (both curves named), a value ≥ BN254's r, a witness that does not satisfy the circuit
#     (the job fails its self-check);
#   - PreloadKey of snarkjs's own bn128 fixture key, proven and verified against snarkjs's vk;
#   - kill -9 with BN254 jobs queued: after the restart they are re-queued from the spool (.wtns
#     and Montgomery partitions), finish exactly once (journal events) with valid proofs.
# Each check prints one line; the script exits 1 at the end if any failed.
set -u
S=$1
C=$2
ROOT=$3
DEVZKEY=$4
Z=$ROOT/tests/groth16/fixtures
NOBLE=$ROOT/tools/vectors/verify_snarkjs_bn254.mjs
SCHEMA=$ROOT/docs/STATUS_SCHEMA.json
. "$ROOT/tests/common/checks.sh"
begin_test snarkd-bn254
export SNARKD_SOCKET=$T/d.sock
unset SNARKD_ADDR SNARKD_TOKEN

sql() { sqlite3 "$T/state/journal.db" "$1"; }

start_daemon() { start_snarkd "$T/d.toml"; }

# both_verify VK PUBLIC PROOF: `snarkd verify` and the @noble/curves verifier accept the proof.
both_verify() {
  expect 0 "^valid" "$S" verify "$1" "$2" "$3"
  expect 0 "^valid" node "$NOBLE" "$1" "$2" "$3"
}

# tamper IN OUT: public.json with its first input plus one, exactly (jq's numbers are doubles).
tamper() {
  node -e '
    const fs = require("fs"), [src, dst] = process.argv.slice(1);
    const p = JSON.parse(fs.readFileSync(src, "utf8"));
    p[0] = String(BigInt(p[0]) + 1n);
    fs.writeFileSync(dst, JSON.stringify(p));' "$1" "$2"
}

for tool in sqlite3 curl python3 node jq; do
  command -v $tool >/dev/null 2>&1 || { echo "FAIL: $tool is missing (scripts/install-deps.sh installs it)"; exit 1; }
done
python3 -c 'import jsonschema' 2>/dev/null || { echo "FAIL: python3-jsonschema is missing (scripts/install-deps.sh)"; exit 1; }
[ -f "$ROOT/tools/vectors/node_modules/@noble/curves/package.json" ] || {
  echo "FAIL: tools/vectors/node_modules missing: run (cd tools/vectors && npm install)"; exit 1; }

echo "== the independent verifier accepts trapdoor proofs and rejects tampered ones"
expect 0 "self-test passed" node "$NOBLE" --self-test
expect 0 "^valid" node "$NOBLE" "$Z/bn128/multiplier/verification_key.json" "$Z/bn128/multiplier/public.json" \
  "$Z/bn128/multiplier/proof.json"  # snarkjs's own proof

echo "== keys and witnesses"
mkdir -p "$T/keys" "$T/allowed"
expect 0 "" "$DEVZKEY" --curve bn254 --log 10 --seed 7 --zkey "$T/keys/k.zkey" --wtns "$T/w.wtns" \
  --vk "$T/vk.json" --public "$T/public.json"
# The same shape over BLS12-381: its .wtns has as many values, so only the curve can refuse it.
expect 0 "" "$DEVZKEY" --curve bls12-381 --log 10 --seed 7 --zkey "$T/keys/bls.zkey" --wtns "$T/bls.wtns"
cp "$T/w.wtns" "$T/allowed/w.wtns"
# .wtns → snarkd's Montgomery layout over BN254 (x·2^256 mod r, 32 bytes little-endian), and a
# tampered copy whose aux values are all 2 (the circuit's rows do not hold for it).
cat >"$T/wtns.mjs" <<'EOF'
import { readFileSync, writeFileSync } from 'node:fs';
const [mode, src, dst, nPublic] = process.argv.slice(2);
const b = readFileSync(src);
const n8 = b.readUInt32LE(24), count = b.readUInt32LE(28 + n8), at = 28 + n8 + 4 + 12;  // header, then section 2
if (n8 !== 32 || b.length !== at + 32 * count) throw new Error(`${src}: unexpected layout`);
const r = BigInt('0x' + Buffer.from(b.subarray(28, 28 + n8)).reverse().toString('hex'));
const le = (v) => Buffer.from(v.toString(16).padStart(64, '0'), 'hex').reverse();
const value = (i) => BigInt('0x' + Buffer.from(b.subarray(at + 32 * i, at + 32 * i + 32)).reverse().toString('hex'));
if (mode === 'fr') {
  const out = [];
  for (let i = 0; i < count; i++) out.push(le((value(i) << 256n) % r));
  writeFileSync(dst, Buffer.concat(out));
} else {
  const out = Buffer.from(b);
  for (let i = 1 + Number(nPublic); i < count; i++) le(2n).copy(out, at + 32 * i);
  writeFileSync(dst, out);
}
EOF
npub=$(jq length "$T/public.json")
expect 0 "" node "$T/wtns.mjs" fr "$T/w.wtns" "$T/w.fr"
cp "$T/w.fr" "$T/allowed/w.fr"
expect 0 "" node "$T/wtns.mjs" tamper "$T/w.wtns" "$T/unsat.wtns" "$npub"
head -c 32 /dev/zero | tr '\000' '\377' >"$T/big.fr"
tail -c +33 "$T/w.fr" >>"$T/big.fr"  # value 0 = 2^256 − 1 ≥ r, the rest as the witness

cat >"$T/d.toml" <<EOF
[server]
socket = "$T/d.sock"
http_listen = "127.0.0.1:0"
ports_file = "$T/ports.json"
witness_dirs = ["$T/allowed"]
key_dirs = ["$T/keys", "$Z"]
submit_wait_ms = 20000
[engine]
devices = "cpu"
[journal]
state_dir = "$T/state"
retention_s = 86400
[[circuit]]
id = "bn"
zkey = "$T/keys/k.zkey"
[[circuit]]
id = "bls"
zkey = "$Z/multiplier/multiplier.zkey"
EOF
start_daemon

echo "-- each key's curve in Status and /status"
expect 0 "^key bn: snarkjs BN254, " "$C" status
expect 0 "^key bls: snarkjs BLS12-381, " "$C" status
curl -s "http://127.0.0.1:$HTTP/status" >"$T/status.json"
expect 0 "" python3 -c "
import json, jsonschema
s = json.load(open('$T/status.json'))
jsonschema.validate(s, json.load(open('$SCHEMA')))
k = {x['circuit_id']: x for x in s['keys']}
assert k['bn']['curve'] == 'BN254' and k['bls']['curve'] == 'BLS12-381', k
assert not s['failed_circuits'], s['failed_circuits']
"

echo "-- concurrent one-partition jobs, each proof verified twice"
pids=""
for i in 1 2 3 4; do
  ( "$C" prove --circuit bn "$T/w.wtns" --proof "$T/p$i.json" --public "$T/pub$i.json" --no-progress >"$T/c$i.out" 2>&1
    echo $? >"$T/c$i.rc" ) &
  pids="$pids $!"
done
wait $pids
for i in 1 2 3 4; do
  if [ "$(cat "$T/c$i.rc")" != 0 ]; then fail "client $i: $(cat "$T/c$i.out")"; continue; fi
  both_verify "$T/vk.json" "$T/pub$i.json" "$T/p$i.json"
done
expect 0 "" sh -c "jq -e --slurpfile want '$T/public.json' '. == \$want[0]' '$T/pub1.json'"
expect 0 "^job [0-9]+ done" "$C" prove --circuit bls "$Z/multiplier/multiplier.wtns" --proof "$T/bls.json" \
  --public "$T/bls_pub.json"
expect 0 "^valid" "$S" verify "$Z/multiplier/verification_key.json" "$T/bls_pub.json" "$T/bls.json"

echo "-- tampered public inputs are rejected by both verifiers"
tamper "$T/pub1.json" "$T/tampered.json"
expect 0 "" sh -c "! cmp -s '$T/pub1.json' '$T/tampered.json'"
expect 1 "^invalid" "$S" verify "$T/vk.json" "$T/tampered.json" "$T/p1.json"
expect 1 "^invalid" node "$NOBLE" "$T/vk.json" "$T/tampered.json" "$T/p1.json"

echo "-- jobs of several partitions: .wtns, Montgomery bytes, witness paths"
cat >"$T/multi.sh" <<EOF
j=\$("$C" submit --circuit bn "$T/w.wtns" "$T/w.fr") || exit 3
"$C" await "\$j" --proof "$T/m{k}.json" --public "$T/m{k}_pub.json" --no-progress
EOF
expect 0 "^job [0-9]+ done: circuit bn, 2/2 proven" sh "$T/multi.sh"
two=$(sed -n 's/^job \([0-9]*\) .*/\1/p' "$T/out")
for k in 0 1; do both_verify "$T/vk.json" "$T/m${k}_pub.json" "$T/m$k.json"; done
expect 2 "a snarkjs proof.json holds one proof, the job has 2 partitions \(put \{k\} in the path" \
  "$C" await "$two" --proof "$T/two.json"
expect 0 "^job [0-9]+ done: circuit bn, 3/3 proven" "$C" prove --circuit bn "$T/w.wtns" "$T/w.fr" \
  "$T/w.wtns" --proof "$T/m3.bin" --public "$T/m3_pub.json" --no-progress
size=$(wc -c <"$T/m3.bin")
[ "$size" -eq 768 ] && pass "3 BN254 proofs are 3 × 256 bytes" || fail "3 BN254 proofs are $size bytes"
expect 0 "^job [0-9]+ done: circuit bn, 3/3 proven" "$C" prove --circuit bn "$T/allowed/w.wtns" "$T/allowed/w.fr" \
  "$T/allowed/w.wtns" --by-path --proof "$T/m3_{k}.json" --public "$T/m3_pub_{k}.json" --no-progress
for k in 0 1 2; do both_verify "$T/vk.json" "$T/m3_pub_$k.json" "$T/m3_$k.json"; done
tamper "$T/m3_pub_2.json" "$T/m3_tampered.json"
expect 1 "^invalid" node "$NOBLE" "$T/vk.json" "$T/m3_tampered.json" "$T/m3_2.json"

echo "-- bad witnesses: refused with their reason, the daemon keeps serving"
expect 3 "INVALID_ARGUMENT: partition 0 \(.wtns\): prime 0x73eda753.* is not BN254's r .*it is BLS12-381's" \
  "$C" submit --circuit bn "$T/bls.wtns"
expect 0 "loaded bls10: snarkjs BLS12-381, " "$C" preload --id bls10 --zkey "$T/keys/bls.zkey"
expect 3 "INVALID_ARGUMENT: partition 1 \(.wtns\): .*is not BLS12-381's r .*it is BN254's" \
  "$C" submit --circuit bls10 "$T/bls.wtns" "$T/w.wtns"
expect 3 "INVALID_ARGUMENT: partition 0: value 0 is not below the BN254 Fr modulus" "$C" submit --circuit bn "$T/big.fr"
expect 1 "^job [0-9]+ failed" "$C" prove --circuit bn "$T/unsat.wtns" --no-progress
alive && pass "the daemon is still running" || fail "the daemon died"
expect 0 "^job [0-9]+ done" "$C" prove --circuit bn "$T/w.wtns" --proof "$T/after.json" --public "$T/after_pub.json"
both_verify "$T/vk.json" "$T/after_pub.json" "$T/after.json"

echo "-- PreloadKey of snarkjs's bn128 fixture key"
expect 0 "loaded m: snarkjs BN254, " "$C" preload --id m --zkey "$Z/bn128/multiplier/multiplier.zkey"
expect 0 "^job [0-9]+ done" "$C" prove --circuit m "$Z/bn128/multiplier/multiplier.wtns" --proof "$T/fm.json" \
  --public "$T/fm_pub.json"
both_verify "$Z/bn128/multiplier/verification_key.json" "$T/fm_pub.json" "$T/fm.json"
expect 0 "" sh -c "jq -e --slurpfile want '$Z/bn128/multiplier/public.json' '. == \$want[0]' '$T/fm_pub.json'"

echo "-- kill -9 with BN254 jobs queued, restart: re-queued from the spool, each finished once"
ks=""
for i in 1 2 3 4 5 6; do ks="$ks $("$C" submit --circuit bn "$T/w.wtns" "$T/w.fr" "$T/w.wtns" "$T/w.fr")"; done
kill -9 "$PID"
wait "$PID" 2>/dev/null
PID=""
last=$(echo $ks | awk '{print $NF}')
[ "$(sql "SELECT state FROM jobs WHERE id = $last")" = queued ] && pass "job $last journaled as queued at the crash" ||
  fail "job $last is $(sql "SELECT state FROM jobs WHERE id = $last") at the crash"
start_daemon
for k in $ks; do
  expect 0 "^job $k done: circuit bn, 4/4 proven" "$C" await "$k" --proof "$T/k$k.{k}.json" \
    --public "$T/k$k.{k}.pub.json" --no-progress
  for p in 0 1 2 3; do expect 0 "^valid" node "$NOBLE" "$T/vk.json" "$T/k$k.$p.pub.json" "$T/k$k.$p.json"; done
done
expect 0 "^valid" "$S" verify "$T/vk.json" "$T/k$last.3.pub.json" "$T/k$last.3.json"
[ "$(sql "SELECT attempts FROM jobs WHERE id = $last")" = 2 ] && pass "job $last ran on its second attempt" ||
  fail "job $last: attempts $(sql "SELECT attempts FROM jobs WHERE id = $last"), expected 2"
bad=$(sql "SELECT count(*) FROM (SELECT job_id FROM job_events WHERE event IN ('done','failed','cancelled') GROUP BY job_id HAVING count(*) != 1)")
finished=$(sql "SELECT count(DISTINCT job_id) FROM job_events WHERE event IN ('done','failed','cancelled')")
total=$(sql "SELECT count(*) FROM jobs")
[ "$bad" -eq 0 ] && [ "$finished" -eq "$total" ] && pass "each of $total jobs finished exactly once (journal events)" ||
  fail "exactly once: $bad jobs with ≠ 1 terminal event, $finished of $total finished"
expect 0 "^key m: snarkjs BN254, " "$C" status  # the journaled PreloadKey circuit came back

kill -TERM "$PID"
wait "$PID"
rc=$?
PID=""
[ "$rc" -eq 0 ] && pass "SIGTERM: the daemon exited 0" || fail "SIGTERM: exit code $rc"

end_test "BN254 daemon" "$T/daemon.log"
